/**
 * Delivery records: one per callback and business event, written by the
 * fan-out, moved through its attempts by the delivery worker, listed and
 * resent from web settings.
 *
 *   pending ─claim→ attempting ─2xx→ delivered
 *                        │ fail (attempt < 8) → retrying ─claim→ attempting …
 *                        │ fail (attempt 8)   → failed
 *   pending/attempting/retrying ─callback deactivated or authority lost→ cancelled
 *   delivered/failed/cancelled ─manual resend→ pending (a new cycle, generation + 1)
 *
 * An open delivery carries `due_shard` and `due_at` (the due-deliveries index:
 * created due at once, a retry due at its next attempt, removed when it ends),
 * so the sweeper finds one whose next attempt never came (delivery-sweeper.ts).
 *
 * Every move is one conditional write on the attempt number, the status and
 * the generation, so a message the queue delivers twice, a stale message of
 * an older cycle, or two workers racing move the record once. The writes that
 * end a delivery (delivered, failed, cancelled) are therefore where it is
 * counted (WebhookDeliveries), whoever ends it: the worker, the settings API
 * or the back office.
 *
 * Each move is made once whatever the SDK retries (writeOnce, shared/storage/write-once.ts): a
 * write whose answer was lost is sent again and fails its condition on its own effect; its stamp
 * (the claim's: its claim id) says it was applied, so the move is reported (and counted, and
 * followed) as made. The caller's own retry of a resend is recognized on the record: see
 * `unstartedResend`.
 */
import { createHash, randomUUID } from 'node:crypto';
import type * as z from 'zod/mini';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { METRICS } from '../shared/observability/metric-catalog';
import { recordMetric } from '../shared/observability/metrics';
import { conditionOldImage, isConditionFailure } from '../shared/storage/conditions';
import { writeOnce } from '../shared/storage/write-once';
import { eventBody, type EventEnvelope } from '../outbox/outbox';
import { MAX_ATTEMPTS } from './delivery-schedule';
import {
  DAY_MS,
  DELIVERY_PAGE_SIZE,
  DELIVERY_RETENTION_DAYS,
  deliveriesPartition,
  deliveryIdOf,
  deliveryKey,
  DUE_AT_ONCE,
  dueShardOf,
  ttlAfter,
  type DeliveryItem,
  type FailureReason,
} from './webhook-items';
import type { DeliverySchema } from './webhook-contracts';

export type Clock = () => Date;

/** How long a worker may hold an attempt before another may take it over (the worker's timeout, with margin). */
export const ATTEMPT_LEASE_MS = 45_000;

/** A delivery as the settings API lists it, as its contract's schema declares it. */
export type DeliveryView = z.input<typeof DeliverySchema>;

export function deliveryView(item: DeliveryItem): DeliveryView {
  return {
    delivery_id: item.delivery_id,
    event_id: item.event_id,
    event_type: item.event_type,
    // `attempting` is a worker's bookkeeping: for the reader it is still on its way.
    status: item.status === 'attempting' ? (item.attempts > 1 ? 'retrying' : 'pending') : item.status,
    attempts: item.attempts,
    last_http_status: item.last_http_status ?? null,
    failure_reason: item.failure_reason ?? null,
    created_at: item.created_at,
    last_attempt_at: item.last_attempt_at ?? null,
    next_attempt_at: item.next_attempt_at ?? null,
    delivered_at: item.delivered_at ?? null,
    resends: item.resends,
  };
}

/** The outcome of one attempt: delivered, or failed with the spec's reason (and the HTTP status when there was a response). */
export type AttemptResult = { readonly delivered: true; readonly httpStatus: number } | { readonly delivered: false; readonly reason: FailureReason; readonly httpStatus?: number };

const OPEN = [':pending', ':attempting', ':retrying'] as const;
const OPEN_VALUES = { ':pending': 'pending', ':attempting': 'attempting', ':retrying': 'retrying' };

export class Deliveries {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: Clock = () => new Date(),
    /** How long a claimed attempt is the claimer's (ATTEMPT_LEASE_MS; the local stack's tests shorten it). */
    private readonly leaseMs: number = ATTEMPT_LEASE_MS,
  ) {}

  /**
   * The delivery of `event` to a callback, created once: a stream record seen twice finds the first
   * one. Returns the record, whether this call made it, and whether its first attempt still has to be
   * queued (new, or created by a run that stopped before queuing it).
   *
   * Not stamped (writeOnce): the delivery's id is the event's and the callback's, so whatever meets
   * this Put's condition is this very delivery, whether this try, an earlier try whose answer was lost
   * or an earlier run made it; the old image says whether its first attempt is still to be queued.
   */
  async createForEvent(
    webhookId: string,
    event: EventEnvelope,
    options: { readonly dueAt?: number } = {},
  ): Promise<{ item: DeliveryItem; created: boolean; queueFirst: boolean }> {
    const { item, put } = this.newDelivery(webhookId, event, options);
    try {
      await this.client.send(new PutCommand({ ...put, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
      return { item, created: true, queueFirst: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const old = (conditionOldImage(error) ?? (await this.get(webhookId, item.delivery_id))) as DeliveryItem | undefined;
      if (!old) throw error;
      // Queued twice at worst: the worker's claim takes each attempt once.
      return { item: old, created: false, queueFirst: old.status === 'pending' && old.attempts === 0 && old.generation === 0 };
    }
  }

  /**
   * A new delivery of `event` to a callback, and the conditional Put that creates it (only if it does
   * not exist yet), for createForEvent or a caller's transaction (the operator's `event fan-out`).
   */
  newDelivery(webhookId: string, event: EventEnvelope, options: { readonly dueAt?: number } = {}) {
    const now = this.clock();
    const expiresAt = now.getTime() + DELIVERY_RETENTION_DAYS * DAY_MS;
    const item: DeliveryItem = {
      delivery_id: deliveryIdOf(event.id, webhookId),
      webhook_id: webhookId,
      partner_id: event.partner_id,
      event_id: event.id,
      event_type: event.type,
      body: eventBody(event),
      status: 'pending',
      attempts: 0,
      generation: 0,
      resends: 0,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      expires_at: expiresAt,
    };
    const put = {
      TableName: this.table,
      Item: {
        ...deliveryKey(webhookId, item.delivery_id),
        type: 'delivery',
        ...item,
        due_shard: dueShardOf(item.delivery_id),
        due_at: options.dueAt ?? now.getTime(),
        ttl: ttlAfter(expiresAt),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    };
    return { item, put };
  }

  /** One delivery, read consistently; undefined when missing or past its 30 days. */
  async get(webhookId: string, deliveryId: string): Promise<DeliveryItem | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: deliveryKey(webhookId, deliveryId), ConsistentRead: true }));
    return this.live(Item as DeliveryItem | undefined);
  }

  /** A delivery read elsewhere, if it is still within its 30 days. */
  live(item: DeliveryItem | undefined): DeliveryItem | undefined {
    return item && item.expires_at > this.clock().getTime() ? item : undefined;
  }

  /** The latest deliveries of a callback (at most 50, newest first): one Query, the same cost however long the history. */
  async latest(webhookId: string): Promise<DeliveryItem[]> {
    const now = this.clock().getTime();
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': deliveriesPartition(webhookId) },
        ScanIndexForward: false,
        Limit: DELIVERY_PAGE_SIZE,
        ConsistentRead: true,
      }),
    );
    return (Items as DeliveryItem[]).filter((item) => item.expires_at > now);
  }

  /**
   * Take attempt `attempt` of cycle `generation`: from pending/retrying after attempt - 1, or over a
   * worker presumed dead. False when another took it, or the delivery moved on.
   */
  async claim(webhookId: string, deliveryId: string, attempt: number, generation: number, claimId: string = randomUUID()): Promise<boolean> {
    const now = this.clock();
    // The claim's stamp is its id: a retry of this claim whose answer was lost (applied) finds its own stamp, and the
    // attempt is ours. Refused instead, the worker would drop the message and leave the delivery attempting until the
    // sweeper. `claim_id` stays on the record: who holds the attempt, after later writes have stamped it.
    const outcome = await writeOnce(
      this.client,
      new UpdateCommand({
        TableName: this.table,
        Key: deliveryKey(webhookId, deliveryId),
        UpdateExpression: 'SET #status = :attempting, attempts = :attempt, attempt_deadline = :deadline, claim_id = :claim, last_attempt_at = :at, updated_at = :at REMOVE next_attempt_at',
        ConditionExpression:
          'generation = :generation AND expires_at > :nowMs AND ((#status IN (:pending, :retrying) AND attempts = :previous) OR (#status = :attempting AND attempts = :attempt AND attempt_deadline < :nowMs))',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ...OPEN_VALUES,
          ':attempt': attempt,
          ':previous': attempt - 1,
          ':generation': generation,
          ':deadline': now.getTime() + this.leaseMs,
          ':claim': claimId,
          ':nowMs': now.getTime(),
          ':at': now.toISOString(),
        },
      }),
      claimId,
    );
    return outcome.applied;
  }

  /**
   * Record the outcome of the attempt this worker claimed (`claimId`: its claim's, when it has one: the outcome's stamp
   * names the claim it closes); returns the new status (undefined if the delivery moved on meanwhile, e.g. cancelled).
   */
  async record(
    webhookId: string,
    deliveryId: string,
    attempt: number,
    generation: number,
    result: AttemptResult,
    nextAttemptAt?: Date,
    claimId?: string,
  ): Promise<DeliveryItem['status'] | undefined> {
    const now = this.clock().toISOString();
    const status: DeliveryItem['status'] = result.delivered ? 'delivered' : attempt >= MAX_ATTEMPTS ? 'failed' : 'retrying';
    const sets = ['#status = :status', 'updated_at = :at'];
    const removes = ['attempt_deadline'];
    const values: Record<string, unknown> = { ':status': status, ':at': now, ':attempting': 'attempting', ':attempt': attempt, ':generation': generation };
    if (result.httpStatus !== undefined) {
      sets.push('last_http_status = :http');
      values[':http'] = result.httpStatus;
    } else removes.push('last_http_status');
    if (result.delivered) {
      sets.push('delivered_at = :at');
      removes.push('failure_reason');
    } else {
      sets.push('failure_reason = :reason');
      values[':reason'] = result.reason;
    }
    if (status === 'retrying' && nextAttemptAt) {
      sets.push('next_attempt_at = :next', 'due_at = :due');
      values[':next'] = nextAttemptAt.toISOString();
      values[':due'] = nextAttemptAt.getTime();
    }
    // An ended delivery leaves the due index.
    if (status !== 'retrying') removes.push('due_shard', 'due_at');
    // A retry of this write whose answer was lost (applied) finds its own stamp: the outcome is recorded. Taken for
    // "moved on", a retrying delivery's next attempt would not be queued until the sweeper.
    const outcome = await writeOnce(
      this.client,
      new UpdateCommand({
        TableName: this.table,
        Key: deliveryKey(webhookId, deliveryId),
        UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}`,
        ConditionExpression: '#status = :attempting AND attempts = :attempt AND generation = :generation',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      }),
      claimId === undefined ? undefined : `${claimId}/outcome`,
    );
    if (!outcome.applied) return undefined;
    if (status !== 'retrying') recordMetric(METRICS.webhookDeliveries, { outcome: status });
    return status;
  }

  /**
   * An open delivery back into its schedule (the operator's requeue): due at once for the sweeper,
   * which queues its next attempt (or the same one, past a dead worker's lease) on its next run. A
   * condition on what was read: false when the delivery moved on meanwhile.
   */
  dueNowUpdate(item: DeliveryItem) {
    return {
      TableName: this.table,
      Key: deliveryKey(item.webhook_id, item.delivery_id),
      UpdateExpression: 'SET due_shard = :shard, due_at = :due, updated_at = :at',
      ConditionExpression: '#status = :status AND attempts = :attempts AND generation = :generation',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':shard': dueShardOf(item.delivery_id),
        ':due': DUE_AT_ONCE,
        ':at': this.clock().toISOString(),
        ':status': item.status,
        ':attempts': item.attempts,
        ':generation': item.generation,
      },
    };
  }

  /**
   * Cancel one open delivery (its callback is gone or lost its authority): true when this call cancelled it, also when
   * its answer was lost and the SDK's retry found the cancellation made (the deactivation's count and the metric stay
   * exact).
   */
  async cancel(webhookId: string, deliveryId: string, reason: FailureReason | undefined): Promise<boolean> {
    const outcome = await writeOnce(
      this.client,
      new UpdateCommand({
        TableName: this.table,
        Key: deliveryKey(webhookId, deliveryId),
        UpdateExpression: `SET #status = :cancelled, updated_at = :at${reason ? ', failure_reason = :reason' : ''} REMOVE next_attempt_at, attempt_deadline, due_shard, due_at`,
        ConditionExpression: `#status IN (${OPEN.join(', ')})`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ...OPEN_VALUES, ':cancelled': 'cancelled', ':at': this.clock().toISOString(), ...(reason ? { ':reason': reason } : {}) },
      }),
    );
    if (outcome.applied) recordMetric(METRICS.webhookDeliveries, { outcome: 'cancelled' });
    return outcome.applied;
  }

  /**
   * Cancel the open deliveries among a callback's latest `scan` (newest first). Older open ones, if
   * any, are cancelled by the worker when their attempt comes (it re-checks the callback first).
   */
  async cancelOpen(webhookId: string, reason: FailureReason | undefined, scan = 1000): Promise<number> {
    let cancelled = 0;
    let seen = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          FilterExpression: `#status IN (${OPEN.join(', ')})`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':pk': deliveriesPartition(webhookId), ...OPEN_VALUES },
          ProjectionExpression: 'delivery_id',
          ScanIndexForward: false,
          Limit: Math.min(200, scan - seen),
          ExclusiveStartKey: start,
        }),
      );
      seen += page.ScannedCount ?? 0;
      for (const item of page.Items ?? []) if (await this.cancel(webhookId, String(item.delivery_id), reason)) cancelled += 1;
      start = page.LastEvaluatedKey;
    } while (start && seen < scan);
    return cancelled;
  }

  /**
   * A manual resend: a delivered, finally failed or cancelled delivery starts a new cycle of up to 8
   * attempts (generation + 1), at `at` (its `updated_at`, which names its audit entry: see unstartedResend).
   * Returns the new generation, `in-progress` while attempts are under way, or `moved` when the record
   * changed since it was read. Made once: a retry of the write whose answer was lost (applied) finds its
   * own stamp, and the resend is reported made (its first attempt queued, its audit entry written).
   */
  async resend(item: DeliveryItem, at: Date = this.clock()): Promise<{ generation: number } | 'in-progress' | 'moved'> {
    if (item.status === 'pending' || item.status === 'attempting' || item.status === 'retrying') return 'in-progress';
    const outcome = await writeOnce(
      this.client,
      new UpdateCommand({
        TableName: this.table,
        Key: deliveryKey(item.webhook_id, item.delivery_id),
        UpdateExpression:
          'SET #status = :pending, attempts = :zero, generation = :next, resends = resends + :one, updated_at = :at, due_shard = :shard, due_at = :dueAt REMOVE failure_reason, next_attempt_at, attempt_deadline',
        ConditionExpression: '#status = :status AND generation = :generation',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':zero': 0,
          ':one': 1,
          ':next': item.generation + 1,
          ':at': at.toISOString(),
          ':status': item.status,
          ':generation': item.generation,
          ':shard': dueShardOf(item.delivery_id),
          ':dueAt': at.getTime(),
        },
      }),
    );
    return outcome.applied ? { generation: item.generation + 1 } : 'moved';
  }
}

/** The delivery as `resend` (at `at`) leaves it: for an answer that cannot read it again. */
export function resentItem(item: DeliveryItem, at: string): DeliveryItem {
  const { failure_reason: _reason, next_attempt_at: _next, attempt_deadline: _deadline, ...kept } = item;
  return { ...kept, status: 'pending', attempts: 0, generation: item.generation + 1, resends: item.resends + 1, updated_at: at };
}

/**
 * A resend whose first attempt has not started (pending, no attempt yet, a cycle after the first): its generation and
 * when it was made. The caller's retry of a resend whose answer it lost (every try of the write lost, or the function
 * dead after it) meets it, and finishes it (its audit entry, its first attempt queued) rather than being refused as in
 * progress. Until the first attempt is claimed: after that, a resend of it is in progress (409) like any other. Its
 * time is the record's `updated_at`, which the resend wrote and nothing changes before that claim but an operator's
 * `delivery requeue` (then a retry's audit entry would be a second one).
 */
export function unstartedResend(item: DeliveryItem): { readonly generation: number; readonly at: string } | undefined {
  return item.status === 'pending' && item.attempts === 0 && item.generation > 0 ? { generation: item.generation, at: item.updated_at } : undefined;
}

/**
 * The audit entry of a resend (`webhook.resent`), named after it: the resend's time, and an id from the delivery and
 * its cycle. Each retry that finishes the resend writes the same item: one entry per resend.
 */
export function resendEntryName(item: Pick<DeliveryItem, 'webhook_id' | 'delivery_id'>, resend: { readonly generation: number; readonly at: string }): { at: string; id: string } {
  const digest = createHash('sha256').update(`webhook.resent\n${item.webhook_id}\n${item.delivery_id}\n${resend.generation}`).digest('base64url');
  return { at: resend.at, id: `rs_${digest.slice(0, 22)}` };
}
