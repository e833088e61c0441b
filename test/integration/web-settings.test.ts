/**
 * Web settings through the local front on DynamoDB Local: signing in (a
 * wrong password and an unknown e-mail indistinguishable; two-factor missing,
 * wrong, replayed), the session cookie and its ends (sign-out, 30 minutes
 * idle, 12 hours absolute, a password change elsewhere), cross-site requests
 * refused before anything is read or written, API keys refused and session
 * cookies useless on the partner API, every key operation and its codes,
 * password change and reset revoking the account's keys for good, two-factor
 * from the settings API, and the audit trail (time, source IP, 30 days).
 * The limits are in web-settings-limits.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { definition as settingsFunction } from '../../lambdas/settings/handler';
import { definition as signInFunction } from '../../lambdas/sign-in/handler';
import { definition as webhookFunction } from '../../lambdas/webhooks/handler';
import { codeAt } from '../../lambdas/back-office/two-factor';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { type Platform } from '../../lambdas/shared/platform';
import { HANDLERS } from '../../local/handlers';
import { bearer, startTestStack, type TestStack } from '../support/test-stack';
import { captureLogs } from '../support/log-capture';
import { SettingsBrowser, type JsonResponse } from '../support/settings-browser';
import { wireRequest } from '../support/raw-http';
import { localPlatform } from '../support/local-platform';

let stack: TestStack;
let platform: Platform;
/** The settings function's clock (sessions, codes, audit), moved by the tests. */
let now = new Date();
let office: BackOffice;

beforeAll(async () => {
  const raised = LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: 100_000 }));
  // Both functions of web settings on one platform and its clock: they count the same account windows, and a second
  // clock (the webhooks function's real one) would see those windows from another minute (one write more per view).
  const settings = createSettingsHandler({ ...settingsFunction, platform: () => platform });
  const webhooks = createSettingsHandler({ ...webhookFunction, platform: () => platform });
  const signIn = createSettingsHandler({ ...signInFunction, platform: () => platform });
  stack = await startTestStack({ handlers: { ...HANDLERS, settings, 'sign-in': signIn, webhooks } });
  platform = localPlatform({ limits: raised, clock: () => now });
  office = createBackOffice(stack.client, stack.tables.access, () => now, stack.tables.domain);
});
afterAll(() => stack?.stop());

const PASSWORD = 'correct horse battery';
let serial = 0;
async function account(options: { password?: string } = {}) {
  const email = `settings-${(serial += 1)}-${Date.now()}@example.com`;
  const { account_id } = await office.accounts.create('Settings user', { email, password: options.password ?? PASSWORD });
  return { account_id, email };
}
const browser = () => new SettingsBrowser(stack);
const call = async (path: string, init?: RequestInit) => (await stack.call(path, init)) as unknown as JsonResponse;
async function signedIn(options: { password?: string } = {}) {
  const who = await account(options);
  const b = browser();
  const response = await b.signIn(who.email, options.password ?? PASSWORD);
  expect(response.status).toBe(200);
  return { ...who, browser: b };
}
const nextStep = () => (now = new Date(now.getTime() + 30_000));
const later = (ms: number) => (now = new Date(now.getTime() + ms));

describe('what a view costs', () => {
  it('answers each view in two sequential round trips: the session, then its admission and its reads together', async () => {
    const m = await signedIn();
    // The account's first counted call opens its windows (one write more); the clock stands still from here.
    expect((await m.browser.get('/settings/api/session')).status).toBe(200);
    const logs = captureLogs();
    try {
      for (const path of ['/settings/api/session', '/settings/api/organizations', '/settings/api/keys', '/settings/api/webhooks']) {
        expect((await m.browser.get(path)).status).toBe(200);
      }
      const costs = logs
        .lines()
        .filter((line) => line.message === 'request')
        .map((line) => [line.route, (line.dynamo as { round_trips: number }).round_trips]);
      expect(costs).toEqual([
        ['settings-session', 2],
        ['settings-organizations', 2],
        ['settings-keys', 2],
        ['webhooks', 2],
      ]);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("drops a refused view's reads: a deactivated account's session answers 401 SESSION_REQUIRED", async () => {
    const m = await signedIn();
    await office.accounts.deactivate(m.account_id);
    const refused = await m.browser.get('/settings/api/keys');
    expect(refused.status).toBe(401);
    expect((await refused.json()).code).toBe('SESSION_REQUIRED');
  });
});

describe('signing in', () => {
  it('opens a session with an HttpOnly, Secure, SameSite=Strict cookie scoped to the settings path', async () => {
    const { email, account_id } = await account();
    const b = browser();
    const response = await b.signIn(email.toUpperCase(), PASSWORD);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ account_id, email, two_factor: 'off', name: 'Settings user' });
    // The session cookie first; the device cookie beside it (test/integration/sign-in-lockout.test.ts).
    const [cookie] = response.headers.getSetCookie();
    expect(cookie).toMatch(/^settings_session=[A-Za-z0-9_-]{43}; Path=\/v1\/settings; Max-Age=43200; HttpOnly; Secure; SameSite=Strict$/);
    const session = await b.get('/settings/api/session');
    expect(session.status).toBe(200);
    expect(await session.json()).toMatchObject({ account_id, email });
  });

  it('answers a wrong password and an unknown e-mail address alike', async () => {
    const { email } = await account();
    const wrong = await browser().signIn(email, 'not the password at all');
    const unknown = await browser().signIn(`nobody-${serial}-${Date.now()}@example.com`, PASSWORD);
    const malformed = await browser().signIn('not an address', PASSWORD);
    for (const response of [wrong, unknown, malformed]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('set-cookie')).toBeNull();
    }
    const bodies = await Promise.all([wrong, unknown, malformed].map(async (r) => {
      const { code, message } = (await r.json()) as { code: string; message: string };
      return { code, message };
    }));
    expect(bodies[0]).toEqual({ code: 'INVALID_PASSWORD', message: expect.any(String) });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });

  it('with two-factor on, needs a current code, refuses a wrong one and a replayed one', async () => {
    const { email, browser: b } = await signedIn();
    const enrolled = (await (await b.post('/settings/api/two-factor/enrol', { password: PASSWORD })).json()) as { secret: string; otpauth_uri: string };
    expect(enrolled.otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
    expect((await (await b.get('/settings/api/session')).json()).two_factor).toBe('pending');
    const confirm = await b.post('/settings/api/two-factor/confirm', { password: PASSWORD, code: await codeAt(enrolled.secret, now) });
    expect(confirm.status).toBe(200);
    expect((await (await b.get('/settings/api/session')).json()).two_factor).toBe('on');

    nextStep();
    const missing = await browser().signIn(email, PASSWORD);
    expect(missing.status).toBe(401);
    expect((await missing.json()).code).toBe('INVALID_TWO_FACTOR');
    const wrongCode = String((Number(await codeAt(enrolled.secret, now)) + 1) % 1_000_000).padStart(6, '0');
    const wrong = await browser().signIn(email, PASSWORD, wrongCode);
    expect((await wrong.json()).code).toBe('INVALID_TWO_FACTOR');
    // A wrong password with a right code says nothing about the code.
    const code = await codeAt(enrolled.secret, now);
    expect((await (await browser().signIn(email, 'not the password at all', code)).json()).code).toBe('INVALID_PASSWORD');
    const good = browser();
    expect((await good.signIn(email, PASSWORD, code)).status).toBe(200);
    const replayed = await browser().signIn(email, PASSWORD, code);
    expect((await replayed.json()).code).toBe('INVALID_TWO_FACTOR');
  });

  it('reads the same items for a known address with a wrong password as for an unknown or malformed one (round trips, read units)', async () => {
    const { email } = await account();
    const logs = captureLogs();
    try {
      await browser().signIn(email, 'not the password at all');
      await browser().signIn(`nobody-${serial}-${Date.now()}@example.com`, 'not the password at all');
      await browser().signIn('not an address', 'not the password at all');
      const costs = logs
        .lines()
        .filter((line) => line.message === 'request' && line.route === 'settings-sign-in')
        .map((line) => [line.status, line.code, line.dynamo]);
      expect(costs).toHaveLength(3);
      expect(costs[1]).toEqual(costs[0]);
      expect(costs[2]).toEqual(costs[0]);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('refuses a deactivated account only after the right password', async () => {
    const { email, account_id } = await account();
    await office.accounts.deactivate(account_id);
    expect((await (await browser().signIn(email, 'not the password at all')).json()).code).toBe('INVALID_PASSWORD');
    const right = await browser().signIn(email, PASSWORD);
    expect(right.status).toBe(403);
    expect((await right.json()).code).toBe('ACCOUNT_INACTIVE');
  });
});

describe('the session', () => {
  it('ends at sign-out: the cookie is cleared and the old token is useless', async () => {
    const { browser: b } = await signedIn();
    const token = b.token;
    const out = await b.delete('/settings/api/session');
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^settings_session=; Path=\/v1\/settings; Max-Age=0; HttpOnly; Secure; SameSite=Strict$/);
    const replay = browser();
    replay.token = token;
    const refused = await replay.get('/settings/api/keys');
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: 'SESSION_REQUIRED', message: expect.any(String), request_id: expect.any(String) });
  });

  it('ends after 30 minutes without a request, and 12 hours after sign-in whatever the activity', async () => {
    const { browser: idle } = await signedIn();
    later(29 * 60_000);
    expect((await idle.get('/settings/api/session')).status).toBe(200);
    later(29 * 60_000);
    expect((await idle.get('/settings/api/session')).status).toBe(200);
    later(30 * 60_000 + 1000);
    expect((await idle.get('/settings/api/session')).status).toBe(401);

    const { browser: busy } = await signedIn();
    for (let hours = 0; hours < 12 * 4 - 1; hours += 1) {
      later(15 * 60_000);
      expect((await busy.get('/settings/api/session')).status).toBe(200);
    }
    later(15 * 60_000);
    expect((await busy.get('/settings/api/session')).status).toBe(401);
  });

  it('answers SESSION_REQUIRED without a cookie, with a malformed one, and never takes an API key', async () => {
    const b = browser();
    expect((await b.get('/settings/api/keys')).status).toBe(401);
    b.token = 'x'.repeat(43);
    expect((await b.get('/settings/api/keys')).status).toBe(401);
    b.token = '../../etc';
    expect((await b.get('/settings/api/keys')).status).toBe(401);

    const { account_id, browser: signedInBrowser } = await signedIn();
    const key = await office.keys.create({ accountId: account_id, scopes: ['public:read'] });
    const withKey = await call('/settings/api/keys', { headers: { ...bearer(key.key), Cookie: `settings_session=${signedInBrowser.token}` } });
    expect(withKey.status).toBe(400);
    expect((await withKey.json()).code).toBe('API_KEY_NOT_ACCEPTED');
    // And the session cookie is no credential on the partner API.
    const me = await call('/me', { headers: { Cookie: `settings_session=${signedInBrowser.token}` } });
    expect(me.status).toBe(401);
    expect((await me.json()).error.code).toBe('INVALID_API_KEY');
  });
});

describe('cross-site requests', () => {
  it('refuses a change without the custom header, from another origin, or marked cross-site, and writes nothing', async () => {
    const { account_id, browser: b } = await signedIn();
    const body = JSON.stringify({ scopes: ['public:read'] });
    const origin = new URL(stack.baseUrl).origin;
    const attempts: Record<string, string>[] = [
      { Origin: origin },
      { Origin: 'https://evil.example', 'X-Settings-Request': '1' },
      { Origin: 'null', 'X-Settings-Request': '1' },
      { 'X-Settings-Request': '1' },
      { Origin: origin, 'X-Settings-Request': '1', 'Sec-Fetch-Site': 'cross-site' },
      { Origin: origin, 'X-Settings-Request': '1', 'Sec-Fetch-Site': 'same-site' },
      { Origin: origin, 'X-Settings-Request': 'yes' },
    ];
    for (const headers of attempts) {
      const response = await call('/settings/api/keys', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Cookie: `settings_session=${b.token}`, ...headers },
        body,
      });
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect((await response.json()).code).toBe('CSRF_CHECK_FAILED');
    }
    expect((await office.keys.list(account_id)).keys).toEqual([]);
    // Sign-in and sign-out are protected too (no login CSRF, no forced logout).
    const signIn = await call('/settings/api/session', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'https://evil.example', 'X-Settings-Request': '1' },
      body: JSON.stringify({ email: 'a@example.com', password: PASSWORD }),
    });
    expect((await signIn.json()).code).toBe('CSRF_CHECK_FAILED');
    const signOut = await call('/settings/api/session', { method: 'DELETE', headers: { Cookie: `settings_session=${b.token}` } });
    expect((await signOut.json()).code).toBe('CSRF_CHECK_FAILED');
    expect((await b.get('/settings/api/session')).status).toBe(200);
  });

  it('lets reads through without the header (they change nothing)', async () => {
    const { browser: b } = await signedIn();
    const response = await call('/settings/api/keys', { headers: { Cookie: `settings_session=${b.token}` } });
    expect(response.status).toBe(200);
  });
});

describe('keys', () => {
  it('creates a personal key whose value is shown once, works on the partner API, and is listed without it', async () => {
    const { account_id, browser: b } = await signedIn();
    const created = await b.post('/settings/api/keys', { password: PASSWORD, name: 'CI deploy', scopes: ['public:read', 'entitlements:read'], days: 30 });
    expect(created.status).toBe(201);
    const key = (await created.json()) as { key_id: string; key: string; expires_at: string; partner_id: null; name: string };
    expect(key).toMatchObject({ name: 'CI deploy', partner_id: null, scopes: ['public:read', 'entitlements:read'] });
    expect(Date.parse(key.expires_at) - now.getTime()).toBe(30 * 86_400_000);
    expect((await call('/me', { headers: bearer(key.key) })).status).toBe(200);

    const listed = await b.get('/settings/api/keys');
    const text = await listed.text();
    expect(text).not.toContain(key.key);
    expect(JSON.parse(text).keys).toEqual([
      { key_id: key.key_id, name: 'CI deploy', partner_id: null, scopes: ['public:read', 'entitlements:read'], created_at: expect.any(String), expires_at: key.expires_at, status: 'active' },
    ]);
    expect((await office.keys.list(account_id)).keys).toHaveLength(1);
  });

  it('creates organization keys for active managers only', async () => {
    const { account_id, browser: b } = await signedIn();
    const { partner_id } = await office.organizations.create('Org');
    const asOutsider = await b.post('/settings/api/keys', { password: PASSWORD, partner_id, scopes: ['records:read'] });
    expect(asOutsider.status).toBe(403);
    expect((await asOutsider.json()).code).toBe('PARTNER_MANAGER_REQUIRED');
    await office.memberships.set(partner_id, account_id, 'member');
    expect((await (await b.post('/settings/api/keys', { password: PASSWORD, partner_id, scopes: ['records:read'] })).json()).code).toBe('PARTNER_MANAGER_REQUIRED');
    const unknown = await b.post('/settings/api/keys', { password: PASSWORD, partner_id: 'org_does_not_exist', scopes: ['records:read'] });
    expect((await unknown.json()).code).toBe('PARTNER_MANAGER_REQUIRED');

    await office.memberships.set(partner_id, account_id, 'manager');
    const created = await b.post('/settings/api/keys', { password: PASSWORD, partner_id, scopes: ['records:read', 'invitations:write'], permanent: true });
    expect(created.status).toBe(201);
    const key = (await created.json()) as { key: string; expires_at: null; partner_id: string };
    expect(key).toMatchObject({ partner_id, expires_at: null });
    expect((await (await call('/me', { headers: bearer(key.key) })).json()).data).toMatchObject({ partner_id });

    await office.organizations.archive(partner_id);
    const archived = await b.post('/settings/api/keys', { password: PASSWORD, partner_id, scopes: ['records:read'] });
    expect(archived.status).toBe(409);
    expect((await archived.json()).code).toBe('PARTNER_INACTIVE');
  });

  it('lists the organizations the account belongs to, with its role and their status (what the key form offers)', async () => {
    const { account_id, browser: b } = await signedIn();
    expect(await (await b.get('/settings/api/organizations')).json()).toEqual({ organizations: [] });
    const managed = await office.organizations.create('Managed org');
    const joined = await office.organizations.create('Joined org');
    await office.memberships.set(managed.partner_id, account_id, 'manager');
    await office.memberships.set(joined.partner_id, account_id, 'member');
    await office.organizations.archive(joined.partner_id);
    const { organizations } = (await (await b.get('/settings/api/organizations')).json()) as { organizations: unknown[] };
    expect(organizations).toEqual(
      expect.arrayContaining([
        { partner_id: managed.partner_id, name: 'Managed org', status: 'active', role: 'manager' },
        { partner_id: joined.partner_id, name: 'Joined org', status: 'archived', role: 'member' },
      ]),
    );
    expect(organizations).toHaveLength(2);
  });

  it('answers INVALID_SCOPES, INVALID_EXPIRY and INVALID_FIELD for what the admin CLI refuses, creating nothing', async () => {
    const { account_id, browser: b } = await signedIn();
    const cases: [unknown, number, string][] = [
      [{ scopes: [] }, 422, 'INVALID_SCOPES'],
      [{ scopes: ['records:read'] }, 422, 'INVALID_SCOPES'],
      [{ scopes: ['public:read', 'public:read'] }, 422, 'INVALID_SCOPES'],
      [{ scopes: ['admin:everything'] }, 422, 'INVALID_SCOPES'],
      [{ scopes: 'public:read' }, 422, 'INVALID_SCOPES'],
      [{ scopes: ['public:read'], days: 0 }, 422, 'INVALID_EXPIRY'],
      [{ scopes: ['public:read'], days: 366 }, 422, 'INVALID_EXPIRY'],
      [{ scopes: ['public:read'], days: 1.5 }, 422, 'INVALID_EXPIRY'],
      [{ scopes: ['public:read'], days: '30' }, 422, 'INVALID_EXPIRY'],
      [{ scopes: ['public:read'], days: 30, permanent: true }, 422, 'INVALID_EXPIRY'],
      [{ scopes: ['public:read'], name: 'x'.repeat(65) }, 422, 'INVALID_FIELD'],
      [{ scopes: ['public:read'], name: 'tab\there' }, 422, 'INVALID_FIELD'],
      [{ scopes: ['public:read'], colour: 'blue' }, 422, 'UNKNOWN_FIELD'],
    ];
    for (const [body, status, code] of cases) {
      const response = await b.post('/settings/api/keys', { password: PASSWORD, ...(body as object) });
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect((await response.json()).code, JSON.stringify(body)).toBe(code);
    }
    const raw = await b.send('POST', '/settings/api/keys', '{"scopes":', 'application/json');
    expect(raw.status).toBe(400);
    expect((await raw.json()).code).toBe('INVALID_JSON');
    expect((await office.keys.list(account_id)).keys).toEqual([]);
  });

  it('answers KEY_LIMIT at the 21st live key, permanent ones included; a revoked key frees its place', async () => {
    const { account_id, browser: b } = await signedIn();
    for (let i = 0; i < 19; i += 1) await office.keys.create({ accountId: account_id, scopes: ['public:read'] });
    const twentieth = await b.post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'], permanent: true });
    expect(twentieth.status).toBe(201);
    const refused = await b.post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'] });
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('KEY_LIMIT');
    await b.post(`/settings/api/keys/${((await twentieth.json()) as { key_id: string }).key_id}/revoke`);
    expect((await b.post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'] })).status).toBe(201);
  });

  it('revokes its creator\u2019s key for good; another account\u2019s key is not found and keeps working', async () => {
    const { browser: b, account_id } = await signedIn();
    const mine = (await (await b.post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'] })).json()) as { key_id: string; key: string };
    const other = await account();
    const theirs = await office.keys.create({ accountId: other.account_id, scopes: ['public:read'] });

    const notMine = await b.post(`/settings/api/keys/${theirs.key_id}/revoke`);
    expect(notMine.status).toBe(404);
    expect((await notMine.json()).code).toBe('KEY_NOT_FOUND');
    expect((await call('/me', { headers: bearer(theirs.key) })).status).toBe(200);
    expect((await b.post('/settings/api/keys/key_doesnotexist/revoke')).status).toBe(404);
    expect((await b.post('/settings/api/keys/bad%20id/revoke')).status).toBe(404);
    const withBody = await b.post(`/settings/api/keys/${mine.key_id}/revoke`, {});
    expect((await withBody.json()).code).toBe('BODY_NOT_ALLOWED');

    const revoked = await b.post(`/settings/api/keys/${mine.key_id}/revoke`);
    expect(revoked.status).toBe(200);
    const { revoked_at } = (await revoked.json()) as { revoked_at: string };
    expect((await call('/me', { headers: bearer(mine.key) })).status).toBe(401);
    later(60_000);
    const again = await b.post(`/settings/api/keys/${mine.key_id}/revoke`);
    expect(await again.json()).toEqual({ key_id: mine.key_id, revoked_at });
    expect((await office.keys.list(account_id)).keys).toMatchObject([{ key_id: mine.key_id, status: 'revoked' }]);
  });

  it('revokes exactly once under concurrent revocations: one time, one audit entry', async () => {
    const { browser: b, account_id } = await signedIn();
    const key = await office.keys.create({ accountId: account_id, scopes: ['public:read'] });
    const responses = await Promise.all(Array.from({ length: 8 }, () => b.post(`/settings/api/keys/${key.key_id}/revoke`)));
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
    const times = new Set(await Promise.all(responses.map(async (r) => ((await r.json()) as { revoked_at: string }).revoked_at)));
    expect(times.size).toBe(1);
    const entries = await office.audit.list(account_id);
    expect(entries.filter((e) => e.action === 'key.revoked')).toHaveLength(1);
  });
});

describe('password', () => {
  it('changes with the current password: every key revoked for good, other sessions ended, this browser signed in again', async () => {
    const { email, account_id, browser: b } = await signedIn();
    const other = browser();
    expect((await other.signIn(email, PASSWORD)).status).toBe(200);
    const permanent = (await (await b.post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'], permanent: true })).json()) as { key: string };
    const ordinary = (await (await b.post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'] })).json()) as { key: string };

    const wrong = await b.post('/settings/api/password', { current_password: 'not the password at all', new_password: 'a brand new password' });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe('INVALID_PASSWORD');
    const short = await b.post('/settings/api/password', { current_password: PASSWORD, new_password: 'short' });
    expect(short.status).toBe(422);
    expect((await short.json()).code).toBe('INVALID_FIELD');
    expect((await call('/me', { headers: bearer(permanent.key) })).status).toBe(200);

    const changed = await b.post('/settings/api/password', { current_password: PASSWORD, new_password: 'a brand new password' });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('set-cookie')).toMatch(/^settings_session=[A-Za-z0-9_-]{43}; Path=\/v1\/settings;/);
    b.take(changed);
    expect((await b.get('/settings/api/session')).status).toBe(200);
    expect((await other.get('/settings/api/session')).status).toBe(401);
    for (const key of [permanent, ordinary]) expect((await call('/me', { headers: bearer(key.key) })).status).toBe(401);
    const listed = (await (await b.get('/settings/api/keys')).json()) as { keys: { status: string }[] };
    expect(listed.keys.map((k) => k.status)).toEqual(['revoked', 'revoked']);

    expect((await browser().signIn(email, PASSWORD)).status).toBe(401);
    expect((await browser().signIn(email, 'a brand new password')).status).toBe(200);
    // For good: changing the password back restores nothing.
    expect((await b.post('/settings/api/password', { current_password: 'a brand new password', new_password: PASSWORD })).status).toBe(200);
    for (const key of [permanent, ordinary]) expect((await call('/me', { headers: bearer(key.key) })).status).toBe(401);
    expect((await office.keys.list(account_id)).keys.every((k) => k.status === 'revoked')).toBe(true);
  });

  it('is reset by the operator (admin CLI set-password): keys revoked, sessions ended', async () => {
    const { email, account_id, browser: b } = await signedIn();
    const key = (await (await b.post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'] })).json()) as { key: string };
    await office.accounts.setPassword(account_id, 'set by the operator');
    expect((await b.get('/settings/api/keys')).status).toBe(401);
    expect((await call('/me', { headers: bearer(key.key) })).status).toBe(401);
    const again = browser();
    expect((await again.signIn(email, 'set by the operator')).status).toBe(200);
    expect(((await (await again.get('/settings/api/keys')).json()) as { keys: { status: string }[] }).keys[0].status).toBe('revoked');
  });

  it('of two concurrent changes from the same current password, exactly one wins', async () => {
    const { email, browser: b } = await signedIn();
    const second = browser();
    expect((await second.signIn(email, PASSWORD)).status).toBe(200);
    const [one, two] = await Promise.all([
      b.post('/settings/api/password', { current_password: PASSWORD, new_password: 'first new password' }),
      second.post('/settings/api/password', { current_password: PASSWORD, new_password: 'second new password' }),
    ]);
    expect([one.status, two.status].sort()).toEqual([200, 401]);
    const winner = one.status === 200 ? 'first new password' : 'second new password';
    const loser = one.status === 200 ? 'second new password' : 'first new password';
    expect((await browser().signIn(email, winner)).status).toBe(200);
    expect((await browser().signIn(email, loser)).status).toBe(401);
  });
});

describe('two-factor in settings', () => {
  it('enrols, confirms, refuses a second enrolment, and disables with the password and a code', async () => {
    const { browser: b } = await signedIn();
    const { secret } = (await (await b.post('/settings/api/two-factor/enrol', { password: PASSWORD })).json()) as { secret: string };
    const wrong = await b.post('/settings/api/two-factor/confirm', { password: PASSWORD, code: '000000' === (await codeAt(secret, now)) ? '111111' : '000000' });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe('INVALID_TWO_FACTOR');
    expect((await b.post('/settings/api/two-factor/confirm', { password: PASSWORD, code: await codeAt(secret, now) })).status).toBe(200);
    const twice = await b.post('/settings/api/two-factor/enrol', { password: PASSWORD });
    expect(twice.status).toBe(409);
    expect((await twice.json()).code).toBe('TWO_FACTOR_ENABLED');

    nextStep();
    const badPassword = await b.post('/settings/api/two-factor/disable', { password: 'not the password at all', code: await codeAt(secret, now) });
    expect((await badPassword.json()).code).toBe('INVALID_PASSWORD');
    const off = await b.post('/settings/api/two-factor/disable', { password: PASSWORD, code: await codeAt(secret, now) });
    expect(off.status).toBe(200);
    expect(await off.json()).toEqual({ two_factor: 'off' });
    expect((await (await b.get('/settings/api/session')).json()).two_factor).toBe('off');
  });
});

describe('a session alone is not enough (a stolen cookie, a browser left open)', () => {
  const WRONG = 'not the password at all';
  async function refused(response: JsonResponse, status: number, code: string) {
    expect(response.status).toBe(status);
    expect((await response.json()).code).toBe(code);
  }

  it('enrolling and confirming two-factor need the password: without it nothing changes', async () => {
    const { account_id, browser: b } = await signedIn();
    await refused(await b.post('/settings/api/two-factor/enrol'), 400, 'INVALID_JSON');
    await refused(await b.post('/settings/api/two-factor/enrol', {}), 422, 'INVALID_FIELD');
    await refused(await b.post('/settings/api/two-factor/enrol', { password: WRONG }), 401, 'INVALID_PASSWORD');
    expect((await (await b.get('/settings/api/session')).json()).two_factor).toBe('off');
    const { secret } = (await (await b.post('/settings/api/two-factor/enrol', { password: PASSWORD })).json()) as { secret: string };
    await refused(await b.post('/settings/api/two-factor/confirm', { code: await codeAt(secret, now) }), 422, 'INVALID_FIELD');
    await refused(await b.post('/settings/api/two-factor/confirm', { password: WRONG, code: await codeAt(secret, now) }), 401, 'INVALID_PASSWORD');
    expect((await (await b.get('/settings/api/session')).json()).two_factor).toBe('pending');
    expect((await office.signIn.get(account_id))?.two_factor_secret).toBeUndefined();
  });

  it('creating a key needs the password, and a current code when two-factor is on', async () => {
    const { account_id, browser: b } = await signedIn();
    const body = { scopes: ['public:read'], permanent: true };
    await refused(await b.post('/settings/api/keys', body), 422, 'INVALID_FIELD');
    await refused(await b.post('/settings/api/keys', { ...body, password: WRONG }), 401, 'INVALID_PASSWORD');
    expect((await office.keys.list(account_id)).keys).toEqual([]);
    expect((await b.post('/settings/api/keys', { ...body, password: PASSWORD })).status).toBe(201);

    const { secret } = (await (await b.post('/settings/api/two-factor/enrol', { password: PASSWORD })).json()) as { secret: string };
    expect((await b.post('/settings/api/two-factor/confirm', { password: PASSWORD, code: await codeAt(secret, now) })).status).toBe(200);
    nextStep();
    await refused(await b.post('/settings/api/keys', { ...body, password: PASSWORD }), 401, 'INVALID_TWO_FACTOR');
    const code = await codeAt(secret, now);
    expect((await b.post('/settings/api/keys', { ...body, password: PASSWORD, two_factor_code: code })).status).toBe(201);
    // A code is used once.
    await refused(await b.post('/settings/api/keys', { ...body, password: PASSWORD, two_factor_code: code }), 401, 'INVALID_TWO_FACTOR');
    expect((await office.keys.list(account_id)).keys).toHaveLength(2);
  });

  it('turning two-factor on ends every other session of the account; this browser gets a new one; keys stay', async () => {
    const { email, account_id, browser: owner } = await signedIn();
    const other = browser();
    expect((await other.signIn(email, PASSWORD)).status).toBe(200);
    const key = await office.keys.create({ accountId: account_id, scopes: ['public:read'] });
    const before = owner.token;
    const { secret } = (await (await owner.post('/settings/api/two-factor/enrol', { password: PASSWORD })).json()) as { secret: string };
    // Enrolling alone ends nothing.
    expect((await other.get('/settings/api/keys')).status).toBe(200);
    const on = await owner.post('/settings/api/two-factor/confirm', { password: PASSWORD, code: await codeAt(secret, now) });
    expect(on.status).toBe(200);
    expect(await on.json()).toEqual({ two_factor: 'on', session_expires_at: expect.any(String) });
    expect(owner.token).not.toBe(before);
    await refused(await other.get('/settings/api/keys'), 401, 'SESSION_REQUIRED');
    const stale = new SettingsBrowser(stack);
    stale.token = before;
    await refused(await stale.get('/settings/api/session'), 401, 'SESSION_REQUIRED');
    expect((await owner.get('/settings/api/keys')).status).toBe(200);
    expect((await call('/me', { headers: bearer(key.key) })).status).toBe(200);
  });
});

describe('audit', () => {
  it('records every settings change with its time and source IP, newest first, for 30 days', async () => {
    const { browser: b, account_id } = await signedIn();
    later(1000);
    const start = now.toISOString();
    const key = (await (await b.post('/settings/api/keys', { password: PASSWORD, scopes: ['public:read'] })).json()) as { key_id: string };
    later(1000);
    await b.post(`/settings/api/keys/${key.key_id}/revoke`);
    later(1000);
    const { secret } = (await (await b.post('/settings/api/two-factor/enrol', { password: PASSWORD })).json()) as { secret: string };
    later(1000);
    await b.post('/settings/api/two-factor/confirm', { password: PASSWORD, code: await codeAt(secret, now) });
    later(1000);
    const changed = await b.post('/settings/api/password', { current_password: PASSWORD, new_password: 'a brand new password' });
    b.take(changed);
    later(1000);
    await office.accounts.setPassword(account_id, 'reset by the operator');
    const again = browser();
    nextStep();
    expect((await again.signIn((await office.signIn.get(account_id))?.email ?? '', 'reset by the operator', await codeAt(secret, now))).status).toBe(200);

    const audit = await again.get('/settings/api/audit');
    expect(audit.status).toBe(200);
    const { entries } = (await audit.json()) as { entries: { at: string; action: string; via: string; source_ip: string | null; key_id?: string }[] };
    expect(entries.map((e) => e.action)).toEqual([
      'sign_in.succeeded',
      'password.reset',
      'password.changed',
      'two_factor.enabled',
      'two_factor.enrolled',
      'key.revoked',
      'key.created',
      'sign_in.succeeded',
    ]);
    expect(entries.at(-2)).toEqual({ at: start, action: 'key.created', via: 'settings', source_ip: '127.0.0.1', key_id: key.key_id });
    expect(entries[1]).toMatchObject({ via: 'operator', source_ip: null });
    expect(entries.filter((e) => e.action !== 'password.reset').every((e) => e.source_ip === '127.0.0.1' && e.via === 'settings')).toBe(true);

    // 30 days later (TTL has not run: DynamoDB Local never does), the entries are gone by their time.
    later(30 * 86_400_000 + 10_000);
    const late = browser();
    nextStep();
    expect((await late.signIn((await office.signIn.get(account_id))?.email ?? '', 'reset by the operator', await codeAt(secret, now))).status).toBe(200);
    // Only the sign-in just made.
    expect(((await (await late.get('/settings/api/audit')).json()) as { entries: { action: string }[] }).entries.map((e) => e.action)).toEqual(['sign_in.succeeded']);
  });

  it('pages with a cursor, one Query a page however deep; a cursor it did not give is 422 INVALID_CURSOR', async () => {
    const { browser: b, account_id } = await signedIn();
    // 130 entries besides the sign-in: the first page holds 100, the second the rest.
    for (let i = 0; i < 130; i += 1) {
      later(10);
      await office.audit.record(account_id, 'webhook.tested', { via: 'settings', sourceIp: '127.0.0.1' }, { webhook_id: `wh_${String(i).padStart(3, '0')}` });
    }
    const first = (await (await b.get('/settings/api/audit')).json()) as { entries: { action: string; webhook_id?: string }[]; next_cursor?: string };
    expect(first.entries).toHaveLength(100);
    expect(first.entries[0].webhook_id).toBe('wh_129');
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await (await b.get(`/settings/api/audit?cursor=${first.next_cursor}`)).json()) as typeof first;
    expect(second.entries.map((e) => e.webhook_id ?? e.action)).toEqual([...Array.from({ length: 30 }, (_, i) => `wh_${String(29 - i).padStart(3, '0')}`), 'sign_in.succeeded']);
    expect(second.next_cursor).toBeUndefined();
    // The earliest entry (the sign-in) is no longer pushed out of view by later ones.
    for (const forged of ['bm90IGEgY3Vyc29y', 'x'.repeat(201), Buffer.from('ACCOUNT#acc_other').toString('base64url')]) {
      const refused = await b.get(`/settings/api/audit?cursor=${forged}`);
      expect(refused.status, forged).toBe(422);
      expect((await refused.json()).code).toBe('INVALID_CURSOR');
    }
  });

  it('records sign-ins: a success, and a wrong two-factor code after the right password (not a missing one); the call log names the account', async () => {
    const logs = captureLogs();
    try {
      const { email, account_id, browser: b } = await signedIn();
      const { secret } = (await (await b.post('/settings/api/two-factor/enrol', { password: PASSWORD })).json()) as { secret: string };
      expect((await b.post('/settings/api/two-factor/confirm', { password: PASSWORD, code: await codeAt(secret, now) })).status).toBe(200);
      nextStep();
      const before = (await office.audit.list(account_id)).length;
      expect((await browser().signIn(email, PASSWORD)).status).toBe(401); // the form's first step: no code yet
      expect((await browser().signIn(email, 'not the password at all', '123456')).status).toBe(401);
      expect((await browser().signIn(email, PASSWORD, String((Number(await codeAt(secret, now)) + 1) % 1_000_000).padStart(6, '0'))).status).toBe(401);
      const entries = await office.audit.list(account_id);
      expect(entries.slice(0, entries.length - before).map((e) => [e.action, e.source_ip])).toEqual([['sign_in.two_factor_failed', '127.0.0.1']]);
      const signInLines = logs.lines().filter((line) => line.message === 'request' && line.route === 'settings-sign-in');
      expect(signInLines.map((line) => [line.status, line.code ?? null, line.account_id])).toEqual([
        [200, null, account_id],
        [401, 'INVALID_TWO_FACTOR', account_id],
        [401, 'INVALID_PASSWORD', account_id],
        [401, 'INVALID_TWO_FACTOR', account_id],
      ]);
      // An unknown address names no account.
      await browser().signIn(`nobody-${Date.now()}@example.com`, PASSWORD);
      expect(logs.lines().filter((line) => line.message === 'request' && line.route === 'settings-sign-in').at(-1)).not.toHaveProperty('account_id');
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("records the operator's changes in the affected accounts' trails: membership, archive and restore (each manager), deactivation", async () => {
    const manager = await account();
    const other = await account();
    const { partner_id } = await office.organizations.create('Audited org');
    await office.memberships.set(partner_id, manager.account_id, 'manager');
    await office.memberships.set(partner_id, other.account_id, 'member');
    later(1000);
    await office.organizations.archive(partner_id);
    later(1000);
    await office.organizations.restore(partner_id);
    later(1000);
    await office.organizations.restore(partner_id); // already active: changes nothing, records nothing
    await office.memberships.remove(partner_id, other.account_id);
    later(1000);
    await office.accounts.deactivate(manager.account_id);
    later(1000);
    await office.accounts.reactivate(manager.account_id);
    const trail = async (id: string) => (await office.audit.list(id)).map((e) => [e.action, e.via, e.partner_id ?? null, e.role ?? null]);
    expect(await trail(manager.account_id)).toEqual([
      ['account.reactivated', 'operator', null, null],
      ['account.deactivated', 'operator', null, null],
      ['organization.restored', 'operator', partner_id, null],
      ['organization.archived', 'operator', partner_id, null],
      ['membership.set', 'operator', partner_id, 'manager'],
    ]);
    expect(await trail(other.account_id)).toEqual([
      ['membership.removed', 'operator', partner_id, null],
      ['membership.set', 'operator', partner_id, 'member'],
    ]);
  });
});

describe('the page', () => {
  it('is served with a strict content security policy', async () => {
    const response = await call('/settings');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });

  it('answers unknown settings paths in the web-settings shape', async () => {
    const response = await call('/settings/api/nothing-here');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'NOT_FOUND', message: expect.any(String), request_id: expect.any(String) });
  });
});

describe('two session cookies (one planted by another host of the domain)', () => {
  // A sibling host under a shared parent domain can set `settings_session` with `Domain=<parent>` and a longer
  // `Path`, which the browser then sends ahead of the victim's own: every settings call carrying two is refused.
  const basePath = () => new URL(stack.baseUrl).pathname;
  const origin = () => new URL(stack.baseUrl).origin;
  async function accessSnapshot() {
    const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
    const items = (await stack.client.send(new ScanCommand({ TableName: stack.tables.access, ConsistentRead: true }))).Items ?? [];
    return JSON.stringify(items.sort((a, b) => `${a.pk}${a.sk}`.localeCompare(`${b.pk}${b.sk}`)));
  }

  it('refuses every settings call carrying two settings_session cookies, in one Cookie header or in two, before anything is read, counted or written', async () => {
    const victim = await signedIn();
    const attacker = await signedIn();
    const planted = `settings_session=${attacker.browser.token}`;
    const own = `settings_session=${victim.browser.token}`;
    const before = await accessSnapshot();
    const cases: { method: string; path: string; body?: string }[] = [
      { method: 'GET', path: '/settings/api/session' },
      { method: 'GET', path: '/settings/api/keys' },
      { method: 'POST', path: '/settings/api/keys', body: JSON.stringify({ name: 'x', scopes: ['records:read'], days: 30, password: PASSWORD }) },
      { method: 'POST', path: '/settings/api/session', body: JSON.stringify({ email: victim.email, password: PASSWORD }) },
      { method: 'DELETE', path: '/settings/api/session' },
    ];
    for (const { method, path, body } of cases) {
      const common: [string, string][] = [['Origin', origin()], ['X-Settings-Request', '1'], ...(body ? ([['Content-Type', 'application/json']] as [string, string][]) : [])];
      const oneHeader = await wireRequest(stack.baseUrl, { method, target: `${basePath()}${path}`, headers: [...common, ['Cookie', `${planted}; ${own}`]], body });
      const twoHeaders = await wireRequest(stack.baseUrl, { method, target: `${basePath()}${path}`, headers: [...common, ['Cookie', planted], ['Cookie', own]], body });
      for (const answer of [oneHeader, twoHeaders]) {
        expect([method, path, answer.status, answer.json && (answer.json as unknown as { code: string }).code]).toEqual([method, path, 400, 'DUPLICATE_CREDENTIAL_COOKIE']);
        expect(answer.headers['set-cookie']).toBeUndefined();
      }
    }
    // Two cookies of the same value, or a third one further on, are refused the same way.
    const same = await call('/settings/api/session', { headers: { Cookie: `${own}; other=1; ${own}` } });
    expect([same.status, (await same.json()).code]).toEqual([400, 'DUPLICATE_CREDENTIAL_COOKIE']);
    expect(await accessSnapshot()).toBe(before);

    // The victim's own cookie alone still works, and nothing was created in either account.
    const alone = await call('/settings/api/session', { headers: { Cookie: own } });
    expect([alone.status, (await alone.json()).account_id]).toEqual([200, victim.account_id]);
    expect((await victim.browser.get('/settings/api/keys').then((r) => r.json())).keys).toEqual([]);
    expect((await attacker.browser.get('/settings/api/keys').then((r) => r.json())).keys).toEqual([]);
  });
});
