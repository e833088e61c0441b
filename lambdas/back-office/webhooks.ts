/**
 * The operator's view of webhook callbacks (admin CLI): an organization's
 * callbacks with their standing, a callback's latest deliveries, and
 * deactivating a callback for good (its open deliveries cancelled). Never a
 * secret: the CLI has no way to show one.
 */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Callbacks, deactivatedAs, viewOf, type StandingCallback, type WebhookView } from '../webhooks/callbacks';
import { Deliveries, deliveryView, type DeliveryView } from '../webhooks/deliveries';
import { WEBHOOK_ID_PATTERN, webhookLookup, type AccountWebhookEntry } from '../webhooks/webhook-items';
import { OPERATOR } from './audit';
import { BackOfficeError } from './errors';
import type { Clock } from './identity-store';

export class WebhooksOffice {
  private readonly callbacks: Callbacks;
  private readonly deliveries: Deliveries;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    clock?: Clock,
  ) {
    this.callbacks = new Callbacks(client, table, clock);
    this.deliveries = new Deliveries(client, table, clock);
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

  /** A callback's latest 50 deliveries, newest first. */
  async deliveriesOf(webhookId: string): Promise<{ webhook_id: string; deliveries: DeliveryView[] }> {
    await this.find(webhookId);
    return { webhook_id: webhookId, deliveries: (await this.deliveries.latest(webhookId)).map(deliveryView) };
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
