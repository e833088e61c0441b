/**
 * The local webhook pipeline: what AWS runs around the webhook functions, in this process.
 *
 *   domain table stream ──▶ stream reader (webhook-stream.ts) ──▶ fan-out entry
 *   delivery queue (webhook-queue.ts) ──▶ delivery worker entry ──▶ queue (short waits)
 *                                                               └─▶ retry state machine (webhook-state-machine.ts) ──▶ queue
 *
 * plus a secret sealer standing in for KMS. The entries are the deployed ones
 * (lambdas/jobs/webhook-fanout, lambdas/jobs/webhook-delivery); the pipeline hands its queue,
 * scheduler and sealer to them through the shared platform's LocalSwitches.webhooks, which
 * local/local-stack.ts sets. Only here can loopback receivers be allowed and waits be scaled.
 */
import { DELIVERY_QUEUE_VISIBILITY_SECONDS } from '../lambdas/webhooks/pipeline-settings';
import type { Sealer } from '../lambdas/shared/sealing';
import { webhookSecretSealer, type WebhookLocalSwitches, type WebhookRuntime } from '../lambdas/webhooks/webhook-runtime';
import { GrantedSealer, LocalSealer } from './sealing';
import { asFunction } from './function-scope';
import type { FaultPlan } from './fault-injection';
import { logger } from '../lambdas/shared/observability/logger';
import type { TableId } from '../lambdas/shared/storage/table-definitions';
import { LocalDeliveryQueue, type QueueConsumer } from './webhook-queue';
import { LocalRetryScheduler } from './webhook-state-machine';
import { startStreamReader, type StreamConsumer } from './webhook-stream';

export interface LocalWebhookPipelineOptions {
  readonly dynamoEndpoint: string;
  readonly tables: Pick<Record<TableId, string>, 'access' | 'domain'>;
  /** Callbacks may point at https://127.0.0.1:<port> or https://localhost:<port> (`--allow-local-webhooks`). */
  readonly allowLocalWebhooks: boolean;
  /** Retry waits multiplied by this (0 < F ≤ 1; `--webhook-wait-scale F`). */
  readonly waitScale: number;
  /** The local stack's own ports on loopback (its front, once it listens): refused as callbacks even with allowLocalWebhooks. */
  readonly ownPorts?: () => readonly number[];
  /** Tests only: the sender's name resolution. */
  readonly resolve?: WebhookLocalSwitches['resolve'];
  /** Tests only: the attempt timeout. */
  readonly timeoutMs?: number;
  /** The delivery queue's visibility timeout, seconds (default: the deployed queue's, DELIVERY_QUEUE_VISIBILITY_SECONDS). */
  readonly visibilityTimeoutSeconds?: number;
  /** The local stack's data folder: the sealing key is kept there, so sealed secrets open after a restart. */
  readonly dataPath?: string;
  /**
   * The local stack's sealer (local/sealing.ts GrantedSealer: each function's own key uses), shared with two-factor;
   * without one the pipeline makes its own, with the deployed grants.
   */
  readonly sealer?: Sealer;
  /** Tests only: stand-ins for the fan-out and delivery worker entries (default: the deployed entries). */
  readonly consumers?: { readonly fanOut?: StreamConsumer; readonly deliver?: QueueConsumer };
  /**
   * Tests only: how long a claimed attempt is its worker's (default 45 s, as deployed). Shorter than the visibility
   * timeout, as deployed: a message whose worker failed comes back to an attempt it can take over.
   */
  readonly attemptLeaseMs?: number;
  /** Tests only: the sweeper's grace (WebhookLocalSwitches.sweepGraceMs). */
  readonly sweepGraceMs?: number;
  /** Tests only: fault injection (local/fault-injection.ts) on every call the pipeline makes. */
  readonly faults?: FaultPlan;
}

export interface LocalWebhookPipelineStats {
  /** Messages sent to the delivery queue (first attempts, short retries, and the state machine's sends). */
  readonly queued: number;
  /** Receives (a redelivered message counts each time). */
  readonly received: number;
  readonly deadLettered: number;
  readonly executionsStarted: number;
  readonly executionsFailed: number;
  /** Step Functions state transitions (states entered and retries). */
  readonly transitions: number;
  /** Stream records the fan-out handled. */
  readonly streamRecords: number;
  /** Stream records given up on after their retries. */
  readonly streamRecordsSkipped: number;
}

export interface LocalWebhookPipeline {
  readonly switches: WebhookLocalSwitches;
  readonly queue: LocalDeliveryQueue;
  readonly scheduler: LocalRetryScheduler;
  stats(): LocalWebhookPipelineStats;
  /** The deliveries something of the pipeline will attempt again: a message in the queue, or a running retry execution. */
  heldDeliveryIds(): Set<string>;
  /** Resolves when the stream reader is caught up, the queue holds no message (visible, delayed or in flight) and no execution runs. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export async function startLocalWebhookPipeline(options: LocalWebhookPipelineOptions): Promise<LocalWebhookPipeline> {
  if (!(options.waitScale > 0 && options.waitScale <= 1)) throw new RangeError(`waitScale must be a number in (0, 1], got ${options.waitScale}`);
  const visibilitySeconds = options.visibilityTimeoutSeconds ?? DELIVERY_QUEUE_VISIBILITY_SECONDS;
  if (options.attemptLeaseMs !== undefined && !(options.attemptLeaseMs > 0 && options.attemptLeaseMs < visibilitySeconds * 1000)) {
    throw new RangeError(`attemptLeaseMs must be positive and shorter than the visibility timeout (${visibilitySeconds} s), got ${options.attemptLeaseMs}`);
  }
  const faults = options.faults;
  // Each entry runs as its function (local/function-scope.ts): the worker opens callbacks' secrets with its own key uses.
  const deliver = asFunction('webhook-delivery', options.consumers?.deliver ?? deployedEntry(() => import('../lambdas/jobs/webhook-delivery/handler')));
  const queue = new LocalDeliveryQueue({
    consume: faults ? faults.consumer('worker', deliver) : deliver,
    visibilityTimeoutSeconds: visibilitySeconds,
    ...(faults ? { interceptDelete: (remove: () => Promise<void>) => faults.around('DeleteMessage', remove, 'worker') } : {}),
  });
  const scheduler = new LocalRetryScheduler(faults ? faults.queue(queue, 'state-machine') : queue, { waitScale: options.waitScale });
  // The stack's sealer (one key for callbacks' secrets and two-factor seeds), or one of its own: either checks the
  // invoking function's key uses, the worker's here and the webhooks function's in its routes.
  const sealer = webhookSecretSealer(options.sealer ?? new GrantedSealer(LocalSealer.forStack(options.dataPath)));
  const fanOut = asFunction('webhook-fanout', options.consumers?.fanOut ?? deployedEntry(() => import('../lambdas/jobs/webhook-fanout/handler')));
  const stream = await startStreamReader({
    dynamoEndpoint: options.dynamoEndpoint,
    table: options.tables.domain,
    consume: faults ? faults.consumer('fan-out', fanOut) : fanOut,
  });

  const switches: WebhookLocalSwitches = {
    queue: faults ? faults.queue(queue) : queue,
    visibility: faults ? faults.visibility(queue) : queue,
    scheduler: faults ? faults.scheduler(scheduler) : scheduler,
    sealer: faults ? faults.sealer(sealer) : sealer,
    allowLocalWebhooks: options.allowLocalWebhooks,
    waitScale: options.waitScale,
    ...(options.ownPorts ? { ownPorts: options.ownPorts } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.attemptLeaseMs !== undefined ? { attemptLeaseMs: options.attemptLeaseMs } : {}),
    ...(options.sweepGraceMs !== undefined ? { sweepGraceMs: options.sweepGraceMs } : {}),
    ...(faults ? { wrapSend: (send: WebhookRuntime['send']) => faults.sender(send) } : {}),
  };
  let stopped = false;
  return {
    switches,
    queue,
    scheduler,
    stats: () => ({ ...queue.stats(), ...scheduler.stats(), streamRecords: stream.forwarded(), streamRecordsSkipped: stream.skipped() }),
    heldDeliveryIds: () => new Set([...queue.heldDeliveryIds(), ...scheduler.heldDeliveryIds()]),
    idle: async () => {
      // Each stage feeds the next (and the worker may write what the stream carries): done only when all three are quiet at once.
      while (!stopped) {
        await queue.drained();
        await scheduler.drained();
        await stream.caughtUp();
        if (queue.isIdle() && scheduler.isIdle() && stream.isCaughtUp()) return;
      }
    },
    stop: async () => {
      stopped = true;
      // Upstream first: nothing new enters the queue once it stops.
      await stream.stop();
      const waiting = scheduler.runningCount();
      await scheduler.stop();
      await queue.stop();
      // Nothing of the queue or the state machine outlives the process (a kept data folder keeps only the tables).
      if (waiting > 0 || queue.size() > 0) {
        logger.warn('local webhook pipeline stopped with attempts pending: their deliveries stay open until resent by hand', {
          queued_messages: queue.size(),
          waiting_executions: waiting,
        });
      }
    },
  };
}

/** A deployed entry, loaded on first use: a local stack that never sees an event or a delivery does not load the webhook code. */
function deployedEntry<E, R>(load: () => Promise<{ handler: (event: E) => Promise<R> }>): (event: E) => Promise<R> {
  let loaded: Promise<{ handler: (event: E) => Promise<R> }> | undefined;
  return async (event) => {
    loaded ??= load();
    return (await loaded).handler(event);
  };
}

