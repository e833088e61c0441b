/**
 * Item layout of webhook callbacks and their deliveries, all in the `access`
 * table (the control plane, no stream: delivery bookkeeping never wakes a
 * stream consumer):
 *
 * - the callback: `ORG#<partner>` / `WEBHOOK#<id>`, in its organization's
 *   partition, so the fan-out and the organization's 10-callback limit read
 *   one partition consistently. It carries the creator's standing facts as a
 *   key does (account generation, organization generation, manager grant):
 *   a password change or reset, a removal or demotion, an archive or a
 *   deactivation leaves a callback that can never deliver again, whatever
 *   happens later (lambdas/shared/identity/key-standing.ts decides, for keys
 *   and callbacks alike). The delivery pipeline's per-callback slots and
 *   starts are admission counters on this item.
 * - the creator's entry: `ACCOUNT#<account>` / `WEBHOOK#<id>` (which
 *   organization, the same standing facts): lists and counts an account's
 *   callbacks with one consistent Query, and proves ownership.
 * - a delivery: `DELIVERIES#<webhook>` / `<delivery id>`, ids sorted by the
 *   event's time, so the latest 50 are one Query whatever the history. It
 *   keeps the exact body (retries send the same bytes) and expires 30 days
 *   after it was created (`expires_at`; TTL removes it later, the code never
 *   waits for that).
 * - limit counters: `WEBHOOK#<id>` / `LIMITS`, `ORG#<partner>` /
 *   `WEBHOOK-LIMITS`, `DELIVERY#<webhook>#<delivery>` / `LIMITS`
 *   (lambdas/shared/limits: counter-only items).
 */
import { randomBytes } from 'node:crypto';
import type { ItemKey } from '../shared/limits/admission-store';

export type WebhookStatus = 'unverified' | 'active' | 'deactivated';

/** Why a callback was deactivated: by its creator, or a loss of authority (the key-standing reasons). */
export type DeactivationReason =
  | 'deactivated_by_creator'
  | 'deactivated_by_operator'
  | 'account_deactivated'
  | 'account_credentials_reset'
  | 'organization_archived'
  | 'organization_missing'
  | 'creator_not_manager';

export interface StandingFacts {
  readonly account_id: string;
  readonly partner_id: string;
  readonly account_gen: number;
  readonly org_gen: number;
  readonly manager_grant: string;
}

export interface WebhookItem extends StandingFacts {
  readonly webhook_id: string;
  readonly url: string;
  readonly host: string;
  readonly status: WebhookStatus;
  /** The signing secret, sealed (KMS in AWS): never stored or logged in clear. */
  readonly sealed_secret: string;
  readonly created_at: string;
  readonly activated_at?: string;
  readonly deactivated_at?: string;
  readonly deactivation_reason?: DeactivationReason;
  readonly last_verification?: { readonly at: string; readonly result: 'verified' | 'failed'; readonly failure_reason?: FailureReason; readonly http_status?: number };
}

export interface AccountWebhookEntry extends StandingFacts {
  readonly webhook_id: string;
  readonly created_at: string;
  /** Set when the callback is deactivated: it no longer counts toward the account's 10. */
  readonly closed_at?: string;
}

export type DeliveryStatus = 'pending' | 'attempting' | 'retrying' | 'delivered' | 'failed' | 'cancelled';

export type FailureReason =
  | 'CHALLENGE_RESPONSE_INVALID'
  | 'CHALLENGE_MISMATCH'
  | 'HTTP_3xx'
  | 'HTTP_4xx'
  | 'HTTP_5xx'
  | 'INVALID_WEBHOOK_URL'
  | 'UNSAFE_WEBHOOK_DESTINATION'
  | 'CONNECTION_FAILED'
  | 'WEBHOOK_UNREACHABLE'
  | 'ACCESS_REVOKED';

export interface DeliveryItem {
  readonly delivery_id: string;
  readonly webhook_id: string;
  readonly partner_id: string;
  readonly event_id: string;
  readonly event_type: string;
  /** The exact request body of every attempt. */
  readonly body: string;
  readonly status: DeliveryStatus;
  /** Attempts of the current cycle (a manual resend starts a new cycle). */
  readonly attempts: number;
  /** Raised by every manual resend: messages of an older cycle are ignored. */
  readonly generation: number;
  readonly resends: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly last_attempt_at?: string;
  readonly last_http_status?: number;
  readonly failure_reason?: FailureReason;
  readonly next_attempt_at?: string;
  readonly delivered_at?: string;
  /** While `attempting`: when a worker that took the attempt is presumed dead. */
  readonly attempt_deadline?: number;
  /** The last claim of an attempt (deliveries.ts claim): who holds it (the claim's write stamp is this id too). */
  readonly claim_id?: string;
  /** While open (pending, attempting, retrying): the sweeper's index shard and when the next attempt is due, epoch ms. */
  readonly due_shard?: string;
  readonly due_at?: number;
  /** Epoch ms after which the delivery is gone (30 days). */
  readonly expires_at: number;
}

export const WEBHOOK_PREFIX = 'WEBHOOK#';
export const webhookKey = (partnerId: string, webhookId: string): ItemKey => ({ pk: `ORG#${partnerId}`, sk: `${WEBHOOK_PREFIX}${webhookId}` });
/**
 * The index key of the creator's entry of a callback (the access table's gsi1): the operator finds a callback by
 * its id alone. On the entry, which hardly changes, not on the callback, whose every delivery slot is a write.
 */
export const webhookLookup = (webhookId: string) => ({ gsi1pk: `WEBHOOK#${webhookId}`, gsi1sk: 'WEBHOOK' });
export const accountWebhookKey = (accountId: string, webhookId: string): ItemKey => ({ pk: `ACCOUNT#${accountId}`, sk: `${WEBHOOK_PREFIX}${webhookId}` });
export const deliveriesPartition = (webhookId: string) => `DELIVERIES#${webhookId}`;
export const deliveryKey = (webhookId: string, deliveryId: string): ItemKey => ({ pk: deliveriesPartition(webhookId), sk: deliveryId });

/** Counter-only items of the webhook limits (limits-table.ts holders `webhook`, `webhook-organization`, `webhook-delivery-record`). */
export const webhookLimitsKey = (webhookId: string): ItemKey => ({ pk: `WEBHOOK#${webhookId}`, sk: 'LIMITS' });
export const organizationWebhookLimitsKey = (partnerId: string): ItemKey => ({ pk: `ORG#${partnerId}`, sk: 'WEBHOOK-LIMITS' });
export const deliveryLimitsKey = (webhookId: string, deliveryId: string): ItemKey => ({ pk: `DELIVERY#${webhookId}#${deliveryId}`, sk: 'LIMITS' });

/** Shards of the due-deliveries index (table-definitions.ts DUE_DELIVERIES_INDEX): its writes spread over this many partitions. */
export const DUE_SHARDS = 4;

/**
 * The `due_at` an operator's repair gives a delivery (admin CLI `delivery requeue`, `event fan-out`):
 * overdue at once for the sweeper, however long its grace, and not counted as lateness.
 */
export const DUE_AT_ONCE = 0;

/** The due-index shard of a delivery: stable for its id, so every write of one delivery lands on one shard. */
export function dueShardOf(deliveryId: string): string {
  let hash = 0;
  for (const char of deliveryId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return `DUE#${hash % DUE_SHARDS}`;
}

/** At most this many non-deactivated callbacks per account and per organization. */
export const WEBHOOK_LIMIT = 10;
/** Delivery records (and deactivated callbacks) are kept this long. */
export const DELIVERY_RETENTION_DAYS = 30;
export const DAY_MS = 86_400_000;
/** The settings list shows this many deliveries, newest first. */
export const DELIVERY_PAGE_SIZE = 50;

export const WEBHOOK_ID_PATTERN = /^wh_[0-9a-f]{20}$/;
/**
 * A delivery id: `dlv_<event time>_<event random>_<callback>` (deliveryIdOf). Ids of the first
 * release lack the callback part (`dlv_<time>_<random>`): such deliveries may still be in flight on
 * a stage deployed before per-callback ids, and are accepted everywhere (docs/webhooks.md).
 */
export const DELIVERY_ID_PATTERN = /^dlv_[0-9a-z]{9}_[0-9a-f]{16}(?:_[0-9a-f]{20})?$/;

export const newWebhookId = () => `wh_${randomBytes(10).toString('hex')}`;

/**
 * A delivery is one event to one callback, and its id says both: the event's time and random part
 * (`evt_<time>_<random>`), then the callback's (`wh_<hex>`). So it sorts by the event's time in the
 * callback's partition, and no two callbacks' deliveries of one event share an id anywhere: not in
 * the retry state machine's execution names, the queue's messages, the logs or the operator's
 * commands (which find the callback from the id alone: webhookIdOfDelivery).
 */
export const deliveryIdOf = (eventId: string, webhookId: string) => `dlv_${eventId.slice('evt_'.length)}_${webhookId.slice('wh_'.length)}`;

/** The callback a delivery id names (undefined for an id of the first release, which does not). */
export function webhookIdOfDelivery(deliveryId: string): string | undefined {
  const match = /^dlv_[0-9a-z]{9}_[0-9a-f]{16}_([0-9a-f]{20})$/.exec(deliveryId);
  return match ? `wh_${match[1]}` : undefined;
}

/**
 * The per-callback identity of a delivery, whatever the id's age: its id when it names its callback,
 * else the first release's id with the callback appended. Execution names and anything else that must
 * tell two callbacks' deliveries apart are built from this, never from the bare id.
 */
export const deliveryIdentity = (webhookId: string, deliveryId: string) =>
  webhookIdOfDelivery(deliveryId) ? deliveryId : `${deliveryId}_${webhookId.slice('wh_'.length)}`;

/** DynamoDB TTL attribute (epoch seconds) a day after `expiresAtMs`: removal is late anyway, reads go by `expires_at`. */
export const ttlAfter = (expiresAtMs: number) => Math.floor(expiresAtMs / 1000) + 86_400;
