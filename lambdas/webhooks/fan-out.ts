/**
 * The fan-out: each new outbox event (an `event` item INSERTed in the
 * `domain` table, carried by its stream) becomes one delivery per active
 * callback of the event's organization, and each delivery's first attempt a
 * message on the delivery queue.
 *
 * No backlog: a callback receives only events created after it became
 * active (the event's `created_at` against the callback's `activated_at`),
 * however late the stream delivers the record. A record seen twice finds its
 * deliveries already made (deliveries.ts `createForEvent`).
 */
import type { AttributeValue, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { logger } from '../shared/observability/logger';
import type { Platform } from '../shared/platform';
import type { EventEnvelope } from '../outbox/outbox';
import { webhookServicesOf, type WebhookServices } from './services';

/** Whether a stream record is a new outbox event (the event source mapping filters the same way). */
export function isOutboxInsert(record: DynamoDBRecord): boolean {
  return record.eventName === 'INSERT' && record.dynamodb?.NewImage?.kind?.S === 'event';
}

export async function fanOutStreamEvent(event: DynamoDBStreamEvent, platform: Platform): Promise<DynamoDBBatchResponse> {
  const services = webhookServicesOf(platform);
  const failures: { itemIdentifier: string }[] = [];
  // In order: a failed record and every later one are retried together (the stream's checkpoint is the first failure).
  for (const record of event.Records) {
    if (failures.length > 0) {
      failures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
      continue;
    }
    if (!isOutboxInsert(record)) continue;
    try {
      const image = unmarshall(record.dynamodb?.NewImage as Record<string, AttributeValue> as never) as { event: EventEnvelope };
      await fanOut(image.event, services);
    } catch (error) {
      logger.error('webhook fan-out failed; the stream retries the record', { error, sequence: record.dynamodb?.SequenceNumber });
      failures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
    }
  }
  return { batchItemFailures: failures };
}

/** One event to every active callback of its organization that was active when the event happened. */
export async function fanOut(event: EventEnvelope, services: WebhookServices): Promise<number> {
  const callbacks = await services.callbacks.ofOrganization(event.partner_id, true);
  let queued = 0;
  for (const callback of callbacks) {
    if (!callback.activated_at || callback.activated_at > event.created_at) continue;
    const { item, queueFirst } = await services.deliveries.createForEvent(callback.webhook_id, event);
    if (!queueFirst) continue;
    await services.runtime.queue.send(
      { v: 1, partner_id: callback.partner_id, webhook_id: callback.webhook_id, account_id: callback.account_id, delivery_id: item.delivery_id, attempt: 1, generation: 0 },
      0,
    );
    queued += 1;
  }
  return queued;
}
