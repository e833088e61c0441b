/**
 * The outbox of business events. Every business action puts its event item
 * in the same DynamoDB transaction as the change itself (so a change and its
 * event are written together or not at all); the `domain` table's stream
 * carries them to the webhooks pipeline. Events of an organization are read
 * in order from its partition: the sort key starts with the event time.
 *
 * An event is the spec's Event envelope: `id` (`evt_<time>_<random>`, equal
 * to the X-Service-Event-Id header), `type`, `api_version` `v1`,
 * `partner_id`, `created_at` (the business action's time), and `data` with
 * only the fields the spec lists for the type.
 */
import { randomBytes } from 'node:crypto';
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dataFieldsOf, type BusinessEvent } from './business-events';

export type { BusinessEvent } from './business-events';

export interface EventEnvelope {
  readonly id: string;
  readonly type: BusinessEvent['type'];
  readonly api_version: 'v1';
  readonly partner_id: string;
  readonly created_at: string;
  readonly data: BusinessEvent['data'];
}

export const eventPartition = (partnerId: string) => `EVENTS#${partnerId}`;

/** Ids sort by time, then randomly among events of one millisecond. */
export function newEventId(at: Date): string {
  return `evt_${at.getTime().toString(36).padStart(9, '0')}_${randomBytes(8).toString('hex')}`;
}

/** The item (for a Put in the change's transaction) that stores `event` for `partnerId`. */
export function eventItem(partnerId: string, event: BusinessEvent, at: Date): { envelope: EventEnvelope; item: Record<string, unknown> } {
  const envelope: EventEnvelope = {
    id: newEventId(at),
    type: event.type,
    api_version: 'v1',
    partner_id: partnerId,
    created_at: at.toISOString(),
    data: event.data,
  };
  return { envelope, item: { pk: eventPartition(partnerId), sk: envelope.id, kind: 'event', event: envelope } };
}

/**
 * The envelope as webhook bodies carry it: the spec's field order (`id`, `type`, `api_version`,
 * `partner_id`, `created_at`, `data`, and within `data` its type's declared order, business-events.ts),
 * whatever order a DynamoDB map came back in. One body per event: every attempt and resend sends these bytes.
 */
export function eventBody(envelope: EventEnvelope): string {
  const data = envelope.data as Record<string, unknown>;
  const order = dataFieldsOf(envelope.type) ?? [];
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  const orderedData = Object.fromEntries(Object.keys(data).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map((key) => [key, data[key]]));
  const { id, type, api_version, partner_id, created_at } = envelope;
  return JSON.stringify({ id, type, api_version, partner_id, created_at, data: orderedData });
}

/** An organization's events in order, after `afterId` when given (one page of up to `limit`). */
export async function listEvents(client: DynamoDBDocumentClient, table: string, partnerId: string, afterId?: string, limit = 100): Promise<EventEnvelope[]> {
  const { Items } = await client.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: afterId ? 'pk = :pk AND sk > :after' : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': eventPartition(partnerId), ...(afterId ? { ':after': afterId } : {}) },
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  return (Items ?? []).map((item) => item.event as EventEnvelope);
}
