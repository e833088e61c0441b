/**
 * The delivery pipeline's settings, in one place and free of CDK: the stack
 * deploys them (lib/constructs/webhook-delivery.ts) and the local stack's
 * stream reader and queue reproduce them (local/webhook-stream.ts,
 * local/webhook-queue.ts).
 */
export const WEBHOOK_PIPELINE = {
  worker: {
    /** One batch of attempts, each bounded by the spec's 8 s (the worker's own timer). */
    timeoutSeconds: 30,
    batchSize: 10,
    /** Waits at most this long to fill a batch: a first attempt is never held longer. */
    maxBatchingWindowSeconds: 2,
    /** Concurrent worker invocations the queue's poller starts (Lambda's minimum is 2). */
    maxConcurrency: 5,
    /**
     * A message the worker failed on comes back after this many seconds, doubled on each further
     * receive (10, 20, 40, 80: the fifth failure dead-letters it), plus what is left of the attempt's
     * lease when the worker had claimed it: not after the whole visibility timeout.
     */
    failureBackoffSeconds: 10,
  },
  queue: {
    retentionDays: 4,
    /** Receives before a message moves to the dead-letter queue (a message the worker keeps failing to handle). */
    maxReceiveCount: 5,
    deadLetterRetentionDays: 14,
  },
  sweeper: {
    /** How often the stuck-delivery sweeper runs (delivery-sweeper.ts). */
    intervalSeconds: 60,
    /** How far past its due time a delivery must be before the sweeper queues it again. */
    graceSeconds: 300,
  },
  fanOut: {
    /** A batch of up to 100 events, each a Query, a Put and a SendMessage per callback: room to spare. */
    timeoutSeconds: 60,
    batchSize: 100,
    retryAttempts: 10,
    /** The stream keeps records 24 hours anyway. */
    maxRecordAgeHours: 24,
  },
} as const;

/**
 * Lambda's guidance for an SQS event source: a visibility timeout of at least six times the
 * function's timeout (room for retries when invocations are throttled), plus the batching window.
 */
export const DELIVERY_QUEUE_VISIBILITY_SECONDS = 6 * WEBHOOK_PIPELINE.worker.timeoutSeconds + WEBHOOK_PIPELINE.worker.maxBatchingWindowSeconds;

/**
 * The stream records the fan-out is invoked for (a Lambda filter criteria pattern): inserts of new
 * outbox event items (lambdas/outbox/outbox.ts, `kind: 'event'`). Modifications, removals and every
 * other item never reach the function.
 */
export const FAN_OUT_FILTER_PATTERN = { eventName: ['INSERT'], dynamodb: { NewImage: { kind: { S: ['event'] } } } };
