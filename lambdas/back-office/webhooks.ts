/**
 * The operator's view of webhook callbacks (admin CLI): an organization's
 * callbacks with their standing, a callback's latest deliveries (by status),
 * one delivery by its id, deactivating a callback for good (its open
 * deliveries cancelled), and the two repairs: an open delivery back into its
 * schedule, and an event delivered again to the callbacks active when it
 * happened that have no delivery of it. Both repairs go through the sweeper
 * (lambdas/webhooks/delivery-sweeper.ts): they make the delivery due at once
 * and its next run queues the attempt, so the CLI needs no queue (and works on
 * the local stack from another process). Each is audited in the callback
 * creator's trail, in the same transaction. Never a secret: the CLI has no way
 * to show one.
 */
import { GetCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eventPartition, type EventEnvelope } from '../outbox/outbox';
import { isConditionFailure } from '../shared/storage/conditions';
import { Callbacks, deactivatedAs, viewOf, type StandingCallback, type WebhookView } from '../webhooks/callbacks';
import { Deliveries, deliveryView, type DeliveryView } from '../webhooks/deliveries';
import {
  DELIVERY_ID_PATTERN,
  DUE_AT_ONCE,
  WEBHOOK_ID_PATTERN,
  webhookIdOfDelivery,
  webhookLookup,
  type AccountWebhookEntry,
  type DeliveryItem,
  type DeliveryStatus,
} from '../webhooks/webhook-items';
import { auditPut, OPERATOR } from './audit';
import { BackOfficeError } from './errors';
import { IdentityStore, type Clock } from './identity-store';

const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'attempting', 'retrying', 'delivered', 'failed', 'cancelled'];

/** One delivery as the operator sees it: the settings view plus what the repair tools act on. */
export interface DeliveryDetails extends DeliveryView {
  readonly webhook_id: string;
  readonly partner_id: string;
  readonly generation: number;
  /** When its next attempt is due (epoch ms), while open: the sweeper queues it again past due + grace. */
  readonly due_at: number | null;
  /** The worker's own state: `attempting` while one holds the attempt. */
  readonly state: DeliveryStatus;
}

export class WebhooksOffice {
  private readonly callbacks: Callbacks;
  private readonly deliveries: Deliveries;

  private readonly identity: IdentityStore;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    clock?: Clock,
    /** The domain table (outbox events), for `event fan-out`. */
    private readonly domainTable?: string,
  ) {
    this.callbacks = new Callbacks(client, table, clock);
    this.deliveries = new Deliveries(client, table, clock);
    this.identity = new IdentityStore(client, table, clock);
  }

  /** Every callback of an organization (deactivated ones until they expire), with the status its creator's standing gives it. */
  async list(partnerId: string): Promise<{ partner_id: string; webhooks: (WebhookView & { account_id: string })[] }> {
    const items = await this.callbacks.ofOrganization(partnerId);
    const webhooks = await Promise.all(
      items.map(async (item) => {
        const { found } = await this.callbacks.withStanding(item.partner_id, item.webhook_id, item.account_id);
        return { ...viewOf(item, found?.standing ?? { usable: true }), account_id: item.account_id };
      }),
    );
    return { partner_id: partnerId, webhooks: webhooks.sort((a, b) => b.created_at.localeCompare(a.created_at)) };
  }

  /** Deactivate a callback for good and cancel its open deliveries; a deactivated one is answered as it is. */
  async deactivate(webhookId: string): Promise<{ webhook: WebhookView; cancelled_deliveries: number }> {
    const { item, standing } = await this.find(webhookId);
    const at = await this.callbacks.deactivate(item, 'deactivated_by_operator', OPERATOR);
    const cancelled = at ? await this.deliveries.cancelOpen(webhookId, undefined) : 0;
    return { webhook: viewOf(at ? deactivatedAs(item, at, 'deactivated_by_operator') : item, standing), cancelled_deliveries: cancelled };
  }

  /** A callback's latest 50 deliveries, newest first; with `status`, only those (as the settings list shows them). */
  async deliveriesOf(webhookId: string, status?: string): Promise<{ webhook_id: string; deliveries: DeliveryView[] }> {
    if (status !== undefined && !DELIVERY_STATUSES.includes(status as DeliveryStatus)) {
      throw new BackOfficeError('INVALID_ARGUMENT', `--status is one of ${DELIVERY_STATUSES.join(', ')}`);
    }
    await this.find(webhookId);
    const views = (await this.deliveries.latest(webhookId)).map(deliveryView);
    return { webhook_id: webhookId, deliveries: status === undefined ? views : views.filter((view) => view.status === status) };
  }

  /** One delivery by its id (a first-release id, which names no callback, needs `webhookId`). */
  async delivery(deliveryId: string, webhookId?: string): Promise<DeliveryDetails> {
    return detailsOf(await this.findDelivery(deliveryId, webhookId));
  }

  /**
   * An open delivery (pending, attempting, retrying) back into its schedule: due at once, so the
   * sweeper queues its next attempt on its next run (within a minute). Audited. An ended one is
   * refused: a manual resend (web settings) starts a new cycle.
   */
  async requeue(deliveryId: string, webhookId?: string): Promise<{ delivery: DeliveryDetails; requeued: true }> {
    const item = await this.findDelivery(deliveryId, webhookId);
    if (item.status !== 'pending' && item.status !== 'attempting' && item.status !== 'retrying') {
      throw new BackOfficeError('DELIVERY_NOT_OPEN', `Delivery ${deliveryId} is ${item.status}: resend it from web settings (a new cycle of attempts)`);
    }
    const { account_id } = await this.find(item.webhook_id).then((found) => found.item);
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: this.deliveries.dueNowUpdate(item) },
            auditPut(this.identity, account_id, 'webhook.delivery_requeued', OPERATOR, { webhook_id: item.webhook_id, delivery_id: item.delivery_id }),
          ],
        }),
      );
    } catch (error) {
      if (isConditionFailure(error) || (error as { name?: string }).name === 'TransactionCanceledException') {
        throw new BackOfficeError('DELIVERY_MOVED', `Delivery ${deliveryId} changed meanwhile: look again (delivery show)`);
      }
      throw error;
    }
    return { delivery: detailsOf({ ...item, due_at: DUE_AT_ONCE }), requeued: true };
  }

  /**
   * Deliver an outbox event again to each callback of its organization that was active when it
   * happened and has no delivery of it (none was made, or it expired): a new delivery, due at once
   * for the sweeper. Callbacks that have one are listed with it (resend it from web settings if
   * needed). Audited per callback that gets a new delivery.
   */
  async fanOutEvent(partnerId: string, eventId: string): Promise<{ event_id: string; created: string[]; existing: { webhook_id: string; delivery_id: string; status: string }[] }> {
    if (!this.domainTable) throw new BackOfficeError('INVALID_ARGUMENT', 'event fan-out needs the domain table');
    const { Item } = await this.client.send(new GetCommand({ TableName: this.domainTable, Key: { pk: eventPartition(partnerId), sk: eventId }, ConsistentRead: true }));
    const event = Item?.event as EventEnvelope | undefined;
    if (!event) throw new BackOfficeError('EVENT_NOT_FOUND', `No event ${eventId} of organization ${partnerId}`);
    const created: string[] = [];
    const existing: { webhook_id: string; delivery_id: string; status: string }[] = [];
    for (const callback of await this.callbacks.ofOrganization(partnerId, true)) {
      if (!callback.activated_at || callback.activated_at > event.created_at) continue;
      // The delivery and its audit entry in one transaction: made with its trail, or not at all.
      const { item, put } = this.deliveries.newDelivery(callback.webhook_id, event, { dueAt: DUE_AT_ONCE });
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: put },
              auditPut(this.identity, callback.account_id, 'webhook.event_redelivered', OPERATOR, { webhook_id: callback.webhook_id, delivery_id: item.delivery_id }),
            ],
          }),
        );
        created.push(item.delivery_id);
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const old = await this.deliveries.get(callback.webhook_id, item.delivery_id);
        if (!old) throw error;
        existing.push({ webhook_id: callback.webhook_id, delivery_id: old.delivery_id, status: deliveryView(old).status });
      }
    }
    return { event_id: eventId, created, existing };
  }

  private async findDelivery(deliveryId: string, webhookId?: string): Promise<DeliveryItem> {
    if (!DELIVERY_ID_PATTERN.test(deliveryId)) throw new BackOfficeError('INVALID_ARGUMENT', 'A delivery id looks like dlv_<time>_<16 hex>_<20 hex>');
    const owner = webhookIdOfDelivery(deliveryId) ?? webhookId;
    if (!owner) throw new BackOfficeError('INVALID_ARGUMENT', `${deliveryId} names no callback (an id of the first release): add --webhook W`);
    const item = await this.deliveries.get(owner, deliveryId);
    if (!item) throw new BackOfficeError('DELIVERY_NOT_FOUND', `No delivery ${deliveryId} (unknown, or older than 30 days)`);
    return item;
  }

  /** A callback by id alone: its creator's entry through the access table's gsi1 (`WEBHOOK#<id>`), then the callback. */
  private async find(webhookId: string): Promise<StandingCallback> {
    if (!WEBHOOK_ID_PATTERN.test(webhookId)) throw new BackOfficeError('INVALID_ARGUMENT', 'A webhook id looks like wh_ and 20 hex digits');
    const { Items = [] } = await this.client.send(
      new QueryCommand({ TableName: this.table, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': webhookLookup(webhookId).gsi1pk } }),
    );
    const entry = Items[0] as AccountWebhookEntry | undefined;
    const found = entry ? (await this.callbacks.withStanding(entry.partner_id, webhookId, entry.account_id)).found : undefined;
    if (!found) throw new BackOfficeError('WEBHOOK_NOT_FOUND', `No webhook callback ${webhookId}`);
    return found;
  }
}

function detailsOf(item: DeliveryItem): DeliveryDetails {
  return { ...deliveryView(item), webhook_id: item.webhook_id, partner_id: item.partner_id, generation: item.generation, due_at: item.due_at ?? null, state: item.status };
}
