/**
 * The webhook writes that must happen once, raced on DynamoDB Local: a
 * delivery record per callback and event however often the stream repeats
 * the record; each attempt claimed by one worker; a resend starting one new
 * cycle; a deactivation written (and audited) once; and the delivery worker
 * itself, handed the same message by many receives at once, calling the
 * receiver once.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountKey } from '../../lambdas/shared/identity/access-items';
import { sharedPlatform } from '../../lambdas/shared/platform';
import type { EventEnvelope } from '../../lambdas/outbox/outbox';
import { newEventId } from '../../lambdas/outbox/outbox';
import { Callbacks } from '../../lambdas/webhooks/callbacks';
import { Deliveries } from '../../lambdas/webhooks/deliveries';
import { attemptDelivery } from '../../lambdas/webhooks/delivery-worker';
import { webhookServicesOf } from '../../lambdas/webhooks/services';
import { newWebhookId } from '../../lambdas/webhooks/webhook-items';
import { startHttpsReceiver } from '../support/https-receiver';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
let callbacks: Callbacks;
let deliveries: Deliveries;

beforeAll(async () => {
  // Loopback receivers allowed: the worker test sends to a local HTTPS server. These tests make delivery records
  // themselves (the fan-out's store raced alone), never queued: no stuck-delivery check at the end.
  stack = await startTestStack({ webhooks: { allowLocalWebhooks: true }, checkStuckDeliveries: false });
  callbacks = new Callbacks(stack.client, stack.tables.access);
  deliveries = new Deliveries(stack.client, stack.tables.access);
});
afterAll(() => stack?.stop());

const N = 12;

async function activeCallback(url = 'https://hooks.partner-receiver.net/in') {
  const { account_id } = await stack.office.accounts.create('Racer');
  const { partner_id } = await stack.office.organizations.create('Raced');
  await stack.office.memberships.set(partner_id, account_id, 'manager');
  const webhookId = newWebhookId();
  const sealedSecret = await webhookServicesOf(sharedPlatform()).runtime.sealer.seal('whsec_' + 'ab'.repeat(32), { webhookId, partnerId: partner_id });
  await callbacks.create({ webhookId, accountId: account_id, partnerId: partner_id, url, host: new URL(url).hostname, sealedSecret, source: { via: 'operator' } });
  const { found } = await callbacks.withStanding(partner_id, webhookId, account_id);
  const item = await callbacks.activate(found!.item, { at: new Date().toISOString(), result: 'verified', http_status: 200 }, { via: 'operator' });
  return { account_id, partner_id, item };
}

const eventOf = (partnerId: string): EventEnvelope => ({
  id: newEventId(new Date()),
  type: 'record.created',
  api_version: 'v1',
  partner_id: partnerId,
  created_at: new Date().toISOString(),
  data: { record_id: 'rec_raced' },
});

describe('exactly once under concurrency', () => {
  it('one delivery record per callback and event, whichever of 12 concurrent fan-outs wins', async () => {
    const { item } = await activeCallback();
    const event = eventOf(item.partner_id);
    const results = await Promise.all(Array.from({ length: N }, () => deliveries.createForEvent(item.webhook_id, event)));
    const ids = new Set(results.map((r) => r.item.delivery_id));
    expect(ids.size).toBe(1);
    expect(await deliveries.latest(item.webhook_id)).toHaveLength(1);
  });

  it('each attempt is claimed by exactly one of 12 concurrent workers, and recorded once', async () => {
    const { item } = await activeCallback();
    const { item: delivery } = await deliveries.createForEvent(item.webhook_id, eventOf(item.partner_id));
    const claims = await Promise.all(Array.from({ length: N }, () => deliveries.claim(item.webhook_id, delivery.delivery_id, 1, 0)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    const records = await Promise.all(
      Array.from({ length: N }, () => deliveries.record(item.webhook_id, delivery.delivery_id, 1, 0, { delivered: false, reason: 'HTTP_5xx', httpStatus: 500 })),
    );
    expect(records.filter((status) => status !== undefined)).toEqual(['retrying']);
    // The next attempt, likewise.
    const next = await Promise.all(Array.from({ length: N }, () => deliveries.claim(item.webhook_id, delivery.delivery_id, 2, 0)));
    expect(next.filter(Boolean)).toHaveLength(1);
    // A message of attempt 2 seen again cannot take it while its worker lives.
    expect(await deliveries.claim(item.webhook_id, delivery.delivery_id, 2, 0)).toBe(false);
  });

  it('a resend starts exactly one new cycle when 12 are sent at once', async () => {
    const { item } = await activeCallback();
    const { item: created } = await deliveries.createForEvent(item.webhook_id, eventOf(item.partner_id));
    await deliveries.claim(item.webhook_id, created.delivery_id, 1, 0);
    await deliveries.record(item.webhook_id, created.delivery_id, 1, 0, { delivered: true, httpStatus: 200 });
    const delivered = (await deliveries.get(item.webhook_id, created.delivery_id))!;
    const outcomes = await Promise.all(Array.from({ length: N }, () => deliveries.resend(delivered)));
    expect(outcomes.filter((o) => typeof o === 'object')).toEqual([{ generation: 1 }]);
    expect(await deliveries.get(item.webhook_id, created.delivery_id)).toMatchObject({ status: 'pending', generation: 1, resends: 1, attempts: 0 });
  });

  it('a deactivation is written and audited once when 12 are sent at once', async () => {
    const { item, account_id } = await activeCallback();
    const done = await Promise.all(Array.from({ length: N }, () => callbacks.deactivate(item, 'deactivated_by_creator', { via: 'settings', sourceIp: '127.0.0.1' })));
    expect(done.filter(Boolean)).toHaveLength(1);
    const { Items = [] } = await stack.client.send(
      new QueryCommand({
        TableName: stack.tables.access,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
        ExpressionAttributeValues: { ':pk': accountKey(account_id).pk, ':audit': 'AUDIT#' },
      }),
    );
    expect(Items.filter((entry) => entry.action === 'webhook.deactivated')).toHaveLength(1);
  });

  it('the worker calls the receiver once when one message is handled by 8 workers at once', async () => {
    const receiver = await startHttpsReceiver();
    try {
      const { item } = await activeCallback(receiver.url);
      const event = eventOf(item.partner_id);
      const { item: delivery } = await deliveries.createForEvent(item.webhook_id, event);
      const message = { v: 1 as const, partner_id: item.partner_id, webhook_id: item.webhook_id, account_id: item.account_id, delivery_id: delivery.delivery_id, attempt: 1, generation: 0 };
      const platform = sharedPlatform();
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => attemptDelivery(message, webhookServicesOf(platform), platform)));
      expect(outcomes.filter((o) => o === 'delivered')).toHaveLength(1);
      expect(outcomes.every((o) => o === 'delivered' || o === 'duplicate' || o === 'deferred')).toBe(true);
      expect(receiver.requests).toHaveLength(1);
      expect(await deliveries.get(item.webhook_id, delivery.delivery_id)).toMatchObject({ status: 'delivered', attempts: 1 });
    } finally {
      await receiver.close();
    }
  });
});
