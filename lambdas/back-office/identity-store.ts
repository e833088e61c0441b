/**
 * What every back-office concept shares: the document client and table, the
 * clock, consistent reads of the identity items, and the retry discipline of
 * read-modify-writes. Every operation that reads identity state and writes
 * it back conditions the write on what it read; when the condition fails
 * (another change won the race) it reads again and decides again, a bounded
 * number of times, so a stale read can never undo a revocation.
 */
import { randomBytes } from 'node:crypto';
import { BatchGetCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, type BatchGetCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountKey, membershipKey, orgKey, type AccountItem, type MembershipItem, type OrgItem } from '../shared/identity/access-items';
import { isConditionFailure, isWriteConflict, retryOnConflict } from '../shared/storage/conditions';
import { BackOfficeError } from './errors';

export type Clock = () => Date;

/** Concurrent changes of one item serialize on its conditions; losers re-read and try again. */
export const MAX_ATTEMPTS = 40;

export const randomId = (prefix: string) => `${prefix}_${randomBytes(10).toString('hex')}`;

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
   * slots admission takes on the item (see limits/admission-store.ts).
   */
  async putNew(key: { pk: string; sk: string }, type: string, item: object): Promise<void> {
    await this.client.send(
      new PutCommand({ TableName: this.table, Item: { ...key, type, ...item, leases: {} }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  }

  /**
   * Apply a lifecycle update to an item that must exist. When `condition`
   * fails on an existing item nothing changes and the item as it is now is
   * returned (so repeating an operation is harmless); a missing item throws
   * `notFound`.
   */
  async updateExisting<T>(
    key: { pk: string; sk: string },
    update: { expression: string; condition: string; values: Record<string, unknown> },
    notFound: () => BackOfficeError,
  ): Promise<T> {
    const uses = (name: string) => `${update.expression} ${update.condition}`.includes(name);
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: update.expression,
          ConditionExpression: update.condition,
          ExpressionAttributeNames: uses('#status') ? { '#status': 'status' } : undefined,
          ExpressionAttributeValues: { ...update.values, ...(uses(':now') ? { ':now': this.clock().toISOString() } : {}) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes as T;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const current = await this.getItem(key);
      if (!current) throw notFound();
      return current as T;
    }
  }

  /**
   * As updateExisting, with the audit entries of the change (built from the item as read: an organization's
   * managers, say) in the same transaction. The item is read first and the write is conditioned on it being
   * unchanged (`updated_at`), so the entries describe what changed; a change meanwhile reads again. When the
   * update's own condition does not hold (a restore of an active organization), nothing is written, no entry
   * either, and the item is answered as it is.
   */
  async updateAudited<T extends { updated_at: string }>(
    key: { pk: string; sk: string },
    update: { expression: string; condition: string; values: Record<string, unknown> },
    audits: (current: T) => readonly { Put: { TableName: string; Item: Record<string, unknown> } }[],
    notFound: () => BackOfficeError,
  ): Promise<T> {
    return this.retryOnConflict(async () => {
      const current = (await this.getItem(key)) as T | undefined;
      if (!current) throw notFound();
      const uses = (name: string) => `${update.expression} ${update.condition}`.includes(name);
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
                  ExpressionAttributeNames: uses('#status') ? { '#status': 'status' } : undefined,
                  ExpressionAttributeValues: { ...update.values, ':read': current.updated_at, ...(uses(':now') ? { ':now': this.clock().toISOString() } : {}) },
                },
              },
              ...audits(current),
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
