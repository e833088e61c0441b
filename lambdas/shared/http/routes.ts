/**
 * The route table: every operation of the API, declared once. The CDK API
 * construct builds API Gateway resources from it, the local HTTP front routes
 * with it, and the request pipeline reads each route's rules (authentication,
 * scope, allowed query parameters, body) from it.
 *
 * Paths are relative to the base URL, which ends with the `v1` stage.
 */
import type { Scope } from '../identity/scopes';
import type { SecretId } from '../secret-names';
import type { RouteCategory } from '../limits/limits-table';
import { RECORD_LIST_INDEXES, type TableId } from '../storage/table-definitions';

/** The API Gateway stage every path lives under: the base URL ends with it. */
export const API_STAGE_NAME = 'v1';

/** A Lambda function serving a group of endpoints. */
export type EndpointGroup = 'system' | 'identity' | 'records' | 'entitlements' | 'invitations' | 'tickets' | 'player';

export const ENDPOINT_GROUPS: readonly EndpointGroup[] = ['system', 'identity', 'records', 'entitlements', 'invitations', 'tickets', 'player'];

/** The group whose function answers every path or method that no route declares (404 `NOT_FOUND`). */
export const FALLBACK_GROUP: EndpointGroup = 'system';

export interface RouteDefinition {
  readonly id: string;
  readonly method: 'GET' | 'POST';
  /** API Gateway resource template, e.g. `/partners/{partner_id}/records`. */
  readonly path: string;
  readonly group: EndpointGroup;
  /**
   * `none`: no key needed; `key`: a valid API key is required; `player`: the player site, which
   * takes no key (a request carrying an Authorization header is 400 API_KEY_NOT_ACCEPTED) and
   * counts toward the player limits of its category (by source IP and join link).
   */
  readonly auth: 'none' | 'key' | 'player';
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

/** The player site's path prefix under the stage: join links are `<base URL>/join/<invitation id>#token=…`. */
export const PLAYER_SITE_PATH = '/join';

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

// ── data access per function (least privilege) ───────────────────────────

export type DynamoAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:Query'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:ConditionCheckItem';

/** Actions a function may take on one table, or, when `indexes` are listed, on those indexes of it only. */
export interface TableAccess {
  readonly table: TableId;
  readonly actions: readonly DynamoAction[];
  /** The indexes these actions are granted on (not the table itself); none: the table. */
  readonly indexes?: readonly string[];
}

/**
 * What the pipeline itself does for every route that needs a key
 * (lambdas/shared/limits/admission-store.ts): a consistent GetItem of the key
 * item when a container sees the key first, and conditional UpdateItems for
 * counters, leases, compensations, releases and the rate-log sample. Every
 * group with such a route gets it, and only that, on the `access` table.
 */
export const ADMISSION_DATA_ACCESS: TableAccess = { table: 'access', actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] };

/** The player site's admission (lambdas/shared/limits/player-admission.ts): conditional UpdateItems of its IP and join-link counters. */
export const PLAYER_ADMISSION_DATA_ACCESS: TableAccess = { table: 'access', actions: ['dynamodb:UpdateItem'] };

/**
 * What each group's own operations do with the tables, beyond admission:
 * declared here, next to the group's routes, and granted to its function
 * exactly (lib/constructs/api-function.ts). A new group declares its needs
 * here; the infrastructure tests check every group's policy against it.
 */
export const GROUP_DATA_ACCESS: Readonly<Record<EndpointGroup, readonly TableAccess[]>> = {
  // GET /health and the 404 fallback touch no table.
  system: [],
  // GET /me answers from what admission already read.
  identity: [],
  // GET /records/{uuid}: one read of the uuid item; GET /partners/{partner_id}/records/{record_id}: one read of the record item;
  // GET /partners/{partner_id}/records: one Query of a record list index (lambdas/records/record-list.ts).
  records: [
    { table: 'domain', actions: ['dynamodb:GetItem'] },
    { table: 'domain', actions: ['dynamodb:Query'], indexes: Object.values(RECORD_LIST_INDEXES).map((index) => index.indexName) },
  ],
  // Both summaries: one Query of the owner's grants (lambdas/entitlements/entitlement-store.ts).
  entitlements: [{ table: 'domain', actions: ['dynamodb:Query'] }],
  // lambdas/invitations/invitation-store.ts: the creation's BatchGetItem and transaction (Puts), reads,
  // the revoke's transaction (Updates), and the list's Query of gsi1.
  invitations: [
    { table: 'domain', actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] },
    { table: 'domain', actions: ['dynamodb:Query'], indexes: ['gsi1'] },
  ],
  // lambdas/tickets: the organization item and the joined index's partitions (Query on the table),
  // the invitations (BatchGetItem, GetItem) and the ticket (GetItem).
  tickets: [{ table: 'domain', actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'] }],
  // lambdas/player: the invitation and the ticket (GetItem), the conversation (Query), the claim's and the
  // ticket's transactions (Put, Update, Delete of the claim marker).
  player: [{ table: 'domain', actions: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'] }],
};

/** The service secrets (lambdas/shared/secret-names.ts) each group's function reads. */
export const GROUP_SECRET_ACCESS: Readonly<Record<EndpointGroup, readonly SecretId[]>> = {
  system: [],
  identity: [],
  // The record list signs and verifies its cursors.
  records: ['record-cursor'],
  entitlements: [],
  // Join links are derived from the invitation id under this secret (lambdas/invitations/join-link.ts).
  invitations: ['invitation-token'],
  tickets: [],
  // The player site checks a link's token by computing it again.
  player: ['invitation-token'],
};

/**
 * Everything a group's function may do with the tables: its own declaration plus admission's if a
 * route needs a key. Declarations on the same table and the same indexes (or none) are merged.
 */
export function dataAccessOf(group: EndpointGroup, routes: readonly RouteDefinition[] = ROUTES): TableAccess[] {
  const needsAdmission = routes.some((route) => route.group === group && route.auth === 'key');
  const needsPlayerAdmission = routes.some((route) => route.group === group && route.auth === 'player' && route.category !== undefined);
  const declared = [
    ...(needsAdmission ? [ADMISSION_DATA_ACCESS] : []),
    ...(needsPlayerAdmission ? [PLAYER_ADMISSION_DATA_ACCESS] : []),
    ...GROUP_DATA_ACCESS[group],
  ];
  const merged = new Map<string, { table: TableId; indexes: string[]; actions: Set<DynamoAction> }>();
  for (const access of declared) {
    const indexes = [...(access.indexes ?? [])].sort();
    const target = `${access.table}/${indexes.join(',')}`;
    const entry = merged.get(target) ?? { table: access.table, indexes, actions: new Set<DynamoAction>() };
    for (const action of access.actions) entry.actions.add(action);
    merged.set(target, entry);
  }
  return [...merged.values()].map(({ table, indexes, actions }) => ({
    table,
    actions: [...actions].sort(),
    ...(indexes.length > 0 ? { indexes } : {}),
  }));
}
