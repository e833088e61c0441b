/**
 * The local webhook pipeline's pieces (local/webhook-*.ts) against the run's DynamoDB Local, each
 * with a stand-in for the deployed entry it feeds: the stream reader forwards only what the
 * deployed filter lets through, from where it started, retrying from the first failed record; the
 * queue honours delays, redelivers after the visibility timeout and dead-letters after 5
 * receives; the retry state machine starts once per name; the sealer opens only for its own
 * context; and the pipeline as a whole, wired into the local stack, settles in idle().
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sharedPlatform } from '../../lambdas/shared/platform';
import type { DeliveryMessage, RetryExecutionInput } from '../../lambdas/webhooks/delivery-schedule';
import type { DeliveryQueue } from '../../lambdas/webhooks/webhook-runtime';
import { FAN_OUT_FILTER, WEBHOOK_PIPELINE } from '../../lib/constructs/webhook-delivery';
import { localDynamoClient } from '../../local/dynamo-local';
import { localDocumentClient } from '../../local/local-stack';
import { createTables, localTableNames } from '../../local/tables';
import { LocalSealer } from '../../local/sealing';
import { startLocalWebhookPipeline } from '../../local/webhook-pipeline';
import { webhookSecretSealer } from '../../lambdas/webhooks/webhook-runtime';
import { LOCAL_QUEUE_ARN, LOCAL_QUEUE_DEFAULTS, LocalDeliveryQueue } from '../../local/webhook-queue';
import { LocalRetryScheduler } from '../../local/webhook-state-machine';
import { FAN_OUT_FILTER_PATTERN, LOCAL_STREAM_DEFAULTS, startStreamReader, type StreamConsumer } from '../../local/webhook-stream';
import { startTestStack } from '../support/test-stack';

const endpoint = inject('dynamoEndpoint');
const tables = localTableNames(`test-${randomBytes(4).toString('hex')}`);
const client = localDocumentClient(endpoint);

beforeAll(async () => {
  const admin = localDynamoClient(endpoint);
  await createTables(admin, tables);
  admin.destroy();
});

afterAll(() => {
  client.destroy();
});

const message = (n: number): DeliveryMessage => ({ v: 1, partner_id: 'org_1', webhook_id: 'whk_1', delivery_id: `dlv_${n}`, attempt: 1, generation: 0 });
const eventItem = (id: string) => ({ pk: 'EVENTS#org_stream', sk: id, kind: 'event', event: { id, type: 'record.created' } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/** A consumer recording every batch, each handled. */
function recordingStreamConsumer() {
  const batches: DynamoDBRecord[][] = [];
  const consume: StreamConsumer = async (event: DynamoDBStreamEvent) => {
    batches.push(event.Records);
    return { batchItemFailures: [] };
  };
  return { batches, consume, keys: () => batches.flat().map((record) => record.dynamodb?.Keys?.sk?.S) };
}

describe('local stream reader', () => {
  it('forwards only INSERTs of event items (the deployed filter), from where it started, as Lambda records', async () => {
    // Prepare: an event written before the reader starts is not read again (LATEST).
    await client.send(new PutCommand({ TableName: tables.domain, Item: eventItem('evt_before') }));
    const consumer = recordingStreamConsumer();
    const reader = await startStreamReader({ dynamoEndpoint: endpoint, table: tables.domain, consume: consumer.consume, pollIntervalMs: 50 });

    try {
      // Act
      await client.send(new PutCommand({ TableName: tables.domain, Item: { pk: 'REC#1', sk: 'REC#1', kind: 'record', id: 'r1' } }));
      await client.send(new PutCommand({ TableName: tables.domain, Item: eventItem('evt_1') }));
      await client.send(
        new UpdateCommand({ TableName: tables.domain, Key: { pk: 'EVENTS#org_stream', sk: 'evt_1' }, UpdateExpression: 'SET touched = :t', ExpressionAttributeValues: { ':t': true } }),
      );
      await client.send(new DeleteCommand({ TableName: tables.domain, Key: { pk: 'EVENTS#org_stream', sk: 'evt_1' } }));
      await client.send(new PutCommand({ TableName: tables.domain, Item: { ...eventItem('evt_2'), kind: 'Event' } }));
      await client.send(new PutCommand({ TableName: tables.domain, Item: eventItem('evt_3') }));
      await reader.caughtUp();

      // Assess
      expect(consumer.keys()).toEqual(['evt_1', 'evt_3']);
      const [record] = consumer.batches.flat();
      expect(record).toMatchObject({
        eventName: 'INSERT',
        eventSource: 'aws:dynamodb',
        eventSourceARN: reader.streamArn,
        dynamodb: { Keys: { pk: { S: 'EVENTS#org_stream' }, sk: { S: 'evt_1' } }, NewImage: { kind: { S: 'event' } }, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      });
      expect(typeof record.dynamodb?.ApproximateCreationDateTime).toBe('number');
      expect(record.dynamodb?.SequenceNumber).toMatch(/^\d+$/);
      expect(reader.forwarded()).toBe(2);
      expect(reader.isCaughtUp()).toBe(true);
    } finally {
      await reader.stop();
    }
  });

  it('reads a new table’s stream from its first record, though writes to other tables came first', async () => {
    // Prepare: an empty stream; DynamoDB Local numbers stream records across all its tables.
    const fresh = localTableNames(`test-${randomBytes(4).toString('hex')}`);
    const admin = localDynamoClient(endpoint);
    await createTables(admin, fresh);
    admin.destroy();
    const consumer = recordingStreamConsumer();
    const reader = await startStreamReader({ dynamoEndpoint: endpoint, table: fresh.domain, consume: consumer.consume, pollIntervalMs: 50 });

    try {
      // Act
      for (let i = 0; i < 3; i += 1) await client.send(new PutCommand({ TableName: fresh.access, Item: { pk: `ACC#${i}`, sk: 'A' } }));
      await reader.caughtUp();
      await client.send(new PutCommand({ TableName: fresh.domain, Item: eventItem('evt_first') }));
      await client.send(new PutCommand({ TableName: fresh.access, Item: { pk: 'ACC#late', sk: 'A' } }));
      await client.send(new PutCommand({ TableName: fresh.domain, Item: eventItem('evt_second') }));
      await reader.caughtUp();

      // Assess
      expect(consumer.keys()).toEqual(['evt_first', 'evt_second']);
    } finally {
      await reader.stop();
    }
  });

  it('retries a batch from its first failed record, and skips a record that keeps failing', async () => {
    // Prepare: a consumer that handles records in order and stops at the first failure (as the fan-out does);
    // evt_b fails twice, evt_c always. `reached` counts the calls that got to each record.
    const failures = new Map<string, number>([['evt_b', 2], ['evt_c', Infinity]]);
    const reached = new Map<string, number>();
    const reader = await startStreamReader({
      dynamoEndpoint: endpoint,
      table: tables.domain,
      pollIntervalMs: 50,
      retryAttempts: 3,
      retryPauseMs: 10,
      consume: async (event) => {
        for (const record of event.Records) {
          const key = record.dynamodb?.Keys?.sk?.S ?? '';
          reached.set(key, (reached.get(key) ?? 0) + 1);
          const left = failures.get(key) ?? 0;
          if (left > 0) {
            failures.set(key, left - 1);
            return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber as string }] };
          }
        }
        return { batchItemFailures: [] };
      },
    });

    try {
      // Act
      for (const id of ['evt_a', 'evt_b', 'evt_c', 'evt_d']) await client.send(new PutCommand({ TableName: tables.domain, Item: { ...eventItem(id), pk: 'EVENTS#org_retry' } }));
      await waitFor(() => reached.has('evt_d'));
      await reader.caughtUp();

      // Assess: no record before a failure is handled twice; evt_c gets 1 try and 3 retries, then the reader moves on.
      expect(Object.fromEntries(reached)).toEqual({ evt_a: 1, evt_b: 3, evt_c: 4, evt_d: 1 });
      expect(reader.skipped()).toBe(1);
      expect(reader.forwarded()).toBe(3);
    } finally {
      await reader.stop();
    }
  });

  it('retries the whole batch when the consumer throws', async () => {
    // Prepare
    let calls = 0;
    const seen: string[][] = [];
    const reader = await startStreamReader({
      dynamoEndpoint: endpoint,
      table: tables.domain,
      pollIntervalMs: 50,
      retryPauseMs: 10,
      consume: async (event) => {
        seen.push(event.Records.map((record) => record.dynamodb?.Keys?.sk?.S as string));
        if (++calls === 1) throw new Error('fan-out crashed');
      },
    });

    try {
      // Act
      await client.send(new PutCommand({ TableName: tables.domain, Item: { ...eventItem('evt_throw'), pk: 'EVENTS#org_throw' } }));
      await waitFor(() => calls >= 2);
      await reader.caughtUp();

      // Assess
      expect(seen).toEqual([['evt_throw'], ['evt_throw']]);
      expect(reader.forwarded()).toBe(1);
    } finally {
      await reader.stop();
    }
  });

  it('applies the filter and batch settings the stack deploys (lib/constructs/webhook-delivery.ts)', () => {
    expect(JSON.parse(JSON.stringify(FAN_OUT_FILTER))).toEqual(FAN_OUT_FILTER_PATTERN);
    expect(LOCAL_STREAM_DEFAULTS).toEqual({ batchSize: WEBHOOK_PIPELINE.fanOut.batchSize, retryAttempts: WEBHOOK_PIPELINE.fanOut.retryAttempts });
    expect(LOCAL_QUEUE_DEFAULTS).toMatchObject({
      batchSize: WEBHOOK_PIPELINE.worker.batchSize,
      maxConcurrency: WEBHOOK_PIPELINE.worker.maxConcurrency,
      maxReceiveCount: WEBHOOK_PIPELINE.queue.maxReceiveCount,
    });
  });
});

describe('local delivery queue', () => {
  /** A consumer recording each record with the time it arrived. */
  function recordingQueueConsumer(answer: (records: SQSRecord[]) => SQSBatchResponse | Promise<SQSBatchResponse> = () => ({ batchItemFailures: [] })) {
    const received: Array<{ record: SQSRecord; at: number }> = [];
    const batches: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const consume = async (event: SQSEvent) => {
      batches.push(event.Records.length);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      for (const record of event.Records) received.push({ record, at: Date.now() });
      try {
        return await answer(event.Records);
      } finally {
        inFlight -= 1;
      }
    };
    return { received, batches, consume, maxInFlight: () => maxInFlight };
  }

  it('delivers a message after its delay (fractions of a second too), as an SQS record', async () => {
    // Prepare
    const consumer = recordingQueueConsumer();
    const queue = new LocalDeliveryQueue({ consume: consumer.consume });
    const sentAt = Date.now();

    // Act
    await queue.send(message(1), 0.4);
    await queue.send(message(2), 0);
    await queue.drained();

    // Assess
    const [first, second] = consumer.received;
    expect(JSON.parse(first.record.body)).toEqual(message(2));
    expect(JSON.parse(second.record.body)).toEqual(message(1));
    expect(second.at - sentAt).toBeGreaterThanOrEqual(395);
    expect(second.record).toMatchObject({ eventSource: 'aws:sqs', eventSourceARN: LOCAL_QUEUE_ARN, attributes: { ApproximateReceiveCount: '1' } });
    expect(second.record.receiptHandle).toEqual(expect.any(String));
    expect(queue.stats()).toEqual({ queued: 2, received: 2, deadLettered: 0 });
    await queue.stop();
  });

  it('refuses a delay SQS refuses', async () => {
    const queue = new LocalDeliveryQueue({ consume: async () => undefined });
    await expect(queue.send(message(1), 901)).rejects.toThrow(RangeError);
    await expect(queue.send(message(1), -1)).rejects.toThrow(RangeError);
    await expect(queue.send(message(1), Number.NaN)).rejects.toThrow(RangeError);
    await queue.stop();
  });

  it('hands out batches of up to 10, at most 5 at a time', async () => {
    // Prepare
    const consumer = recordingQueueConsumer(async () => {
      await sleep(30);
      return { batchItemFailures: [] };
    });
    const queue = new LocalDeliveryQueue({ consume: consumer.consume });

    // Act
    await Promise.all(Array.from({ length: 95 }, (_, n) => queue.send(message(n), 0)));
    await queue.drained();

    // Assess
    expect(consumer.received).toHaveLength(95);
    expect(Math.max(...consumer.batches)).toBe(10);
    expect(consumer.maxInFlight()).toBeLessThanOrEqual(5);
    expect(consumer.maxInFlight()).toBeGreaterThan(1);
    await queue.stop();
  });

  it('redelivers a reported failure after the visibility timeout, counted from the receive, and deletes the rest', async () => {
    // Prepare: the first receive of dlv_1 fails.
    let failed = false;
    const consumer = recordingQueueConsumer((records) => {
      const first = records.find((record) => JSON.parse(record.body).delivery_id === 'dlv_1');
      if (first && !failed) {
        failed = true;
        return { batchItemFailures: [{ itemIdentifier: first.messageId }] };
      }
      return { batchItemFailures: [] };
    });
    const queue = new LocalDeliveryQueue({ consume: consumer.consume, visibilityTimeoutSeconds: 0.3 });

    // Act
    await queue.send(message(1), 0);
    await queue.send(message(2), 0);
    await queue.drained();

    // Assess
    const deliveries = consumer.received.map(({ record, at }) => ({ id: JSON.parse(record.body).delivery_id, count: record.attributes.ApproximateReceiveCount, record, at }));
    expect(deliveries.map(({ id, count }) => `${id}#${count}`).sort()).toEqual(['dlv_1#1', 'dlv_1#2', 'dlv_2#1']);
    const [, secondReceive] = deliveries.filter(({ id }) => id === 'dlv_1');
    // Measured from the queue's own receive (the record's first-receive stamp), not from when the consumer ran: the
    // consumer starts a tick or more after the receive, later still on a loaded machine, and that lag is not the queue's.
    expect(secondReceive.at - Number(secondReceive.record.attributes.ApproximateFirstReceiveTimestamp)).toBeGreaterThanOrEqual(300);
    expect(queue.stats()).toEqual({ queued: 2, received: 3, deadLettered: 0 });
    await queue.stop();
  });

  it('brings a failed message back when ChangeMessageVisibility says, not after the visibility timeout; refuses a handle no longer current', async () => {
    // Prepare: the first receive asks to come back in 0.2 s and fails; the queue's own visibility timeout is a minute.
    let queue: LocalDeliveryQueue | undefined;
    let firstHandle: string | undefined;
    const consumer = recordingQueueConsumer(async ([record]) => {
      if (firstHandle) return { batchItemFailures: [] };
      firstHandle = record.receiptHandle;
      await queue!.change(record.receiptHandle, 0.2);
      return { batchItemFailures: [{ itemIdentifier: record.messageId }] };
    });
    queue = new LocalDeliveryQueue({ consume: consumer.consume, visibilityTimeoutSeconds: 60 });

    // Act
    await queue.send(message(1), 0);
    await queue.drained();

    // Assess
    const [first, second] = consumer.received;
    expect(second.record.attributes.ApproximateReceiveCount).toBe('2');
    expect(second.at - first.at).toBeGreaterThanOrEqual(195);
    await expect(queue.change(firstHandle!, 1)).rejects.toThrow(/ReceiptHandleIsInvalid/);
    await expect(queue.change(firstHandle!, 43_201)).rejects.toThrow(RangeError);
    await queue.stop();
  });

  it('fails the whole batch when the consumer throws, or reports an identifier not in the batch', async () => {
    // Prepare
    let calls = 0;
    const consumer = recordingQueueConsumer(() => {
      calls += 1;
      if (calls === 1) throw new Error('worker crashed');
      if (calls === 2) return { batchItemFailures: [{ itemIdentifier: 'not-a-message-of-this-batch' }] };
      return { batchItemFailures: [] };
    });
    const queue = new LocalDeliveryQueue({ consume: consumer.consume, visibilityTimeoutSeconds: 0.05 });

    // Act
    await queue.send(message(1), 0);
    await queue.drained();

    // Assess
    expect(consumer.received.map(({ record }) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2', '3']);
    await queue.stop();
  });

  it('moves a message received 5 times to the dead-letter list instead of a 6th receive', async () => {
    // Prepare
    const consumer = recordingQueueConsumer((records) => ({ batchItemFailures: records.map((record) => ({ itemIdentifier: record.messageId })) }));
    const queue = new LocalDeliveryQueue({ consume: consumer.consume, visibilityTimeoutSeconds: 0.05 });

    // Act
    await queue.send(message(7), 0);
    await queue.drained();

    // Assess
    expect(consumer.received.map(({ record }) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2', '3', '4', '5']);
    expect(queue.deadLetters()).toEqual([{ messageId: consumer.received[0].record.messageId, body: JSON.stringify(message(7)), receiveCount: 5 }]);
    expect(queue.stats()).toEqual({ queued: 1, received: 5, deadLettered: 1 });
    expect(queue.isIdle()).toBe(true);
    await queue.stop();
  });
});

describe('local retry state machine', () => {
  function collectingQueue() {
    const sent: Array<{ message: DeliveryMessage; delaySeconds: number }> = [];
    const queue: DeliveryQueue = { send: async (m, delaySeconds) => void sent.push({ message: m, delaySeconds }) };
    return { sent, queue };
  }
  const retry = (n: number, waitSeconds: number): RetryExecutionInput => ({ wait_seconds: waitSeconds, message: { ...message(n), attempt: 5 } });

  it('runs the deployed definition: waits wait_seconds exactly, then queues the message at once (2 transitions)', async () => {
    // Prepare
    const { sent, queue } = collectingQueue();
    const scheduler = new LocalRetryScheduler(queue);
    const started = Date.now();

    // Act
    await scheduler.schedule('dlv_1-0-5', retry(1, 0.25));
    await scheduler.drained();

    // Assess
    expect(Date.now() - started).toBeGreaterThanOrEqual(245);
    expect(sent).toEqual([{ message: retry(1, 0.25).message, delaySeconds: 0 }]);
    expect(scheduler.stats()).toEqual({ executionsStarted: 1, executionsFailed: 0, transitions: 2 });
    expect(scheduler.transitionsOf('dlv_1-0-5')).toBe(2);
  });

  it('starts one execution per name, while it runs and after it ended', async () => {
    // Prepare
    const { sent, queue } = collectingQueue();
    const scheduler = new LocalRetryScheduler(queue);

    // Act
    await scheduler.schedule('dlv_2-0-5', retry(2, 0.1));
    await scheduler.schedule('dlv_2-0-5', retry(2, 0.1));
    await scheduler.drained();
    await scheduler.schedule('dlv_2-0-5', retry(2, 0));
    await scheduler.drained();
    await scheduler.schedule('dlv_2-0-6', retry(2, 0));
    await scheduler.drained();

    // Assess
    expect(sent).toHaveLength(2);
    expect(scheduler.stats().executionsStarted).toBe(2);
  });

  it('refuses a name StartExecution refuses, and fails an execution on a wait Step Functions cannot read', async () => {
    // Prepare
    const { sent, queue } = collectingQueue();
    const scheduler = new LocalRetryScheduler(queue);

    // Act
    await expect(scheduler.schedule('has space', retry(3, 0))).rejects.toThrow(/InvalidName/);
    await expect(scheduler.schedule('x'.repeat(81), retry(3, 0))).rejects.toThrow(/InvalidName/);
    await scheduler.schedule('dlv_3-0-5', { ...retry(3, 0), wait_seconds: -1 });
    await scheduler.drained();

    // Assess
    expect(sent).toHaveLength(0);
    expect(scheduler.stats()).toMatchObject({ executionsStarted: 1, executionsFailed: 1, transitions: 1 });
  });

  it('aborts a waiting execution on stop', async () => {
    // Prepare
    const { sent, queue } = collectingQueue();
    const scheduler = new LocalRetryScheduler(queue);
    await scheduler.schedule('dlv_4-0-5', retry(4, 3600));

    // Act: a stop that waited for the hour would outlast the test's own timeout.
    await scheduler.stop();

    // Assess
    expect(sent).toHaveLength(0);
    expect(scheduler.isIdle()).toBe(true);
  });
});

describe('local secret sealer', () => {
  const context = { webhookId: 'whk_1', partnerId: 'org_1' };

  it('opens what it sealed for the same callback only', async () => {
    // Prepare
    const sealer = webhookSecretSealer(new LocalSealer(randomBytes(32)));

    // Act
    const sealed = await sealer.seal('whsec_abc', context);

    // Assess
    expect(sealed).toMatch(/^local:[A-Za-z0-9+/]+=*$/);
    expect(sealed).not.toContain('whsec_abc');
    expect(await sealer.seal('whsec_abc', context)).not.toBe(sealed);
    expect(await sealer.open(sealed, context)).toBe('whsec_abc');
    await expect(sealer.open(sealed, { ...context, webhookId: 'whk_2' })).rejects.toThrow(/does not open/);
    await expect(sealer.open(sealed, { ...context, partnerId: 'org_2' })).rejects.toThrow(/does not open/);
    await expect(webhookSecretSealer(new LocalSealer(randomBytes(32))).open(sealed, context)).rejects.toThrow(/does not open/);
    await expect(sealer.open(`kms:${sealed.slice(6)}`, context)).rejects.toThrow(/not a local ciphertext/);
    // Another purpose with the same ids (a two-factor seed, say) does not open it either.
    const generic = new LocalSealer(randomBytes(32));
    const seed = await generic.seal('SEED', { purpose: 'two-factor', account_id: 'acc_1' });
    await expect(generic.open(seed, { purpose: 'webhook-secret', account_id: 'acc_1' })).rejects.toThrow(/does not open/);
    expect(await generic.open(seed, { purpose: 'two-factor', account_id: 'acc_1' })).toBe('SEED');
  });

  it('keeps its key in the data folder, so sealed secrets open after a restart', async () => {
    // Prepare
    const folder = mkdtempSync(join(tmpdir(), 'partner-api-sealer-'));
    try {
      const sealed = await webhookSecretSealer(LocalSealer.forStack(folder)).seal('whsec_kept', context);

      // Act
      const reopened = await webhookSecretSealer(LocalSealer.forStack(folder)).open(sealed, context);

      // Assess
      expect(reopened).toBe('whsec_kept');
      expect(statSync(join(folder, LocalSealer.KEY_FILE)).mode & 0o077).toBe(0);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('local webhook pipeline', () => {
  it('carries an event from the stream to the worker, a failed attempt through the state machine, and settles in idle()', async () => {
    // Prepare: the fan-out queues one delivery per event; the worker fails attempt 1 and holds attempt 2 in the state machine.
    const attempts: DeliveryMessage[] = [];
    let switches: Awaited<ReturnType<typeof startLocalWebhookPipeline>>['switches'] | undefined;
    const pipeline = await startLocalWebhookPipeline({
      dynamoEndpoint: endpoint,
      tables,
      allowLocalWebhooks: true,
      waitScale: 0.5,
      consumers: {
        fanOut: async (event) => {
          for (const record of event.Records) await switches?.queue.send({ ...message(0), delivery_id: `dlv_${record.dynamodb?.Keys?.sk?.S}` }, 0);
          return { batchItemFailures: [] };
        },
        deliver: async (event) => {
          for (const record of event.Records) {
            const attempt = JSON.parse(record.body) as DeliveryMessage;
            attempts.push(attempt);
            if (attempt.attempt === 1) await switches?.scheduler.schedule(`${attempt.delivery_id}-0-2`, { wait_seconds: 0.2, message: { ...attempt, attempt: 2 } });
          }
          return { batchItemFailures: [] };
        },
      },
    });
    switches = pipeline.switches;

    try {
      // Act
      await client.send(new PutCommand({ TableName: tables.domain, Item: { ...eventItem('evt_pipe'), pk: 'EVENTS#org_pipe' } }));
      await client.send(new PutCommand({ TableName: tables.domain, Item: { pk: 'REC#pipe', sk: 'REC#pipe', kind: 'record' } }));
      await pipeline.idle();

      // Assess
      expect(attempts.map((attempt) => `${attempt.delivery_id}#${attempt.attempt}`)).toEqual(['dlv_evt_pipe#1', 'dlv_evt_pipe#2']);
      expect(pipeline.stats()).toEqual({
        queued: 2,
        received: 2,
        deadLettered: 0,
        executionsStarted: 1,
        executionsFailed: 0,
        transitions: 2,
        streamRecords: 1,
        streamRecordsSkipped: 0,
      });
      expect(pipeline.switches).toMatchObject({ allowLocalWebhooks: true, waitScale: 0.5 });
    } finally {
      await pipeline.stop();
    }
  });

  it('refuses a wait scale outside (0, 1]', async () => {
    for (const waitScale of [0, -1, 2, Number.NaN]) {
      await expect(startLocalWebhookPipeline({ dynamoEndpoint: endpoint, tables, allowLocalWebhooks: false, waitScale })).rejects.toThrow(RangeError);
    }
  });

  it('is handed to the shared platform by the local stack before it serves, and stopped with it', async () => {
    // Prepare / Act
    const stack = await startTestStack({ webhooks: { waitScale: 0.01 } });
    try {
      // Assess
      expect(stack.webhooks).toBeDefined();
      expect(sharedPlatform().localSwitches?.webhooks).toBe(stack.webhooks?.switches);
      expect(stack.webhooks?.switches).toMatchObject({ allowLocalWebhooks: true, waitScale: 0.01 });
      expect(sharedPlatform().localSwitches?.ticketBridgeDown()).toBe(false);
      await stack.webhooks?.idle();
    } finally {
      await stack.stop();
    }
    const off = await startTestStack({ webhooks: false });
    try {
      expect(off.webhooks).toBeUndefined();
      expect(sharedPlatform().localSwitches?.webhooks).toBeUndefined();
    } finally {
      await off.stop();
    }
  });
});
