/**
 * The webhook rows of the limits table through the local front on DynamoDB
 * Local, each exact under concurrency: for every row, limit + 5 concurrent
 * requests of a route it covers (every other quota raised out of reach, the
 * webhooks function's clock held still so that all of them fall in one
 * window; every row on holders of its own) answer exactly 5 × 429
 * RATE_LIMITED naming that row's policy, with Retry-After and a top-level
 * code. Also: at most 10 non-deactivated callbacks per account and per
 * organization, exactly, under concurrent creations; deactivating counts
 * under the separate revoke quota.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { definition as settingsFunction } from '../../lambdas/settings/handler';
import { definition as signInFunction } from '../../lambdas/sign-in/handler';
import { definition as webhookFunction } from '../../lambdas/webhooks/handler';
import { LIMITS, quotaLimits, type Limit, type QuotaLimit } from '../../lambdas/shared/limits/limits-table';
import { type Platform } from '../../lambdas/shared/platform';
import { HANDLERS } from '../../local/handlers';
import { startHttpsReceiver } from '../support/https-receiver';
import { recordInput } from '../support/record-input';
import { SettingsBrowser, type JsonResponse } from '../support/settings-browser';
import { concurrently } from '../support/concurrently';
import { startTestStack, type TestStack } from '../support/test-stack';
import { localPlatform } from '../support/local-platform';

let stack: TestStack;
let platform: Platform;

beforeAll(async () => {
  const webhooks = createSettingsHandler({ ...webhookFunction, platform: () => platform });
  // Signing in (a manager per row, all from 127.0.0.1) and the other settings on the same platform.
  const settings = createSettingsHandler({ ...settingsFunction, platform: () => platform });
  // Each row sends its requests at once (25 creations, each checking a password): on a loaded 2-core machine one can take
  // longer than the deployed 10 s function timeout, which the front would answer 502. These tests count limits, not time.
  const signIn = createSettingsHandler({ ...signInFunction, platform: () => platform });
  stack = await startTestStack({ handlers: { ...HANDLERS, webhooks, settings, 'sign-in': signIn }, functionTimeoutMs: 120_000, storageWaitMs: 60_000 });
});
afterAll(() => stack?.stop());

const receivers: Awaited<ReturnType<typeof startHttpsReceiver>>[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

/** The table with every quota but `row` raised out of reach (`real`: as it is), on a clock held still now. */
function platformFor(row: QuotaLimit | 'real'): Platform {
  const limits: Limit[] = LIMITS.map((l) => (l.kind !== 'quota' || row === 'real' ? l : l.policy === row.policy ? row : { ...l, limit: 100_000 }));
  const still = new Date();
  return localPlatform({ limits, clock: () => still });
}

const PASSWORD = 'correct horse battery';
let serial = 0;

async function manager() {
  serial += 1;
  const email = `hook-limits-${serial}-${Date.now()}@example.com`;
  const { account_id } = await stack.office.accounts.create('Limited', { email, password: PASSWORD });
  const { partner_id } = await stack.office.organizations.create(`Limited ${serial}`);
  await stack.office.memberships.set(partner_id, account_id, 'manager');
  const browser = new SettingsBrowser(stack);
  expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
  return { account_id, partner_id, browser };
}

async function echoingReceiver() {
  const r = await startHttpsReceiver((request) => {
    const event = JSON.parse(request.rawBody.toString('utf8')) as { data: { challenge?: string } };
    return { status: 200, body: JSON.stringify({ challenge: event.data.challenge }) };
  });
  receivers.push(r);
  return r;
}

/** An active callback of a new manager's organization, and a delivered delivery of it. */
async function deliveredCallback() {
  const m = await manager();
  const r = await echoingReceiver();
  const created = await m.browser.post('/settings/api/webhooks', { partner_id: m.partner_id, url: r.url, password: PASSWORD });
  expect(created.status).toBe(201);
  const id = (await created.json()).webhook.webhook_id as string;
  expect((await m.browser.post(`/settings/api/webhooks/${id}/verify`)).status).toBe(200);
  const { event_id } = await stack.office.records!.put(m.partner_id, recordInput('Lim', { result: 'clean' }));
  for (let i = 0; i < 1200; i += 1) {
    const found = (await stack.office.webhooks.deliveriesOf(id)).deliveries.find((d) => d.event_id === event_id && d.status === 'delivered');
    if (found) return { ...m, id, deliveryId: found.delivery_id };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the business event was not delivered');
}

type Sender = (i: number) => Promise<JsonResponse>;

async function senderFor(row: QuotaLimit): Promise<Sender> {
  const category = row.covers === 'all' ? undefined : row.covers[0];
  switch (category) {
    case 'settings-webhook-create': {
      const m = await manager();
      return (i) => m.browser.post('/settings/api/webhooks', { partner_id: m.partner_id, url: `https://hooks-${i}.partner-receiver.net/in`, password: PASSWORD });
    }
    case 'settings-webhook-check': {
      const m = await manager();
      const r = await echoingReceiver();
      const { webhook } = await (await m.browser.post('/settings/api/webhooks', { partner_id: m.partner_id, url: r.url, password: PASSWORD })).json();
      return () => m.browser.post(`/settings/api/webhooks/${webhook.webhook_id}/verify`);
    }
    case 'settings-webhook-resend': {
      const d = await deliveredCallback();
      return () => d.browser.post(`/settings/api/webhooks/${d.id}/deliveries/${d.deliveryId}/resend`);
    }
    default:
      throw new Error(`no route for ${row.policy}`);
  }
}


const ROWS = quotaLimits().filter((l) => l.policy.startsWith('webhook-') && l.holder !== 'webhook-delivery');

describe('webhook limits, each exact under concurrency', () => {
  it('declares the spec\u2019s webhook limits', () => {
    expect(Object.fromEntries(ROWS.map((l) => [l.policy, [l.holder, l.windowSeconds, l.limit]]))).toEqual({
      'webhook-create-hour': ['settings-account', 3600, 5],
      'webhook-create-day': ['settings-account', 86_400, 20],
      'webhook-check-callback-minute': ['webhook', 60, 1],
      'webhook-check-minute': ['settings-account', 60, 3],
      'webhook-check-hour': ['settings-account', 3600, 30],
      'webhook-check-organization-hour': ['webhook-organization', 3600, 60],
      'webhook-resend-callback-minute': ['webhook', 60, 5],
      'webhook-resend-hour': ['settings-account', 3600, 10],
      'webhook-resend-organization-hour': ['webhook-organization', 3600, 20],
      'webhook-resend-delivery-day': ['webhook-delivery-record', 86_400, 3],
    });
    // Creation is a configuration change too; deactivation counts under the separate revoke quota.
    const change = LIMITS.filter((l) => l.kind === 'quota' && l.policy.startsWith('settings-change-'));
    for (const l of change) expect(l.kind === 'quota' && l.covers !== 'all' && l.covers.includes('settings-webhook-create')).toBe(true);
    const pipeline = LIMITS.filter((l) => l.kind !== 'edge' && l.holder === 'webhook-delivery').map((l) => [l.kind, l.policy, l.limit]);
    expect(pipeline).toEqual([
      ['rolling', 'webhook-delivery-starts-minute', 10],
      ['concurrency', 'webhook-delivery-concurrency', 3],
    ]);
  });

  for (const declared of ROWS) {
    // Every row at its real number (passwords hash at the suite's test-only cost: test/support/test-password-cost.ts).
    const row = declared;
    it(`${row.policy}: ${row.limit} of ${row.limit + 5} concurrent requests admitted`, async () => {
      platform = platformFor(row);
      const send = await senderFor(row);
      const responses = await concurrently(row.limit + 5, send);
      const limited = responses.filter((r) => r.status === 429);
      expect(limited).toHaveLength(5);
      expect(responses.map((r) => r.status).filter((status) => status >= 500)).toEqual([]);
      for (const response of limited) {
        expect(response.headers.get('x-ratelimit-policy')).toBe(row.policy);
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(await response.json()).toEqual({ code: 'RATE_LIMITED', message: expect.any(String), request_id: expect.any(String) });
      }
    }, 120_000);
  }
});

describe('the 10-callback limits', () => {
  it('lets exactly 10 of 14 concurrent creations through for one account, and 10 per organization across accounts', async () => {
    platform = platformFor({ ...(LIMITS.find((l) => l.policy === 'webhook-create-day') as QuotaLimit), limit: 100_000 });
    const m = await manager();
    const created = await concurrently(14, (i) => m.browser.post('/settings/api/webhooks', { partner_id: m.partner_id, url: `https://h${i}.partner-receiver.net/`, password: PASSWORD }));
    const statuses = created.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    for (const refused of created.filter((r) => r.status !== 201)) {
      expect(refused.status).toBe(409);
      expect((await refused.json()).code).toBe('WEBHOOK_LIMIT_OR_ACCESS_CHANGED');
    }
    // A deactivated one frees its place.
    const { webhooks } = await (await m.browser.get('/settings/api/webhooks')).json();
    expect(webhooks).toHaveLength(10);
    expect((await m.browser.post(`/settings/api/webhooks/${webhooks[0].webhook_id}/deactivate`)).status).toBe(200);
    expect((await m.browser.post('/settings/api/webhooks', { partner_id: m.partner_id, url: 'https://again.partner-receiver.net/', password: PASSWORD })).status).toBe(201);

    // The organization's 10 are shared by its managers.
    const other = await manager();
    await stack.office.memberships.set(m.partner_id, other.account_id, 'manager');
    const refused = await other.browser.post('/settings/api/webhooks', { partner_id: m.partner_id, url: 'https://full.partner-receiver.net/', password: PASSWORD });
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('WEBHOOK_LIMIT_OR_ACCESS_CHANGED');
    // Callbacks whose creator lost authority no longer count: demoting the first manager frees the organization.
    await stack.office.memberships.set(m.partner_id, m.account_id, 'member');
    expect((await other.browser.post('/settings/api/webhooks', { partner_id: m.partner_id, url: 'https://freed.partner-receiver.net/', password: PASSWORD })).status).toBe(201);
  }, 120_000);

  it('counts deactivations under the separate revoke quota, not the change quotas', async () => {
    // Only the change quota real (10 a minute): the revoke quota is the one that must still admit.
    platform = platformFor(LIMITS.find((l) => l.kind === 'quota' && l.policy === 'settings-change-minute') as QuotaLimit);
    const m = await manager();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const created = await m.browser.post('/settings/api/webhooks', { partner_id: m.partner_id, url: `https://d${i}.partner-receiver.net/`, password: PASSWORD });
      ids.push((await created.json()).webhook.webhook_id);
    }
    // Spend the change quota (10 a minute, the 3 creations included).
    const changes = await concurrently(12, () => m.browser.post('/settings/api/two-factor/enrol', { password: PASSWORD }));
    expect(changes.filter((r) => r.status === 429)).toHaveLength(5);
    const refused = await m.browser.post('/settings/api/webhooks', { partner_id: m.partner_id, url: 'https://more.partner-receiver.net/', password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-policy')).toBe('settings-change-minute');
    for (const id of ids) expect((await m.browser.post(`/settings/api/webhooks/${id}/deactivate`)).status).toBe(200);
  }, 60_000);
});
