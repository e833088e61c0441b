/**
 * A resend and a deactivation in web settings when DynamoDB applied a write but its answer was lost, through the local
 * front with the fault injected at the write (local/fault-injection.ts, an `api` invocation per request):
 * - `lose-answer` (the SDK sends the write again, and its condition fails on its own effect): the resend answers 200,
 *   its first attempt is queued, its audit entry written; the deactivation counts every delivery it cancelled;
 * - `fail-after` / `crash-after` (every answer lost, or the function dead after the write: the page sees an error) and
 *   the page's retry: one resend, one `webhook.resent` entry, its first attempt delivered;
 * - the function dead right after the audit entry: the retry writes the same entry again, not a second one.
 *
 * Waits as deployed (x 1): a receiver failing every event keeps its deliveries retrying (next attempt a minute later)
 * while the deactivation cancels them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FaultPlan } from '../../local/fault-injection';
import { startTestStack, type TestStack } from '../support/test-stack';
import { businessRequests, raisedWebhookHandlers, webhookWorld, type Receiver } from '../support/webhook-world';

const faults = new FaultPlan();
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({
    handlers: raisedWebhookHandlers(),
    faults,
    // The same plan on the pipeline's queue: the resend's SendMessage is a call of its `api` invocation (a crashed one sends nothing).
    webhooks: { allowLocalWebhooks: true, waitScale: 1, resolve: async () => ['127.0.0.1'], faults },
  });
});
afterAll(() => stack?.stop());
beforeEach(() => faults.reset());

const world = webhookWorld(() => stack);
type Input = Readonly<Record<string, unknown>>;

/** The resend's write (deliveries.ts resend). */
const isResendWrite = (i: Input) => String(i.UpdateExpression).includes('resends = resends + :one');
/** A cancellation's write (deliveries.ts cancel). */
const isCancelWrite = (i: Input) => String(i.UpdateExpression).includes('#status = :cancelled');
/** The resend's audit entry (back-office/audit.ts record). */
const isResendEntry = (i: Input) => (i.Item as { action?: string } | undefined)?.action === 'webhook.resent';

/** A manager's active callback to a receiver answering 200, and one business event delivered to it. */
async function deliveredEvent() {
  const m = await world.manager();
  const r = await world.receiver();
  const { id } = await world.activeCallback(m, r);
  const eventId = await world.businessEvent(m.partner_id);
  const delivery = await world.deliveryOf(id, eventId, (d) => d.status === 'delivered');
  const resendPath = `/settings/api/webhooks/${id}/deliveries/${delivery.delivery_id}/resend`;
  return { m, r, id, eventId, delivery, resendPath };
}

/** The account's `webhook.resent` entries for a delivery. */
async function resendEntries(accountId: string, deliveryId: string) {
  return (await stack.office.audit.list(accountId)).filter((e) => e.action === 'webhook.resent' && e.delivery_id === deliveryId);
}

const requestsFor = (r: Receiver, eventId: string) => businessRequests(r).filter((q) => q.headers['x-service-event-id'] === eventId);

describe('a resend whose write was applied and its answer lost', () => {
  it('lose-answer (the SDK sends the write again): 200, the first attempt queued and delivered, one audit entry', async () => {
    // Prepare
    const { m, r, id, eventId, delivery, resendPath } = await deliveredEvent();
    const lost = faults.arm({ component: 'api', call: 'UpdateItem', matches: isResendWrite, effect: 'lose-answer' });

    // Act
    const resent = await m.browser.post(resendPath);

    // Assess
    expect(lost.fired()).toBe(true);
    expect(resent.status).toBe(200);
    expect((await resent.json()).delivery).toMatchObject({ delivery_id: delivery.delivery_id, resends: 1 });
    const again = await world.deliveryOf(id, eventId, (d) => d.status === 'delivered' && d.resends === 1);
    expect(again).toMatchObject({ attempts: 1, resends: 1 });
    expect(requestsFor(r, eventId)).toHaveLength(2);
    expect(await resendEntries(m.account_id, delivery.delivery_id)).toHaveLength(1);
  }, 90_000);

  for (const effect of ['fail-after', 'crash-after'] as const) {
    it(`${effect} (the page sees an error), then the page's retry: one resend, its first attempt delivered, one audit entry`, async () => {
      // Prepare
      const { m, r, id, eventId, delivery, resendPath } = await deliveredEvent();
      const lost = faults.arm({ component: 'api', call: 'UpdateItem', matches: isResendWrite, effect });
      const failed = await m.browser.post(resendPath);
      expect(lost.fired()).toBe(true);
      expect(failed.status).toBe(effect === 'crash-after' ? 502 : 500);

      // Act: the page sends the same request again.
      const retried = await m.browser.post(resendPath);

      // Assess
      expect(retried.status).toBe(200);
      expect((await retried.json()).delivery).toMatchObject({ delivery_id: delivery.delivery_id, resends: 1 });
      const again = await world.deliveryOf(id, eventId, (d) => d.status === 'delivered' && d.resends === 1);
      expect(again).toMatchObject({ attempts: 1, resends: 1 });
      expect(requestsFor(r, eventId)).toHaveLength(2);
      expect(await resendEntries(m.account_id, delivery.delivery_id)).toHaveLength(1);
    }, 90_000);
  }

  it('the function dies right after the audit entry (502), then the retry: the same entry, not a second one', async () => {
    // Prepare
    const { m, r, id, eventId, delivery, resendPath } = await deliveredEvent();
    const crashed = faults.arm({ component: 'api', call: 'PutItem', matches: isResendEntry, effect: 'crash-after' });
    expect((await m.browser.post(resendPath)).status).toBe(502);
    expect(crashed.fired()).toBe(true);

    // Act
    const retried = await m.browser.post(resendPath);

    // Assess
    expect(retried.status).toBe(200);
    await world.deliveryOf(id, eventId, (d) => d.status === 'delivered' && d.resends === 1);
    expect(requestsFor(r, eventId)).toHaveLength(2);
    expect(await resendEntries(m.account_id, delivery.delivery_id)).toHaveLength(1);
  }, 90_000);
});

describe('a deactivation whose cancellation write was applied and its answer lost', () => {
  it('lose-answer on one cancellation: cancelled_deliveries counts every delivery cancelled', async () => {
    // Prepare: two deliveries retrying (the receiver fails every event; the next attempt is a minute away).
    const m = await world.manager();
    const r = await world.receiver(() => 500);
    const { id } = await world.activeCallback(m, r);
    const events = [await world.businessEvent(m.partner_id), await world.businessEvent(m.partner_id)];
    for (const eventId of events) await world.deliveryOf(id, eventId, (d) => d.status === 'retrying');
    const lost = faults.arm({ component: 'api', call: 'UpdateItem', matches: isCancelWrite, effect: 'lose-answer' });

    // Act
    const deactivated = await m.browser.post(`/settings/api/webhooks/${id}/deactivate`);

    // Assess
    expect(lost.fired()).toBe(true);
    expect(deactivated.status).toBe(200);
    expect((await deactivated.json()).cancelled_deliveries).toBe(2);
    expect((await world.watched(id)).map((d) => d.status)).toEqual(['cancelled', 'cancelled']);
  }, 90_000);
});
