/**
 * The web settings page in a real browser (headless Chromium through
 * playwright-core) against the local front on DynamoDB Local: signing in
 * with a password, turning two-factor on from the page (the secret read from
 * the page, confirmed with a code), signing out and in again through the
 * two-factor step; an organization key and a personal key created with their
 * values shown once (gone after "Done" and a reload), the organization key
 * working against GET /me until it is revoked through the inline
 * confirmation; a password change revoking every key; the recent activity;
 * two-factor turned off with the new password; a session that ends under the
 * page (back to signing in); a refused sign-in (429 with Retry-After). The session cookie is HttpOnly, Secure,
 * SameSite=Strict and invisible to the page's script. Every page is watched
 * for script errors, console errors and CSP violations, and every state is
 * kept as a full-page screenshot in test/artifacts/web-settings/.
 *
 * The page is at http://127.0.0.1:<port>/v1/settings: Chromium treats
 * 127.0.0.1 as a potentially trustworthy origin, so the Secure cookie is kept
 * over plain http there.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { definition as identityFunction } from '../../lambdas/identity/handler';
import { definition as settingsFunction } from '../../lambdas/settings/handler';
import { definition as signInFunction } from '../../lambdas/sign-in/handler';
import { codeAt } from '../../lambdas/back-office/two-factor';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { type Platform } from '../../lambdas/shared/platform';
import { HANDLERS } from '../../local/handlers';
import { bearer, startTestStack, type TestStack } from '../support/test-stack';
import { artifactsDir, launchChromium, watchPage, type PageProblems, captureState, tabTo } from './chromium';
import { localPlatform } from '../support/local-platform';

let stack: TestStack;
/** Settings and sign-in limits raised out of reach; the clock moved by whole 30-second steps for two-factor codes. */
let platform: Platform;
let clockOffsetMs = 0;
const now = () => new Date(Date.now() + clockOffsetMs);
/** The next two-factor time step: a code is accepted once, so each use needs a later step than the last. */
const nextStep = () => (clockOffsetMs += 30_000);
let browser: Browser;
let shots: string;

beforeAll(async () => {
  shots = artifactsDir('web-settings');
  const raised = LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: 100_000 }));
  const settings = createSettingsHandler({ ...settingsFunction, platform: () => platform });
  const identity = createPartnerApiHandler({ ...identityFunction, platform: () => platform });
  const signIn = createSettingsHandler({ ...signInFunction, platform: () => platform });
  stack = await startTestStack({ handlers: { ...HANDLERS, settings, 'sign-in': signIn, identity } });
  platform = localPlatform({ limits: raised, clock: now });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 180_000);

const contexts: BrowserContext[] = [];
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});

let serial = 0;
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'another long passphrase';

/** A fresh account with a password, and an organization it manages. */
async function account() {
  const email = `settings-browser-${(serial += 1)}-${Date.now()}@example.com`;
  const { account_id } = await stack.office.accounts.create('Test account', { email, password: PASSWORD });
  const { partner_id } = await stack.office.organizations.create('Org');
  await stack.office.memberships.set(partner_id, account_id, 'manager');
  return { account_id, email, partner_id };
}

/** A fresh browser context (no cookies, clipboard allowed) and a watched page in it. */
async function newPage(): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1100, height: 800 } });
  contexts.push(context);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(stack.baseUrl).origin });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page, problems: await watchPage(page) };
}

/** Waits until the page shows screen `state` (the script sets body[data-state]). */
const shown = (page: Page, state: 'loading' | 'sign-in' | 'sign-in-code' | 'settings') => page.waitForSelector(`body[data-state="${state}"]`, { state: 'attached' });
/** Every state the tests visit: its screenshot, and its accessibility audit (chromium.ts captureState). */
const screenshot = (page: Page, name: string) => captureState(page, shots, name);
const text = async (page: Page, selector: string) => ((await page.textContent(selector)) ?? '').trim();
/** A status region once it says something. */
async function said(page: Page, id: string) {
  await page.waitForSelector(`#${id}:not(:empty)`);
  return text(page, `#${id}`);
}

/**
 * No script error and no CSP violation; console errors only Chromium's notes of the
 * API's expected refusals ("Failed to load resource: … status of 401 …").
 */
async function expectNoProblems(problems: PageProblems, expectedStatuses: number[] = []) {
  const statusOf = (e: string) => Number(/^Failed to load resource: the server responded with a status of (\d{3})\b/.exec(e)?.[1]);
  await expect.poll(() => [...new Set(problems.consoleErrors.map(statusOf).filter((s) => expectedStatuses.includes(s)))].sort()).toEqual([...expectedStatuses].sort());
  expect(problems.pageErrors).toEqual([]);
  expect(problems.cspViolations).toEqual([]);
  expect(problems.consoleErrors.filter((e) => !expectedStatuses.includes(statusOf(e)))).toEqual([]);
}

async function signIn(page: Page, email: string, password: string) {
  await page.fill('#email', email);
  await page.fill('#password', password);
  await page.click('#sign-in-submit');
}

/** The keys table as the page shows it, by key id. */
async function listedKeys(page: Page) {
  return page.$$eval('#keys-body tr[data-key-id]', (rows) =>
    Object.fromEntries(
      rows.map((row) => {
        const cells = Object.fromEntries([...row.querySelectorAll('td')].map((td) => [td.getAttribute('data-label'), (td.textContent ?? '').trim()]));
        return [row.getAttribute('data-key-id'), { status: row.getAttribute('data-status'), ...cells }];
      }),
    ),
  );
}

/** Everything the page holds: its markup, its rendered text and every field's value. */
const wholePage = (page: Page) =>
  page.evaluate<string>(`[document.documentElement.outerHTML, document.body.innerText, ...[...document.querySelectorAll('input')].map((i) => i.value)].join('\\n')`);

/** Creates a key through the form; returns its id and value as the page shows them once. */
async function createKey(page: Page, options: { name: string; partnerId?: string; scopes: string[]; days?: number; permanent?: boolean; code?: string }) {
  await page.fill('#key-name', options.name);
  await page.selectOption('#key-partner', options.partnerId ?? '');
  for (const box of await page.$$('#create-key-form input[name=scope]')) {
    const scope = await box.getAttribute('value');
    await box.setChecked(options.scopes.includes(scope as string));
  }
  await page.setChecked('#permanent', options.permanent === true);
  if (!options.permanent) await page.fill('#days', String(options.days ?? 90));
  await page.fill('#key-password', PASSWORD);
  expect(await page.isVisible('#key-code')).toBe(options.code !== undefined);
  if (options.code !== undefined) await page.fill('#key-code', options.code);
  await page.click('#create-submit');
  await page.waitForSelector('#new-key', { state: 'visible' });
  // The password and the code leave the form with the key shown.
  expect([await page.inputValue('#key-password'), await page.inputValue('#key-code')]).toEqual(['', '']);
  expect(await page.isVisible('#create-key-form')).toBe(false);
  expect(await text(page, '#new-key .warning')).toBe('This is the only time the key is shown. Store it now; it cannot be shown again.');
  const value = await page.inputValue('#new-key-value');
  const keyId = await text(page, '#new-key-id');
  expect(value).toMatch(/\S{20,}/);
  expect(await page.getAttribute('#new-key-value', 'readonly')).not.toBeNull();
  await page.waitForSelector(`#keys-body tr[data-key-id="${keyId}"]`);
  return { keyId, value };
}

/** The id of the element that has the focus. */
const focused = (page: Page) => page.evaluate('document.activeElement && document.activeElement.id');

/** Elements wider than their box (the page itself, or a table in its scrolling wrapper). */
const overflowing = (page: Page) =>
  page.evaluate<string[]>(
    `[document.documentElement, ...document.querySelectorAll('.table-wrap')].filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.id || e.className || e.tagName)`,
  );

const me = (key: string) => fetch(`${stack.baseUrl}/me`, { headers: bearer(key) });

describe('the settings page in Chromium', { timeout: 240_000 }, () => {
  it('signs in, turns two-factor on, creates, shows once, uses and revokes keys, changes the password, lists the activity, turns two-factor off', async () => {
    const { account_id, email, partner_id } = await account();
    const { context, page, problems } = await newPage();
    const settingsUrl = `${stack.baseUrl}/settings`;

    // 1. Signed out: the sign-in form, under the page's policy.
    const response = await page.goto(settingsUrl);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toMatch(/^default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'; connect-src 'self'/);
    await shown(page, 'sign-in');
    expect(await page.isVisible('#topbar')).toBe(false);
    expect(await page.isVisible('#settings')).toBe(false);
    expect(await page.isVisible('#code-step')).toBe(false);
    await screenshot(page, '01-sign-in');

    // A wrong password: the API's message, still signing in.
    await signIn(page, email, 'not the password');
    expect(await said(page, 'sign-in-status')).toBe('The e-mail address or the password is wrong.');
    expect(await page.getAttribute('#sign-in-status', 'class')).toBe('notice error');
    await screenshot(page, '02-sign-in-error');

    // 2. Signed in: the account in the header, no keys yet, two-factor off; the cookie out of the script's reach.
    await signIn(page, email, PASSWORD);
    await shown(page, 'settings');
    expect(await text(page, '#account-name')).toBe('Test account');
    expect(await text(page, '#account-email')).toBe(email);
    expect(await page.isVisible('#sign-out')).toBe(true);
    expect(await text(page, '#tf-state')).toBe('Off');
    await page.waitForSelector('#keys-empty', { state: 'visible' });
    expect(await page.inputValue('#password')).toBe('');
    // The session cookie, and the device cookie of a browser that signed in (docs/web-settings.md, "Signing in").
    const cookies = await context.cookies();
    expect(cookies.map((c) => c.name).sort()).toEqual(['settings_device', 'settings_session']);
    expect(cookies.find((c) => c.name === 'settings_session')).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/v1/settings', domain: '127.0.0.1' });
    expect(cookies.find((c) => c.name === 'settings_device')).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/v1/settings/api/session', domain: '127.0.0.1' });
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(page.url()).toBe(settingsUrl);

    // 3. Two-factor on: the password first (a session alone does not enrol), then the secret and the setup link as text, confirmed with the app's code.
    await page.click('#tf-enrol');
    expect(await said(page, 'tf-status')).toBe('Enter your password to confirm.');
    expect(await focused(page)).toBe('tf-enrol-password');
    await page.fill('#tf-enrol-password', 'not the password at all');
    await page.click('#tf-enrol');
    await page.waitForSelector('#tf-status.error:has-text("The password is wrong.")');
    expect(await page.inputValue('#tf-enrol-password')).toBe('');
    expect(await text(page, '#tf-state')).toBe('Off');
    await screenshot(page, '03a-two-factor-password-wrong');
    await page.fill('#tf-enrol-password', PASSWORD);
    await page.click('#tf-enrol');
    await page.waitForSelector('#tf-enrolment', { state: 'visible' });
    const secret = await text(page, '#tf-secret');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await text(page, '#tf-uri')).toBe(`otpauth://totp/Partner%20API:${encodeURIComponent(email)}?secret=${secret}&issuer=Partner%20API`);
    expect(await text(page, '#tf-state')).toBe('Pending confirmation');
    expect(await page.isVisible('#tf-enrol')).toBe(false);
    await screenshot(page, '03-two-factor-enrol');
    await page.fill('#tf-confirm-code', await codeAt(secret, now()));
    await page.click('#tf-confirm-submit');
    expect(await said(page, 'tf-status')).toMatch(/^Two-factor sign-in is on: .* Your other sessions were signed out\.$/);
    // The password typed for the enrolment is gone from the page.
    expect(await page.inputValue('#tf-enrol-password')).toBe('');
    expect(await text(page, '#tf-state')).toBe('On');
    expect(await page.isVisible('#tf-enrolment')).toBe(false);
    expect(await page.isVisible('#tf-disable-form')).toBe(true);
    // The secret is shown once: gone from the page.
    expect(await wholePage(page)).not.toContain(secret);
    await screenshot(page, '04-two-factor-on');

    // 4. Signed out, then in again: the password, then the two-factor step (a wrong code refused, the app's code accepted).
    await page.click('#sign-out');
    await shown(page, 'sign-in');
    expect(await said(page, 'sign-in-status')).toBe('You are signed out.');
    // The device cookie stays: it grants nothing, and keeps this browser's sign-ins apart from strangers' at the address.
    expect((await context.cookies()).map((c) => c.name)).toEqual(['settings_device']);
    expect(await page.isVisible('#topbar')).toBe(false);
    expect(await wholePage(page)).not.toContain(email);

    await signIn(page, email, PASSWORD);
    await shown(page, 'sign-in-code');
    expect(await page.isVisible('#code-step')).toBe(true);
    expect(await page.isVisible('#password-step')).toBe(false);
    expect(await text(page, '#code-email')).toBe(email);
    expect(await said(page, 'sign-in-status')).toMatch(/enter the 6-digit code from your authenticator app/);
    expect(await page.getAttribute('#sign-in-code', 'inputmode')).toBe('numeric');
    expect(await page.getAttribute('#sign-in-code', 'autocomplete')).toBe('one-time-code');
    expect(await focused(page)).toBe('sign-in-code');
    await screenshot(page, '05-two-factor-step');
    await page.fill('#sign-in-code', '000000');
    await page.click('#sign-in-submit');
    await page.waitForSelector('#sign-in-status.error');
    expect(await text(page, '#sign-in-status')).toBe('The two-factor code is missing or wrong.');
    await shown(page, 'sign-in-code');
    nextStep();
    await page.fill('#sign-in-code', await codeAt(secret, now()));
    await page.click('#sign-in-submit');
    await shown(page, 'settings');
    expect(await text(page, '#account-email')).toBe(email);
    expect(await text(page, '#tf-state')).toBe('On');

    // 5. An organization key, shown once: copied, then gone after "Done" and after a reload. It needs the password and,
    // two-factor being on, a code (one not used before).
    await page.fill('#key-name', 'No password');
    await page.click('#create-submit');
    expect(await said(page, 'create-status')).toBe('Enter your password to confirm.');
    expect(await focused(page)).toBe('key-password');
    await page.fill('#key-password', PASSWORD);
    await page.click('#create-submit');
    await page.waitForSelector('#create-status.error:has-text("two-factor code")');
    expect(await focused(page)).toBe('key-code');
    await screenshot(page, '05a-key-needs-code');
    nextStep();
    const org = await createKey(page, { name: 'CI deploy', partnerId: partner_id, scopes: ['public:read', 'records:read'], days: 30, code: await codeAt(secret, now()) });
    expect(await said(page, 'create-status')).toBe('Key CI deploy created. Copy its value now.');
    await screenshot(page, '06-key-shown-once');
    await page.click('#copy-key');
    expect(await said(page, 'new-key-status')).toBe('Copied to the clipboard.');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(org.value);
    await page.click('#new-key-done');
    await page.waitForSelector('#new-key', { state: 'hidden' });
    expect(await page.isVisible('#create-key-form')).toBe(true);
    expect(await wholePage(page)).not.toContain(org.value);
    await page.evaluate(`navigator.clipboard.writeText('')`);

    // A personal key that never expires (shown once too).
    nextStep();
    const personal = await createKey(page, { name: 'My scripts', scopes: ['public:read', 'entitlements:read'], permanent: true, code: await codeAt(secret, now()) });
    await page.click('#new-key-done');
    await page.waitForSelector('#new-key', { state: 'hidden' });

    await page.reload();
    await shown(page, 'settings');
    await page.waitForSelector(`#keys-body tr[data-key-id="${personal.keyId}"]`);
    for (const value of [org.value, personal.value]) expect(await wholePage(page)).not.toContain(value);
    expect(await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })')).toBe('{}{}');
    const keys = await listedKeys(page);
    expect(keys[org.keyId]).toMatchObject({ status: 'active', Key: `CI deploy${org.keyId}`, Organization: partner_id, Status: 'Active' });
    expect(keys[org.keyId].Expires).not.toBe('never');
    expect(keys[personal.keyId]).toMatchObject({ status: 'active', Key: `My scripts${personal.keyId}`, Organization: 'personal', Expires: 'never', Status: 'Active' });
    expect(await page.$$eval(`#keys-body tr[data-key-id="${org.keyId}"] .scopes li`, (items) => items.map((li) => li.textContent))).toEqual(['public:read', 'records:read']);
    await screenshot(page, '07-signed-in-with-keys');

    // 6. The organization key works against the API, until it is revoked (after the inline confirmation).
    const before = await me(org.value);
    expect(before.status).toBe(200);
    expect(((await before.json()) as { data: { key_id: string; partner_id: string } }).data).toMatchObject({ key_id: org.keyId, partner_id, account_id });

    const row = `#keys-body tr[data-key-id="${org.keyId}"]`;
    const confirmation = `#keys-body tr[data-confirm-for="${org.keyId}"] .confirm`;
    await page.click(`${row} button:has-text("Revoke")`);
    await page.waitForSelector(confirmation);
    expect(await text(page, `${confirmation} p`)).toBe('Revoke CI deploy? This cannot be undone.');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Cancel');
    await page.click(`${confirmation} button:has-text("Cancel")`);
    await page.waitForSelector(confirmation, { state: 'detached' });
    expect((await me(org.value)).status).toBe(200);

    await page.click(`${row} button:has-text("Revoke")`);
    await page.waitForSelector(confirmation);
    expect(await overflowing(page)).toEqual([]);
    await screenshot(page, '08-revoke-confirmation');
    await page.click(`${confirmation} button:has-text("Revoke key")`);
    await page.waitForSelector(`${row}[data-status="revoked"]`);
    expect(await said(page, 'keys-status')).toBe('Key CI deploy revoked: requests with it are refused from now on.');
    expect((await listedKeys(page))[org.keyId]).toMatchObject({ status: 'revoked', Status: 'Revokedrevoked by you', Actions: '' });
    expect(await page.$(`${row} button`)).toBeNull();
    await screenshot(page, '09-revoked');
    expect((await me(org.value)).status).toBe(401);
    expect((await me(personal.value)).status).toBe(200);

    // 7. The password: a mismatched confirmation refused in the page, then changed, which revokes every key.
    await page.fill('#current-password', PASSWORD);
    await page.fill('#new-password', NEW_PASSWORD);
    await page.fill('#confirm-password', `${NEW_PASSWORD}!`);
    await page.click('#password-submit');
    expect(await said(page, 'password-status')).toBe('The new password and its confirmation differ.');
    await page.fill('#confirm-password', NEW_PASSWORD);
    await page.click('#password-submit');
    await page.waitForSelector('#password-status.success');
    expect(await text(page, '#password-status')).toMatch(/^Password changed\. All your API keys were revoked/);
    await page.waitForSelector(`#keys-body tr[data-key-id="${personal.keyId}"][data-status="revoked"]`);
    expect((await listedKeys(page))[personal.keyId]).toMatchObject({ Status: 'Revokedpassword changed or reset' });
    expect(await page.inputValue('#new-password')).toBe('');
    await screenshot(page, '10-password-changed');
    expect((await me(personal.value)).status).toBe(401);
    // This browser's session was renewed by the change.
    await page.reload();
    await shown(page, 'settings');

    // 8. The recent activity: every change, newest first, from this browser's address.
    await page.waitForSelector('#audit-body tr[data-action="password.changed"]');
    const activity = await page.$$eval('#audit-body tr', (rows) => rows.map((row) => ({ action: row.getAttribute('data-action'), text: (row.textContent ?? '').trim() })));
    // Sign-ins and the refused code are there too (each sign-in after a refused attempt with their count), each wrong
    // password or code of a change (`reauth.failed`, with its route), and the operator's membership change that made
    // this account a manager.
    expect(activity.map((a) => a.action)).toEqual([
      'password.changed',
      'key.revoked',
      'key.created',
      'key.created',
      'reauth.failed',
      'sign_in.succeeded',
      'sign_in.refused_attempts',
      'sign_in.two_factor_failed',
      'two_factor.enabled',
      'two_factor.enrolled',
      'reauth.failed',
      'sign_in.succeeded',
      'sign_in.refused_attempts',
      'membership.set',
    ]);
    expect(activity[1].text).toContain(`API key revoked ${org.keyId}`);
    expect(activity[4].text).toContain('Change refused: wrong password or two-factor code POST /settings/api/keys');
    expect(activity[6].text).toContain('Sign-in attempts refused since the last sign-in: 1');
    expect(activity[7].text).toContain('Sign-in refused: wrong two-factor code');
    expect(activity[13].text).toContain(`Organization role set by an operator ${partner_id} (manager)`);
    expect(await page.$$eval('#audit-body td[data-label="Source IP"]', (cells) => cells.map((c) => c.textContent))).toEqual([...Array(13).fill('127.0.0.1'), 'operator']);
    await screenshot(page, '11-activity');

    // Nothing overflows sideways, the tables included, from a desktop's width to a phone's (tables become stacked rows).
    for (const width of [1100, 800, 390]) {
      await page.setViewportSize({ width, height: 844 });
      expect(await overflowing(page), `at ${width} px`).toEqual([]);
    }
    await screenshot(page, '12-narrow');

    // Two-factor off again: the new password and a code of a later step.
    await page.setViewportSize({ width: 1100, height: 800 });
    nextStep();
    await page.fill('#tf-disable-password', NEW_PASSWORD);
    await page.fill('#tf-disable-code', await codeAt(secret, now()));
    await page.click('#tf-disable-submit');
    expect(await said(page, 'tf-status')).toBe('Two-factor sign-in is off.');
    expect(await text(page, '#tf-state')).toBe('Off');
    expect(await page.isVisible('#tf-disable-form')).toBe(false);
    expect(await page.isVisible('#tf-enrol')).toBe(true);
    expect(await page.inputValue('#tf-disable-password')).toBe('');
    await page.waitForSelector('#audit-body tr[data-action="two_factor.disabled"]');
    await screenshot(page, '13-two-factor-off');

    // 401: the first GET of the signed-out page, the wrong password, the wrong code.
    await expectNoProblems(problems, [401]);
  });

  it('goes back to signing in when the session ends under the page', async () => {
    const { email } = await account();
    const { context, page, problems } = await newPage();
    await page.goto(`${stack.baseUrl}/settings`);
    await shown(page, 'sign-in');
    // By keyboard alone: the e-mail field is the first stop, Enter sends the form.
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('email');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await shown(page, 'settings');
    expect(await focused(page)).toBe('settings-title');
    await page.waitForSelector('#keys-empty', { state: 'visible' });

    // The session is gone (as after 30 idle minutes): the next call answers 401 SESSION_REQUIRED.
    await context.clearCookies();
    await page.fill('#key-name', 'Too late');
    await page.fill('#key-password', PASSWORD);
    await page.click('#create-submit');
    await shown(page, 'sign-in');
    expect(await said(page, 'sign-in-status')).toBe('Your session has ended. Please sign in again.');
    expect(await page.isVisible('#topbar')).toBe(false);
    expect(await wholePage(page)).not.toContain(email);
    expect(await focused(page)).toBe('email');
    await screenshot(page, '14-session-ended');
    await expectNoProblems(problems, [401]);
  });

  it('creates a key by keyboard alone, every stop with visible focus', async () => {
    const { email } = await account();
    const { page, problems } = await newPage();
    await page.goto(`${stack.baseUrl}/settings`);
    await shown(page, 'sign-in');
    await tabTo(page, 'email');
    await page.keyboard.type(email);
    await tabTo(page, 'password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await shown(page, 'settings');
    await page.waitForSelector('#keys-empty', { state: 'visible' });
    await tabTo(page, 'key-name');
    await page.keyboard.type('Keyboard key');
    // Organization, the scopes (public:read is ticked), the validity: each stop shows its focus on the way.
    await tabTo(page, 'key-password');
    await page.keyboard.type(PASSWORD);
    await screenshot(page, '17-key-keyboard-focus');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#new-key', { state: 'visible' });
    expect(await said(page, 'create-status')).toBe('Key Keyboard key created. Copy its value now.');
    expect(await focused(page)).toBe('new-key-title');
    // 401: the signed-out page's first GET of the session.
    await expectNoProblems(problems, [401]);
  });

  it('pages the activity: "Show older activity" appends the next page until the first entry, then goes away', async () => {
    const { account_id, email } = await account();
    // 120 entries besides the operator's membership change and this sign-in: the first page holds 100.
    for (let i = 0; i < 120; i += 1) {
      await stack.office.audit.record(account_id, 'webhook.tested', { via: 'settings', sourceIp: '127.0.0.1' }, { webhook_id: `wh_${String(i).padStart(3, '0')}` });
    }
    const { page, problems } = await newPage();
    await page.goto(`${stack.baseUrl}/settings`);
    await signIn(page, email, PASSWORD);
    await shown(page, 'settings');
    await page.waitForSelector('#audit-body tr');
    expect(await page.locator('#audit-body tr').count()).toBe(100);
    expect(await page.isVisible('#audit-more')).toBe(true);
    await page.click('#audit-more');
    await page.waitForSelector('#audit-more', { state: 'hidden' });
    const actions = await page.$$eval('#audit-body tr', (rows) => rows.map((row) => row.getAttribute('data-action')));
    expect(actions).toHaveLength(122);
    expect(actions.at(-1)).toBe('membership.set');
    await screenshot(page, '18-activity-older');
    // 401: the signed-out page's first GET of the session.
    await expectNoProblems(problems, [401]);
  });

  it('says when to try signing in again after too many attempts (429 with Retry-After)', async () => {
    const { page, problems } = await newPage();
    // The sign-in limits are raised out of reach in this file; the refusal is the API's shape, answered in its place.
    await page.route(
      (url) => url.pathname.endsWith('/settings/api/session'),
      (route) =>
        route.request().method() === 'POST'
          ? route.fulfill({
              status: 429,
              headers: { 'Retry-After': '42', 'Content-Type': 'application/json' },
              body: JSON.stringify({ code: 'RATE_LIMITED', message: 'Too many requests.', request_id: 'test' }),
            })
          : route.continue(),
    );
    await page.goto(`${stack.baseUrl}/settings`);
    await shown(page, 'sign-in');
    await signIn(page, 'someone@example.com', PASSWORD);
    expect(await said(page, 'sign-in-status')).toBe('Too many attempts; try again in 42 seconds.');
    await shown(page, 'sign-in');
    expect(await page.isEnabled('#sign-in-submit')).toBe(true);
    await screenshot(page, '15-rate-limited');
    await expectNoProblems(problems, [401, 429]);
  });
});

describe('a second session cookie planted by another website', { timeout: 240_000 }, () => {
  it('says why signing in is refused while two settings_session cookies are sent, and signs in once the planted one is gone', async () => {
    const { email } = await account();
    const { context, page, problems } = await newPage();
    // Another host of a shared parent domain would use Domain=<parent>; on 127.0.0.1 a longer path shows the same.
    const plantedPath = '/v1/settings/api';
    await context.addCookies([{ name: 'settings_session', value: 'A'.repeat(43), domain: '127.0.0.1', path: plantedPath, secure: true, httpOnly: true, sameSite: 'Strict' }]);
    await page.goto(`${stack.baseUrl}/settings`);
    await shown(page, 'sign-in');
    await page.fill('#email', email);
    await page.fill('#password', PASSWORD);
    // Signing in carries the planted cookie alone and succeeds; its first calls carry both and are refused.
    await page.click('#sign-in-form button[type=submit]');
    await page.waitForSelector('#sign-in-status:has-text("two web settings sign-in cookies")');
    expect(await page.isVisible('#topbar')).toBe(false);
    await screenshot(page, '16-two-session-cookies');

    await context.clearCookies({ name: 'settings_session', path: plantedPath });
    await page.fill('#email', email);
    await page.fill('#password', PASSWORD);
    await page.click('#sign-in-form button[type=submit]');
    await shown(page, 'settings');
    // 401: the page's first look with the planted cookie alone (no such session); 400: the calls that carried both.
    await expectNoProblems(problems, [400, 401]);
  });
});
