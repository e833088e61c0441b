/**
 * What every back-office concept shares: the document client and table, the
 * clock, consistent reads of the identity items, and the retry discipline of
 * read-modify-writes. Every operation that reads identity state and writes
 * it back conditions the write on what it read; when the condition fails
 * (another change won the race) it reads again and decides again, a bounded
 * number of times, so a stale read can never undo a revocation.
 */
import { randomBytes } from 'node:crypto';
import { BatchGetCommand, GetCommand, PutCommand, TransactWriteCommand, type BatchGetCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountKey, membershipKey, orgKey, type AccountItem, type MembershipItem, type OrgItem } from '../shared/identity/access-items';
import { isConditionFailure, isWriteConflict, retryOnConflict } from '../shared/storage/conditions';
import { RequestIdReused, type RepeatableRequest } from '../shared/storage/repeatable-requests';
import { writeOnce } from '../shared/storage/write-once';
import { BackOfficeError, officeError } from './errors';

export type Clock = () => Date;

/** Concurrent changes of one item serialize on its conditions; losers re-read and try again. */
export const MAX_ATTEMPTS = 40;

export const randomId = (prefix: string) => `${prefix}_${randomBytes(10).toString('hex')}`;

/**
 * A request's new item met one already under its key. With a request (the item's id is derived from the request id)
 * that is the request's own first run, which a re-run answers, when `same` holds of it: the account and organization
 * items are admission's, kept under 1 KB (docs/limits.md), so they carry no fingerprint and their own fields are
 * compared instead; otherwise another request under the same id (REQUEST_ID_REUSED). Without a request the id was
 * random and the item is not this call's.
 */
export async function firstRunOf(request: RepeatableRequest | undefined, existing: Record<string, unknown>, same: (item: Record<string, unknown>) => boolean | Promise<boolean>): Promise<void> {
  if (!request) throw new Error(`An item already exists under the new key ${String(existing.pk)}`);
  if (!(await same(existing))) throw officeError(new RequestIdReused(request));
}

/**
 * A stamp for writeOnce on the account and organization items: 48 random bits tell this write's tries from another
 * writer's, in 8 characters rather than a UUID's 36 (the items stay under 1 KB: docs/limits.md).
 */
const shortStamp = () => randomBytes(6).toString('base64url');

export class IdentityStore {
  constructor(
    readonly client: DynamoDBDocumentClient,
    readonly table: string,
    readonly clock: Clock = () => new Date(),
  ) {}

  /** Run a read-modify-write until it returns, re-reading after a lost race (storage/conditions.ts). */
  retryOnConflict<T>(attempt: () => Promise<T>): Promise<T> {
    return retryOnConflict(attempt, MAX_ATTEMPTS, () => new BackOfficeError('CONFLICT', 'Too many concurrent changes; try again'));
  }

  async getAccount(accountId: string): Promise<AccountItem | undefined> {
    return (await this.getItem(accountKey(accountId))) as AccountItem | undefined;
  }

  async getOrg(partnerId: string): Promise<OrgItem | undefined> {
    return (await this.getItem(orgKey(partnerId))) as OrgItem | undefined;
  }

  async getMembership(partnerId: string, accountId: string): Promise<MembershipItem | undefined> {
    return (await this.getItem(membershipKey(partnerId, accountId))) as MembershipItem | undefined;
  }

  async getOrgs(ids: readonly string[]): Promise<Map<string, OrgItem>> {
    const found = new Map<string, OrgItem>();
    for (let i = 0; i < ids.length; i += 100) {
      let keys: Record<string, unknown>[] | undefined = ids.slice(i, i + 100).map(orgKey);
      while (keys && keys.length > 0) {
        const output: BatchGetCommandOutput = await this.client.send(
          new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys, ConsistentRead: true } } }),
        );
        for (const item of output.Responses?.[this.table] ?? []) found.set(String(item.partner_id), item as OrgItem);
        keys = output.UnprocessedKeys?.[this.table]?.Keys;
      }
    }
    return found;
  }

  /**
   * Write a new account or organization item; never overwrites one. `leases`: the concurrency
   * slots admission takes on the item (see limits/admission-store.ts). Answers undefined once
   * written (also when the SDK's retry of a try whose answer was lost met the item that try wrote:
   * writeOnce), or the item that already stood under the key, for the caller to explain (a re-run
   * of the same request: repeatable-requests.ts).
   */
  async putNew(key: { pk: string; sk: string }, type: string, item: object): Promise<Record<string, unknown> | undefined> {
    const outcome = await writeOnce(
      this.client,
      new PutCommand({ TableName: this.table, Item: { ...key, type, ...item, leases: {} }, ConditionExpression: 'attribute_not_exists(pk)' }),
      shortStamp(),
    );
    return outcome.applied ? undefined : outcome.old;
  }

  /**
   * Apply a lifecycle update to an item that must exist (a missing item throws `notFound`), with the audit
   * entries of the change (built from the item as read: an organization's managers, say) in the same
   * transaction. The item is read first and the write is conditioned on it being unchanged
   * (`updated_at`), so the entries describe what changed; a change meanwhile reads again. When the
   * update's own condition does not hold (a restore of an active organization), nothing is written, no entry
   * either, and the item is answered as it is. `read`: the item and what else the change's items are built from (an
   * organization's members, whose entries it rewrites), read so that the item is never newer than the rest (one Query
   * of the partition, the item first: organization-entries.ts orgWithMembers); the `updated_at` condition then makes
   * the transaction apply only if that is still what holds, when every change of it moves the item's `updated_at`.
   */
  async updateAudited<T extends { updated_at: string }, R = undefined>(
    key: { pk: string; sk: string },
    update: { expression: string; condition: string; values: Record<string, unknown> },
    audits: (current: T, alongside: R) => readonly ({ Put: { TableName: string; Item: Record<string, unknown> } })[],
    notFound: () => BackOfficeError,
    read: () => Promise<{ current: T | undefined; related: R }> = async () => ({ current: (await this.getItem(key)) as T | undefined, related: undefined as R }),
  ): Promise<T> {
    return this.retryOnConflict(async () => {
      const { current, related } = await read();
      if (!current) throw notFound();
      const uses = (name: string) => `${update.expression} ${update.condition}`.includes(name);
      const names = { ...(uses('#status') ? { '#status': 'status' } : {}), ...(uses('#name') ? { '#name': 'name' } : {}) };
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: this.table,
                  Key: key,
                  UpdateExpression: update.expression,
                  ConditionExpression: `(${update.condition}) AND updated_at = :read`,
                  ExpressionAttributeNames: Object.keys(names).length > 0 ? names : undefined,
                  ExpressionAttributeValues: { ...update.values, ':read': current.updated_at, ...(uses(':now') ? { ':now': this.clock().toISOString() } : {}) },
                },
              },
              ...audits(current, related),
            ],
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error) || isWriteConflict(error)) throw error;
        const after = (await this.getItem(key)) as T | undefined;
        if (!after) throw notFound();
        // Changed meanwhile: the condition error makes retryOnConflict read again. Unchanged: its own condition.
        if (after.updated_at !== current.updated_at) throw error;
        return after;
      }
      return (await this.getItem(key)) as T;
    });
  }

  /** One item, read consistently. */
  async getItem(key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    return Item;
  }
}
