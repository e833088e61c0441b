/**
 * What the integration test's probe remembers between its functions and the assertions, in one small table of the
 * probe stack (destroyed with it): the callback the provisioner registered (its secret, which the receiver verifies
 * signatures with) and every event the receiver verified, one item each (`event#<event id>`, read by the assertion).
 */
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** The table's partition key (a string): `callback`, or `event#<event id>`. */
export const PROBE_KEY = 'pk';
export const CALLBACK_KEY = 'callback';
export const eventKey = (eventId: string) => `event#${eventId}`;

export interface ProbeCallback {
  /** The whole `whsec_…` secret web settings showed once, at creation. */
  readonly secret: string;
  readonly partnerId: string;
  readonly webhookId: string;
}

/** An event whose signature the receiver verified with the callback's secret. */
export interface VerifiedEvent {
  readonly id: string;
  readonly type: string;
  readonly partnerId: string;
}

export interface ProbeStore {
  saveCallback(callback: ProbeCallback): Promise<void>;
  callback(): Promise<ProbeCallback | undefined>;
  saveEvent(event: VerifiedEvent): Promise<void>;
}

export function dynamoProbeStore(client: DynamoDBDocumentClient, table: string): ProbeStore {
  return {
    async saveCallback({ secret, partnerId, webhookId }) {
      await client.send(new PutCommand({ TableName: table, Item: { [PROBE_KEY]: CALLBACK_KEY, secret, partner_id: partnerId, webhook_id: webhookId } }));
    },
    async callback() {
      const { Item } = await client.send(new GetCommand({ TableName: table, Key: { [PROBE_KEY]: CALLBACK_KEY }, ConsistentRead: true }));
      return Item ? { secret: String(Item.secret), partnerId: String(Item.partner_id), webhookId: String(Item.webhook_id) } : undefined;
    },
    async saveEvent({ id, type, partnerId }) {
      // What the assertion reads: the event's type and organization, and that its signature was checked.
      await client.send(new PutCommand({ TableName: table, Item: { [PROBE_KEY]: eventKey(id), type, partner_id: partnerId, signature: 'verified' } }));
    },
  };
}
