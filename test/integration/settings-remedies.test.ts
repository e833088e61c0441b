/**
 * The owner keeps their remedies (docs/web-settings.md, "A session alone is not enough"): a session's wrong password or
 * code re-checks are counted on that session only, audited, and its third ends it; the account's change quotas count a
 * change only once its re-check passed; the remedies (password change, two-factor confirm, sign out everywhere) count
 * on their own session only, so no other session can spend what they need.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import { codeAt } from '../../lambdas/back-office/two-factor';
import { definition as settingsFunction } from '../../lambdas/settings/handler';
import { definition as signInFunction } from '../../lambdas/sign-in/handler';
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { type Platform } from '../../lambdas/shared/platform';
import { HANDLERS } from '../../local/handlers';
import { concurrently } from '../support/concurrently';
import { SettingsBrowser } from '../support/settings-browser';
import { startTestStack, type TestStack } from '../support/test-stack';
import { localPlatform } from '../support/local-platform';

let stack: TestStack;
let office: BackOffice;
/** The settings function's clock: frozen per test, so that every count of a test falls in one minute's window. */
let platform: Platform;
let frozen = new Date();

beforeAll(async () => {
  const settings = createSettingsHandler({ ...settingsFunction, platform: () => platform });
  // These tests open many sessions of one address: sign-in's own limits (per address and IP) raised out of the way.
  let signInPlatform: Platform | undefined;
  const raised = LIMITS.map((l) => (l.kind === 'quota' && l.policy.startsWith('sign-in-') ? { ...l, limit: 100_000 } : l));
  const signIn = createSettingsHandler({ ...signInFunction, platform: () => (signInPlatform ??= localPlatform({ tables: stack.tables, limits: raised })) });
  stack = await startTestStack({ handlers: { ...HANDLERS, settings, 'sign-in': signIn }, functionTimeoutMs: 120_000, storageWaitMs: 60_000 });
  office = createBackOffice(stack.client, stack.tables.access);
});
afterAll(() => stack?.stop());

const freeze = () => {
  frozen = new Date();
  platform = localPlatform({ tables: stack.tables, limits: LIMITS, clock: () => frozen });
};

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a new and longer password';
let serial = 0;
async function owner() {
  const email = `remedies-${(serial += 1)}-${Date.now()}@example.com`;
  const { account_id } = await office.accounts.create('Owner', { email, password: PASSWORD });
  return { account_id, email };
}
async function sessionOf(email: string, code?: string): Promise<SettingsBrowser> {
  const browser = new SettingsBrowser(stack);
  expect((await browser.signIn(email, PASSWORD, code)).status).toBe(200);
  return browser;
}
const auditOf = async (browser: SettingsBrowser) => (await (await browser.get('/settings/api/audit')).json()).entries as { action: string; route?: string; source_ip: string | null }[];

describe('a stolen session', () => {
  it('ends after three wrong re-checks, and the owner still changes the password (finding 1)', async () => {
    freeze();
    const { email } = await owner();
    const stolen = await sessionOf(email);
    const own = await sessionOf(email);

    const answers = [];
    for (let i = 0; i < 10; i += 1) answers.push(await stolen.post('/settings/api/two-factor/enrol', { password: `guess number ${i}` }));

    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(401));
    const codes = await Promise.all(answers.map(async (r) => (await r.json()).code));
    expect(codes).toEqual([...Array(3).fill('INVALID_PASSWORD'), ...Array(7).fill('SESSION_REQUIRED')]);
    const changed = await own.post('/settings/api/password', { current_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(changed.status).toBe(200);
    const trail = await auditOf(own);
    expect(trail.filter((e) => e.action === 'reauth.failed')).toHaveLength(3);
    expect(trail.filter((e) => e.action === 'session.ended')).toEqual([expect.objectContaining({ route: 'POST /settings/api/two-factor/enrol', source_ip: expect.any(String) })]);
  }, 120_000);

  it('cannot guess in parallel beyond its own row: five at most, then it is ended, and nothing counts on the account', async () => {
    freeze();
    const { email } = await owner();
    const stolen = await sessionOf(email);
    const own = await sessionOf(email);

    const answers = await concurrently(10, (i) => stolen.post('/settings/api/keys', { password: `guess ${i}`, scopes: ['public:read'] }));

    // At most five guesses checked (the session's row admits five a minute, counted before the check), at least three
    // (the third ends the session); every other answer is that row's 429 or the ended session's 401.
    const codes = await Promise.all(answers.map(async (r) => `${(await r.json()).code} ${r.headers.get('x-ratelimit-policy') ?? ''}`.trim()));
    const checked = codes.filter((code) => code === 'INVALID_PASSWORD').length;
    expect(checked).toBeGreaterThanOrEqual(3);
    expect(checked).toBeLessThanOrEqual(5);
    expect(codes.filter((code) => !['INVALID_PASSWORD', 'RATE_LIMITED settings-session-change-minute', 'SESSION_REQUIRED'].includes(code))).toEqual([]);
    expect((await stolen.get('/settings/api/session')).status).toBe(401);
    // The account's change quotas are whole: ten accepted changes of the owner's own fit this minute (two sessions: five each).
    const second = await sessionOf(email);
    const created = [
      ...(await concurrently(5, () => own.post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'] }))),
      ...(await concurrently(5, () => second.post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'] }))),
    ];
    expect(created.map((r) => r.status)).toEqual(Array(10).fill(201));
    const trail = await auditOf(own);
    expect(trail.filter((e) => e.action === 'reauth.failed').length).toBe(checked);
    expect(trail.filter((e) => e.action === 'session.ended')).toHaveLength(1);
  }, 120_000);

  it('audits every failed re-check with its route: key and callback creation, password, two-factor (finding 4)', async () => {
    freeze();
    const { email } = await owner();
    const own = await sessionOf(email);
    const tries: [string, unknown][] = [
      ['/settings/api/keys', { password: 'wrong one', scopes: ['public:read'] }],
      ['/settings/api/password', { current_password: 'wrong one', new_password: NEW_PASSWORD }],
    ];
    for (const [path, body] of tries) {
      const refused = await own.post(path, body);
      expect(refused.status).toBe(401);
    }
    const other = await sessionOf(email);
    expect((await other.post('/settings/api/webhooks', { partner_id: 'org_none', url: 'https://hooks.partner-receiver.net/hook', password: 'wrong one' })).status).toBe(401);
    expect((await other.post('/settings/api/two-factor/disable', { password: 'wrong one', code: '123456' })).status).toBe(401);

    const failed = (await auditOf(other)).filter((e) => e.action === 'reauth.failed').map((e) => e.route).sort();
    expect(failed).toEqual(['POST /settings/api/keys', 'POST /settings/api/password', 'POST /settings/api/two-factor/disable', 'POST /settings/api/webhooks']);
  }, 120_000);
});

describe('the remedies', () => {
  it('work when other sessions have spent the account\u2019s change quotas: two-factor confirm, password change, sign out everywhere', async () => {
    freeze();
    const { email } = await owner();
    const own = await sessionOf(email);
    const enrolled = await own.post('/settings/api/two-factor/enrol', { password: PASSWORD });
    expect(enrolled.status).toBe(200);
    const { secret } = await enrolled.json();
    // Nine more accepted changes from two other sessions fill settings-change-minute (10).
    const others = [await sessionOf(email), await sessionOf(email)];
    const filled = [
      ...(await concurrently(5, () => others[0].post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'] }))),
      ...(await concurrently(4, () => others[1].post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'] }))),
    ];
    expect(filled.map((r) => r.status)).toEqual(Array(9).fill(201));
    const blocked = await own.post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'] });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('x-ratelimit-policy')).toBe('settings-change-minute');

    const confirmed = await own.post('/settings/api/two-factor/confirm', { password: PASSWORD, code: await codeAt(secret, frozen) });
    expect(confirmed.status).toBe(200);
    const changed = await own.post('/settings/api/password', { current_password: PASSWORD, new_password: NEW_PASSWORD });
    expect(changed.status).toBe(200);
    const third = new SettingsBrowser(stack);
    expect((await third.signIn(email, NEW_PASSWORD, await codeAt(secret, new Date(Date.now() + 30_000)))).status).toBe(200);
    const everywhere = await own.post('/settings/api/sign-out-everywhere');
    expect(everywhere.status).toBe(200);
    expect(everywhere.headers.get('set-cookie')).toMatch(/^settings_session=;/);

    expect((await third.get('/settings/api/session')).status).toBe(401);
    expect((await own.get('/settings/api/session')).status).toBe(401);
    const trail = (await office.audit.list((await office.accounts.findByEmail(email))!.account.account_id)).map((e) => e.action);
    expect(trail).toContain('sessions.ended');
  }, 180_000);

  it('a refused change leaves the account\u2019s quotas as they were: ten wrong passwords from ten sessions, then ten accepted changes', async () => {
    freeze();
    const { email } = await owner();
    const sessions = await Promise.all(Array.from({ length: 10 }, () => sessionOf(email)));
    const wrong = await Promise.all(sessions.map((s) => s.post('/settings/api/two-factor/enrol', { password: 'not it' })));
    expect(wrong.map((r) => r.status)).toEqual(Array(10).fill(401));
    const accepted = await Promise.all(sessions.map((s) => s.post('/settings/api/two-factor/enrol', { password: PASSWORD })));
    expect(accepted.map((r) => r.status)).toEqual(Array(10).fill(200));
  }, 180_000);
});
