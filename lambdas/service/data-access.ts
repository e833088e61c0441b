/**
 * What each function may do with the tables and which service secrets it reads (least privilege), assembled
 * for the CDK constructs (lib/constructs/surface-api.ts grants exactly this) and the tests: the admission
 * steps' needs (the partner API's in lambdas/shared/limits, the player site's in lambdas/player) and each
 * group's own operations'. A new group declares its needs here.
 */
import { PLAYER_COUNTER_KEY_PREFIXES } from '../player/player-counter-keys';
import type { SecretId } from '../shared/secret-names';
import { type EndpointGroup, type RouteDefinition } from '../shared/http/routes';
import { ROUTES } from './routes';
import { RECORD_LIST_INDEXES, type TableId } from '../shared/storage/table-definitions';

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
  /**
   * When set, the actions hold only on items whose partition key starts with one of these prefixes
   * (IAM `ForAllValues:StringLike` on `dynamodb:LeadingKeys`). Declare it from the constants the code
   * builds its keys with, never a copied string: DynamoDB Local does not enforce IAM, so a prefix
   * the code writes and the policy misses fails only in AWS.
   */
  readonly leadingKeyPrefixes?: readonly string[];
}

/**
 * What the pipeline itself does for every route that needs a key
 * (lambdas/shared/limits/admission-store.ts): a consistent GetItem of the key
 * item when a container sees the key first, and conditional UpdateItems for
 * counters, leases, compensations, releases and the rate-log sample. Every
 * group with such a route gets it, and only that, on the `access` table.
 */
export const ADMISSION_DATA_ACCESS: TableAccess = { table: 'access', actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] };

/**
 * The player site's admission (lambdas/player/player-admission.ts): conditional UpdateItems of its IP and join-link
 * counters, and nothing else of `access` (the function takes no key and no session: an unauthenticated caller's code
 * path must not reach password hashes, sessions, keys or grants).
 */
export const PLAYER_ADMISSION_DATA_ACCESS: TableAccess = { table: 'access', actions: ['dynamodb:UpdateItem'], leadingKeyPrefixes: PLAYER_COUNTER_KEY_PREFIXES };

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
  // lambdas/tickets: the organization item, the invitation and the ticket (GetItem), and the joined
  // invitations of the list's blocks (Query of gsi1).
  tickets: [
    { table: 'domain', actions: ['dynamodb:GetItem'] },
    { table: 'domain', actions: ['dynamodb:Query'], indexes: ['gsi1'] },
  ],
  // lambdas/player: the invitation and the ticket (GetItem), the conversation (Query), the claim's and the
  // ticket's transactions (Put, Update, Delete of the claim marker).
  player: [{ table: 'domain', actions: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'] }],
  // lambdas/settings over lambdas/back-office, all on `access`: sessions (Put, Get, Update of the activity, Delete at
  // sign-out), the settings counters (UpdateItem), the sign-in item (GetItem, the two-factor changes), keys (the creation's and revocation's transactions: Put, Update, ConditionCheck;
  // the account's entries and audit trail: Query; the organizations of listed keys: BatchGetItem); the account's
  // memberships (Query of gsi1).
  settings: [
    {
      table: 'access',
      actions: ['dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
    },
    { table: 'access', actions: ['dynamodb:Query'], indexes: ['gsi1'] },
  ],
  // lambdas/sign-in (signing in, over lambdas/back-office), all on `access`: the sign-in counters by source IP and e-mail
  // address or device, and the address's refused attempts (UpdateItem), the e-mail reservation, the account and its sign-in item (GetItem), the two-factor code's step
  // (conditional UpdateItem), the new session and the audit entries (PutItem). No Query, no Delete, no transaction: the
  // function an unauthenticated flood reaches cannot list or remove anything.
  'sign-in': [{ table: 'access', actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] }],
  // lambdas/webhooks over lambdas/webhooks/*-store.ts, all on `access`: the session (GetItem, its activity's UpdateItem), the
  // creation's transaction (Put of the callback and its account entry, Update of the account's and organization's callback
  // sets, ConditionCheck of the membership), the account's callbacks (Query of its entries, BatchGetItem of the callbacks),
  // verification and deactivation (UpdateItem), the deliveries (Query) and a resend (UpdateItem), the limit counters (UpdateItem).
  webhooks: [
    {
      table: 'access',
      actions: ['dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
    },
  ],
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
  settings: [],
  // Signing in verifies and sets the browser's device cookie (lambdas/settings/device-cookie.ts).
  'sign-in': ['device-cookie'],
  webhooks: [],
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
  // Only declarations with the same table, indexes and leading-key restriction merge: a restricted grant never widens.
  const merged = new Map<string, { table: TableId; indexes: string[]; leadingKeyPrefixes: string[] | undefined; actions: Set<DynamoAction> }>();
  for (const access of declared) {
    const indexes = [...(access.indexes ?? [])].sort();
    const leadingKeyPrefixes = access.leadingKeyPrefixes ? [...access.leadingKeyPrefixes].sort() : undefined;
    const target = `${access.table}/${indexes.join(',')}/${leadingKeyPrefixes?.join(',') ?? '*'}`;
    const entry = merged.get(target) ?? { table: access.table, indexes, leadingKeyPrefixes, actions: new Set<DynamoAction>() };
    for (const action of access.actions) entry.actions.add(action);
    merged.set(target, entry);
  }
  return [...merged.values()].map(({ table, indexes, leadingKeyPrefixes, actions }) => ({
    table,
    actions: [...actions].sort(),
    ...(indexes.length > 0 ? { indexes } : {}),
    ...(leadingKeyPrefixes ? { leadingKeyPrefixes } : {}),
  }));
}
