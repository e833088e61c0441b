/**
 * The stuck-delivery sweeper: whatever went wrong (a message lost or dead-lettered, a retry
 * execution that failed to queue its attempt, a worker that died holding an attempt, a fan-out
 * that stopped between the record and its first message), a delivery whose next attempt is overdue
 * by more than SWEEP_GRACE_MS is queued again. Run every minute (the `webhook-sweeper` job in AWS,
 * an interval in the local stack).
 *
 * An open delivery is in the due-deliveries index until it ends (deliveries.ts: `due_shard`,
 * `due_at`), so a run is one Query per shard for entries due before now minus the grace, then for
 * each the record itself (the index is eventually consistent and keys only): pending or retrying →
 * its next attempt; attempting past its lease → the same attempt (the worker takes it over); ended
 * or still in a worker's lease → nothing. Before queuing, the record's `due_at` becomes now, under
 * a condition on what was read, so two runs (or a run and a late message) queue an attempt at most
 * once per grace, and a queue failure after it only delays the next sweep by a grace. A
 * requeued attempt that turns out to be a duplicate is dropped by the worker's claim (one
 * conditional write per attempt): receivers see at most the duplicates the docs state.
 *
 * The bound (docs/webhooks.md): a delivery never stays open past its due time plus the grace, one
 * run interval and one attempt, unless its callback's starts are spent (the worker then defers it,
 * which is not stuck).
 */
import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logger } from '../shared/observability/logger';
import { METRICS } from '../shared/observability/metric-catalog';
import { recordMetric } from '../shared/observability/metrics';
import { DUE_DELIVERIES_INDEX } from '../shared/storage/table-definitions';
import { writeOnce } from '../shared/storage/write-once';
import type { Deliveries } from './deliveries';
import type { DeliveryMessage } from './delivery-schedule';
import { DUE_AT_ONCE, DUE_SHARDS, deliveryKey, type DeliveryItem } from './webhook-items';
import { WEBHOOK_PIPELINE } from './pipeline-settings';
import type { DeliveryQueue } from './webhook-runtime';

/** How far past its due time a delivery must be before the sweeper queues it again (AWS). */
export const SWEEP_GRACE_MS = WEBHOOK_PIPELINE.sweeper.graceSeconds * 1000;
/** How often the sweeper runs (AWS: the job's schedule, lib/constructs/webhook-delivery.ts). */
export const SWEEP_INTERVAL_MS = WEBHOOK_PIPELINE.sweeper.intervalSeconds * 1000;
/** Overdue entries examined per shard and run: a backlog larger than this is worked off over the next runs. */
export const SWEEP_BATCH = 100;

export interface SweepDeps {
  readonly client: DynamoDBDocumentClient;
  readonly table: string;
  readonly deliveries: Deliveries;
  readonly queue: DeliveryQueue;
  readonly clock: () => Date;
  readonly graceMs: number;
}

export interface SweepResult {
  /** Overdue index entries read. */
  readonly examined: number;
  /** Attempts queued again. */
  readonly requeued: number;
  /** How long the most overdue delivery requeued was past its due time, seconds (0 when none). */
  readonly oldestOverdueSeconds: number;
}

/** One run: every shard's overdue deliveries, each queued again at most once. */
export async function sweepDeliveries(deps: SweepDeps): Promise<SweepResult> {
  const now = deps.clock().getTime();
  let examined = 0;
  let requeued = 0;
  let oldest = 0;
  for (let shard = 0; shard < DUE_SHARDS; shard++) {
    const { Items = [] } = await deps.client.send(
      new QueryCommand({
        TableName: deps.table,
        IndexName: DUE_DELIVERIES_INDEX.indexName,
        KeyConditionExpression: 'due_shard = :shard AND due_at < :cutoff',
        ExpressionAttributeValues: { ':shard': `DUE#${shard}`, ':cutoff': now - deps.graceMs },
        Limit: SWEEP_BATCH,
      }),
    );
    for (const entry of Items) {
      examined += 1;
      const webhookId = String(entry.pk).replace(/^DELIVERIES#/, '');
      const overdue = await requeueIfStuck(webhookId, String(entry.sk), now, deps);
      if (overdue !== undefined) {
        requeued += 1;
        oldest = Math.max(oldest, overdue);
      }
    }
  }
  recordMetric(METRICS.webhookDeliveriesSwept, {}, requeued);
  return { examined, requeued, oldestOverdueSeconds: Math.round(oldest / 1000) };
}

/** Queue a stuck delivery's attempt again; its lateness in ms, or undefined when it is not stuck (or moved on meanwhile). */
async function requeueIfStuck(webhookId: string, deliveryId: string, now: number, deps: SweepDeps): Promise<number | undefined> {
  const item = await deps.deliveries.get(webhookId, deliveryId);
  if (!item || item.due_at === undefined || item.due_at >= now - deps.graceMs) return undefined;
  const attempt = attemptToQueue(item, now);
  if (attempt === undefined) return undefined;
  if (!(await postpone(item, now, deps))) return undefined;
  const message: DeliveryMessage = { v: 1, partner_id: item.partner_id, webhook_id: item.webhook_id, delivery_id: item.delivery_id, attempt, generation: item.generation };
  await deps.queue.send(message, 0);
  // An operator's repair is not lateness: it would read as decades overdue.
  const overdue = item.due_at === DUE_AT_ONCE ? 0 : now - item.due_at;
  logger.warn('webhook delivery requeued by the sweeper', { delivery: item.delivery_id, webhook: item.webhook_id, status: item.status, attempt, overdue_ms: overdue, operator: item.due_at === DUE_AT_ONCE });
  return overdue;
}

/** The attempt a stuck delivery needs: the next one, or the same one when its worker's lease ran out; none while a lease holds or once ended. */
export function attemptToQueue(item: DeliveryItem, now: number): number | undefined {
  if (item.status === 'pending' || item.status === 'retrying') return item.attempts + 1;
  if (item.status === 'attempting' && (item.attempt_deadline ?? 0) < now) return item.attempts;
  return undefined;
}

/**
 * Make the delivery due now (overdue again a grace later), if it is still as read: the one write that makes a requeue
 * happen once per grace. Made once (writeOnce): a retry of this write whose answer was lost (applied) fails on its own
 * `due_at` and finds its own stamp, so the delivery is still queued on this run, not skipped for one more grace.
 */
async function postpone(item: DeliveryItem, dueAt: number, deps: SweepDeps): Promise<boolean> {
  const outcome = await writeOnce(
    deps.client,
    new UpdateCommand({
      TableName: deps.table,
      Key: deliveryKey(item.webhook_id, item.delivery_id),
      UpdateExpression: 'SET due_at = :due',
      ConditionExpression: '#status = :status AND attempts = :attempts AND generation = :generation AND due_at = :old',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':due': dueAt, ':status': item.status, ':attempts': item.attempts, ':generation': item.generation, ':old': item.due_at },
    }),
  );
  return outcome.applied;
}
