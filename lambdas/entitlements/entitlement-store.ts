/**
 * DynamoDB adapter of entitlements (`domain` table).
 *
 * | item | pk | sk | holds |
 * |---|---|---|---|
 * | grant | `ENT#<owner_type>#<owner_id>` | `GRANT#<grant_id>` | the Grant, its `used_units` and `version`; an organization's also its next transition's marker (`gsi1pk`, `gsi1sk`, `due`: period-transitions.ts) |
 * | use | `USE#<use_id>` | `USE` | owner, grant, units, `refunded` |
 * | event | `EVENTS#<partner>` | `evt_…` | `entitlement.updated` (organization owners only: events are per organization) |
 * | request | `REQUEST#<digest>` | `REQUEST` | a grant's request id (shared/storage/repeatable-requests.ts): a re-run answers the first grant |
 *
 * The summary is one Query of the owner's grants (the partition holds only
 * grants). Each change (grant, use, refund) is one transaction with its
 * event, conditioned on what was read (a grant's `version`, a use's
 * `refunded`), so concurrent uses never overdraw a grant and a refund never
 * counts twice.
 *
 * An operator's request id (the admin CLI's `--request-id`) makes a grant or a use once however often
 * it is run: a use's id is derived from it (the use item is its record), a grant's id too and its
 * transaction puts the request's record (a grant's key is in its owner's partition, so only a record
 * under the request's own key meets the same id given for another owner).
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eventItem } from '../outbox/outbox';
import { retryOnConflict } from '../shared/storage/conditions';
import { cancelledItem, REQUEST_FP, requestRecordPut, requestScopedId, sameRequest, type RepeatableRequest } from '../shared/storage/repeatable-requests';
import type { GameGroup } from '../records/games';
import { isCurrent, type Grant } from './entitlement-summary';
import { grantMarker } from './period-transitions';

export interface Owner {
  readonly type: 'partner' | 'account';
  readonly id: string;
}

export const ownerPartition = (owner: Owner) => `ENT#${owner.type}#${owner.id}`;
const useKey = (useId: string) => ({ pk: `USE#${useId}`, sk: 'USE' });

export interface GrantInput {
  readonly game: GameGroup;
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
   *
   * With `request`, the grant's id is derived from it and the request's record is written in the same
   * transaction: the same request again writes nothing and answers the grant the first run wrote,
   * `replayed` (RequestIdReused when its arguments differ).
   */
  async grant(owner: Owner, input: GrantInput, request?: RepeatableRequest): Promise<StoredGrant & { replayed?: true }> {
    const now = this.clock();
    const grant: StoredGrant = { grant_id: request ? requestScopedId('grant', request) : newId('grant'), ...input, used_units: 0, version: 1 };
    const marker = grantMarker(owner.type, grant.grant_id, input, now);
    const events = this.eventPut(owner, input.game);
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.table,
                Item: { pk: ownerPartition(owner), sk: `GRANT#${grant.grant_id}`, kind: 'grant', ...grant, ...marker, ...(request ? { [REQUEST_FP]: request.fingerprint } : {}) },
                ConditionExpression: 'attribute_not_exists(pk)',
                ...(request ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
              },
            },
            ...events,
            ...(request ? [requestRecordPut(this.table, request, grant, now)] : []),
          ],
        }),
      );
    } catch (error) {
      if (!request) throw error;
      // The request's record (the last entry), or once its day is past the grant itself (its id is the request's): the first run.
      const record = cancelledItem(error, 1 + events.length);
      if (record) return { ...(sameRequest(request, record).result as StoredGrant), replayed: true };
      const first = cancelledItem(error, 0);
      if (first) return { ...storedGrantOf(sameRequest(request, first)), replayed: true };
      throw error;
    }
    return grant;
  }

  /**
   * Use `units` of the owner's current entitlement for `game`: from the
   * counted grant that expires first and has enough left, else from a current
   * unlimited grant; INSUFFICIENT_UNITS otherwise. With `link`, its items are
   * written in the same transaction (and its attributes on the use item).
   *
   * With `request`, the use's id is derived from it and the use item carries its fingerprint: the same
   * request again meets the first run's use (where the write fails on it, or where the first run's
   * use is why it cannot be made again: the units it used, the record it archived) and answers it,
   * `replayed`, using nothing (RequestIdReused when its arguments differ).
   */
  async use(owner: Owner, game: GameGroup, units: number, link?: UseLink, request?: RepeatableRequest): Promise<{ use_id: string; grant_id: string; replayed?: true }> {
    const requestUseId = request ? requestScopedId('use', request) : undefined;
    // The first run's use, if this is a re-run of it: read only when the use cannot be made again.
    const firstRun = async () => (request && requestUseId ? this.replayedUse(request, requestUseId) : undefined);
    return retryOnConflict(
      async () => {
        const now = this.clock();
        const current = (await this.grants(owner, true)).filter((g) => g.game === game && isCurrent(g, now));
        const byExpiry = (a: StoredGrant, b: StoredGrant) => (a.expires_at ?? '9999').localeCompare(b.expires_at ?? '9999');
        const chosen =
          current.filter((g) => !g.unlimited && (g.units ?? 0) - g.used_units >= units).sort(byExpiry)[0] ?? current.find((g) => g.unlimited);
        if (!chosen) {
          const first = await firstRun();
          if (first) return first;
          throw new EntitlementError('INSUFFICIENT_UNITS', `No current ${game} entitlement has ${units} units left`);
        }
        const useId = requestUseId ?? newId('use');
        let linked: Awaited<ReturnType<UseLink>> | undefined;
        try {
          linked = link ? await link(useId, now) : undefined;
        } catch (error) {
          const first = await firstRun();
          if (first) return first;
          throw error;
        }
        try {
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
                      ...(request ? { [REQUEST_FP]: request.fingerprint } : {}),
                    },
                    ConditionExpression: 'attribute_not_exists(pk)',
                    ...(request ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
                  },
                },
                ...(linked?.items ?? []),
                ...this.eventPut(owner, game),
              ],
            }),
          );
        } catch (error) {
          const first = request ? cancelledItem(error, 1) : undefined;
          if (request && first) return replayOfUse(request, first);
          throw error;
        }
        return { use_id: useId, grant_id: chosen.grant_id };
      },
      MAX_ATTEMPTS,
      () => new Error('Too many concurrent changes to these entitlements; try again'),
    );
  }

  /** The use a request made, answered again (RequestIdReused when its arguments differ); undefined when it made none. */
  private async replayedUse(request: RepeatableRequest, useId: string) {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: useKey(useId), ConsistentRead: true }));
    return Item ? replayOfUse(request, Item) : undefined;
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
              ...this.eventPut(owner, Item.game as GameGroup),
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
  private eventPut(owner: Owner, game: GameGroup) {
    if (owner.type !== 'partner') return [];
    const { item } = eventItem(owner.id, { type: 'entitlement.updated', data: { game } }, this.clock());
    return [{ Put: { TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }];
  }
}

/** A re-run's answer from the use its first run made. */
function replayOfUse(request: RepeatableRequest, item: Record<string, unknown>) {
  sameRequest(request, item);
  return { use_id: String(item.use_id), grant_id: String(item.grant_id), replayed: true as const };
}

/** The grant as `grant` answers it, from its stored item (without its key, marker and stamps). */
function storedGrantOf(item: Record<string, unknown>): StoredGrant {
  const { grant_id, game, units, unlimited, starts_at, expires_at, used_units, version } = item as unknown as StoredGrant;
  return { grant_id, game, ...(units !== undefined ? { units } : {}), unlimited, starts_at, expires_at, used_units, version };
}
