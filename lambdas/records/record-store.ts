/**
 * DynamoDB adapter of screening records (`domain` table).
 *
 * | item | pk | sk | holds |
 * |---|---|---|---|
 * | record | `RECORD#<id>` | `RECORD` | the RecordItem and its list index attributes (`rec_order`, `rec_org`, `rec_result`, `rec_game`, `rec_player`: record-list.ts) |
 * | uuid | `UUID#<lowercased uuid>` | `UUID` | the record's id, owner and visibility, and its public projection: a public lookup is one GetItem |
 * | event | `EVENTS#<partner>` | `evt_…` | the outbox (lambdas/outbox/outbox.ts) |
 * | request | `REQUEST#<digest>` | `REQUEST` | an operator's put, move or delete by request id (shared/storage/repeatable-requests.ts): a re-run answers the first |
 *
 * Every change writes the record, its uuid item and its event in one
 * transaction, conditioned on what was read (the record's version, the uuid
 * item's absence or owner): concurrent changes retry or fail, and a change
 * is never visible without its event, nor an event without its change.
 *
 * A put, move or delete given an operator's request id (the admin CLI's `--request-id`) also puts
 * the request's record in its transaction: the same request run again (after an error that left its
 * outcome unknown) writes nothing, no second event either, and answers what the first run did.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eventItem, type EventEnvelope } from '../outbox/outbox';
import { recordListAttributes } from './record-list';
import { retryOnConflict } from '../shared/storage/conditions';
import { cancelledItem, readRequestRecord, requestRecordPut, sameRequest, type RepeatableRequest } from '../shared/storage/repeatable-requests';
import { DEFAULT_RESULT_LABELS, gameGroupOf, normalizedPlayerName, toPublicRecord, uuidKey, type PublicRecord, type RecordInput, type RecordItem } from './record-model';
import type { GameGroup } from './games';

export const recordKey = (recordId: string) => ({ pk: `RECORD#${recordId}`, sk: 'RECORD' });
export const uuidItemKey = (uuid: string) => ({ pk: `UUID#${uuidKey(uuid)}`, sk: 'UUID' });

/** The stored item of a record: the record and its list index attributes (record-list.ts). */
export function recordItem(record: RecordItem) {
  return { ...recordKey(record.id), kind: 'record', ...record, ...recordListAttributes(record) };
}

/** The stored uuid item of a record: owner, visibility and the public projection a lookup returns. */
export function uuidItem(record: RecordItem) {
  return { ...uuidItemKey(record.uuid), kind: 'record_uuid', record_id: record.id, partner_id: record.partner_id, public: record.public, record: toPublicRecord(record) };
}

/**
 * A new record's two items (record and uuid), as `put` writes them, for bulk
 * loads (demo data, benchmarks) that write many records directly and
 * without events, as a data migration would.
 */
export function newRecordItems(partnerId: string, input: RecordInput, now: Date) {
  const record = buildRecord(partnerId, input, undefined, now);
  return { record, items: [recordItem(record), uuidItem(record)] };
}

interface UuidItem {
  readonly record_id: string;
  readonly partner_id: string;
  readonly public: boolean;
  readonly record: PublicRecord;
}

export class RecordNotFound extends Error {
  constructor(readonly recordId: string) {
    super(`No record ${recordId} in this organization`);
    this.name = 'RecordNotFound';
  }
}

/** The uuid already names a record of another organization (moving it is a separate operation). */
export class RecordOwnedElsewhere extends Error {
  constructor(readonly uuid: string) {
    super(`Record ${uuid} belongs to another organization`);
    this.name = 'RecordOwnedElsewhere';
  }
}

/** The record was archived before (an archive uses a unit once). */
export class RecordAlreadyArchived extends Error {
  constructor(readonly recordId: string) {
    super(`Record ${recordId} is already archived`);
    this.name = 'RecordAlreadyArchived';
  }
}

const MAX_ATTEMPTS = 10;

/** Where the request's record is in a put's or delete's transaction (after the record, its uuid item and its event)... */
const REQUEST_RECORD_ENTRY = 3;
/** ... and in a move's (after its two events). */
const MOVE_REQUEST_RECORD_ENTRY = 4;

/** What a put answers: the record's public projection with its owner and visibility, and its event. */
export interface PutOutcome {
  readonly record: PublicRecord & { readonly partner_id: string; readonly public: boolean };
  readonly event: EventEnvelope;
  /** The same request's first run wrote it; this run wrote nothing. */
  readonly replayed?: true;
}

export class RecordStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The public record with this uuid (case-insensitive), if there is one. One eventually consistent read. */
  async findPublicByUuid(uuid: string): Promise<PublicRecord | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: uuidItemKey(uuid) }));
    const found = Item as UuidItem | undefined;
    return found?.public ? found.record : undefined;
  }

  /** A record of the organization (strongly consistent), or undefined. */
  async get(partnerId: string, recordId: string): Promise<RecordItem | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: recordKey(recordId), ConsistentRead: true }));
    const record = Item as RecordItem | undefined;
    return record?.partner_id === partnerId ? record : undefined;
  }

  /**
   * Create the record with this uuid in the organization, or update it: with its event, in one transaction.
   * With `request`, the request's record too: the same request again answers the first run's put (`replayed`).
   */
  async put(partnerId: string, input: RecordInput, request?: RepeatableRequest): Promise<PutOutcome> {
    return this.retryOnConflict(async () => {
      const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: uuidItemKey(input.uuid), ConsistentRead: true }));
      const existing = Item as UuidItem | undefined;
      if (existing && existing.partner_id !== partnerId) throw new RecordOwnedElsewhere(input.uuid);
      const previous = existing ? await this.get(partnerId, existing.record_id) : undefined;
      if (existing && !previous) throw new RecordOwnedElsewhere(input.uuid);

      const now = this.clock();
      const record = buildRecord(partnerId, input, previous, now);
      const { envelope, item: event } = eventItem(partnerId, { type: previous ? 'record.updated' : 'record.created', data: { record_id: record.id } }, now);
      const answer: PutOutcome = { record: { ...toPublicRecord(record), partner_id: partnerId, public: record.public }, event: envelope };
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: this.table,
                  Item: recordItem(record),
                  ...(previous
                    ? { ConditionExpression: 'version = :version AND partner_id = :partner', ExpressionAttributeValues: { ':version': previous.version, ':partner': partnerId } }
                    : { ConditionExpression: 'attribute_not_exists(pk)' }),
                },
              },
              {
                Put: {
                  TableName: this.table,
                  Item: uuidItem(record),
                  ...(existing
                    ? { ConditionExpression: 'record_id = :id', ExpressionAttributeValues: { ':id': record.id } }
                    : { ConditionExpression: 'attribute_not_exists(pk)' }),
                },
              },
              { Put: { TableName: this.table, Item: event, ConditionExpression: 'attribute_not_exists(pk)' } },
              ...(request ? [requestRecordPut(this.table, request, answer, now)] : []),
            ],
          }),
        );
      } catch (error) {
        const first = request ? cancelledItem(error, REQUEST_RECORD_ENTRY) : undefined;
        if (request && first) return { ...(sameRequest(request, first).result as PutOutcome), replayed: true };
        throw error;
      }
      return answer;
    });
  }

  /**
   * Move a record to another organization: `record.deleted` for the old one
   * (which never learns the target) and `record.created` for the new one,
   * with the change, in one transaction. With `request`, the request's record
   * too: the same request again (the record already there) answers the first
   * run's move and its events (`replayed`).
   */
  async move(recordId: string, toPartnerId: string, request?: RepeatableRequest): Promise<{ record: RecordItem; events: EventEnvelope[]; replayed?: true }> {
    return this.retryOnConflict(async () => {
      const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: recordKey(recordId), ConsistentRead: true }));
      const current = Item as RecordItem | undefined;
      if (!current) throw new RecordNotFound(recordId);
      if (current.partner_id === toPartnerId) {
        // Read only when there is nothing to move: a re-run finds its first run's events here.
        const first = request ? await readRequestRecord(this.client, this.table, request) : undefined;
        if (request && first) return { record: current, events: (sameRequest(request, first).result as { events: EventEnvelope[] }).events, replayed: true as const };
        return { record: current, events: [] };
      }
      const now = this.clock();
      const record: RecordItem = { ...current, partner_id: toPartnerId, updated_at: now.toISOString(), version: current.version + 1 };
      const left = eventItem(current.partner_id, { type: 'record.deleted', data: { record_id: recordId } }, now);
      const arrived = eventItem(toPartnerId, { type: 'record.created', data: { record_id: recordId } }, now);
      const events = [left.envelope, arrived.envelope];
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: this.table,
                  Item: recordItem(record),
                  ConditionExpression: 'version = :version AND partner_id = :from',
                  ExpressionAttributeValues: { ':version': current.version, ':from': current.partner_id },
                },
              },
              {
                Update: {
                  TableName: this.table,
                  Key: uuidItemKey(record.uuid),
                  UpdateExpression: 'SET partner_id = :to, #record = :public',
                  ConditionExpression: 'record_id = :id',
                  ExpressionAttributeNames: { '#record': 'record' },
                  ExpressionAttributeValues: { ':to': toPartnerId, ':public': toPublicRecord(record), ':id': recordId },
                },
              },
              { Put: { TableName: this.table, Item: left.item, ConditionExpression: 'attribute_not_exists(pk)' } },
              { Put: { TableName: this.table, Item: arrived.item, ConditionExpression: 'attribute_not_exists(pk)' } },
              ...(request ? [requestRecordPut(this.table, request, { events }, now)] : []),
            ],
          }),
        );
      } catch (error) {
        // The same request again after the record was moved back since (answered as it is now), or the id given for another move.
        const first = request ? cancelledItem(error, MOVE_REQUEST_RECORD_ENTRY) : undefined;
        if (request && first) return { record: current, events: (sameRequest(request, first).result as { events: EventEnvelope[] }).events, replayed: true as const };
        throw error;
      }
      return { record, events };
    });
  }

  /**
   * Delete a record of the organization, with its `record.deleted` event, in one transaction. With `request`, the
   * request's record too: the same request again (the record gone) answers the first run's delete (`replayed`).
   */
  async delete(partnerId: string, recordId: string, request?: RepeatableRequest): Promise<{ event: EventEnvelope; replayed?: true }> {
    return this.retryOnConflict(async () => {
      const record = await this.get(partnerId, recordId);
      if (!record) {
        // Read only when there is no record to delete: a re-run finds its first run's record here.
        const first = request ? await readRequestRecord(this.client, this.table, request) : undefined;
        if (request && first) return { ...(sameRequest(request, first).result as { event: EventEnvelope }), replayed: true as const };
        throw new RecordNotFound(recordId);
      }
      const now = this.clock();
      const { envelope, item: event } = eventItem(partnerId, { type: 'record.deleted', data: { record_id: recordId } }, now);
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Delete: {
                  TableName: this.table,
                  Key: recordKey(recordId),
                  ConditionExpression: 'version = :version AND partner_id = :partner',
                  ExpressionAttributeValues: { ':version': record.version, ':partner': partnerId },
                },
              },
              {
                Delete: {
                  TableName: this.table,
                  Key: uuidItemKey(record.uuid),
                  ConditionExpression: 'record_id = :id',
                  ExpressionAttributeValues: { ':id': recordId },
                },
              },
              { Put: { TableName: this.table, Item: event, ConditionExpression: 'attribute_not_exists(pk)' } },
              ...(request ? [requestRecordPut(this.table, request, { event: envelope }, now)] : []),
            ],
          }),
        );
      } catch (error) {
        // The same request id given for another record's delete: refused (a record deleted by the first run is gone, above).
        const first = request ? cancelledItem(error, REQUEST_RECORD_ENTRY) : undefined;
        if (request && first) return { ...(sameRequest(request, first).result as { event: EventEnvelope }), replayed: true as const };
        throw error;
      }
      return { event: envelope };
    });
  }

  /**
   * The record half of an archive, for EntitlementStore.use's link: the
   * record (read fresh, strongly consistent) gets its archive marks, on the
   * condition that it is still the version read and not archived. Nothing
   * visible changes (no `updated_at`, no record event): the use's
   * `entitlement.updated` is the archive's event.
   */
  async archiveChange(partnerId: string, recordId: string, game: GameGroup, useId: string, now: Date) {
    const record = await this.get(partnerId, recordId);
    if (!record) throw new RecordNotFound(recordId);
    if (record.archived_at !== undefined) throw new RecordAlreadyArchived(recordId);
    return {
      items: [
        {
          Update: {
            TableName: this.table,
            Key: recordKey(recordId),
            UpdateExpression: 'SET archived_at = :now, archived_game = :game, archive_use = :use, version = version + :one',
            ConditionExpression: 'version = :version AND partner_id = :partner AND attribute_not_exists(archived_at)',
            ExpressionAttributeValues: { ':now': now.toISOString(), ':game': game, ':use': useId, ':one': 1, ':version': record.version, ':partner': partnerId },
          },
        },
      ],
      use: { reason: 'record-archive', record_id: recordId },
    };
  }

  private retryOnConflict<T>(attempt: () => Promise<T>): Promise<T> {
    return retryOnConflict(attempt, MAX_ATTEMPTS, () => new Error('Too many concurrent changes to this record; try again'));
  }
}

function buildRecord(partnerId: string, input: RecordInput, previous: RecordItem | undefined, now: Date): RecordItem {
  return {
    id: previous?.id ?? `rec_${randomBytes(10).toString('hex')}`,
    // The uuid as first stored: a later put may differ in letter case only.
    uuid: previous?.uuid ?? input.uuid,
    uuid_key: uuidKey(input.uuid),
    player_name: input.player_name,
    player_key: normalizedPlayerName(input.player_name),
    game_category: input.game_category,
    game: input.game,
    game_group: gameGroupOf(input.game_category),
    checked_at: new Date(input.checked_at).toISOString(),
    result: input.result,
    result_label: input.result_label ?? DEFAULT_RESULT_LABELS[input.result],
    checker_name: input.checker_name,
    public_notes: input.public_notes,
    ...(input.internal_notes !== undefined ? { internal_notes: input.internal_notes } : {}),
    ...(input.staff_notes !== undefined ? { staff_notes: input.staff_notes } : {}),
    public: input.public,
    // An archive stays with the record through later corrections.
    ...(previous?.archived_at !== undefined ? { archived_at: previous.archived_at, archived_game: previous.archived_game, archive_use: previous.archive_use } : {}),
    partner_id: partnerId,
    updated_at: now.toISOString(),
    version: (previous?.version ?? 0) + 1,
  };
}
