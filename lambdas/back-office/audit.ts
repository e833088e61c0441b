/**
 * The account's audit trail of web-settings changes: key created or revoked,
 * password changed (or reset by the operator), two-factor enrolled, turned on
 * or off. Each entry is an item in the account's partition of the `access`
 * table (`ACCOUNT#<id>` / `AUDIT#<ISO time>#<random>`), written in the same
 * transaction as the change it records, so there is never a change without
 * its entry nor an entry without its change. Entries are kept 30 days: reads
 * stop at 30 days by the sort key (TTL removes the item later, and nothing
 * relies on it).
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { accountKey } from '../shared/identity/access-items';
import { randomId, type IdentityStore } from './identity-store';

export const AUDIT_RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;
const AUDIT_PREFIX = 'AUDIT#';
/** Entries a read returns at most (newest first). */
export const AUDIT_PAGE_SIZE = 100;

export type AuditAction =
  | 'key.created'
  | 'key.revoked'
  | 'password.changed'
  | 'password.reset'
  | 'two_factor.enrolled'
  | 'two_factor.enabled'
  | 'two_factor.disabled'
  /** The operator turned two-factor off (admin CLI `account reset-two-factor`, or `reset-password --clear-two-factor`). */
  | 'two_factor.reset'
  | 'webhook.created'
  | 'webhook.verified'
  | 'webhook.deactivated'
  /** The operator put an open delivery back into its schedule (admin CLI `delivery requeue`). */
  | 'webhook.delivery_requeued'
  /** The operator delivered an event again to a callback that had no delivery of it (admin CLI `event fan-out`). */
  | 'webhook.event_redelivered';

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
}

/** The Put of one audit entry, for the change's transaction. */
export function auditPut(
  store: IdentityStore,
  accountId: string,
  action: AuditAction,
  source: AuditSource,
  details: { key_id?: string; webhook_id?: string; delivery_id?: string } = {},
): { Put: { TableName: string; Item: Record<string, unknown> } } {
  const now = store.clock();
  const entry: AuditEntry = { at: now.toISOString(), action, via: source.via, source_ip: source.sourceIp ?? null, ...details };
  return {
    Put: {
      TableName: store.table,
      Item: {
        pk: accountKey(accountId).pk,
        sk: `${AUDIT_PREFIX}${entry.at}#${randomId('a')}`,
        type: 'audit',
        ...entry,
        ttl: Math.floor(now.getTime() / 1000) + (AUDIT_RETENTION_DAYS + 1) * 86_400,
      },
    },
  };
}

export class Audit {
  constructor(private readonly store: IdentityStore) {}

  /** The account's entries of the last 30 days, newest first (at most AUDIT_PAGE_SIZE): one Query. */
  async list(accountId: string): Promise<AuditEntry[]> {
    const since = new Date(this.store.clock().getTime() - AUDIT_RETENTION_DAYS * DAY_MS).toISOString();
    const { Items = [] } = await this.store.client.send(
      new QueryCommand({
        TableName: this.store.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': accountKey(accountId).pk, ':from': `${AUDIT_PREFIX}${since}`, ':to': `${AUDIT_PREFIX}\uffff` },
        ScanIndexForward: false,
        Limit: AUDIT_PAGE_SIZE,
      }),
    );
    return Items.map((item) => ({
      at: String(item.at),
      action: item.action as AuditAction,
      via: item.via as AuditSource['via'],
      source_ip: typeof item.source_ip === 'string' ? item.source_ip : null,
      ...(typeof item.key_id === 'string' ? { key_id: item.key_id } : {}),
      ...(typeof item.webhook_id === 'string' ? { webhook_id: item.webhook_id } : {}),
      ...(typeof item.delivery_id === 'string' ? { delivery_id: item.delivery_id } : {}),
    }));
  }
}
