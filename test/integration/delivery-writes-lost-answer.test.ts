/**
 * The delivery writes of the settings API and the sweeper when DynamoDB applied a write but its answer was lost and the
 * SDK sent it again (local/fault-injection.ts `lose-answer`, below the SDK's retry, on DynamoDB Local): the retry's
 * condition fails on the write's own effect, and its stamp (shared/storage/write-once.ts) says it was applied.
 * - a cancellation is counted (the deactivation's `cancelled_deliveries`, the WebhookDeliveries metric);
 * - a resend is made, not refused as moved;
 * - the sweeper's postpone queues the stuck delivery on this run, not a grace later.
 * Store and job level, with the plan's own client (the request path's: webhook-resend-lost-answer.test.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { currentRequestScope, runInRequestScope } from '../../lambdas/shared/observability/request-scope';
import { Deliveries } from '../../lambdas/webhooks/deliveries';
import type { DeliveryMessage } from '../../lambdas/webhooks/delivery-schedule';
import { sweepDeliveries } from '../../lambdas/webhooks/delivery-sweeper';
import { newWebhookId } from '../../lambdas/webhooks/webhook-items';
import type { DeliveryQueue } from '../../lambdas/webhooks/webhook-runtime';
import { FaultPlan } from '../../local/fault-injection';
import { localDocumentClient } from '../../local/local-stack';
import { recordEventOf } from '../support/outbox-event';
import { startTestStack, type TestStack } from '../support/test-stack';

const faults = new FaultPlan();
let stack: TestStack;
let client: ReturnType<typeof localDocumentClient>;
beforeAll(async () => {
  stack = await startTestStack({ webhooks: false });
  client = faults.instrument(localDocumentClient(stack.dynamoEndpoint));
});
afterAll(async () => {
  client?.destroy();
  await stack?.stop();
});
beforeEach(() => faults.reset());

type Input = Readonly<Record<string, unknown>>;
const keyOf = (i: Input) => String((i.Key as { sk?: string } | undefined)?.sk);

/** A clock the test moves, the Deliveries store on the plan's client, and a queue that records what it is given. */
function world(start = Date.now()) {
  let now = start;
  const clock = () => new Date(now);
  const deliveries = new Deliveries(client, stack.tables.access, clock);
  const sent: DeliveryMessage[] = [];
  const queue: DeliveryQueue = { send: async (message) => void sent.push(message) };
  return { deliveries, clock, sent, queue, advance: (ms: number) => (now += ms), now: () => now };
}

/** `count` new deliveries of one new callback. */
async function deliveriesOfOneCallback(w: ReturnType<typeof world>, count: number) {
  const webhookId = newWebhookId();
  const partnerId = `org_${webhookId.slice(3, 15)}`;
  const items = [];
  for (let i = 0; i < count; i++) items.push((await w.deliveries.createForEvent(webhookId, recordEventOf(partnerId, new Date(w.now() + i), `rec_lost_${i}`))).item);
  return { webhookId, items };
}

describe('a delivery write applied whose answer was lost, retried by the SDK', () => {
  it('a cancellation is counted: every open delivery cancelled, in the count and the metric', async () => {
    // Prepare
    const w = world();
    const { webhookId, items } = await deliveriesOfOneCallback(w, 3);
    const lost = faults.arm({ component: 'api', call: 'UpdateItem', matches: (i) => keyOf(i) === items[1].delivery_id, effect: 'lose-answer' });

    // Act
    const { cancelled, metric } = await runInRequestScope('req_cancel_lost', async () => {
      const count = await faults.invocation('api', () => w.deliveries.cancelOpen(webhookId, undefined));
      const points = currentRequestScope()!.metrics.filter((p) => p.metric.name === 'WebhookDeliveries' && p.dimensions.outcome === 'cancelled');
      return { cancelled: count, metric: points.reduce((sum, p) => sum + p.value, 0) };
    });

    // Assess
    expect(lost.fired()).toBe(true);
    expect(cancelled).toBe(3);
    expect(metric).toBe(3);
    for (const item of items) expect(await w.deliveries.get(webhookId, item.delivery_id)).toMatchObject({ status: 'cancelled' });
  });

  it('a resend is made once: the new generation, not "moved"', async () => {
    // Prepare: a delivery delivered (its first cycle ended).
    const w = world();
    const { webhookId, items } = await deliveriesOfOneCallback(w, 1);
    expect(await w.deliveries.claim(webhookId, items[0].delivery_id, 1, 0)).toBe(true);
    expect(await w.deliveries.record(webhookId, items[0].delivery_id, 1, 0, { delivered: true, httpStatus: 200 })).toBe('delivered');
    const delivered = (await w.deliveries.get(webhookId, items[0].delivery_id))!;
    const lost = faults.arm({ component: 'api', call: 'UpdateItem', matches: (i) => String(i.UpdateExpression).includes('resends = resends + :one'), effect: 'lose-answer' });

    // Act
    const resent = await faults.invocation('api', () => w.deliveries.resend(delivered));

    // Assess
    expect(lost.fired()).toBe(true);
    expect(resent).toEqual({ generation: 1 });
    expect(await w.deliveries.get(webhookId, items[0].delivery_id)).toMatchObject({ status: 'pending', attempts: 0, generation: 1, resends: 1 });
  });

  it('the sweeper’s postpone: the stuck delivery is queued on this run, once', async () => {
    // Prepare: a delivery whose first attempt was never queued, overdue past the grace (far in the future: no other
    // delivery of the table is overdue on this clock, and this one on no other).
    const grace = 60_000;
    const w = world(Date.now() + 30 * 86_400_000);
    const { items } = await deliveriesOfOneCallback(w, 1);
    const stuck = items[0];
    w.advance(grace + 1000);
    const sweep = () => sweepDeliveries({ client, table: stack.tables.access, deliveries: w.deliveries, queue: w.queue, clock: w.clock, graceMs: grace });
    const lost = faults.arm({
      component: 'sweeper',
      call: 'UpdateItem',
      matches: (i) => keyOf(i) === stuck.delivery_id && String(i.ConditionExpression).includes('due_at = :old'),
      effect: 'lose-answer',
    });

    // Act
    const run = await faults.invocation('sweeper', sweep);
    const next = await faults.invocation('sweeper', sweep);

    // Assess
    expect(lost.fired()).toBe(true);
    const queued = w.sent.filter((m) => m.delivery_id === stuck.delivery_id);
    expect(queued).toEqual([{ v: 1, partner_id: stuck.partner_id, webhook_id: stuck.webhook_id, delivery_id: stuck.delivery_id, attempt: 1, generation: 0 }]);
    expect(run.requeued).toBeGreaterThanOrEqual(1);
    // Postponed by the write that was applied: the next run, within the grace, leaves it alone.
    expect(next.requeued).toBe(0);
  });
});
