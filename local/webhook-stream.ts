/**
 * The local counterpart of the fan-out's event source mapping on the `domain` table's stream:
 * reads DynamoDB Local's stream (DescribeTable → LatestStreamArn, DescribeStream → shards,
 * GetShardIterator, GetRecords), keeps only what the deployed filter lets through (new outbox
 * event items), and hands them to the fan-out entry in batches of up to 100, shard by shard, in
 * order.
 *
 * Where it starts: at LATEST for the shards that exist when the reader starts (as the deployed
 * mapping's StartingPosition), at TRIM_HORIZON for shards that appear later (a split or a
 * rollover: their records are all new). A deployed mapping then resumes from its checkpoint; the
 * local stack keeps none, and a kept data folder (`npm start -- --data`) still holds up to 24 hours
 * of records that were fanned out before, so replaying from TRIM_HORIZON would deliver them again.
 * Filtering on ApproximateCreationDateTime instead would not work: DynamoDB Local rounds it down
 * to the minute. `startStreamReader` resolves once every existing shard has its iterator, so a
 * write after it returns is always read (DynamoDB Local's one quirk here: see repositionAfter).
 *
 * Failures, like the mapping with ReportBatchItemFailures: the batch is retried from its first
 * failed record (the whole batch when the entry throws or reports an identifier that is not one
 * of the batch's sequence numbers), after a short pause; after `retryAttempts` retries that record
 * is logged and skipped, and the reader goes on with the ones after it (where the deployed mapping
 * bisects the batch and sends what still fails to its on-failure destination).
 *
 * The filter and the batch settings are the deployed ones (lambdas/webhooks/pipeline-settings.ts,
 * which the stack reads too).
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
  type _Record as StreamsRecord,
  type AttributeValue as StreamsAttributeValue,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../lambdas/shared/observability/logger';
import { LOCAL_AWS_ENV, localDynamoClient } from './dynamo-local';
import { FAN_OUT_FILTER_PATTERN, WEBHOOK_PIPELINE } from '../lambdas/webhooks/pipeline-settings';

/** The fan-out entry, or a test's stand-in. `void` counts as "every record handled". */
export type StreamConsumer = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;


/** The deployed mapping's settings this reader reproduces (lib/constructs/webhook-delivery.ts WEBHOOK_PIPELINE.fanOut). */
export const LOCAL_STREAM_DEFAULTS = { batchSize: WEBHOOK_PIPELINE.fanOut.batchSize, retryAttempts: WEBHOOK_PIPELINE.fanOut.retryAttempts } as const;
export { FAN_OUT_FILTER_PATTERN };

export interface StreamReaderOptions {
  readonly dynamoEndpoint: string;
  readonly table: string;
  readonly consume: StreamConsumer;
  /** Pause between polls that found nothing (default 200 ms). */
  readonly pollIntervalMs?: number;
  /** Records per call of the consumer (default 100, the mapping's batch size). */
  readonly batchSize?: number;
  /** Retries of a failing record before it is skipped (default 10, the mapping's retryAttempts). */
  readonly retryAttempts?: number;
  /** Pause before a retry (default 500 ms). */
  readonly retryPauseMs?: number;
  /** How often the shard list is read again to find new shards (default 2 s). */
  readonly shardRefreshMs?: number;
}

export interface LocalStreamReader {
  readonly streamArn: string;
  /** Records the consumer handled (after the filter). */
  forwarded(): number;
  /** Records skipped after their retries (the deployed mapping sends such a batch to its on-failure destination). */
  skipped(): number;
  /** The last poll found no record and nothing is being retried. */
  isCaughtUp(): boolean;
  /** Resolves after a poll that started after this call found nothing new (polls at once; resolves too when stopped). */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

type ShardPosition = { readonly type: 'LATEST' | 'TRIM_HORIZON' } | { readonly type: 'AFTER_SEQUENCE_NUMBER'; readonly sequenceNumber: string };

interface ShardCursor {
  readonly shardId: string;
  /** Where this reader started on the shard (again after an expired iterator, if it had read nothing yet). */
  readonly origin: 'LATEST' | 'TRIM_HORIZON';
  iterator?: string;
  /** The last sequence number read, to get a fresh iterator after an expired one. */
  lastSequenceNumber?: string;
  /** GetRecords said the shard is closed and read to its end. */
  finished: boolean;
}

export async function startStreamReader(options: StreamReaderOptions): Promise<LocalStreamReader> {
  const pollIntervalMs = options.pollIntervalMs ?? 200;
  const batchSize = options.batchSize ?? LOCAL_STREAM_DEFAULTS.batchSize;
  const retryAttempts = options.retryAttempts ?? LOCAL_STREAM_DEFAULTS.retryAttempts;
  const retryPauseMs = options.retryPauseMs ?? 500;
  const shardRefreshMs = options.shardRefreshMs ?? 2000;

  const dynamo = localDynamoClient(options.dynamoEndpoint);
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: options.table })).finally(() => dynamo.destroy());
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${options.table} has no stream: the fan-out reads the domain table's stream`);

  const streams = new DynamoDBStreamsClient({
    endpoint: options.dynamoEndpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
  const cursors = new Map<string, ShardCursor>();
  let lastRefresh = 0;
  let shardEnded = false;
  let forwarded = 0;
  let skipped = 0;
  let stopped = false;
  /** Records were read since the last poll that found none, or a batch is waiting to be retried. */
  let pending = false;
  let cycle = 0;
  let wake: (() => void) | undefined;
  const waiters: Array<{ after: number; resolve: () => void }> = [];

  /** A pause that `stop()` and `caughtUp()` can cut short. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const iteratorOf = async (shardId: string, position: ShardPosition) => {
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: position.type,
        ...(position.type === 'AFTER_SEQUENCE_NUMBER' ? { SequenceNumber: position.sequenceNumber } : {}),
      }),
    );
    return ShardIterator;
  };

  const listShards = async (): Promise<Shard[]> => {
    const shards: Shard[] = [];
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: exclusiveStartShardId }));
      shards.push(...(StreamDescription?.Shards ?? []));
      exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId);
    lastRefresh = Date.now();
    shardEnded = false;
    return shards;
  };

  /** New shards from TRIM_HORIZON, each once its parent (if this reader knows it) has been read to its end. */
  const refreshShards = async () => {
    for (const shard of await listShards()) {
      if (!shard.ShardId || cursors.has(shard.ShardId)) continue;
      const parent = shard.ParentShardId ? cursors.get(shard.ParentShardId) : undefined;
      if (parent && !parent.finished) continue; // Records of an item stay in order: the child waits for its parent.
      cursors.set(shard.ShardId, { shardId: shard.ShardId, origin: 'TRIM_HORIZON', iterator: await iteratorOf(shard.ShardId, { type: 'TRIM_HORIZON' }), finished: false });
    }
  };

  /** Calls the consumer batch by batch; a failed batch is retried from its first failed record. */
  const deliver = async (records: DynamoDBRecord[]) => {
    let remaining = records;
    let retries = 0;
    while (remaining.length > 0 && !stopped) {
      const batch = remaining.slice(0, batchSize);
      let failedAt: number | undefined;
      try {
        failedAt = firstFailure(await options.consume({ Records: batch }), batch);
      } catch (error) {
        logger.error('local webhook stream: the fan-out failed the whole batch', { table: options.table, records: batch.length, error });
        failedAt = 0;
      }
      forwarded += failedAt ?? batch.length;
      remaining = remaining.slice(failedAt ?? batch.length);
      // Progress moves the checkpoint: the record now first gets its own retries.
      if (failedAt !== 0) retries = 0;
      if (failedAt === undefined) continue;
      if (retries >= retryAttempts) {
        skipped++;
        logger.warn('local webhook stream: record skipped after retries (deployed: the on-failure destination)', {
          table: options.table,
          sequence_number: remaining[0].dynamodb?.SequenceNumber,
          event_id: remaining[0].eventID,
          retries,
        });
        remaining = remaining.slice(1);
        retries = 0;
      } else {
        retries++;
        await pause(retryPauseMs);
      }
    }
  };

  /** GetRecords on the shard's iterator; an iterator the stream no longer accepts is replaced once (repositionAfter). */
  const getRecords = async (cursor: ShardCursor) => {
    try {
      return await streams.send(new GetRecordsCommand({ ShardIterator: cursor.iterator, Limit: 1000 }));
    } catch (error) {
      if (!(error instanceof ExpiredIteratorException || error instanceof TrimmedDataAccessException)) throw error;
      cursor.iterator = await repositionAfter(cursor, error);
      return streams.send(new GetRecordsCommand({ ShardIterator: cursor.iterator, Limit: 1000 }));
    }
  };

  /**
   * A new iterator at the same place: after the last record read; with none read yet, where the reader started.
   *
   * DynamoDB Local numbers stream records with one counter for all its tables, and an iterator taken on an empty
   * shard (LATEST or TRIM_HORIZON) points at the shard's starting number: once writes to other tables have used
   * that number, the shard's first record has a higher one and that iterator is refused as trimmed. Nothing was
   * lost then (the shard was empty when the reader started on it, so every record in it is new): TRIM_HORIZON.
   */
  const repositionAfter = async (cursor: ShardCursor, error: Error): Promise<string | undefined> => {
    const { lastSequenceNumber } = cursor;
    if (lastSequenceNumber) {
      try {
        return await iteratorOf(cursor.shardId, { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: lastSequenceNumber });
      } catch (again) {
        if (!(again instanceof TrimmedDataAccessException)) throw again;
        logger.warn('local webhook stream: records trimmed before they were read (older than the stream keeps)', { table: options.table, shard: cursor.shardId });
        return iteratorOf(cursor.shardId, { type: 'TRIM_HORIZON' });
      }
    }
    return iteratorOf(cursor.shardId, { type: error instanceof TrimmedDataAccessException ? 'TRIM_HORIZON' : cursor.origin });
  };

  /** One pass over the open shards; the number of records read (filtered out or not). */
  const pollOnce = async (): Promise<number> => {
    if (shardEnded || Date.now() - lastRefresh >= shardRefreshMs) await refreshShards();
    let read = 0;
    for (const cursor of [...cursors.values()]) {
      if (stopped) break;
      if (cursor.finished || !cursor.iterator) continue;
      const response = await getRecords(cursor);
      const records = response.Records ?? [];
      if (records.length > 0) {
        read += records.length;
        pending = true;
        cursor.lastSequenceNumber = records[records.length - 1].dynamodb?.SequenceNumber ?? cursor.lastSequenceNumber;
        // Filtered-out records are dropped here, as the mapping drops them: the function never sees them.
        await deliver(records.filter(passesFanOutFilter).map((record) => lambdaRecordOf(record, streamArn)));
      }
      cursor.iterator = response.NextShardIterator;
      if (!cursor.iterator) {
        // A closed shard read to its end: the next pass reads the shard list to find its children.
        cursor.finished = true;
        shardEnded = true;
      }
    }
    return read;
  };

  // Where reading starts (see the header): LATEST on every shard open now; closed ones are done.
  for (const shard of await listShards()) {
    if (!shard.ShardId) continue;
    const open = !shard.SequenceNumberRange?.EndingSequenceNumber;
    cursors.set(shard.ShardId, { shardId: shard.ShardId, origin: 'LATEST', iterator: open ? await iteratorOf(shard.ShardId, { type: 'LATEST' }) : undefined, finished: !open });
  }

  const loop = (async () => {
    while (!stopped) {
      const started = ++cycle;
      let read: number;
      try {
        read = await pollOnce();
      } catch (error) {
        if (stopped) break;
        logger.error('local webhook stream: poll failed', { table: options.table, error });
        await pause(pollIntervalMs);
        continue;
      }
      if (read > 0) continue; // More may be waiting: read again at once.
      pending = false;
      for (const waiter of waiters.splice(0)) {
        if (waiter.after < started) waiter.resolve();
        else waiters.push(waiter);
      }
      // A caller of caughtUp() during this poll needs one more, started after its call.
      if (!stopped && waiters.length === 0) await pause(pollIntervalMs);
    }
    waiters.splice(0).forEach((waiter) => waiter.resolve());
  })();

  return {
    streamArn,
    forwarded: () => forwarded,
    skipped: () => skipped,
    isCaughtUp: () => !pending,
    caughtUp: () =>
      stopped
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            waiters.push({ after: cycle, resolve });
            if (!pending) wake?.(); // Cut the idle pause short, not a retry's.
          }),
    stop: async () => {
      stopped = true;
      wake?.();
      await loop;
      streams.destroy();
    },
  };
}

/** The fan-out mapping's filter, applied to a stream record (FAN_OUT_FILTER_PATTERN). */
export function passesFanOutFilter(record: StreamsRecord): boolean {
  return matchesPattern(FAN_OUT_FILTER_PATTERN, record);
}

/** The exact-value subset of Lambda's filter patterns: every key must match; a list holds the values allowed. */
function matchesPattern(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.includes(value as never);
  if (typeof pattern !== 'object' || pattern === null) return false;
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(pattern).every(([key, inner]) => matchesPattern(inner, (value as Record<string, unknown>)[key]));
}

/** Index of the first failed record of `batch`; 0 when an identifier is missing or unknown (the whole batch); undefined: none. */
function firstFailure(response: DynamoDBBatchResponse | void, batch: readonly DynamoDBRecord[]): number | undefined {
  const failures = response?.batchItemFailures ?? [];
  if (failures.length === 0) return undefined;
  let first = batch.length;
  for (const { itemIdentifier } of failures) {
    const index = batch.findIndex((record) => record.dynamodb?.SequenceNumber === itemIdentifier);
    if (!itemIdentifier || index < 0) return 0;
    first = Math.min(first, index);
  }
  return first;
}

/** The record as the event source mapping delivers it: epoch seconds, binary values in base64. */
export function lambdaRecordOf(record: StreamsRecord, streamArn: string): DynamoDBRecord {
  const stream = record.dynamodb ?? {};
  const image = (values?: Record<string, StreamsAttributeValue>) =>
    values ? Object.fromEntries(Object.entries(values).map(([name, value]) => [name, lambdaAttributeOf(value)])) : undefined;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: record.eventSource ?? 'aws:dynamodb',
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(stream.ApproximateCreationDateTime ? { ApproximateCreationDateTime: Math.floor(stream.ApproximateCreationDateTime.getTime() / 1000) } : {}),
      Keys: image(stream.Keys),
      ...(stream.NewImage ? { NewImage: image(stream.NewImage) } : {}),
      ...(stream.OldImage ? { OldImage: image(stream.OldImage) } : {}),
      SequenceNumber: stream.SequenceNumber,
      SizeBytes: stream.SizeBytes,
      StreamViewType: stream.StreamViewType,
    },
  };
}

function lambdaAttributeOf(value: StreamsAttributeValue): AttributeValue {
  const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.M !== undefined) return { M: Object.fromEntries(Object.entries(value.M).map(([name, inner]) => [name, lambdaAttributeOf(inner)])) };
  if (value.L !== undefined) return { L: value.L.map(lambdaAttributeOf) };
  return value as AttributeValue;
}
