/**
 * What a route is: its shape (RouteDefinition), the functions (groups) and surfaces routes belong to, and the router
 * that finds one. The routes themselves are declared in their groups (`lambdas/<group>/*-routes.ts`), and
 * lambdas/service/routes.ts assembles the service's table: the CDK API construct builds API Gateway resources from
 * it, the local HTTP front routes with it; a function's pipeline reads its own group's routes' rules (authentication,
 * scope, allowed query parameters, body).
 *
 * Paths are relative to the base URL, which ends with the `v1` stage.
 */
import type { Scope } from '../identity/scopes';
import type { RouteCategory } from '../limits/limits-table';

/** The API Gateway stage every path lives under: the base URL ends with it. */
export const API_STAGE_NAME = 'v1';

/** A Lambda function serving a group of endpoints. */
export type EndpointGroup = 'system' | 'identity' | 'records' | 'entitlements' | 'invitations' | 'tickets' | 'player' | 'settings' | 'sign-in' | 'webhooks';

export const ENDPOINT_GROUPS: readonly EndpointGroup[] = ['system', 'identity', 'records', 'entitlements', 'invitations', 'tickets', 'player', 'settings', 'sign-in', 'webhooks'];

/**
 * The two front doors of the service, each its own API Gateway REST API with its own WAF web ACL
 * (lib/constructs): the partner API (API keys, the spec's envelope) and the web side (the player
 * site and web settings: browsers, no API keys). Every group belongs to exactly one.
 */
export type Surface = 'partner' | 'web';

export const SURFACE_OF_GROUP: Readonly<Record<EndpointGroup, Surface>> = {
  system: 'partner',
  identity: 'partner',
  records: 'partner',
  entitlements: 'partner',
  invitations: 'partner',
  tickets: 'partner',
  player: 'web',
  settings: 'web',
  'sign-in': 'web',
  webhooks: 'web',
};

export const groupsOf = (surface: Surface): EndpointGroup[] => ENDPOINT_GROUPS.filter((group) => SURFACE_OF_GROUP[group] === surface);

/** Per surface, the group whose function answers every path or method that no route declares (404 `NOT_FOUND`). */
export const FALLBACK_GROUPS: Readonly<Record<Surface, EndpointGroup>> = { partner: 'system', web: 'settings' };

/** The partner API's fallback (the local front, which serves both surfaces on one origin, uses it for unknown paths outside the web side's). */
export const FALLBACK_GROUP: EndpointGroup = FALLBACK_GROUPS.partner;

/** The web side's path prefixes under the stage: the player site and web settings. */
export const PLAYER_SITE_PATH = '/join';
export const SETTINGS_PATH = '/settings';

/** Which surface a path (relative to the stage) belongs to. */
export const surfaceOfPath = (path: string): Surface =>
  [PLAYER_SITE_PATH, SETTINGS_PATH].some((prefix) => path === prefix || path.startsWith(`${prefix}/`)) ? 'web' : 'partner';

/** Web settings answer errors in the spec's web-settings shape (top-level `code` and `message`), not the API envelope. */
export const isSettingsPath = (path: string): boolean => path === SETTINGS_PATH || path.startsWith(`${SETTINGS_PATH}/`);

export interface RouteDefinition {
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** API Gateway resource template, e.g. `/partners/{partner_id}/records`. */
  readonly path: string;
  readonly group: EndpointGroup;
  /**
   * `none`: no key needed; `key`: a valid API key is required; `player`: the player site, which
   * takes no key (a request carrying an Authorization header is 400 API_KEY_NOT_ACCEPTED) and
   * counts toward the player limits of its category (by source IP and join link); `session`: web
   * settings, signed in (the session cookie; an Authorization header is refused as on the player
   * site); `web`: web settings without a session (the page, signing in and out).
   */
  readonly auth: 'none' | 'key' | 'player' | 'session' | 'web';
  /** Business scope the key must carry, if any. */
  readonly scope?: Scope;
  /** Whether the route is bound to the `{partner_id}` path organization. */
  readonly partnerBound?: boolean;
  /** Which invitation/ticket quotas and concurrency limits the route counts toward (see limits-table.ts). */
  readonly category?: RouteCategory;
  /** Query parameter names the route accepts; anything else is 422 `UNKNOWN_PARAMETER`. */
  readonly query: readonly string[];
  /** `none`: a body is 400 `BODY_NOT_ALLOWED`; `json`: a JSON object body is required. */
  readonly body: 'none' | 'json';
}


/** A group's routes but `ids` (those a function serves from another chunk, such as its page). */
export function routesExcept<R extends readonly RouteDefinition[], K extends R[number]['id']>(routes: R, ...ids: K[]): readonly Exclude<R[number], { readonly id: K }>[] {
  return routes.filter((route): route is Exclude<R[number], { readonly id: K }> => !(ids as readonly string[]).includes(route.id));
}

/** Resource template API Gateway reports for requests no route declares. */
export const FALLBACK_RESOURCE = '/{proxy+}';

export interface RouteMatch {
  readonly route: RouteDefinition;
  readonly pathParameters: Record<string, string>;
}

interface CompiledRoute {
  readonly route: RouteDefinition;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

function compile(route: RouteDefinition): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{([a-z_]+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), names };
}

/** A router over a route table (the service's own, or a test's extended copy). */
export class Router {
  private readonly compiled: readonly CompiledRoute[];

  constructor(readonly routes: readonly RouteDefinition[]) {
    this.compiled = routes.map(compile);
  }

  /** Match a concrete path (percent-decoded per segment) and method, as API Gateway does. */
  match(method: string, path: string): RouteMatch | undefined {
    for (const { route, pattern, names } of this.compiled) {
      if (route.method !== method) continue;
      const found = pattern.exec(path);
      if (!found) continue;
      const pathParameters: Record<string, string> = {};
      names.forEach((name, i) => {
        pathParameters[name] = safeDecode(found[i + 1]);
      });
      return { route, pathParameters };
    }
    return undefined;
  }

  /** The route API Gateway invoked, from the event's resource template and method. */
  byResource(method: string, resource: string): RouteDefinition | undefined {
    return this.routes.find((r) => r.method === method && r.path === resource);
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

