/**
 * The delivery worker: each queue message asks for one attempt of one
 * delivery. Before the attempt it reads the delivery, the callback, the
 * creator's account and the organization (one round trip), and:
 *
 * - drops a message that is stale (an older resend cycle), a duplicate
 *   (another worker took or made the attempt), or about a finished delivery;
 * - cancels the delivery when the callback is deactivated, and when the
 *   creator lost authority (account, organization, manager membership,
 *   key-standing.ts) also deactivates the callback and cancels its other
 *   open deliveries (ACCESS_REVOKED);
 * - takes one of the callback's delivery slots in the limits table (at most
 *   3 attempts in flight and 10 started per minute per callback: the same
 *   admission as every quota); a full callback puts the message back with a
 *   delay, so one slow receiver neither floods itself nor holds the worker;
 * - claims the attempt (deliveries.ts), sends, records the outcome, frees
 *   the slot, and queues the next attempt after a failure: a delayed message
 *   for waits SQS can hold, the retry state machine for longer ones
 *   (delivery-schedule.ts).
 *
 * Each attempt made, cancelled or deferred is counted by outcome and attempt
 * number (WebhookAttempts); the deliveries that end are counted where their
 * record ends (deliveries.ts).
 */
import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { ApiError } from '../shared/errors';
import { decide, decisionDepsOf, planHolderItems } from '../shared/limits/admission';
import { logger } from '../shared/observability/logger';
import { METRICS } from '../shared/observability/metric-catalog';
import { recordMetric } from '../shared/observability/metrics';
import type { Platform } from '../shared/platform';
import { deliveryResult, post } from './attempt';
import { nextAttemptRoute, type DeliveryMessage } from './delivery-schedule';
import { DELIVERY_QUEUE_VISIBILITY_SECONDS, WEBHOOK_PIPELINE } from './pipeline-settings';
import { webhookServicesOf, type WebhookServices } from './services';
import { deliveryIdentity, deliveryKey, webhookKey, type DeactivationReason, type DeliveryItem } from './webhook-items';

/** A full callback's message comes back after this long (its slots free within seconds; its minute within 60 s). */
const BUSY_DELAY_SECONDS = 5;
/** Messages of one batch handled at once. */
const BATCH_PARALLELISM = 10;

export type AttemptOutcome =
  | 'delivered'
  | 'retrying'
  | 'failed'
  | 'cancelled'
  | 'deferred'
  | 'rescheduled'
  | 'duplicate'
  | 'stale'
  | 'invalid';

/** The WebhookAttempts outcome of an attempt's outcome; the others made no attempt (a duplicate, stale or requeued message). */
const ATTEMPT_METRIC_OUTCOMES: Partial<Record<AttemptOutcome, string>> = {
  delivered: 'delivered',
  retrying: 'retry_scheduled',
  failed: 'failed',
  cancelled: 'cancelled',
  deferred: 'deferred',
};

export async function deliverBatch(event: SQSEvent, platform: Platform): Promise<SQSBatchResponse> {
  const services = webhookServicesOf(platform);
  const failures: { itemIdentifier: string }[] = [];
  const records = [...event.Records];
  const work = async () => {
    for (let record = records.shift(); record; record = records.shift()) {
      const message = parseMessage(record.body);
      if (!message) {
        logger.warn('webhook delivery message ignored: not a delivery message', { messageId: record.messageId });
        continue;
      }
      const progress: AttemptProgress = {};
      try {
        const outcome = ATTEMPT_METRIC_OUTCOMES[await attemptDelivery(message, services, platform, progress)];
        if (outcome) recordMetric(METRICS.webhookAttempts, { outcome, attempt: String(message.attempt) });
      } catch (error) {
        const comesBackIn = failureBackoffSeconds(Number(record.attributes?.ApproximateReceiveCount ?? 1), progress.claimedUntil, platform.clock().getTime(), services.runtime.waitScale);
        logger.error('webhook delivery attempt failed; the message comes back', { error, delivery: message.delivery_id, comes_back_in_seconds: comesBackIn });
        // Sooner than the queue's visibility timeout (6 × the worker's): when the attempt's lease ends, or after a short backoff.
        await services.runtime.visibility.change(record.receiptHandle, comesBackIn).catch((changeError: unknown) => {
          logger.warn('webhook delivery message: its visibility could not be changed; it comes back after the visibility timeout', { error: changeError, delivery: message.delivery_id });
        });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_PARALLELISM, records.length) }, work));
  return { batchItemFailures: failures };
}

export function parseMessage(body: string): DeliveryMessage | undefined {
  try {
    const message = JSON.parse(body) as Partial<DeliveryMessage>;
    const ok =
      message.v === 1 &&
      typeof message.partner_id === 'string' &&
      typeof message.webhook_id === 'string' &&
      typeof message.delivery_id === 'string' &&
      Number.isInteger(message.attempt) &&
      Number.isInteger(message.generation);
    return ok ? (message as DeliveryMessage) : undefined;
  } catch {
    return undefined;
  }
}

/** What an attempt that failed half-way had done: whether it held the attempt, and until when. */
export interface AttemptProgress {
  /** Epoch ms by which the claim this attempt made has lapsed (another worker may take the attempt over). */
  claimedUntil?: number;
}

/**
 * When a message the worker failed on comes back: the backoff of its receive (failureBackoffSeconds,
 * doubled per receive; scaled with the local wait scale, at least a second), after the lease of the
 * attempt it claimed (a message back earlier would find the attempt held and be dropped).
 */
export function failureBackoffSeconds(receiveCount: number, claimedUntil: number | undefined, now: number, waitScale = 1): number {
  const backoff = Math.max(1, WEBHOOK_PIPELINE.worker.failureBackoffSeconds * 2 ** Math.max(0, Math.min(receiveCount, 5) - 1) * waitScale);
  const lease = claimedUntil === undefined ? 0 : Math.max(0, (claimedUntil - now) / 1000);
  return Math.min(DELIVERY_QUEUE_VISIBILITY_SECONDS, Math.ceil(lease + backoff));
}

/** One attempt of `message`'s delivery, start to end. Throws only when the message must come back (a store or queue failure). */
export async function attemptDelivery(message: DeliveryMessage, services: WebhookServices, platform: Platform, progress: AttemptProgress = {}): Promise<AttemptOutcome> {
  const { callbacks, deliveries, runtime } = services;
  // The delivery, the callback, its organization and its creator's account: one BatchGetItem.
  const read = await callbacks.withStanding(message.partner_id, message.webhook_id, message.account_id, [deliveryKey(message.webhook_id, message.delivery_id)]);
  const found = read.found;
  const delivery = deliveries.live(read.also[0] as DeliveryItem | undefined);
  if (!delivery) return 'stale';
  if (delivery.generation !== message.generation) return 'stale';
  const k = message.attempt;

  // The attempt after k was maybe never queued (the run stopped after recording k): queue it again.
  if (delivery.status === 'retrying' && delivery.attempts === k) {
    await scheduleNext(message, k, services);
    return 'rescheduled';
  }
  const takeOver = delivery.status === 'attempting' && delivery.attempts === k && (delivery.attempt_deadline ?? 0) < platform.clock().getTime();
  const due = (delivery.status === 'pending' || delivery.status === 'retrying') && delivery.attempts === k - 1;
  if (!due && !takeOver) return 'duplicate';

  if (!found || found.item.status === 'deactivated') {
    await deliveries.cancel(message.webhook_id, message.delivery_id, undefined);
    return 'cancelled';
  }
  if (!found.standing.usable) {
    await revokeCallback(found.item, found.standing.reason as DeactivationReason, services);
    return 'cancelled';
  }
  if (found.item.status !== 'active') return 'stale';

  // One of the callback's slots (3 in flight) and starts (10 a minute), or back to the queue for a while.
  let decision;
  try {
    decision = await decide(
      planHolderItems([{ holder: 'webhook-delivery', key: webhookKey(message.partner_id, message.webhook_id), guard: { kind: 'webhook' } }], { category: 'webhook-attempt' }, decisionDepsOf(platform)),
      (_item, old) => (!old || old.status !== 'active' ? 'WEBHOOK_INACTIVE' : undefined),
      decisionDepsOf(platform),
    );
  } catch (error) {
    if (error instanceof ApiError && error.code === 'WEBHOOK_INACTIVE') {
      await deliveries.cancel(message.webhook_id, message.delivery_id, undefined);
      return 'cancelled';
    }
    if (error instanceof ApiError && (error.code === 'RATE_LIMITED' || error.code === 'CONCURRENCY_LIMITED')) {
      const retryAfter = Number(error.headers['Retry-After'] ?? BUSY_DELAY_SECONDS);
      await runtime.queue.send(message, Math.min(900, Math.max(1, Number.isFinite(retryAfter) ? retryAfter : BUSY_DELAY_SECONDS)));
      return 'deferred';
    }
    throw error;
  }

  try {
    // Set before the claim: a claim whose answer is lost may have been made, and its message must wait out the lease.
    progress.claimedUntil = platform.clock().getTime() + runtime.attemptLeaseMs;
    const claimId = randomUUID();
    if (!(await deliveries.claim(message.webhook_id, message.delivery_id, k, message.generation, claimId))) return 'duplicate';
    const secret = await services.secretOf(found.item);
    const result = deliveryResult(await post(runtime, { url: found.item.url, secret }, delivery.event_id, delivery.body, platform.clock()));
    const route = result.delivered ? undefined : nextAttemptRoute(k, runtime.waitScale);
    const nextAt = route ? new Date(platform.clock().getTime() + 1000 * (route.via === 'queue' ? route.delaySeconds : route.waitSeconds)) : undefined;
    const status = await deliveries.record(message.webhook_id, message.delivery_id, k, message.generation, result, nextAt, claimId);
    // The attempt is no longer held: a message back after a later failure finds it recorded (and queues what follows).
    progress.claimedUntil = undefined;
    if (status === 'retrying') await scheduleNext(message, k, services);
    logger.info('webhook delivery attempt', {
      delivery: message.delivery_id,
      webhook: message.webhook_id,
      attempt: k,
      outcome: status ?? 'moved-on',
      ...(result.delivered ? {} : { reason: result.reason }),
      ...(result.httpStatus !== undefined ? { http_status: result.httpStatus } : {}),
    });
    return status === 'delivered' ? 'delivered' : status === 'failed' ? 'failed' : status === 'retrying' ? 'retrying' : 'duplicate';
  } finally {
    await decision.release();
  }
}

/** Queue attempt k + 1 after failed attempt k: a delayed message, or the retry state machine for waits SQS cannot hold. */
async function scheduleNext(message: DeliveryMessage, failed: number, services: WebhookServices): Promise<void> {
  const route = nextAttemptRoute(failed, services.runtime.waitScale);
  if (!route) return;
  const next: DeliveryMessage = { ...message, attempt: failed + 1 };
  if (route.via === 'queue') {
    await services.runtime.queue.send(next, route.delaySeconds);
  } else {
    await services.runtime.scheduler.schedule(retryExecutionName(message.webhook_id, message.delivery_id, message.generation, failed + 1), {
      wait_seconds: route.waitSeconds,
      message: next,
    });
  }
}

/**
 * The retry state machine's execution for one attempt: one per callback, delivery, cycle and attempt,
 * so a start is idempotent for that attempt only (a second start of the same attempt is a no-op) and
 * two callbacks' deliveries of one event never share a name. Step Functions names: at most 80
 * characters (this is at most 51 + 2 + the digits of the generation and attempt).
 */
export function retryExecutionName(webhookId: string, deliveryId: string, generation: number, attempt: number): string {
  const name = `${deliveryIdentity(webhookId, deliveryId)}-${generation}-${attempt}`;
  if (name.length > 80) throw new Error(`retry execution name too long: ${name}`);
  return name;
}

/** The creator lost authority: the callback is deactivated for good and its open deliveries cancelled (ACCESS_REVOKED). */
export async function revokeCallback(item: Pick<DeliveryItem, 'webhook_id' | 'partner_id'> & { account_id: string }, reason: DeactivationReason, services: WebhookServices): Promise<void> {
  await services.callbacks.deactivate(item, reason);
  const cancelled = await services.deliveries.cancelOpen(item.webhook_id, 'ACCESS_REVOKED');
  logger.info('webhook callback deactivated: its creator lost authority', { webhook: item.webhook_id, reason, cancelled });
}
