/**
 * What the webhook tests on the local stack share: the raised-quota handlers (raised-quotas.ts), local
 * HTTPS receivers, signed-in managers of new organizations, active callbacks, business events, and the
 * operator's view of a callback's deliveries.
 */
import { afterAll, expect } from 'vitest';
import { eventually } from './eventually';
import { startHttpsReceiver } from './https-receiver';
import { recordInput } from './record-input';
import { SettingsBrowser, type JsonResponse } from './settings-browser';
import type { TestStack } from './test-stack';
export { raisedWebhookHandlers } from './raised-quotas';

export type Receiver = Awaited<ReturnType<typeof startHttpsReceiver>>;
export type Captured = Receiver['requests'][number];
export type Delivery = {
  delivery_id: string;
  event_id: string;
  status: string;
  attempts: number;
  failure_reason: string | null;
  last_http_status: number | null;
  next_attempt_at: string | null;
  resends: number;
};

const PASSWORD = 'correct horse battery';

/** The helpers over one test file's stack (`stack()`: it starts in beforeAll). Receivers close after the file. */
export function webhookWorld(stack: () => TestStack) {
  const receivers: Receiver[] = [];
  afterAll(() => Promise.all(receivers.map((r) => r.close())));
  let serial = 0;

  /** A receiver that answers verification challenges, and business events with `status` (a function of the count of business events it got). */
  async function receiver(status: (n: number, request: Captured) => number = () => 200): Promise<Receiver> {
    let n = 0;
    const started = await startHttpsReceiver((request) => {
      const event = JSON.parse(request.rawBody.toString('utf8')) as { type: string; data: { challenge?: string } };
      if (event.type === 'webhook.verification') return { status: 200, body: JSON.stringify({ challenge: event.data.challenge }), headers: { 'content-type': 'application/json' } };
      n += 1;
      return { status: status(n, request) };
    });
    receivers.push(started);
    return started;
  }

  /** A signed-in manager of a new organization. */
  async function manager() {
    serial += 1;
    const email = `hooks-${serial}-${Date.now()}@example.com`;
    const { account_id } = await stack().office.accounts.create('Hook manager', { email, password: PASSWORD });
    const { partner_id } = await stack().office.organizations.create(`Hooked ${serial}`);
    await stack().office.memberships.set(partner_id, account_id, 'manager');
    const browser = new SettingsBrowser(stack());
    expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
    return { account_id, partner_id, browser, email };
  }

  type Manager = Awaited<ReturnType<typeof manager>>;

  async function create(m: Manager, url: string, partnerId = m.partner_id): Promise<JsonResponse> {
    return m.browser.post('/settings/api/webhooks', { partner_id: partnerId, url, password: PASSWORD });
  }

  /** A callback to `r`, created and verified: its id and secret. */
  async function activeCallback(m: Manager, r: Receiver): Promise<{ id: string; secret: string }> {
    const created = await create(m, r.url);
    expect(created.status).toBe(201);
    const { webhook, secret } = await created.json();
    const verified = await m.browser.post(`/settings/api/webhooks/${webhook.webhook_id}/verify`);
    expect(verified.status).toBe(200);
    expect((await verified.json()).verification).toEqual({ result: 'verified', failure_reason: null, http_status: 200 });
    return { id: webhook.webhook_id, secret };
  }

  /** A business event of the organization (record.created), written by the back office: its event id. */
  async function businessEvent(partnerId: string): Promise<string> {
    return (await stack().office.records!.put(partnerId, recordInput('Hook'))).event_id;
  }

  /** The callback's deliveries as the operator sees them (admin CLI): polling spends no quota of the account. */
  const watched = async (id: string) => (await stack().office.webhooks.deliveriesOf(id)).deliveries as Delivery[];

  /** The delivery of `eventId` to callback `id` once `done` holds for it. */
  async function deliveryOf(id: string, eventId: string, done: (d: Delivery) => boolean, timeoutMs?: number) {
    return eventually(async () => (await watched(id)).find((d) => d.event_id === eventId && done(d)), `delivery of ${eventId}`, timeoutMs);
  }

  return { receiver, receivers, manager, create, activeCallback, businessEvent, watched, deliveryOf, PASSWORD };
}

export { openDeliveries } from './stuck-deliveries';

/** The business events (not verification challenges) a receiver got. */
export const businessRequests = (r: Receiver) => r.requests.filter((q) => !q.rawBody.toString('utf8').includes('"type":"webhook.'));
