/**
 * DynamoDB adapter of entitlements (`domain` table).
 *
 * | item | pk | sk | holds |
 * |---|---|---|---|
 * | grant | `ENT#<owner_type>#<owner_id>` | `GRANT#<grant_id>` | the Grant, its `used_units` and `version`; an organization's also its next transition's marker (`gsi1pk`, `gsi1sk`, `due`: period-transitions.ts) |
 * | use | `USE#<use_id>` | `USE` | owner, grant, units, `refunded` |
 * | event | `EVENTS#<partner>` | `evt_…` | `entitlement.updated` (organization owners only: events are per organization) |
 *
 * The summary is one Query of the owner's grants (the partition holds only
 * grants). Each change (grant, use, refund) is one transaction with its
 * event, conditioned on what was read (a grant's `version`, a use's
 * `refunded`), so concurrent uses never overdraw a grant and a refund never
 * counts twice.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eventItem } from '../outbox/outbox';
import { retryOnConflict } from '../shared/storage/conditions';
import { isCurrent, type Game, type Grant } from './entitlement-summary';
import { grantMarker } from './period-transitions';

export interface Owner {
  readonly type: 'partner' | 'account';
  readonly id: string;
}

export const ownerPartition = (owner: Owner) => `ENT#${owner.type}#${owner.id}`;
const useKey = (useId: string) => ({ pk: `USE#${useId}`, sk: 'USE' });

export interface GrantInput {
  readonly game: Game;
  readonly units?: number;
  readonly unlimited: boolean;
  readonly starts_at: string;
  readonly expires_at: string | null;
}

export class EntitlementError extends Error {
  constructor(
    readonly reason: 'INSUFFICIENT_UNITS' | 'USE_NOT_FOUND',
    message: string,
  ) {
    super(message);
    this.name = 'EntitlementError';
  }
}

type StoredGrant = Grant & { readonly version: number };

/** TransactWriteItems entries of a change that must happen with a use, or not at all. */
export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/**
 * What a use is for (archiving a record, say): built inside each attempt, after fresh reads, so a
 * concurrent change of the linked item makes the attempt fail and retry (or `link` refuse).
 */
export type UseLink = (useId: string, now: Date) => Promise<{ readonly items: readonly TransactItem[]; readonly use?: Readonly<Record<string, unknown>> }>;

const MAX_ATTEMPTS = 10;
const newId = (prefix: string) => `${prefix}_${randomBytes(10).toString('hex')}`;

export class EntitlementStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Every grant of the owner (one Query, paged). */
  async grants(owner: Owner, consistent = false): Promise<StoredGrant[]> {
    const grants: StoredGrant[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :grant)',
          ExpressionAttributeValues: { ':pk': ownerPartition(owner), ':grant': 'GRANT#' },
          ConsistentRead: consistent,
          ExclusiveStartKey: startKey,
        }),
      );
      grants.push(...((page.Items ?? []) as StoredGrant[]));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return grants;
  }

  /**
   * Write a grant with its event. An organization's grant also carries the
   * marker of its next transition still ahead (period-transitions.ts), by
   * which the scheduled job writes the start and end events later.
   */
  async grant(owner: Owner, input: GrantInput): Promise<StoredGrant> {
    const grant: StoredGrant = { grant_id: newId('grant'), ...input, used_units: 0, version: 1 };
    const marker = grantMarker(owner.type, grant.grant_id, input, this.clock());
    await this.client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: this.table,
              Item: { pk: ownerPartition(owner), sk: `GRANT#${grant.grant_id}`, kind: 'grant', ...grant, ...marker },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          ...this.eventPut(owner, input.game),
        ],
      }),
    );
    return grant;
  }

  /**
   * Use `units` of the owner's current entitlement for `game`: from the
   * counted grant that expires first and has enough left, else from a current
   * unlimited grant; INSUFFICIENT_UNITS otherwise. With `link`, its items are
   * written in the same transaction (and its attributes on the use item).
   */
  async use(owner: Owner, game: Game, units: number, link?: UseLink): Promise<{ use_id: string; grant_id: string }> {
    return retryOnConflict(
      async () => {
        const now = this.clock();
        const current = (await this.grants(owner, true)).filter((g) => g.game === game && isCurrent(g, now));
        const byExpiry = (a: StoredGrant, b: StoredGrant) => (a.expires_at ?? '9999').localeCompare(b.expires_at ?? '9999');
        const chosen =
          current.filter((g) => !g.unlimited && (g.units ?? 0) - g.used_units >= units).sort(byExpiry)[0] ?? current.find((g) => g.unlimited);
        if (!chosen) throw new EntitlementError('INSUFFICIENT_UNITS', `No current ${game} entitlement has ${units} units left`);
        const useId = newId('use');
        const linked = link ? await link(useId, now) : undefined;
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: this.table,
                  Key: { pk: ownerPartition(owner), sk: `GRANT#${chosen.grant_id}` },
                  UpdateExpression: 'SET used_units = used_units + :units, version = version + :one',
                  ConditionExpression: 'version = :version',
                  ExpressionAttributeValues: { ':units': units, ':one': 1, ':version': chosen.version },
                },
              },
              {
                Put: {
                  TableName: this.table,
                  Item: {
                    ...linked?.use,
                    ...useKey(useId),
                    kind: 'use',
                    use_id: useId,
                    owner_type: owner.type,
                    owner_id: owner.id,
                    grant_id: chosen.grant_id,
                    game,
                    units,
                    refunded: false,
                    at: now.toISOString(),
                  },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              ...(linked?.items ?? []),
              ...this.eventPut(owner, game),
            ],
          }),
        );
        return { use_id: useId, grant_id: chosen.grant_id };
      },
      MAX_ATTEMPTS,
      () => new Error('Too many concurrent changes to these entitlements; try again'),
    );
  }

  /** Refund a use: its units no longer count as used. Refunding twice changes nothing. */
  async refund(useId: string): Promise<{ use_id: string; refunded: true }> {
    return retryOnConflict(
      async () => {
        const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: useKey(useId), ConsistentRead: true }));
        if (!Item) throw new EntitlementError('USE_NOT_FOUND', `No use ${useId}`);
        if (Item.refunded) return { use_id: useId, refunded: true as const };
        const owner: Owner = { type: Item.owner_type as Owner['type'], id: String(Item.owner_id) };
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: this.table,
                  Key: useKey(useId),
                  UpdateExpression: 'SET refunded = :yes',
                  ConditionExpression: 'refunded = :no',
                  ExpressionAttributeValues: { ':yes': true, ':no': false },
                },
              },
              {
                Update: {
                  TableName: this.table,
                  Key: { pk: ownerPartition(owner), sk: `GRANT#${String(Item.grant_id)}` },
                  UpdateExpression: 'SET used_units = used_units - :units, version = version + :one',
                  ConditionExpression: 'used_units >= :units',
                  ExpressionAttributeValues: { ':units': Item.units, ':one': 1 },
                },
              },
              ...this.eventPut(owner, Item.game as Game),
            ],
          }),
        );
        return { use_id: useId, refunded: true as const };
      },
      MAX_ATTEMPTS,
      () => new Error('Too many concurrent changes to this use; try again'),
    );
  }

  /** Organization owners get `entitlement.updated` with the change; accounts have no webhooks. */
  private eventPut(owner: Owner, game: Game) {
    if (owner.type !== 'partner') return [];
    const { item } = eventItem(owner.id, { type: 'entitlement.updated', data: { game } }, this.clock());
    return [{ Put: { TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }];
  }
}
