/**
 * The stuck-delivery sweeper on DynamoDB Local (lambdas/webhooks/delivery-sweeper.ts): a delivery
 * whose next attempt never came (its message lost, its retry execution failed, its worker dead) is
 * found through the due-deliveries index once it is overdue past the grace, and queued again once
 * per grace; one still in its due time, in a worker's lease, or ended is left alone; concurrent runs
 * queue an attempt once. The queue here records what it is given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Deliveries } from '../../lambdas/webhooks/deliveries';
import type { DeliveryMessage } from '../../lambdas/webhooks/delivery-schedule';
import { sweepDeliveries } from '../../lambdas/webhooks/delivery-sweeper';
import { newWebhookId } from '../../lambdas/webhooks/webhook-items';
import type { DeliveryQueue } from '../../lambdas/webhooks/webhook-runtime';
import { recordEventOf } from '../support/outbox-event';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ webhooks: false });
});
afterAll(() => stack?.stop());

const GRACE_MS = 60_000;

/** A clock the test moves, and the Deliveries store and a recording queue on it. */
function world(start = Date.now()) {
  let now = start;
  const clock = () => new Date(now);
  const deliveries = new Deliveries(stack.client, stack.tables.access, clock);
  const sent: DeliveryMessage[] = [];
  const queue: DeliveryQueue = { send: async (message) => void sent.push(message) };
  const sweep = () => sweepDeliveries({ client: stack.client, table: stack.tables.access, deliveries, queue, clock, graceMs: GRACE_MS });
  return { deliveries, sent, sweep, advance: (ms: number) => (now += ms), now: () => now };
}

const eventOf = (partnerId: string, at: Date) => recordEventOf(partnerId, at, 'rec_swept');

/** A delivery record as the fan-out leaves it when it stops before queuing the first attempt. */
async function strandedDelivery(w: ReturnType<typeof world>) {
  const webhookId = newWebhookId();
  const partnerId = `org_${webhookId.slice(3, 15)}`;
  const { item } = await w.deliveries.createForEvent(webhookId, eventOf(partnerId, new Date(w.now())));
  return item;
}

/** The messages queued for one delivery. */
const sentFor = (w: ReturnType<typeof world>, deliveryId: string) => w.sent.filter((m) => m.delivery_id === deliveryId);

describe('the stuck-delivery sweeper', () => {
  it('leaves a delivery alone within its grace, then queues its first attempt once, and again only a grace later', async () => {
    // Far in the future: other tests' entries are never overdue on this clock, and never this one's on theirs.
    const w = world(Date.now() + 10 * 86_400_000);
    const item = await strandedDelivery(w);

    w.advance(GRACE_MS - 1000);
    await w.sweep();
    expect(sentFor(w, item.delivery_id)).toEqual([]);

    w.advance(2000);
    await w.sweep();
    expect(sentFor(w, item.delivery_id)).toEqual([
      { v: 1, partner_id: item.partner_id, webhook_id: item.webhook_id, delivery_id: item.delivery_id, attempt: 1, generation: 0 },
    ]);
    await w.sweep();
    expect(sentFor(w, item.delivery_id)).toHaveLength(1);

    w.advance(GRACE_MS + 1000);
    await w.sweep();
    expect(sentFor(w, item.delivery_id)).toHaveLength(2);
  });

  it('queues a retrying delivery’s next attempt once it is overdue, not before its due time', async () => {
    const w = world(Date.now() + 20 * 86_400_000);
    const item = await strandedDelivery(w);
    expect(await w.deliveries.claim(item.webhook_id, item.delivery_id, 1, 0)).toBe(true);
    const due = new Date(w.now() + 3_600_000);
    expect(await w.deliveries.record(item.webhook_id, item.delivery_id, 1, 0, { delivered: false, reason: 'HTTP_5xx', httpStatus: 500 }, due)).toBe('retrying');

    w.advance(3_600_000 + GRACE_MS / 2);
    await w.sweep();
    expect(sentFor(w, item.delivery_id)).toEqual([]);

    w.advance(GRACE_MS);
    await w.sweep();
    expect(sentFor(w, item.delivery_id).map((m) => m.attempt)).toEqual([2]);
  });

  it('hands an attempt whose worker died back to the queue (the same attempt: the worker takes it over), never one in a live lease', async () => {
    const w = world(Date.now() + 30 * 86_400_000);
    const item = await strandedDelivery(w);
    w.advance(GRACE_MS + 1000);
    expect(await w.deliveries.claim(item.webhook_id, item.delivery_id, 1, 0)).toBe(true);

    await w.sweep();
    expect(sentFor(w, item.delivery_id)).toEqual([]);

    w.advance(60_000);
    await w.sweep();
    expect(sentFor(w, item.delivery_id).map((m) => m.attempt)).toEqual([1]);
  });

  it('leaves ended deliveries alone: they leave the index', async () => {
    const w = world(Date.now() + 40 * 86_400_000);
    const delivered = await strandedDelivery(w);
    const cancelled = await strandedDelivery(w);
    expect(await w.deliveries.claim(delivered.webhook_id, delivered.delivery_id, 1, 0)).toBe(true);
    expect(await w.deliveries.record(delivered.webhook_id, delivered.delivery_id, 1, 0, { delivered: true, httpStatus: 200 })).toBe('delivered');
    expect(await w.deliveries.cancel(cancelled.webhook_id, cancelled.delivery_id, 'ACCESS_REVOKED')).toBe(true);

    w.advance(10 * GRACE_MS);
    await w.sweep();
    expect([...sentFor(w, delivered.delivery_id), ...sentFor(w, cancelled.delivery_id)]).toEqual([]);
    for (const item of [delivered, cancelled]) expect(await w.deliveries.get(item.webhook_id, item.delivery_id)).not.toHaveProperty('due_at');
  });

  it('queues an attempt once however many runs race over it', async () => {
    const w = world(Date.now() + 50 * 86_400_000);
    const item = await strandedDelivery(w);
    w.advance(GRACE_MS + 1000);

    await Promise.all(Array.from({ length: 8 }, () => w.sweep()));

    expect(sentFor(w, item.delivery_id)).toHaveLength(1);
  });
});
