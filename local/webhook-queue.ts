/**
 * The local counterpart of the delivery queue (SQS) and of the delivery worker's event source
 * mapping: an in-process queue with SQS's semantics where the webhook code can tell the
 * difference. A message becomes visible after its delay; a receive hides it for the visibility
 * timeout (from the receive, as SQS counts it); batches of up to 10 visible messages go to the
 * consumer, at most `maxConcurrency` batches at a time; what the consumer reports in
 * `batchItemFailures` (or the whole batch when it throws) is not deleted and comes back when its
 * visibility timeout ends; a message already received `maxReceiveCount` times moves to the
 * dead-letter list instead of a further receive, as the redrive policy does.
 *
 * No polling loop: one timer set to the next moment a message becomes visible, and a wake-up on
 * every send (the event source mapping long-polls, so a message is picked up at once; its
 * 2-second batching window is not reproduced: a local batch is what is visible at that moment).
 *
 * Batch size, concurrency, receive count and visibility timeout are the deployed ones
 * (lambdas/webhooks/pipeline-settings.ts, which the stack reads too).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { DeliveryMessage } from '../lambdas/webhooks/delivery-schedule';
import { SQS_MAX_DELAY_SECONDS } from '../lambdas/webhooks/delivery-schedule';
import type { DeliveryQueue, MessageVisibility } from '../lambdas/webhooks/webhook-runtime';
import { DELIVERY_QUEUE_VISIBILITY_SECONDS, WEBHOOK_PIPELINE } from '../lambdas/webhooks/pipeline-settings';
import { logger } from '../lambdas/shared/observability/logger';

/** The deployed mapping's and queue's settings this queue reproduces. */
export const LOCAL_QUEUE_DEFAULTS = {
  batchSize: WEBHOOK_PIPELINE.worker.batchSize,
  maxConcurrency: WEBHOOK_PIPELINE.worker.maxConcurrency,
  maxReceiveCount: WEBHOOK_PIPELINE.queue.maxReceiveCount,
  visibilityTimeoutSeconds: DELIVERY_QUEUE_VISIBILITY_SECONDS,
} as const;

export const LOCAL_QUEUE_ARN = 'arn:aws:sqs:local:000000000000:webhook-deliveries';
/** What the local retry state machine's definition is built with (its `QueueUrl` parameter). */
export const LOCAL_QUEUE_URL = 'local://webhook-deliveries';

/** The delivery worker's entry, or a test's stand-in. `void` counts as "every message handled". */
export type QueueConsumer = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

export interface LocalQueueOptions {
  readonly consume: QueueConsumer;
  /** Seconds a received message stays hidden (default 30; the deployed queue: DELIVERY_QUEUE_VISIBILITY_SECONDS). */
  readonly visibilityTimeoutSeconds?: number;
  /** Receives before the redrive policy moves a message to the dead-letter list (default 5). */
  readonly maxReceiveCount?: number;
  /** Batches handed to the consumer at once (default 5, the mapping's maximum concurrency). */
  readonly maxConcurrency?: number;
  /** Messages per batch (default 10, the mapping's batch size). */
  readonly batchSize?: number;
  /** Tests only: the mapping's DeleteMessage of a handled message goes through this (fault injection: local/fault-injection.ts). */
  readonly interceptDelete?: (remove: () => Promise<void>) => Promise<void>;
}

interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly md5OfBody: string;
  readonly sentAt: number;
  /** Epoch ms from which a receive can return it. */
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  receiptHandle?: string;
}

export interface DeadLetter {
  readonly messageId: string;
  readonly body: string;
  readonly receiveCount: number;
}

export interface LocalQueueStats {
  readonly queued: number;
  readonly received: number;
  readonly deadLettered: number;
}

export class LocalDeliveryQueue implements DeliveryQueue, MessageVisibility {
  private readonly messages = new Map<string, StoredMessage>();
  private readonly deadLetterList: DeadLetter[] = [];
  private readonly visibilityMs: number;
  private readonly maxReceiveCount: number;
  private readonly maxConcurrency: number;
  private readonly batchSize: number;
  private readonly running = new Set<Promise<void>>();
  private readonly idleWaiters: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private stopped = false;
  private counts = { queued: 0, received: 0, deadLettered: 0 };

  constructor(private readonly options: LocalQueueOptions) {
    this.visibilityMs = (options.visibilityTimeoutSeconds ?? LOCAL_QUEUE_DEFAULTS.visibilityTimeoutSeconds) * 1000;
    this.maxReceiveCount = options.maxReceiveCount ?? LOCAL_QUEUE_DEFAULTS.maxReceiveCount;
    this.maxConcurrency = options.maxConcurrency ?? LOCAL_QUEUE_DEFAULTS.maxConcurrency;
    this.batchSize = options.batchSize ?? LOCAL_QUEUE_DEFAULTS.batchSize;
    if (!(this.visibilityMs >= 0)) throw new RangeError(`visibilityTimeoutSeconds must be a non-negative number, got ${options.visibilityTimeoutSeconds}`);
  }

  /** SQS's SendMessage with DelaySeconds; the delay is honoured exactly (fractions too: waits are scaled locally). */
  async send(message: DeliveryMessage, delaySeconds: number): Promise<void> {
    // SQS refuses these (InvalidParameterValue): say so here rather than deliver at a surprising time.
    if (!Number.isFinite(delaySeconds) || delaySeconds < 0 || delaySeconds > SQS_MAX_DELAY_SECONDS) {
      throw new RangeError(`DelaySeconds must be between 0 and ${SQS_MAX_DELAY_SECONDS}, got ${delaySeconds}`);
    }
    if (this.stopped) throw new Error('The local delivery queue is stopped');
    const body = JSON.stringify(message);
    const now = Date.now();
    const messageId = randomUUID();
    this.messages.set(messageId, {
      messageId,
      body,
      md5OfBody: createHash('md5').update(body).digest('hex'),
      sentAt: now,
      visibleAt: now + delaySeconds * 1000,
      receiveCount: 0,
    });
    this.counts.queued++;
    this.pump();
  }

  /**
   * SQS's ChangeMessageVisibility: the message received with this handle becomes visible `seconds` from now. Like SQS,
   * refused once the message was deleted or received again (its handle no longer the latest).
   */
  async change(receiptHandle: string, seconds: number): Promise<void> {
    if (!Number.isFinite(seconds) || seconds < 0 || seconds > 43_200) throw new RangeError(`VisibilityTimeout must be between 0 and 43200, got ${seconds}`);
    const message = [...this.messages.values()].find((m) => m.receiptHandle === receiptHandle);
    if (!message) throw new Error('ReceiptHandleIsInvalid: the message was deleted or received again');
    message.visibleAt = Date.now() + seconds * 1000;
    this.armTimer();
  }

  stats(): LocalQueueStats {
    return { ...this.counts };
  }

  /** Messages the redrive policy moved out, oldest first. */
  deadLetters(): readonly DeadLetter[] {
    return this.deadLetterList;
  }

  /** The deliveries a held message (visible, delayed or in flight) asks an attempt of. */
  heldDeliveryIds(): Set<string> {
    const ids = new Set<string>();
    for (const message of this.messages.values()) {
      const id = (JSON.parse(message.body) as Partial<DeliveryMessage>).delivery_id;
      if (id) ids.add(id);
    }
    return ids;
  }

  /** Messages held: visible, delayed or in flight (not the dead-letter list). */
  size(): number {
    return this.messages.size;
  }

  /** No message left (visible, delayed or in flight) and no batch running. */
  isIdle(): boolean {
    return this.messages.size === 0 && this.running.size === 0;
  }

  /** Resolves once the queue is idle (at once if it is, or when stopped). */
  drained(): Promise<void> {
    if (this.isIdle() || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops receiving and waits for the batches in progress; messages left behind are dropped with the process. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    await Promise.allSettled([...this.running]);
    this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }

  /** Hands out as many batches as the concurrency allows, then sets the timer for the next message to become visible. */
  private pump(): void {
    if (this.stopped) return;
    while (this.running.size < this.maxConcurrency) {
      const batch = this.receive(Date.now());
      if (batch.length === 0) break;
      // The consumer starts on a later tick: never inside the send() that woke the queue, and counted before it runs.
      const run = Promise.resolve()
        .then(() => this.deliver(batch))
        .finally(() => {
          this.running.delete(run);
          this.pump();
          this.notifyIfIdle();
        });
      this.running.add(run);
    }
    this.armTimer();
    this.notifyIfIdle();
  }

  /** ReceiveMessage: up to a batch of visible messages, hidden for the visibility timeout; the redrive policy first. */
  private receive(now: number): StoredMessage[] {
    const batch: StoredMessage[] = [];
    for (const message of this.messages.values()) {
      if (batch.length >= this.batchSize) break;
      if (message.visibleAt > now) continue;
      if (message.receiveCount >= this.maxReceiveCount) {
        this.messages.delete(message.messageId);
        this.deadLetterList.push({ messageId: message.messageId, body: message.body, receiveCount: message.receiveCount });
        this.counts.deadLettered++;
        logger.warn('local webhook queue: message moved to the dead-letter list', {
          queue: LOCAL_QUEUE_ARN,
          message_id: message.messageId,
          receive_count: message.receiveCount,
          body: message.body,
        });
        continue;
      }
      message.receiveCount++;
      message.firstReceivedAt ??= now;
      message.receiptHandle = randomUUID();
      message.visibleAt = now + this.visibilityMs;
      this.counts.received++;
      batch.push(message);
    }
    return batch;
  }

  private async deliver(batch: StoredMessage[]): Promise<void> {
    const records = batch.map((message) => sqsRecordOf(message));
    let failed: Set<string>;
    try {
      const response = await this.options.consume({ Records: records });
      failed = failedMessageIds(response, records);
    } catch (error) {
      logger.error('local webhook queue: the delivery worker failed the whole batch', { queue: LOCAL_QUEUE_ARN, messages: records.length, error });
      failed = new Set(records.map((record) => record.messageId));
    }
    for (const record of records) {
      if (failed.has(record.messageId)) continue;
      // DeleteMessage with this receive's handle: a message received again meanwhile (its visibility timeout ran out) stays.
      const remove = async () => {
        if (this.messages.get(record.messageId)?.receiptHandle === record.receiptHandle) this.messages.delete(record.messageId);
      };
      try {
        await (this.options.interceptDelete ? this.options.interceptDelete(remove) : remove());
      } catch (error) {
        // As when the mapping's delete fails: the message comes back when its visibility timeout ends.
        logger.warn('local webhook queue: a handled message was not deleted', { queue: LOCAL_QUEUE_ARN, message_id: record.messageId, error });
      }
    }
  }

  private armTimer(): void {
    let next = Infinity;
    for (const message of this.messages.values()) if (message.visibleAt < next) next = message.visibleAt;
    if (next === Infinity) return this.clearTimer();
    // With every slot busy, the end of a batch pumps again; a visible message needs no timer then.
    if (next <= Date.now() && this.running.size >= this.maxConcurrency) return this.clearTimer();
    if (this.timer && this.timerAt <= next) return;
    this.clearTimer();
    this.timerAt = next;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    }, Math.max(0, next - Date.now()));
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private notifyIfIdle(): void {
    if (this.isIdle()) this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }
}

/** The record the event source mapping builds for a received message. */
function sqsRecordOf(message: StoredMessage): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle as string,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt),
    },
    messageAttributes: {},
    md5OfBody: message.md5OfBody,
    eventSource: 'aws:sqs',
    eventSourceARN: LOCAL_QUEUE_ARN,
    awsRegion: 'local',
  };
}

/**
 * What the mapping keeps from a partial batch response: the reported messages; the whole batch
 * when an identifier is empty or not in the batch (Lambda treats such a response as a failure).
 */
function failedMessageIds(response: SQSBatchResponse | void, records: readonly SQSRecord[]): Set<string> {
  const ids = new Set(records.map((record) => record.messageId));
  const failures = response?.batchItemFailures ?? [];
  if (failures.some((failure) => !failure.itemIdentifier || !ids.has(failure.itemIdentifier))) return ids;
  return new Set(failures.map((failure) => failure.itemIdentifier));
}
