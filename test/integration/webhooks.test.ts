/**
 * Webhooks end to end on the local stack: the settings API creates and
 * verifies callbacks, business events written by the back office reach real
 * local HTTPS receivers through the local pipeline (the domain table's stream
 * on DynamoDB Local, the delivery queue, the retry state machine run by
 * aws-local-stepfunctions), with retry waits scaled down (x 0.0001: the whole
 * 8-attempt schedule in about 9 seconds), on a platform whose quotas are raised out of reach.
 */
import { createHmac } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEventId, type EventEnvelope } from '../../lambdas/outbox/outbox';
import { Deliveries } from '../../lambdas/webhooks/deliveries';
import { deliveryKey } from '../../lambdas/webhooks/webhook-items';
import { runAdminCommand } from '../../scripts/admin-cli';
import { RETRY_WAITS_SECONDS } from '../../lambdas/webhooks/delivery-schedule';
import { retryExecutionName } from '../../lambdas/webhooks/delivery-worker';
import { startHttpsReceiver } from '../support/https-receiver';
import { startTestStack, type TestStack } from '../support/test-stack';
import { eventually } from '../support/eventually';
import { businessRequests, raisedWebhookHandlers, webhookWorld, type Delivery, type Receiver } from '../support/webhook-world';

const WAIT_SCALE = 0.0001;
// The attempt timeout: far above what a healthy loopback send takes even on a loaded machine (the slow cases wait past it).
const TIMEOUT_MS = 4000;
// A bound on waiting for a delivery to reach a state (the whole scaled schedule is ~8 s of waits): generous, for a loaded machine.
const DELIVERY_WAIT_MS = 120_000;
const UNRESOLVABLE = 'nowhere.webhook-tests.net';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({
    handlers: raisedWebhookHandlers(),
    webhooks: {
      allowLocalWebhooks: true,
      waitScale: WAIT_SCALE,
      timeoutMs: TIMEOUT_MS,
      // Longer than a scaled wait and a slow hop on a loaded machine (the scaled default is 2 s): an attempt that is merely
      // late is not requeued by the sweeper past the state machine, which the schedule tests count.
      sweepGraceMs: 8000,
      resolve: async (host) => {
        if (host === UNRESOLVABLE) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
        return ['127.0.0.1'];
      },
    },
  });
});
afterAll(() => stack?.stop());

const world = webhookWorld(() => stack);
const { receiver, receivers, manager, create, activeCallback, businessEvent, watched } = world;
type Manager = Awaited<ReturnType<typeof manager>>;

/** The callback's deliveries through the settings API (it counts toward the view quota: 30 a minute). */
async function deliveries(m: Manager, id: string) {
  const response = await m.browser.get(`/settings/api/webhooks/${id}/deliveries`);
  expect(response.status).toBe(200);
  return (await response.json()).deliveries as Delivery[];
}

async function deliveryOf(_m: Manager, id: string, eventId: string, done: (d: Delivery) => boolean) {
  return world.deliveryOf(id, eventId, done, DELIVERY_WAIT_MS);
}

/**
 * The retry state machine's executions of one delivery's first cycle (attempts 1 to 8), and their transitions: only
 * this delivery's, whatever another test's deliveries still do in the same pipeline.
 */
function executionsOf(webhookId: string, deliveryId: string) {
  const counts = Array.from({ length: RETRY_WAITS_SECONDS.length + 1 }, (_, i) => stack.webhooks!.scheduler.transitionsOf(retryExecutionName(webhookId, deliveryId, 0, i + 1)));
  const started = counts.filter((n) => n !== undefined);
  return { started: started.length, transitions: started.reduce((sum, n) => sum + n, 0) };
}

describe('callbacks in web settings', () => {
  it('creates an unverified callback with a whsec_ secret shown once, lists it without the secret, and audits it', async () => {
    const m = await manager();
    const r = await receiver();
    const created = await create(m, r.url);
    expect(created.status).toBe(201);
    const body = await created.json();
    expect(body.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(body.webhook).toMatchObject({ partner_id: m.partner_id, url: r.url, status: 'unverified', activated_at: null });
    const listed = await (await m.browser.get('/settings/api/webhooks')).json();
    expect(listed.webhooks).toEqual([body.webhook]);
    expect(JSON.stringify(listed)).not.toContain(body.secret);
    const audit = await (await m.browser.get('/settings/api/audit')).json();
    expect(audit.entries[0]).toMatchObject({ action: 'webhook.created', webhook_id: body.webhook.webhook_id, source_ip: '127.0.0.1' });
    // Nothing was sent at creation.
    expect(r.requests).toHaveLength(0);
  });

  it('refuses addresses that break the rules, a wrong password, and organizations the account does not manage', async () => {
    const m = await manager();
    // Loopback receivers are allowed here (allowLocalWebhooks), but never the local stack's own front: the service's own domain.
    const own = new URL(stack.baseUrl);
    const ownAddresses = [`https://127.0.0.1:${own.port}/v1/health`, `https://localhost:${own.port}/v1/me`];
    for (const url of ['http://hooks.example-partner.net/x', 'https://hooks.example-partner.net:8443/x', 'https://user:pw@hooks.example-partner.net/', 'https://10.0.0.1/x', 'https://hooks.example-partner.net/#frag', 'not a url', ...ownAddresses]) {
      const response = await create(m, url);
      expect(response.status, url).toBe(422);
      expect((await response.json()).code).toBe('INVALID_WEBHOOK_URL');
    }
    const wrong = await m.browser.post('/settings/api/webhooks', { partner_id: m.partner_id, url: 'https://hooks.example-partner.net/x', password: 'not it at all' });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe('INVALID_PASSWORD');
    const { partner_id: other } = await stack.office.organizations.create('Not managed');
    await stack.office.memberships.set(other, m.account_id, 'member');
    const member = await create(m, 'https://hooks.example-partner.net/x', other);
    expect(member.status).toBe(403);
    expect((await member.json()).code).toBe('PARTNER_MANAGER_REQUIRED');
    expect((await (await m.browser.get('/settings/api/webhooks')).json()).webhooks).toEqual([]);
  });
});

describe('verification', () => {
  it('activates a callback whose receiver echoes the challenge; each other answer fails with its reason and leaves it unverified', async () => {
    let m = await manager();
    const cases: [string, (challenge: string) => { status: number; body?: string; headers?: Record<string, string>; delayMs?: number }, string, number | null][] = [
      ['mismatch', () => ({ status: 200, body: JSON.stringify({ challenge: 'something else' }) }), 'CHALLENGE_MISMATCH', 200],
      ['not JSON', (c) => ({ status: 200, body: `challenge=${c}` }), 'CHALLENGE_RESPONSE_INVALID', 200],
      ['too long', (c) => ({ status: 200, body: JSON.stringify({ challenge: c, padding: 'x'.repeat(1100) }) }), 'CHALLENGE_RESPONSE_INVALID', 200],
      ['no challenge field', () => ({ status: 200, body: '{}' }), 'CHALLENGE_RESPONSE_INVALID', 200],
      ['2xx but not 200', () => ({ status: 204 }), 'CHALLENGE_RESPONSE_INVALID', 204],
      ['redirect', () => ({ status: 302, headers: { location: 'https://127.0.0.1:1/elsewhere' } }), 'HTTP_3xx', 302],
      ['client error', () => ({ status: 404 }), 'HTTP_4xx', 404],
      ['server error', () => ({ status: 503 }), 'HTTP_5xx', 503],
      ['slow', () => ({ status: 200, delayMs: TIMEOUT_MS + 1000 }), 'WEBHOOK_UNREACHABLE', null],
    ];
    for (const [name, answer, reason, http] of cases) {
      // Ten callbacks at most per account and organization: a new manager every few cases.
      if (cases.indexOf(cases.find((c) => c[0] === name)!) % 5 === 4) m = await manager();
      const r = await startHttpsReceiver((request) => answer(JSON.parse(request.rawBody.toString('utf8')).data.challenge));
      receivers.push(r);
      const { webhook } = await (await create(m, r.url)).json();
      const verified = await (await m.browser.post(`/settings/api/webhooks/${webhook.webhook_id}/verify`)).json();
      expect(verified.verification, name).toEqual({ result: 'failed', failure_reason: reason, http_status: http });
      expect(verified.webhook.status, name).toBe('unverified');
      expect(verified.webhook.last_verification, name).toMatchObject({ result: 'failed', failure_reason: reason });
      expect(r.requests.length, name).toBe(1);
    }
    // A name that does not resolve, and a port nobody listens on.
    m = await manager();
    const nowhere = await (await create(m, `https://${UNRESOLVABLE}/hook`)).json();
    const unresolved = await (await m.browser.post(`/settings/api/webhooks/${nowhere.webhook.webhook_id}/verify`)).json();
    expect(unresolved.verification).toEqual({ result: 'failed', failure_reason: 'WEBHOOK_UNREACHABLE', http_status: null });
    const closed = await receiver();
    await closed.close();
    const refused = await (await create(m, closed.url)).json();
    const refusedVerify = await (await m.browser.post(`/settings/api/webhooks/${refused.webhook.webhook_id}/verify`)).json();
    expect(refusedVerify.verification).toEqual({ result: 'failed', failure_reason: 'CONNECTION_FAILED', http_status: null });

    // Echoing the challenge activates it; the verification event is signed like every other.
    const good = await receiver();
    const { id, secret } = await activeCallback(m, good);
    const [request] = good.requests;
    const event = JSON.parse(request.rawBody.toString('utf8'));
    expect(event).toMatchObject({ type: 'webhook.verification', api_version: 'v1', partner_id: m.partner_id, data: { challenge: expect.any(String) } });
    expect(request.headers['x-service-signature']).toBe(`v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${request.headers['x-service-timestamp']}.`).update(request.rawBody).digest('hex')}`);
    const listed = (await (await m.browser.get('/settings/api/webhooks')).json()).webhooks.find((w: { webhook_id: string }) => w.webhook_id === id);
    expect(listed).toMatchObject({ status: 'active', activated_at: expect.any(String) });
    // Test events go to active callbacks only, and never into the delivery list.
    const tested = await (await m.browser.post(`/settings/api/webhooks/${id}/test`)).json();
    expect(tested.test).toEqual({ result: 'delivered', failure_reason: null, http_status: 200 });
    expect(JSON.parse(good.requests[1].rawBody.toString('utf8'))).toMatchObject({ type: 'webhook.test', data: { message: expect.any(String) } });
    expect(await deliveries(m, id)).toEqual([]);
    // The manager's trail shows the test (nothing stored changed, but a request left the service in their name).
    expect((await stack.office.audit.list(m.account_id))[0]).toMatchObject({ action: 'webhook.tested', via: 'settings', webhook_id: id, source_ip: '127.0.0.1' });
  }, 180_000);
});

describe('delivery', () => {
  it('sends a business event signed exactly as the spec says, checked independently', async () => {
    const m = await manager();
    const r = await receiver();
    const { id, secret } = await activeCallback(m, r);
    const eventId = await businessEvent(m.partner_id);
    const delivery = await deliveryOf(m, id, eventId, (d) => d.status === 'delivered');
    expect(delivery).toMatchObject({ attempts: 1, last_http_status: 200, failure_reason: null, resends: 0 });
    const [request] = businessRequests(r);
    // Only these headers (and the transport's own) reach the receiver: no cookie, no key, no internal credential.
    expect(Object.keys(request.headers).sort()).toEqual(['connection', 'content-length', 'content-type', 'host', 'user-agent', 'x-service-event-id', 'x-service-signature', 'x-service-timestamp']);
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe('Service-Webhooks/1.0');
    expect(request.headers['x-service-event-id']).toBe(eventId);
    const timestamp = request.headers['x-service-timestamp'] as string;
    expect(timestamp).toMatch(/^\d+$/);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), request.rawBody])).digest('hex');
    expect(request.headers['x-service-signature']).toBe(`v1=${expected}`);
    // The body is the stored event envelope, in the spec's field order.
    const [stored] = (await stack.office.records!.events(m.partner_id)).events.filter((e: { id: string }) => e.id === eventId);
    expect(JSON.parse(request.rawBody.toString('utf8'))).toEqual(stored);
    expect(Object.keys(JSON.parse(request.rawBody.toString('utf8')))).toEqual(['id', 'type', 'api_version', 'partner_id', 'created_at', 'data']);
    expect(JSON.parse(request.rawBody.toString('utf8'))).toEqual({ id: eventId, type: 'record.created', api_version: 'v1', partner_id: m.partner_id, created_at: expect.any(String), data: { record_id: expect.any(String) } });
  });

  it('gives each failure its reason: 3xx (never followed), 4xx, 5xx, timeout, refused connection', async () => {
    const m = await manager();
    const cases: [string, (r: Receiver) => void, string][] = [
      ['redirect', (r) => r.setHandler(() => ({ status: 307, headers: { location: 'https://127.0.0.1:1/' } })), 'HTTP_3xx'],
      ['client error', (r) => r.setHandler(() => ({ status: 410 })), 'HTTP_4xx'],
      ['server error', (r) => r.setHandler(() => ({ status: 500 })), 'HTTP_5xx'],
      ['timeout', (r) => r.setHandler(() => ({ status: 200, delayMs: TIMEOUT_MS + 1500 })), 'WEBHOOK_UNREACHABLE'],
      ['refused', (r) => void r.close(), 'CONNECTION_FAILED'],
    ];
    for (const [name, breakIt, reason] of cases) {
      const r = await receiver();
      const { id } = await activeCallback(m, r);
      breakIt(r);
      const eventId = await businessEvent(m.partner_id);
      const failed = await deliveryOf(m, id, eventId, (d) => d.attempts >= 1 && d.failure_reason !== null);
      expect(failed.failure_reason, name).toBe(reason);
      expect(failed.status, name).not.toBe('delivered');
      await m.browser.post(`/settings/api/webhooks/${id}/deactivate`);
    }
  }, 240_000);

  it('sends no backlog: events from before a callback became active never reach it', async () => {
    const m = await manager();
    const r = await receiver();
    const created = await (await create(m, r.url)).json();
    const before = await businessEvent(m.partner_id);
    // The fan-out has seen it (the stream carries it before any later write of the table).
    const seen = stack.webhooks!.stats().streamRecords;
    await eventually(async () => (stack.webhooks!.stats().streamRecords > seen ? true : undefined), 'the stream record of the first event');
    await m.browser.post(`/settings/api/webhooks/${created.webhook.webhook_id}/verify`);
    const after = await businessEvent(m.partner_id);
    await deliveryOf(m, created.webhook.webhook_id, after, (d) => d.status === 'delivered');
    const listed = await deliveries(m, created.webhook.webhook_id);
    expect(listed.map((d) => d.event_id)).toEqual([after]);
    expect(listed.map((d) => d.event_id)).not.toContain(before);
    expect(businessRequests(r).map((q) => q.headers['x-service-event-id'])).toEqual([after]);
  });

  it('deactivation cancels what is undelivered and stops deliveries for good', async () => {
    const m = await manager();
    const r = await receiver(() => 500);
    const { id } = await activeCallback(m, r);
    const eventId = await businessEvent(m.partner_id);
    await deliveryOf(m, id, eventId, (d) => d.attempts >= 1);
    const deactivated = await (await m.browser.post(`/settings/api/webhooks/${id}/deactivate`)).json();
    expect(deactivated.webhook).toMatchObject({ status: 'deactivated', deactivation_reason: 'deactivated_by_creator' });
    const cancelled = await deliveryOf(m, id, eventId, (d) => d.status === 'cancelled');
    expect(cancelled.status).toBe('cancelled');
    await stack.webhooks!.idle();
    const seen = businessRequests(r).length;
    await businessEvent(m.partner_id);
    await stack.webhooks!.idle();
    expect(businessRequests(r)).toHaveLength(seen);
    expect((await m.browser.post(`/settings/api/webhooks/${id}/verify`)).status).toBe(409);
    const again = await (await m.browser.post(`/settings/api/webhooks/${id}/deactivate`)).json();
    expect(again.cancelled_deliveries).toBe(0);
  });
});

describe('loss of authority', () => {
  for (const [name, revoke] of [
    ['demoted from manager', (m: Manager) => stack.office.memberships.set(m.partner_id, m.account_id, 'member')],
    ['removed from the organization', (m: Manager) => stack.office.memberships.remove(m.partner_id, m.account_id)],
    ['organization archived', (m: Manager) => stack.office.organizations.archive(m.partner_id)],
    ['account deactivated', (m: Manager) => stack.office.accounts.deactivate(m.account_id)],
    ['password reset', (m: Manager) => stack.office.accounts.setPassword(m.account_id, 'another long password')],
  ] as const) {
    it(`${name}: the next attempt deactivates the callback and cancels its pending deliveries (ACCESS_REVOKED)`, async () => {
      const m = await manager();
      const r = await receiver(() => 500);
      const { id } = await activeCallback(m, r);
      const eventId = await businessEvent(m.partner_id);
      await deliveryOf(m, id, eventId, (d) => d.attempts >= 1);
      await revoke(m);
      await stack.webhooks!.idle();
      const items = await stack.office.webhooks.deliveriesOf(id);
      const delivery = items.deliveries.find((d) => d.event_id === eventId)!;
      expect(delivery).toMatchObject({ status: 'cancelled', failure_reason: 'ACCESS_REVOKED' });
      const { webhooks } = await stack.office.webhooks.list(m.partner_id);
      expect(webhooks[0]).toMatchObject({ webhook_id: id, status: 'deactivated' });
      // Nothing after the loss was delivered, and restoring does not restore the callback.
      expect(businessRequests(r).every((q) => q.headers['x-service-event-id'] === eventId)).toBe(true);
      if (name === 'demoted from manager' || name === 'removed from the organization') {
        await stack.office.memberships.set(m.partner_id, m.account_id, 'manager');
        await businessEvent(m.partner_id);
        await stack.webhooks!.idle();
        expect(businessRequests(r).every((q) => q.headers['x-service-event-id'] === eventId)).toBe(true);
      }
    }, 180_000);
  }
});

describe('several callbacks of one organization', () => {
  it('gives each callback its own delivery of an event: all failing, each gets its 8 attempts on the schedule, ends failed and is resendable; one recovering at attempt 6 alone ends delivered', async () => {
    const m = await manager();
    const failing = [await receiver(() => 500), await receiver(() => 500)];
    const recovering = await receiver((n) => (n < 6 ? 500 : 200));
    const callbacks = [];
    for (const r of [...failing, recovering]) callbacks.push({ r, ...(await activeCallback(m, r)) });

    const eventId = await businessEvent(m.partner_id);
    const ended = await Promise.all(
      callbacks.map(({ id }) => deliveryOf(m, id, eventId, (d) => d.status === 'failed' || d.status === 'delivered')),
    );

    // One delivery per callback, with an id of its own.
    expect(new Set(ended.map((d) => d.delivery_id)).size).toBe(3);
    for (const [i, { r }] of callbacks.entries()) {
      const attempts = businessRequests(r);
      const expected = r === recovering ? 6 : 8;
      expect(attempts, `callback ${i}`).toHaveLength(expected);
      expect(ended[i]).toMatchObject(r === recovering ? { status: 'delivered', attempts: 6 } : { status: 'failed', attempts: 8, failure_reason: 'HTTP_5xx' });
      for (const attempt of attempts) {
        expect(attempt.headers['x-service-event-id']).toBe(eventId);
        expect(attempt.rawBody.equals(attempts[0].rawBody)).toBe(true);
      }
      // Each callback's own waits: at least the spec's, scaled.
      const times = attempts.map((a) => a.receivedAt);
      for (let k = 1; k < times.length; k++) expect(times[k] - times[k - 1], `callback ${i}, wait ${k}`).toBeGreaterThanOrEqual(RETRY_WAITS_SECONDS[k - 1] * 1000 * WAIT_SCALE - 5);
    }
    // Every long wait of every callback went through the state machine: none was dropped as "already started".
    // (Counted per delivery, once no execution runs: only this test's executions, whatever an earlier test's deliveries still do.)
    await stack.webhooks!.scheduler.drained();
    const started = callbacks.map(({ id }, i) => executionsOf(id, ended[i].delivery_id).started);
    expect(started.reduce((sum, n) => sum + n, 0)).toBe(4 + 4 + 2);

    // Each finished delivery is resendable, on its own callback.
    for (const [i, { id }] of callbacks.entries()) {
      const resent = await m.browser.post(`/settings/api/webhooks/${id}/deliveries/${ended[i].delivery_id}/resend`);
      expect(resent.status, `callback ${i}`).toBe(200);
      expect((await resent.json()).delivery).toMatchObject({ delivery_id: ended[i].delivery_id, status: 'pending', resends: 1 });
    }
  }, 240_000);
});

// Last: its delivery and resends spend the callback's 10 starts a minute, and the worker defers what follows (a minute).
describe('the retry schedule', () => {
  it('runs the whole schedule: 8 attempts, waits in order (the long ones through the state machine), then finally failed; a resend starts a new cycle with the same event', async () => {
    const m = await manager();
    let failing = true;
    const r = await receiver(() => (failing ? 500 : 200));
    const { id, secret } = await activeCallback(m, r);
    const eventId = await businessEvent(m.partner_id);
    const failed = await deliveryOf(m, id, eventId, (d) => d.status === 'failed');
    expect(failed).toMatchObject({ attempts: 8, failure_reason: 'HTTP_5xx', last_http_status: 500 });
    const attempts = businessRequests(r);
    expect(attempts).toHaveLength(8);
    // Same event id and bytes on every attempt; each signature is over its own timestamp.
    for (const attempt of attempts) {
      expect(attempt.rawBody.equals(attempts[0].rawBody)).toBe(true);
      expect(attempt.headers['x-service-event-id']).toBe(eventId);
      const mac = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${attempt.headers['x-service-timestamp']}.`).update(attempt.rawBody).digest('hex');
      expect(attempt.headers['x-service-signature']).toBe(`v1=${mac}`);
    }
    // Waits of at least 1 min, 5 min, 15 min, 1 h, 3 h, 6 h, 12 h, scaled.
    const times = attempts.map((a) => a.receivedAt);
    RETRY_WAITS_SECONDS.forEach((wait, i) => expect(times[i + 1] - times[i], `wait ${i + 1}`).toBeGreaterThanOrEqual(wait * 1000 * WAIT_SCALE - 5));
    // The four waits longer than SQS can hold went through the state machine: two transitions each (this delivery's own
    // executions, once no execution runs: an earlier test's deliveries may still be running in the same pipeline).
    await stack.webhooks!.scheduler.drained();
    const own = executionsOf(id, failed.delivery_id);
    expect(own.started).toBe(4);
    expect(own.transitions).toBe(8);

    failing = false;
    const resent = await m.browser.post(`/settings/api/webhooks/${id}/deliveries/${failed.delivery_id}/resend`);
    expect(resent.status).toBe(200);
    expect((await resent.json()).delivery).toMatchObject({ delivery_id: failed.delivery_id, status: 'pending', attempts: 0, resends: 1 });
    expect((await stack.office.audit.list(m.account_id))[0]).toMatchObject({ action: 'webhook.resent', via: 'settings', webhook_id: id, delivery_id: failed.delivery_id });
    const delivered = await deliveryOf(m, id, eventId, (d) => d.status === 'delivered');
    expect(delivered).toMatchObject({ attempts: 1, resends: 1, failure_reason: null });
    expect(businessRequests(r)[8].rawBody.equals(attempts[0].rawBody)).toBe(true);
    // A delivered one can be resent too; one still under way cannot.
    expect((await m.browser.post(`/settings/api/webhooks/${id}/deliveries/${failed.delivery_id}/resend`)).status).toBe(200);
    const busy = await m.browser.post(`/settings/api/webhooks/${id}/deliveries/${failed.delivery_id}/resend`);
    if (busy.status !== 200) expect((await busy.json()).code).toBe('DELIVERY_IN_PROGRESS');
  }, 240_000);
});

describe('operator repairs (admin CLI)', () => {
  it('delivery requeue: a delivery whose next attempt never comes is delivered by the sweeper’s next run, audited; an ended one is refused', async () => {
    const m = await manager();
    const r = await receiver();
    const { id } = await activeCallback(m, r);
    // Stranded: its record made, its first message lost, due in a day (the sweeper alone would wait for that).
    const event = { ...(await storedEventOf(m.partner_id, await businessEvent(m.partner_id))) };
    await deliveryOf(m, id, event.id, (d) => d.status === 'delivered');
    const stranded = { ...event, id: newEventId(new Date()) };
    const { item } = await new Deliveries(stack.client, stack.tables.access).createForEvent(id, stranded, { dueAt: Date.now() + 86_400_000 });

    const requeued = await runAdminCommand(['delivery', 'requeue', item.delivery_id], stack.office);

    expect(requeued).toMatchObject({ requeued: true, delivery: { delivery_id: item.delivery_id, webhook_id: id, status: 'pending', due_at: 0 } });
    const delivered = await deliveryOf(m, id, stranded.id, (d) => d.status === 'delivered');
    expect(delivered).toMatchObject({ attempts: 1, last_http_status: 200 });
    const received = businessRequests(r).filter((q) => q.headers['x-service-event-id'] === stranded.id);
    expect(received.map((q) => JSON.parse(q.rawBody.toString('utf8')))).toEqual([stranded]);
    const audit = await (await m.browser.get('/settings/api/audit')).json();
    expect(audit.entries[0]).toMatchObject({ action: 'webhook.delivery_requeued', via: 'operator', webhook_id: id, delivery_id: item.delivery_id, source_ip: null });
    const refused = await runAdminCommand(['delivery', 'requeue', item.delivery_id], stack.office).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'DELIVERY_NOT_OPEN' });
    expect(await runAdminCommand(['delivery', 'show', '--delivery', item.delivery_id], stack.office)).toMatchObject({ status: 'delivered', due_at: null });
  });

  it('event fan-out: a callback that lost its delivery of an event gets it again (same event id and body); one that has it is listed, one activated later is left out', async () => {
    const m = await manager();
    const [kept, lost, later] = [await receiver(), await receiver(), await receiver()];
    const keptHook = await activeCallback(m, kept);
    const lostHook = await activeCallback(m, lost);
    const eventId = await businessEvent(m.partner_id);
    const keptDelivery = await deliveryOf(m, keptHook.id, eventId, (d) => d.status === 'delivered');
    const lostDelivery = await deliveryOf(m, lostHook.id, eventId, (d) => d.status === 'delivered');
    await stack.client.send(new DeleteCommand({ TableName: stack.tables.access, Key: deliveryKey(lostHook.id, lostDelivery.delivery_id) }));
    const laterHook = await activeCallback(m, later);
    const firstBody = businessRequests(lost).find((q) => q.headers['x-service-event-id'] === eventId)!.rawBody.toString('utf8');

    const result = await runAdminCommand(['event', 'fan-out', eventId, '--org', m.partner_id], stack.office);

    expect(result).toEqual({ event_id: eventId, created: [lostDelivery.delivery_id], existing: [{ webhook_id: keptHook.id, delivery_id: keptDelivery.delivery_id, status: 'delivered' }] });
    await deliveryOf(m, lostHook.id, eventId, (d) => d.status === 'delivered');
    const again = businessRequests(lost).filter((q) => q.headers['x-service-event-id'] === eventId);
    expect(again).toHaveLength(2);
    expect(again[1].rawBody.toString('utf8')).toBe(firstBody);
    const audit = await (await m.browser.get('/settings/api/audit')).json();
    expect(audit.entries.filter((e: { action: string }) => e.action === 'webhook.event_redelivered')).toEqual([
      expect.objectContaining({ via: 'operator', webhook_id: lostHook.id, delivery_id: lostDelivery.delivery_id }),
    ]);
    expect(businessRequests(kept)).toHaveLength(1);
    expect(businessRequests(later)).toHaveLength(0);
    expect((await watched(laterHook.id)).map((d) => d.event_id)).not.toContain(eventId);
    const unknown = await runAdminCommand(['event', 'fan-out', '--org', m.partner_id, '--event', newEventId(new Date())], stack.office).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: 'EVENT_NOT_FOUND' });
  });
});

/** An event as the outbox stores it (what every delivery of it sends). */
async function storedEventOf(partnerId: string, eventId: string): Promise<EventEnvelope> {
  const { events } = await stack.office.records!.events(partnerId);
  return (events as EventEnvelope[]).find((e) => e.id === eventId)!;
}
