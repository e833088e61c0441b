/**
 * The webhooks part of the settings page in a real browser (headless
 * Chromium through playwright-core) against the local stack with its webhook
 * pipeline (stream reader, delivery queue, worker) and HTTPS receivers on
 * 127.0.0.1 (test/support/https-receiver.ts): a callback added for the
 * organization the account manages (a wrong address and a wrong password
 * refused in place; the signing secret shown once, copied, gone after
 * "Done"); verified against a receiver that echoes the challenge (active),
 * and a second one that answers another challenge (CHALLENGE_MISMATCH,
 * explained); a test event delivered; a record created in the back office
 * reaching the callback as a delivery, followed in the Deliveries view until
 * delivered, resent until the per-delivery limit answers 429 with
 * Retry-After (said as "try again in …"); a failing receiver leaving a
 * delivery retrying, cancelled by deactivating the callback after the inline
 * confirmation. Also: the two-factor code asked for only while two-factor is
 * on, and no form for an account that manages no active organization.
 *
 * Every page is watched for script errors, console errors and CSP
 * violations; every state is kept as a full-page screenshot in
 * test/artifacts/web-settings-webhooks/.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { definition as settingsFunction } from '../../lambdas/settings/handler';
import { definition as signInFunction } from '../../lambdas/sign-in/handler';
import { definition as webhookFunction } from '../../lambdas/webhooks/handler';
import { codeAt } from '../../lambdas/back-office/two-factor';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { type Platform } from '../../lambdas/shared/platform';
import { signatureOf } from '../../lambdas/webhooks/signing';
import { deliveryIdOf } from '../../lambdas/webhooks/webhook-items';
import { HANDLERS } from '../../local/handlers';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest, type ReceiverAnswer } from '../support/https-receiver';
import { SettingsBrowser } from '../support/settings-browser';
import { startTestStack, type TestStack } from '../support/test-stack';
import { artifactsDir, launchChromium, watchPage, type PageProblems, captureState } from './chromium';
import { localPlatform } from '../support/local-platform';

let stack: TestStack;
/**
 * The settings and webhooks functions' platform: their limits raised out of reach but one, the
 * per-delivery resend limit (3 a day), which the test reaches; the clock moved by whole 30-second
 * steps for two-factor codes (only in the last tests: a callback's activation must not be later
 * than the business events the back office writes at the real time).
 */
let platform: Platform;
let clockOffsetMs = 0;
const now = () => new Date(Date.now() + clockOffsetMs);
const nextStep = () => (clockOffsetMs += 30_000);
let browser: Browser;
let shots: string;
const receivers: HttpsReceiver[] = [];

beforeAll(async () => {
  shots = artifactsDir('web-settings-webhooks');
  const raised = LIMITS.map((l) => (l.kind === 'edge' || l.policy === 'webhook-resend-delivery-day' ? l : { ...l, limit: 100_000 }));
  const settings = createSettingsHandler({ ...settingsFunction, platform: () => platform });
  const webhooks = createSettingsHandler({ ...webhookFunction, platform: () => platform });
  const signIn = createSettingsHandler({ ...signInFunction, platform: () => platform });
  stack = await startTestStack({ handlers: { ...HANDLERS, settings, 'sign-in': signIn, webhooks } });
  // The local stack's webhook switches (its queue, sealer, loopback receivers allowed), which the shared platform carries.
  platform = localPlatform({ limits: raised, clock: now });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  for (const receiver of receivers.splice(0)) await receiver.close();
  await stack?.stop();
}, 180_000);

const contexts: BrowserContext[] = [];
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});

let serial = 0;
const PASSWORD = 'correct horse battery';

/** A fresh account managing one active organization; also a member of another and the manager of an archived one. */
async function account() {
  serial += 1;
  const email = `webhooks-browser-${serial}-${Date.now()}@example.com`;
  const { account_id } = await stack.office.accounts.create('Webhook tester', { email, password: PASSWORD });
  const { partner_id } = await stack.office.organizations.create('Acme Games');
  await stack.office.memberships.set(partner_id, account_id, 'manager');
  const member = (await stack.office.organizations.create('Member Org')).partner_id;
  await stack.office.memberships.set(member, account_id, 'member');
  const archived = (await stack.office.organizations.create('Archived Org')).partner_id;
  await stack.office.memberships.set(archived, account_id, 'manager');
  await stack.office.organizations.archive(archived);
  return { account_id, email, partner_id };
}

/** A record put by the back office: its outbox event (record.created) goes to the organization's active callbacks. */
async function recordEvent(partnerId: string, result = 'warning') {
  const uuid = `USS-${String(70000000 + serial)}-Hook${String(serial).padStart(8, '0')}`;
  const record = await stack.office.records!.put(partnerId, {
    uuid,
    player_name: 'Steve',
    game_category: 'FPS',
    game: 'Valorant',
    checked_at: '2026-10-01T10:00:00Z',
    result,
    checker_name: 'Alex Checker',
  });
  return record.event_id as string;
}

const json = (status: number, body: unknown): ReceiverAnswer => ({ status, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
const eventOf = (request: ReceivedRequest) => JSON.parse(request.rawBody.toString('utf8')) as { id: string; type: string; data: Record<string, unknown> };
/** A receiver as the docs ask for: the verification's challenge echoed, 200 for everything else. */
const echoChallenge = (request: ReceivedRequest): ReceiverAnswer => {
  const event = eventOf(request);
  return event.type === 'webhook.verification' ? json(200, { challenge: event.data.challenge }) : json(200, { ok: true });
};

async function receiver(handler: (request: ReceivedRequest) => ReceiverAnswer) {
  const started = await startHttpsReceiver(handler);
  receivers.push(started);
  return started;
}

/** A fresh browser context (no cookies, clipboard allowed) and a watched page in it. */
async function newPage(): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1100, height: 800 } });
  contexts.push(context);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(stack.baseUrl).origin });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  return { context, page, problems: await watchPage(page) };
}

const shown = (page: Page, state: 'sign-in' | 'sign-in-code' | 'settings') => page.waitForSelector(`body[data-state="${state}"]`, { state: 'attached' });
/** Every state the tests visit: its screenshot, and its accessibility audit (chromium.ts captureState). */
const screenshot = (page: Page, name: string) => captureState(page, shots, name);
const text = async (page: Page, selector: string) => ((await page.textContent(selector)) ?? '').trim();
async function said(page: Page, id: string) {
  await page.waitForSelector(`#${id}:not(:empty)`);
  return text(page, `#${id}`);
}
const focused = (page: Page) => page.evaluate('document.activeElement && (document.activeElement.id || document.activeElement.textContent)');

/** No script error and no CSP violation; console errors only Chromium's notes of the API's expected refusals. */
async function expectNoProblems(problems: PageProblems, expectedStatuses: number[] = []) {
  const statusOf = (e: string) => Number(/^Failed to load resource: the server responded with a status of (\d{3})\b/.exec(e)?.[1]);
  await expect.poll(() => [...new Set(problems.consoleErrors.map(statusOf).filter((s) => expectedStatuses.includes(s)))].sort()).toEqual([...expectedStatuses].sort());
  expect(problems.pageErrors).toEqual([]);
  expect(problems.cspViolations).toEqual([]);
  expect(problems.consoleErrors.filter((e) => !expectedStatuses.includes(statusOf(e)))).toEqual([]);
}

async function signIn(page: Page, email: string) {
  await page.goto(`${stack.baseUrl}/settings`);
  await shown(page, 'sign-in');
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.click('#sign-in-submit');
}

/** Everything the page holds: its markup, its rendered text and every field's value. */
const wholePage = (page: Page) =>
  page.evaluate<string>(`[document.documentElement.outerHTML, document.body.innerText, ...[...document.querySelectorAll('input')].map((i) => i.value)].join('\\n')`);

/** Elements wider than their box (the page itself, or a table in its scrolling wrapper). */
const overflowing = (page: Page) =>
  page.evaluate<string[]>(
    `[document.documentElement, ...document.querySelectorAll('.table-wrap')].filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.id || e.className || e.tagName)`,
  );

/** Fills and sends the add form; answers once the page said something. */
async function addCallback(page: Page, options: { partnerId: string; url: string; password?: string; code?: string }) {
  await page.selectOption('#webhook-partner', options.partnerId);
  await page.fill('#webhook-url', options.url);
  await page.fill('#webhook-password', options.password ?? PASSWORD);
  if (options.code !== undefined) await page.fill('#webhook-code', options.code);
  await page.click('#webhook-submit');
  await page.waitForSelector('#webhook-create-status:not(:empty)');
  await page.waitForSelector('#webhook-submit:not([disabled])', { state: 'attached' });
}

/** The secret view after a successful add: the callback's id and secret as the page shows them once. */
async function shownSecret(page: Page) {
  await page.waitForSelector('#new-webhook', { state: 'visible' });
  expect(await page.isVisible('#webhook-form')).toBe(false);
  expect(await text(page, '#new-webhook .warning')).toBe('This is the only time the signing secret is shown. Store it now; it cannot be shown again.');
  expect(await page.getAttribute('#new-webhook-secret', 'readonly')).not.toBeNull();
  const webhookId = await text(page, '#new-webhook-id');
  expect(webhookId).toMatch(/^wh_[0-9a-f]{20}$/);
  await page.waitForSelector(`#webhooks-body tr[data-webhook-id="${webhookId}"]`);
  return { webhookId, secret: await page.inputValue('#new-webhook-secret') };
}

/** The callbacks table as the page shows it, by callback id. */
async function listedWebhook(page: Page, webhookId: string) {
  return page.$eval(`#webhooks-body tr[data-webhook-id="${webhookId}"]`, (row) => ({
    status: row.getAttribute('data-status'),
    ...Object.fromEntries([...row.querySelectorAll('td')].map((td) => [td.getAttribute('data-label'), (td.textContent ?? '').trim()])),
    buttons: [...row.querySelectorAll('button')].map((b) => b.textContent),
    outcome: (row.nextElementSibling?.textContent ?? '').trim(),
  }));
}

/** One delivery's row as the page shows it. */
async function listedDelivery(page: Page, deliveryId: string) {
  return page.$eval(`#deliveries-body tr[data-delivery-id="${deliveryId}"]`, (row) => ({
    status: row.getAttribute('data-status'),
    ...Object.fromEntries([...row.querySelectorAll('td')].map((td) => [td.getAttribute('data-label'), (td.textContent ?? '').trim()])),
  }));
}

/** Clicks Refresh and answers the delivery's status once the list is back. */
async function refreshedStatus(page: Page, deliveryId: string) {
  await page.click('#deliveries-refresh');
  await page.waitForSelector('#deliveries-refresh:not([disabled])');
  return page.$eval('#deliveries-body', (body, id) => [...body.querySelectorAll('tr')].find((row) => row.getAttribute('data-delivery-id') === id)?.getAttribute('data-status') ?? null, deliveryId);
}
const untilDelivery = (page: Page, deliveryId: string) => expect.poll(() => refreshedStatus(page, deliveryId), { timeout: 120_000, interval: 250 });

/** The receiver's requests of one event type. */
const received = (at: HttpsReceiver, type: string) => at.requests.filter((r) => eventOf(r).type === type);

/** The request is signed with `secret` (the spec's v1 signature over the timestamp and the raw body). */
function expectSignedWith(request: ReceivedRequest, secret: string) {
  const timestamp = Number(request.headers['x-service-timestamp']);
  expect(request.headers['x-service-signature']).toBe(signatureOf(secret, timestamp, request.rawBody.toString('utf8')));
  expect(request.headers['x-service-event-id']).toBe(eventOf(request).id);
}

describe('the webhooks of the settings page in Chromium', { timeout: 300_000 }, () => {
  it('adds callbacks (secret once), verifies them, sends a test event, follows and resends deliveries, deactivates', async () => {
    const { email, partner_id } = await account();
    const good = await receiver(echoChallenge);
    const wrong = await receiver(() => json(200, { challenge: 'not-the-challenge-we-sent' }));
    const { page, problems } = await newPage();

    // 1. Signed in: no callbacks; the form offers the one active organization the account manages; no code field (two-factor off).
    await signIn(page, email);
    await shown(page, 'settings');
    await page.waitForSelector('#webhooks-empty', { state: 'visible' });
    await page.waitForSelector('#webhook-form', { state: 'visible' });
    expect(await page.$$eval('#webhook-partner option', (options) => options.map((o) => [o.getAttribute('value'), o.textContent]))).toEqual([
      [partner_id, `Acme Games (${partner_id})`],
    ]);
    expect(await page.isVisible('#webhook-code-field')).toBe(false);
    expect(await page.isVisible('#webhooks-table')).toBe(false);
    expect(await page.isVisible('#deliveries')).toBe(false);
    await screenshot(page, '01-no-callbacks');

    // 2. Refused in place: an address that is not HTTPS (the API's message, focus on the address), then a wrong password.
    await addCallback(page, { partnerId: partner_id, url: good.url.replace('https:', 'http:') });
    expect(await text(page, '#webhook-create-status')).toBe(
      'The callback address must be a complete HTTPS URL of a public domain name on port 443, without user, password or fragment.',
    );
    expect(await page.getAttribute('#webhook-create-status', 'class')).toBe('notice error');
    expect(await focused(page)).toBe('webhook-url');
    await screenshot(page, '02-invalid-address');
    await addCallback(page, { partnerId: partner_id, url: good.url, password: 'not the password' });
    expect(await text(page, '#webhook-create-status')).toBe('The password is wrong.');
    expect(await focused(page)).toBe('webhook-password');
    expect(await page.inputValue('#webhook-password')).toBe('');
    expect(await page.isVisible('#webhooks-empty')).toBe(true);

    // 3. Added: the signing secret shown once, copied, gone after "Done"; the callback listed as unverified.
    await addCallback(page, { partnerId: partner_id, url: good.url });
    const first = await shownSecret(page);
    expect(first.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(await text(page, '#webhook-create-status')).toBe(`Callback added for Acme Games (${partner_id}). Copy its signing secret now, then verify the callback.`);
    expect(await focused(page)).toBe('new-webhook-title');
    await page.click('#copy-webhook-secret');
    expect(await said(page, 'new-webhook-status')).toBe('Copied to the clipboard.');
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(copied).toBe(first.secret);
    expect(copied.startsWith('whsec_')).toBe(true);
    expect(await listedWebhook(page, first.webhookId)).toMatchObject({
      status: 'unverified',
      Callback: `${good.url}${first.webhookId}`,
      Organization: `Acme Games${partner_id}`,
      Status: 'Unverifiedverify it to receive events',
      buttons: ['Verify', 'Deliveries', 'Deactivate'],
    });
    await screenshot(page, '03-secret-shown-once');
    await page.click('#new-webhook-done');
    await page.waitForSelector('#new-webhook', { state: 'hidden' });
    expect(await page.isVisible('#webhook-form')).toBe(true);
    expect(await page.inputValue('#webhook-url')).toBe('');
    expect(await wholePage(page)).not.toContain(first.secret);
    // Focus goes to the new callback's next step.
    expect(await page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe(`Verify ${good.url}`);
    await page.evaluate(`navigator.clipboard.writeText('')`);

    // 4. Verified: the receiver echoed the challenge, signed with the secret shown once; the callback is active.
    const firstRow = `#webhooks-body tr[data-webhook-id="${first.webhookId}"]`;
    await page.click(`${firstRow} button[data-action="verify"]`);
    await page.waitForSelector(`${firstRow}[data-status="active"]`);
    let row = await listedWebhook(page, first.webhookId);
    expect(row).toMatchObject({ Status: 'Activereceiving events', buttons: ['Send test', 'Deliveries', 'Deactivate'] });
    expect(row.outcome).toBe('Verified — active: new events of the organization are sent to this address from now on.');
    const [verification] = received(good, 'webhook.verification');
    expectSignedWith(verification, first.secret);
    expect(await page.evaluate('document.activeElement.className')).toBe('notice success');
    await screenshot(page, '04-verified-active');

    // 5. A second callback whose receiver answers another challenge: CHALLENGE_MISMATCH, explained, and it stays unverified.
    await addCallback(page, { partnerId: partner_id, url: wrong.url });
    const second = await shownSecret(page);
    expect(second.secret).not.toBe(first.secret);
    await page.click('#new-webhook-done');
    const secondRow = `#webhooks-body tr[data-webhook-id="${second.webhookId}"]`;
    await page.click(`${secondRow} button[data-action="verify"]`);
    await page.waitForSelector(`${secondRow} + tr .notice.error`);
    row = await listedWebhook(page, second.webhookId);
    expect(row.outcome).toBe(
      'Verification failed: CHALLENGE_MISMATCH (HTTP 200). The receiver answered with another challenge than the one sent: echo the data.challenge of this very request.',
    );
    expect(row).toMatchObject({ status: 'unverified', Status: 'Unverifiedlast verification failed: Wrong challenge', buttons: ['Verify', 'Deliveries', 'Deactivate'] });
    // Newest first.
    expect(await page.$$eval('#webhooks-body tr[data-webhook-id]', (rows) => rows.map((r) => r.getAttribute('data-webhook-id')))).toEqual([second.webhookId, first.webhookId]);
    await screenshot(page, '05-challenge-mismatch');

    // 6. A test event to the active callback: delivered.
    await page.click(`${firstRow} button[data-action="test"]`);
    await page.waitForSelector(`${firstRow} + tr .notice.success:has-text("Test event")`);
    expect((await listedWebhook(page, first.webhookId)).outcome).toBe('Test event delivered (HTTP 200).');
    expect(await focused(page)).toBe('Send test');
    const [test] = received(good, 'webhook.test');
    expectSignedWith(test, first.secret);
    await screenshot(page, '06-test-delivered');

    // 7. Deliveries: none yet; a record created in the back office reaches the active callback (not the unverified one).
    await page.click(`${firstRow} button[data-action="deliveries"]`);
    await page.waitForSelector('#deliveries-empty', { state: 'visible' });
    expect(await focused(page)).toBe('deliveries-title');
    expect(await text(page, '#deliveries-url')).toBe(good.url);
    const eventId = await recordEvent(partner_id);
    const deliveryId = deliveryIdOf(eventId, first.webhookId);
    await untilDelivery(page, deliveryId).toBe('delivered');
    expect(await listedDelivery(page, deliveryId)).toMatchObject({
      'Event type': 'record.created',
      'Event id': eventId,
      Status: 'Delivered',
      Attempts: '1',
      HTTP: '200',
      Reason: '—',
      'Next attempt': '—',
      Actions: 'Resend',
    });
    const businessRequests = () => good.requests.filter((r) => eventOf(r).id === eventId);
    expect(businessRequests()).toHaveLength(1);
    expectSignedWith(businessRequests()[0], first.secret);
    expect(wrong.requests.filter((r) => eventOf(r).id === eventId)).toEqual([]);
    await screenshot(page, '07-delivery-delivered');
    expect(await overflowing(page)).toEqual([]);

    // 8. Resent: a new series, delivered again with the same event id; three resends a day per delivery, then 429 with Retry-After.
    for (let resend = 1; resend <= 3; resend += 1) {
      await page.click(`#deliveries-body tr[data-delivery-id="${deliveryId}"] button[data-action="resend"]`);
      expect(await said(page, 'deliveries-status')).toBe(`Event ${eventId} resent: a new series of up to 8 attempts has started. Refresh to follow it.`);
      expect(await focused(page)).toBe('deliveries-refresh');
      if (resend === 1) await screenshot(page, '08-resent');
      await untilDelivery(page, deliveryId).toBe('delivered');
      expect(businessRequests()).toHaveLength(1 + resend);
      expect(await listedDelivery(page, deliveryId)).toMatchObject({ Status: `Delivered${resend === 1 ? 'resent once' : `resent ${resend} times`}`, Attempts: '1' });
    }
    await page.click(`#deliveries-body tr[data-delivery-id="${deliveryId}"] button[data-action="resend"]`);
    await page.waitForSelector('#deliveries-status.error');
    expect(await text(page, '#deliveries-status')).toMatch(/^Too many resends; try again in (\d+ seconds?|about \d+ (minutes|hours))\.$/);
    expect(await page.isEnabled(`#deliveries-body tr[data-delivery-id="${deliveryId}"] button[data-action="resend"]`)).toBe(true);
    expect(businessRequests()).toHaveLength(4);
    await screenshot(page, '09-resend-limited');

    // 9. A receiver failing with 503: the next event's delivery waits for its retry (reason, HTTP status, next attempt shown).
    good.setHandler(() => json(503, { error: 'maintenance' }));
    const failingEventId = await recordEvent(partner_id, 'cheating');
    const failingId = deliveryIdOf(failingEventId, first.webhookId);
    await untilDelivery(page, failingId).toBe('retrying');
    const retrying = await listedDelivery(page, failingId);
    expect(retrying).toMatchObject({ 'Event type': 'record.updated', Status: 'Retrying', Attempts: '1', HTTP: '503', Reason: 'Receiver error (HTTP 5xx)HTTP_5xx', Actions: '' });
    expect(retrying['Next attempt']).not.toBe('—');
    await screenshot(page, '10-delivery-retrying');

    // 10. Deactivated after the inline confirmation (Cancel first): the retrying delivery is cancelled, nothing is resendable any more.
    await page.click(`${firstRow} button[data-action="deactivate"]`);
    const confirmation = `#webhooks-body tr[data-confirm-for="${first.webhookId}"] .confirm`;
    await page.waitForSelector(confirmation);
    expect(await text(page, `${confirmation} p`)).toBe(`Deactivate the callback to ${good.url}? Its undelivered deliveries are cancelled. This cannot be undone.`);
    expect(await focused(page)).toBe('Cancel');
    expect(await page.getAttribute(`${firstRow} button[data-action="deactivate"]`, 'aria-expanded')).toBe('true');
    await page.click(`${confirmation} button:has-text("Cancel")`);
    await page.waitForSelector(confirmation, { state: 'detached' });
    expect(await page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe(`Deactivate ${good.url}`);
    await page.click(`${firstRow} button[data-action="deactivate"]`);
    await page.waitForSelector(confirmation);
    await screenshot(page, '11-deactivate-confirmation');
    await page.click(`${confirmation} button:has-text("Deactivate callback")`);
    await page.waitForSelector(`${firstRow}[data-status="deactivated"]`);
    expect(await said(page, 'webhooks-status')).toBe(`Callback ${good.url} deactivated: 1 undelivered delivery cancelled.`);
    expect(await listedWebhook(page, first.webhookId)).toMatchObject({ Status: 'Deactivateddeactivated by you', buttons: ['Deliveries'] });
    await page.waitForSelector(`#deliveries-body tr[data-delivery-id="${failingId}"][data-status="cancelled"]`);
    expect(await page.$$('#deliveries-body button')).toEqual([]);
    await screenshot(page, '12-deactivated');

    // The recent activity names the callbacks' changes.
    await page.waitForSelector('#audit-body tr[data-action="webhook.deactivated"]');
    const activity = await page.$$eval('#audit-body tr', (rows) => rows.map((r) => r.getAttribute('data-action')));
    // The callbacks' changes, the test event and the resends (the manager's own actions), newest first.
    expect(activity.filter((action) => action?.startsWith('webhook.'))).toEqual([
      'webhook.deactivated',
      'webhook.resent',
      'webhook.resent',
      'webhook.resent',
      'webhook.tested',
      'webhook.created',
      'webhook.verified',
      'webhook.created',
    ]);
    expect(await text(page, '#audit-body tr[data-action="webhook.verified"] td[data-label="Action"]')).toBe(`Webhook callback verified ${first.webhookId}`);

    // Nothing overflows sideways, from a desktop's width to a phone's (the tables become stacked rows).
    for (const width of [1100, 800, 390]) {
      await page.setViewportSize({ width, height: 844 });
      expect(await overflowing(page), `at ${width} px`).toEqual([]);
    }
    await screenshot(page, '13-narrow');
    await page.setViewportSize({ width: 1100, height: 800 });

    // After a reload: the callbacks as the API lists them, no secret anywhere, the outcomes gone with the page.
    await page.reload();
    await shown(page, 'settings');
    await page.waitForSelector(`${secondRow}`);
    const reloaded = await wholePage(page);
    for (const secret of [first.secret, second.secret]) expect(reloaded).not.toContain(secret);
    expect(await listedWebhook(page, second.webhookId)).toMatchObject({ Status: 'Unverifiedlast verification failed: Wrong challenge', outcome: '' });
    expect(await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })')).toBe('{}{}');

    // 401: the signed-out page's first GET, the wrong password; 422: the http address; 429: the fourth resend.
    await expectNoProblems(problems, [401, 422, 429]);
  });

  it('says when to try verifying again after too many checks (429 with Retry-After)', async () => {
    const { email, partner_id } = await account();
    const good = await receiver(echoChallenge);
    const { page, problems } = await newPage();
    await signIn(page, email);
    await shown(page, 'settings');
    await page.waitForSelector('#webhook-form', { state: 'visible' });
    await addCallback(page, { partnerId: partner_id, url: good.url });
    const { webhookId } = await shownSecret(page);
    await page.click('#new-webhook-done');
    // The check limits are raised out of reach in this file; the refusal is the API's shape, answered in its place.
    await page.route(
      (url) => url.pathname.endsWith(`/settings/api/webhooks/${webhookId}/verify`),
      (route) =>
        route.fulfill({
          status: 429,
          headers: { 'Retry-After': '37', 'Content-Type': 'application/json' },
          body: JSON.stringify({ code: 'RATE_LIMITED', message: 'A rate limit is exhausted; retry after the Retry-After delay.', request_id: 'test' }),
        }),
    );
    const row = `#webhooks-body tr[data-webhook-id="${webhookId}"]`;
    await page.click(`${row} button[data-action="verify"]`);
    await page.waitForSelector(`${row} + tr .notice.error`);
    expect((await listedWebhook(page, webhookId)).outcome).toBe('Too many checks; try again in 37 seconds.');
    expect(await page.isEnabled(`${row} button[data-action="verify"]`)).toBe(true);
    expect(good.requests).toEqual([]);
    await screenshot(page, '14-verify-rate-limited');
    await expectNoProblems(problems, [401, 429]);
  });

  it('asks for a two-factor code only while two-factor is on', async () => {
    const { email, partner_id } = await account();
    const good = await receiver(echoChallenge);
    // Two-factor on through the settings API.
    const api = new SettingsBrowser(stack);
    expect((await api.signIn(email, PASSWORD)).status).toBe(200);
    const { secret } = await (await api.post('/settings/api/two-factor/enrol', { password: PASSWORD })).json();
    expect((await api.post('/settings/api/two-factor/confirm', { password: PASSWORD, code: await codeAt(secret, now()) })).status).toBe(200);

    const { page, problems } = await newPage();
    await signIn(page, email);
    await shown(page, 'sign-in-code');
    nextStep();
    await page.fill('#sign-in-code', await codeAt(secret, now()));
    await page.click('#sign-in-submit');
    await shown(page, 'settings');
    await page.waitForSelector('#webhook-form', { state: 'visible' });
    expect(await page.isVisible('#webhook-code-field')).toBe(true);
    expect(await page.getAttribute('#webhook-code', 'autocomplete')).toBe('one-time-code');

    // A wrong code: refused, the code field emptied and focused.
    await addCallback(page, { partnerId: partner_id, url: good.url, code: '000000' });
    expect(await text(page, '#webhook-create-status')).toBe('The two-factor code is missing or wrong.');
    expect(await focused(page)).toBe('webhook-code');
    expect(await page.inputValue('#webhook-code')).toBe('');
    await screenshot(page, '15-two-factor-code-refused');

    // The app's code of a later step: added.
    nextStep();
    await addCallback(page, { partnerId: partner_id, url: good.url, code: await codeAt(secret, now()) });
    const { secret: signing } = await shownSecret(page);
    expect(signing).toMatch(/^whsec_/);
    await page.click('#new-webhook-done');

    // Two-factor turned off on the page: the code field goes.
    nextStep();
    await page.fill('#tf-disable-password', PASSWORD);
    await page.fill('#tf-disable-code', await codeAt(secret, now()));
    await page.click('#tf-disable-submit');
    expect(await said(page, 'tf-status')).toBe('Two-factor sign-in is off.');
    expect(await page.isVisible('#webhook-code-field')).toBe(false);
    await expectNoProblems(problems, [401]);
  });

  it('offers no form to an account that manages no active organization', async () => {
    const email = `webhooks-browser-member-${Date.now()}@example.com`;
    const { account_id } = await stack.office.accounts.create('Member only', { email, password: PASSWORD });
    const { partner_id } = await stack.office.organizations.create('Someone Else Inc');
    await stack.office.memberships.set(partner_id, account_id, 'member');
    const { page, problems } = await newPage();
    await signIn(page, email);
    await shown(page, 'settings');
    await page.waitForSelector('#webhook-no-org', { state: 'visible' });
    expect(await text(page, '#webhook-no-org')).toBe('Callbacks are for the active organizations you manage, and you manage none.');
    expect(await page.isVisible('#webhook-form')).toBe(false);
    // The list loads on its own request, after or before the organizations: wait for its answer.
    await page.waitForSelector('#webhooks-empty', { state: 'visible' });
    await screenshot(page, '16-no-managed-organization');
    await expectNoProblems(problems, [401]);
  });
});
