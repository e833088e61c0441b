/**
 * The route table: every operation of the API, declared once. The CDK API
 * construct builds API Gateway resources from it, the local HTTP front routes
 * with it, and the request pipeline reads each route's rules (authentication,
 * scope, allowed query parameters, body) from it.
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

export const ROUTES = [
  { id: 'health', method: 'GET', path: '/health', group: 'system', auth: 'none', query: [], body: 'none' },
  { id: 'me', method: 'GET', path: '/me', group: 'identity', auth: 'key', query: [], body: 'none' },
  { id: 'entitlements', method: 'GET', path: '/entitlements', group: 'entitlements', auth: 'key', scope: 'entitlements:read', query: [], body: 'none' },
  { id: 'record-lookup', method: 'GET', path: '/records/{uuid}', group: 'records', auth: 'key', scope: 'public:read', query: [], body: 'none' },
  {
    id: 'org-records',
    method: 'GET',
    path: '/partners/{partner_id}/records',
    group: 'records',
    auth: 'key',
    scope: 'records:read',
    partnerBound: true,
    query: ['limit', 'cursor', 'updated_after', 'result', 'game', 'player_name'],
    body: 'none',
  },
  {
    id: 'org-record',
    method: 'GET',
    path: '/partners/{partner_id}/records/{record_id}',
    group: 'records',
    auth: 'key',
    scope: 'records:read',
    partnerBound: true,
    query: [],
    body: 'none',
  },
  {
    id: 'org-entitlements',
    method: 'GET',
    path: '/partners/{partner_id}/entitlements',
    group: 'entitlements',
    auth: 'key',
    scope: 'entitlements:read',
    partnerBound: true,
    query: [],
    body: 'none',
  },  {
    id: 'invitations',
    method: 'GET',
    path: '/partners/{partner_id}/invitations',
    group: 'invitations',
    auth: 'key',
    scope: 'invitations:read',
    partnerBound: true,
    category: 'invitation',
    query: ['page'],
    body: 'none',
  },
  {
    id: 'invitation-create',
    method: 'POST',
    path: '/partners/{partner_id}/invitations',
    group: 'invitations',
    auth: 'key',
    scope: 'invitations:write',
    partnerBound: true,
    category: 'invitation-create',
    query: [],
    body: 'json',
  },
  {
    id: 'invitation',
    method: 'GET',
    path: '/partners/{partner_id}/invitations/{invitation_id}',
    group: 'invitations',
    auth: 'key',
    scope: 'invitations:read',
    partnerBound: true,
    category: 'invitation',
    query: [],
    body: 'none',
  },
  {
    id: 'invitation-link',
    method: 'GET',
    path: '/partners/{partner_id}/invitations/{invitation_id}/link',
    group: 'invitations',
    auth: 'key',
    scope: 'invitations:write',
    partnerBound: true,
    category: 'invitation',
    query: [],
    body: 'none',
  },
  {
    id: 'invitation-revoke',
    method: 'POST',
    path: '/partners/{partner_id}/invitations/{invitation_id}/revoke',
    group: 'invitations',
    auth: 'key',
    scope: 'invitations:write',
    partnerBound: true,
    category: 'invitation',
    query: [],
    body: 'none',
  },  {
    id: 'tickets',
    method: 'GET',
    path: '/partners/{partner_id}/tickets',
    group: 'tickets',
    auth: 'key',
    scope: 'tickets:read',
    partnerBound: true,
    category: 'ticket',
    query: ['page'],
    body: 'none',
  },
  {
    id: 'ticket',
    method: 'GET',
    path: '/partners/{partner_id}/tickets/{invitation_id}',
    group: 'tickets',
    auth: 'key',
    scope: 'tickets:read',
    partnerBound: true,
    category: 'ticket',
    query: [],
    body: 'none',
  },
  // The player site (not part of the partner API: docs/player-site.md): the page, and the calls its script makes.
  { id: 'player-page', method: 'GET', path: '/join/{invitation_id}', group: 'player', auth: 'player', query: [], body: 'none' },
  { id: 'player-view', method: 'GET', path: '/join/{invitation_id}/view', group: 'player', auth: 'player', category: 'player-view', query: [], body: 'none' },
  { id: 'player-claim', method: 'POST', path: '/join/{invitation_id}/claim', group: 'player', auth: 'player', category: 'player-claim', query: [], body: 'json' },
  { id: 'player-message', method: 'POST', path: '/join/{invitation_id}/messages', group: 'player', auth: 'player', category: 'player-message', query: [], body: 'json' },
  // Web settings (docs/web-settings.md): the page, and the settings API its script calls.
  { id: 'settings-page', method: 'GET', path: '/settings', group: 'settings', auth: 'web', query: [], body: 'none' },
  // Signing in has a function of its own (each attempt a password hash): a flood of it spends that function's reserved
  // concurrency, never the settings function's (docs/infrastructure.md, "Sign-in's own function").
  { id: 'settings-sign-in', method: 'POST', path: '/settings/api/session', group: 'sign-in', auth: 'web', category: 'settings-sign-in', query: [], body: 'json' },
  { id: 'settings-sign-out', method: 'DELETE', path: '/settings/api/session', group: 'settings', auth: 'web', query: [], body: 'none' },
  { id: 'settings-session', method: 'GET', path: '/settings/api/session', group: 'settings', auth: 'session', category: 'settings-view', query: [], body: 'none' },
  { id: 'settings-organizations', method: 'GET', path: '/settings/api/organizations', group: 'settings', auth: 'session', category: 'settings-view', query: [], body: 'none' },
  { id: 'settings-keys', method: 'GET', path: '/settings/api/keys', group: 'settings', auth: 'session', category: 'settings-view', query: [], body: 'none' },
  { id: 'settings-key-create', method: 'POST', path: '/settings/api/keys', group: 'settings', auth: 'session', category: 'settings-key-create', query: [], body: 'json' },
  { id: 'settings-key-revoke', method: 'POST', path: '/settings/api/keys/{key_id}/revoke', group: 'settings', auth: 'session', category: 'settings-revoke', query: [], body: 'none' },
  // The remedies (password change, two-factor confirm, sign out everywhere) count on their session only: nothing another session spends can block them.
  { id: 'settings-password', method: 'POST', path: '/settings/api/password', group: 'settings', auth: 'session', category: 'settings-remedy', query: [], body: 'json' },
  { id: 'settings-two-factor-enrol', method: 'POST', path: '/settings/api/two-factor/enrol', group: 'settings', auth: 'session', category: 'settings-change', query: [], body: 'json' },
  { id: 'settings-two-factor-confirm', method: 'POST', path: '/settings/api/two-factor/confirm', group: 'settings', auth: 'session', category: 'settings-remedy', query: [], body: 'json' },
  { id: 'settings-two-factor-disable', method: 'POST', path: '/settings/api/two-factor/disable', group: 'settings', auth: 'session', category: 'settings-change', query: [], body: 'json' },
  { id: 'settings-sign-out-everywhere', method: 'POST', path: '/settings/api/sign-out-everywhere', group: 'settings', auth: 'session', category: 'settings-remedy', query: [], body: 'none' },
  { id: 'settings-audit', method: 'GET', path: '/settings/api/audit', group: 'settings', auth: 'session', category: 'settings-view', query: ['cursor'], body: 'none' },
  // Webhook callbacks in web settings (docs/webhooks.md): their own function (KMS, the delivery queue), the same session and limits.
  { id: 'webhooks', method: 'GET', path: '/settings/api/webhooks', group: 'webhooks', auth: 'session', category: 'settings-view', query: [], body: 'none' },
  { id: 'webhook-create', method: 'POST', path: '/settings/api/webhooks', group: 'webhooks', auth: 'session', category: 'settings-webhook-create', query: [], body: 'json' },
  { id: 'webhook-verify', method: 'POST', path: '/settings/api/webhooks/{webhook_id}/verify', group: 'webhooks', auth: 'session', category: 'settings-webhook-check', query: [], body: 'none' },
  { id: 'webhook-test', method: 'POST', path: '/settings/api/webhooks/{webhook_id}/test', group: 'webhooks', auth: 'session', category: 'settings-webhook-check', query: [], body: 'none' },
  { id: 'webhook-deactivate', method: 'POST', path: '/settings/api/webhooks/{webhook_id}/deactivate', group: 'webhooks', auth: 'session', category: 'settings-revoke', query: [], body: 'none' },
  { id: 'webhook-deliveries', method: 'GET', path: '/settings/api/webhooks/{webhook_id}/deliveries', group: 'webhooks', auth: 'session', category: 'settings-view', query: [], body: 'none' },
  {
    id: 'webhook-resend',
    method: 'POST',
    path: '/settings/api/webhooks/{webhook_id}/deliveries/{delivery_id}/resend',
    group: 'webhooks',
    auth: 'session',
    category: 'settings-webhook-resend',
    query: [],
    body: 'none',
  },
] as const satisfies readonly RouteDefinition[];

export type RouteId = (typeof ROUTES)[number]['id'];

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

  constructor(readonly routes: readonly RouteDefinition[] = ROUTES) {
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

export const defaultRouter = new Router();
