/**
 * The web settings' limits through the local front on DynamoDB Local, each
 * row of the limits table exact under concurrency: for every `settings-*`
 * and `sign-in-*` quota, limit + 5 concurrent requests of a route it covers
 * (every other quota raised out of reach, the clock fixed inside one window)
 * admit exactly `limit` and answer the rest 429 RATE_LIMITED naming that
 * policy, with Retry-After and a top-level code. Revoking keeps working when
 * the change quotas are spent; the web side's source-IP burst rule answers in
 * the web-settings shape and does not count the partner API's requests.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { definition as settingsFunction } from '../../lambdas/settings/handler';
import { definition as signInFunction } from '../../lambdas/sign-in/handler';
import { LIMITS, quotaLimits, type Limit, type QuotaLimit } from '../../lambdas/shared/limits/limits-table';
import { type Platform } from '../../lambdas/shared/platform';
import { HANDLERS } from '../../local/handlers';
import { SettingsBrowser, type JsonResponse } from '../support/settings-browser';
import { concurrently } from '../support/concurrently';
import { startTestStack, type TestStack } from '../support/test-stack';
import { localPlatform } from '../support/local-platform';

let stack: TestStack;
let platform: Platform;
let office: BackOffice;

beforeAll(async () => {
  const settings = createSettingsHandler({ ...settingsFunction, platform: () => platform });
  // Sign-in is a function of its own: on the same platform (limits and clock), or its sessions would be opened on another clock.
  const signIn = createSettingsHandler({ ...signInFunction, platform: () => platform });
  // 55 password-checked creations at once can pass the deployed 10 s on a loaded machine (the front answers 502): these
  // rows count limits, not time.
  stack = await startTestStack({ handlers: { ...HANDLERS, settings, 'sign-in': signIn }, functionTimeoutMs: 120_000, storageWaitMs: 60_000 });
});
afterAll(() => stack?.stop());

let day = 0;
/**
 * The table with every quota but `row` raised out of reach (`real`: the table as it is), on a clock
 * fixed 20 seconds into a UTC day of its own: every window (minute, hour, day) starts empty, also
 * on the items every test shares (the source IP's).
 */
function platformFor(row: QuotaLimit | 'real'): Platform {
  const limits: Limit[] = LIMITS.map((l) => (l.kind === 'edge' || row === 'real' ? l : l.policy === row.policy ? row : { ...l, limit: 100_000 }));
  const fixed = new Date(Date.UTC(2031, 0, 1) + (day += 1) * 86_400_000 + 20_000);
  office = createBackOffice(stack.client, stack.tables.access, () => fixed);
  return localPlatform({ limits, clock: () => fixed });
}

const PASSWORD = 'correct horse battery';
let serial = 0;
const newEmail = () => `limits-${(serial += 1)}-${Date.now()}@example.com`;
async function signedIn() {
  const email = newEmail();
  const { account_id } = await office.accounts.create('Limited', { email, password: PASSWORD });
  const browser = new SettingsBrowser(stack);
  expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
  return { account_id, email, browser };
}

/** One request of a route the row covers, for `limit + 5` concurrent senders. */
type Sender = (i: number) => Promise<JsonResponse>;
async function senderFor(row: QuotaLimit): Promise<Sender> {
  const category = row.covers === 'all' ? undefined : row.covers[0];
  if (row.holder === 'sign-in-email') {
    const email = newEmail();
    return () => new SettingsBrowser(stack).signIn(email, 'not the password at all');
  }
  if (row.holder === 'sign-in-ip') return () => new SettingsBrowser(stack).signIn(newEmail(), 'not the password at all');
  const { account_id, browser } = await signedIn();
  // The session's own row counts a wrong password as well as a right one: it is counted before the check.
  if (row.holder === 'settings-session') return () => browser.post('/settings/api/two-factor/enrol', { password: 'not the password at all' });
  switch (category) {
    case 'settings-view':
      return () => browser.get('/settings/api/keys');
    case 'settings-change':
      return () => browser.post('/settings/api/two-factor/enrol', { password: PASSWORD });
    case 'settings-key-create':
      return () => browser.post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'] });
    case 'settings-revoke': {
      const keys = await Promise.all(Array.from({ length: row.limit + 5 }, () => office.keys.create({ accountId: account_id, scopes: ['public:read'] })));
      return (i) => browser.post(`/settings/api/keys/${keys[i].key_id}/revoke`);
    }
    default:
      throw new Error(`no route for ${row.policy}`);
  }
}


// The webhook rows (also per account) have their own test with their own routes: test/integration/webhook-limits.test.ts.
const ROWS = quotaLimits().filter(
  (l) => (l.holder === 'settings-account' || l.holder === 'settings-session' || l.holder === 'sign-in-ip' || l.holder === 'sign-in-email') && !l.policy.startsWith('webhook-'),
);

describe('web settings limits, each exact under concurrency', () => {
  it('declares the spec\u2019s web settings limits', () => {
    const byPolicy = Object.fromEntries(ROWS.map((l) => [l.policy, [l.windowSeconds, l.limit]]));
    expect(byPolicy).toEqual({
      'sign-in-email-minute': [60, 5],
      'sign-in-email-hour': [3600, 20],
      'sign-in-ip-minute': [60, 10],
      'sign-in-ip-hour': [3600, 60],
      'settings-view-minute': [60, 30],
      'settings-change-minute': [60, 10],
      'settings-change-hour': [3600, 60],
      'settings-change-day': [86_400, 200],
      'settings-session-change-minute': [60, 5],
      'settings-revoke-minute': [60, 10],
      'settings-key-create-hour': [3600, 20],
      'settings-key-create-day': [86_400, 50],
    });
    const edge = LIMITS.filter((l) => l.kind === 'edge' && l.surface === 'web').map((l) => [l.policy, l.kind === 'edge' && l.windowSeconds, l.kind === 'edge' && l.limit]);
    expect(edge).toEqual([
      ['web-ip-burst', 10, 30],
      ['web-ip-minute', 60, 60],
    ]);
  });

  for (const declared of ROWS) {
    // Every row at its real number: the suite hashes passwords at its test-only cost (test/support/test-password-cost.ts),
    // so 200 concurrent changes each asking for the password stay well within the function timeout.
    const row = declared;
    it(`${row.policy}: ${row.limit} of ${row.limit + 5} concurrent requests admitted`, async () => {
      platform = platformFor(row);
      const send = await senderFor(row);
      const responses = await concurrently(row.limit + 5, send);
      const limited = responses.filter((r) => r.status === 429);
      const others = responses.filter((r) => r.status !== 429);
      expect(limited).toHaveLength(5);
      // Admitted requests were answered by their operation (key creations beyond the 20-key limit: KEY_LIMIT, lost races: a conflict); never a 5xx.
      expect(others.map((r) => r.status).filter((status) => status >= 500)).toEqual([]);
      for (const response of limited) {
        expect(response.headers.get('x-ratelimit-policy')).toBe(row.policy);
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(await response.json()).toEqual({ code: 'RATE_LIMITED', message: expect.any(String), request_id: expect.any(String) });
      }
    }, 120_000);
  }
});

describe('the separate revoke quota', () => {
  it('lets a key be revoked when the change quotas are spent, and a refused change counts nowhere', async () => {
    platform = platformFor('real');
    const { account_id, email, browser } = await signedIn();
    const keys = await Promise.all(Array.from({ length: 3 }, () => office.keys.create({ accountId: account_id, scopes: ['public:read'] })));
    // Twelve accepted changes from three sessions (each session's own row admits five a minute): the account's minute takes ten.
    const others = [browser, new SettingsBrowser(stack), new SettingsBrowser(stack)];
    for (const other of others.slice(1)) expect((await other.signIn(email, PASSWORD)).status).toBe(200);
    const changes = (await Promise.all(others.map((other) => concurrently(4, () => other.post('/settings/api/two-factor/enrol', { password: PASSWORD }))))).flat();
    expect(changes.filter((r) => r.status === 429).map((r) => r.headers.get('x-ratelimit-policy'))).toEqual(['settings-change-minute', 'settings-change-minute']);
    const refused = await others[2].post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'] });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-policy')).toBe('settings-change-minute');
    for (const key of keys) expect((await browser.post(`/settings/api/keys/${key.key_id}/revoke`)).status).toBe(200);
    // Viewing has its own quota too.
    expect((await browser.get('/settings/api/keys')).status).toBe(200);
  });
});

describe('the web side\u2019s source-IP burst rule', () => {
  it('answers the 31st request in 10 seconds from one address with 429 in the web-settings shape, apart from the partner API', async () => {
    // The front's edge rules on a clock standing at the start of a fresh 10-second window (Date alone is faked, timers stay
    // real), so that the 30 fit in one however long a loaded machine takes for them.
    vi.useFakeTimers({ toFake: ['Date'], now: Math.ceil(Date.now() / 10_000) * 10_000 + 50 });
    const guarded = await startTestStack({ edgeProtection: true });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 30; i += 1) statuses.push((await guarded.call('/settings/api/session')).status);
      expect(statuses).toEqual(Array(30).fill(401));
      const limited = await guarded.call('/settings/api/session');
      expect(limited.status).toBe(429);
      expect(limited.headers.get('x-ratelimit-policy')).toBe('web-ip-burst');
      expect(await limited.json()).toMatchObject({ code: 'RATE_LIMITED', message: expect.any(String) });
      // The partner API's burst rule counts its own requests only.
      expect((await guarded.call('/health')).status).toBe(200);
    } finally {
      vi.useRealTimers();
      await guarded.stop();
    }
  }, 180_000);
});
