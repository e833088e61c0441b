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

/** Records of a batch fanned out at once (each a Query, then a Put and a SendMessage per active callback). */
const FAN_OUT_PARALLELISM = 10;

export async function fanOutStreamEvent(event: DynamoDBStreamEvent, platform: Platform): Promise<DynamoDBBatchResponse> {
  const services = webhookServicesOf(platform);
  const records = event.Records;
  const failed = new Array<boolean>(records.length).fill(false);
  // The records at once (deliveries may arrive in any order; the spec says so), bounded.
  let next = 0;
  const work = async () => {
    for (let i = next++; i < records.length; i = next++) {
      const record = records[i];
      if (!isOutboxInsert(record)) continue;
      try {
        const image = unmarshall(record.dynamodb?.NewImage as Record<string, AttributeValue> as never) as { event: EventEnvelope };
        await fanOut(image.event, services);
      } catch (error) {
        logger.error('webhook fan-out failed; the stream retries the record', { error, sequence: record.dynamodb?.SequenceNumber });
        failed[i] = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(FAN_OUT_PARALLELISM, records.length) }, work));
  // The stream's checkpoint is the first failure: it and every later record come again (fanning out twice makes nothing twice).
  const first = failed.indexOf(true);
  return { batchItemFailures: first < 0 ? [] : records.slice(first).map((record) => ({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' })) };
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
