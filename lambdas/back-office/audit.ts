/**
 * The account's audit trail: its web-settings changes (keys, password,
 * two-factor, webhook callbacks), its sign-ins, and the operator's changes to
 * it and to its organizations. Each entry is an item in the account's
 * partition of the `access` table (`ACCOUNT#<id>` / `AUDIT#<ISO time>#<random>`),
 * written in the same transaction as the change it records, so there is never
 * a change without its entry nor an entry without its change; what stores no
 * change (a sign-in, a test event sent) is one Put after it happened. Entries are kept 30 days: reads
 * stop at 30 days by the sort key (TTL removes the item later, and nothing
 * relies on it).
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AUDIT_ACTIONS } from './audit-actions';
import { accountKey } from '../shared/identity/access-items';
import { BackOfficeError } from './errors';
import { randomId, type IdentityStore } from './identity-store';

export const AUDIT_RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;
const AUDIT_PREFIX = 'AUDIT#';
/** Entries a read returns at most (newest first). */
export const AUDIT_PAGE_SIZE = 100;

/**
 * What an entry records (the list: AUDIT_ACTIONS, shared with the settings API's contract):
 * - `key.*`, `password.changed`, `two_factor.enrolled|enabled|disabled`, `webhook.created|verified|deactivated`:
 *   the account's own changes in web settings, in the change's transaction;
 * - `password.reset`, `two_factor.reset`, `account.deactivated|reactivated`, `membership.set|removed` (the
 *   member's trail), `organization.archived|restored` (each manager's trail), `webhook.delivery_requeued`,
 *   `webhook.event_redelivered`: the operator (admin CLI), in the change's transaction;
 * - `sign_in.succeeded` (with the session's Put), `sign_in.refused_attempts` (after it, when attempts at the address
 *   were refused since its last sign-in: their `count`), `sign_in.two_factor_failed` (the right password, a wrong or
 *   replayed code: a missing one is the form's first step), `webhook.tested`, `webhook.resent`: one Put each;
 * - `reauth.failed` (a wrong password or code on a re-checked settings route, with the route), `session.ended` (the
 *   session's last allowed failure ended it), `sessions.ended` (sign out everywhere, in the change's transaction).
 */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who made a change, and from where: the web settings' signed-in account and the request's source IP, or the operator. */
export interface AuditSource {
  readonly via: 'settings' | 'operator';
  /** The source IP as API Gateway saw it (settings only). */
  readonly sourceIp?: string;
}

export const OPERATOR: AuditSource = { via: 'operator' };

export interface AuditEntry {
  readonly at: string;
  readonly action: AuditAction;
  readonly via: AuditSource['via'];
  readonly source_ip: string | null;
  /** The key a key change is about. */
  readonly key_id?: string;
  /** The webhook callback a webhook change is about. */
  readonly webhook_id?: string;
  /** The delivery an operator's webhook action is about. */
  readonly delivery_id?: string;
  /** The organization a membership or organization change is about. */
  readonly partner_id?: string;
  /** The role a membership change gave. */
  readonly role?: string;
  /** The web-settings route a failed re-check (or the session it ended) was made on. */
  readonly route?: string;
  /** How many sign-in attempts were refused since the last sign-in (`sign_in.refused_attempts`). */
  readonly count?: number;
}

export type AuditDetails = Pick<AuditEntry, 'key_id' | 'webhook_id' | 'delivery_id' | 'partner_id' | 'role' | 'route' | 'count'>;
const DETAIL_FIELDS = ['key_id', 'webhook_id', 'delivery_id', 'partner_id', 'role', 'route'] as const;

/** A page of the audit view: its entries, newest first, and where the next (older) page starts. */
export interface AuditPage {
  readonly entries: AuditEntry[];
  /** Opaque; absent on the last page. */
  readonly next_cursor?: string;
}

/**
 * The cursor of the audit view: the last entry's sort key, base64url. Not signed: it only positions a Query
 * inside the signed-in account's own partition (the partition comes from the session, never from the cursor),
 * and the 30-day bound still applies, so a forged cursor shows nothing the account could not page to.
 */
const CURSOR_PATTERN = /^AUDIT#\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[A-Za-z0-9_-]{1,64}$/;
export const encodeAuditCursor = (sk: string) => Buffer.from(sk, 'utf8').toString('base64url');
export function decodeAuditCursor(cursor: string): string | undefined {
  const sk = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  return CURSOR_PATTERN.test(sk) ? sk : undefined;
}

/**
 * An entry that names itself: its time and id (`[A-Za-z0-9_-]`, at most 64) made from what it records, so a retry of
 * the request writing it again writes the same item (a Put over it), never a second entry.
 */
export interface AuditEntryName {
  readonly at: string;
  readonly id: string;
}

/** The Put of one audit entry, for the change's transaction. */
export function auditPut(
  store: IdentityStore,
  accountId: string,
  action: AuditAction,
  source: AuditSource,
  details: AuditDetails = {},
  name?: AuditEntryName,
): { Put: { TableName: string; Item: Record<string, unknown> } } {
  const now = store.clock();
  const entry: AuditEntry = { at: name?.at ?? now.toISOString(), action, via: source.via, source_ip: source.sourceIp ?? null, ...details };
  return {
    Put: {
      TableName: store.table,
      Item: {
        pk: accountKey(accountId).pk,
        sk: `${AUDIT_PREFIX}${entry.at}#${name?.id ?? randomId('a')}`,
        type: 'audit',
        ...entry,
        ttl: Math.floor(now.getTime() / 1000) + (AUDIT_RETENTION_DAYS + 1) * 86_400,
      },
    },
  };
}

export class Audit {
  constructor(private readonly store: IdentityStore) {}

  /** The account's newest entries of the last 30 days (at most AUDIT_PAGE_SIZE): see page. */
  async list(accountId: string): Promise<AuditEntry[]> {
    return (await this.page(accountId)).entries;
  }

  /**
   * One page of the account's entries of the last 30 days, newest first, from `after` (a page's
   * `next_cursor`; INVALID_ARGUMENT when it is not one): one Query, whatever the depth.
   */
  async page(accountId: string, after?: string): Promise<AuditPage> {
    const since = new Date(this.store.clock().getTime() - AUDIT_RETENTION_DAYS * DAY_MS).toISOString();
    const before = after === undefined ? undefined : decodeAuditCursor(after);
    if (after !== undefined && before === undefined) throw new BackOfficeError('INVALID_ARGUMENT', 'The cursor is not one this view gave.');
    const pk = accountKey(accountId).pk;
    const { Items = [], LastEvaluatedKey } = await this.store.client.send(
      new QueryCommand({
        TableName: this.store.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': pk, ':from': `${AUDIT_PREFIX}${since}`, ':to': `${AUDIT_PREFIX}\uffff` },
        ScanIndexForward: false,
        Limit: AUDIT_PAGE_SIZE,
        ...(before ? { ExclusiveStartKey: { pk, sk: before } } : {}),
      }),
    );
    const entries = Items.map((item) => ({
      at: String(item.at),
      action: item.action as AuditAction,
      via: item.via as AuditSource['via'],
      source_ip: typeof item.source_ip === 'string' ? item.source_ip : null,
      ...Object.fromEntries(DETAIL_FIELDS.flatMap((field) => (typeof item[field] === 'string' ? [[field, item[field]]] : []))),
      ...(typeof item.count === 'number' ? { count: item.count } : {}),
    }));
    return { entries, ...(LastEvaluatedKey ? { next_cursor: encodeAuditCursor(String(LastEvaluatedKey.sk)) } : {}) };
  }

  /**
   * One entry on its own, for what changes nothing stored (a sign-in, a test event sent), or follows a change its
   * caller may retry (a resend: `name` makes the retry's entry the same one): one Put.
   */
  async record(accountId: string, action: AuditAction, source: AuditSource, details: AuditDetails = {}, name?: AuditEntryName): Promise<void> {
    const { Put } = auditPut(this.store, accountId, action, source, details, name);
    await this.store.client.send(new PutCommand(Put));
  }
}
