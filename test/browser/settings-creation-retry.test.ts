/**
 * The settings page's creation forms retried after a lost answer (issue 31), in a real browser (headless Chromium
 * through playwright-core) against the local front on DynamoDB Local, with the creation's transaction applied and
 * every answer lost (`fail-after`: the page sees 500). The owner submits the same form again: the page sends the same
 * Idempotency-Key, the service answers the key (or callback) the first attempt created without its value, and the page
 * says so — the value was shown to no one — with the focus on that row's Revoke (Deactivate) button. The next
 * submission is a new request (a new key): it creates. Every state is kept as a full-page screenshot in
 * test/artifacts/settings-creation-retry/ with its accessibility audit; no script error, CSP violation or console
 * error but the expected 500 (and the signed-out page's 401).
 */
import type { Browser, Page } from 'playwright-core';
import { browserSession } from './browser-session';
import { describe, expect, it } from 'vitest';
import { FaultPlan } from '../../local/fault-injection';
import { PASSWORD, startRetryWorld, type RetryWorld } from '../support/settings-retries';
import { captureState, watchPage, type PageProblems } from './chromium';

const faults = new FaultPlan();
let world: RetryWorld;
let browser: Browser;
let shots: string;

const contexts = browserSession(
  'settings-creation-retry',
  faults,
  async () => (world = await startRetryWorld(faults)),
  (launched, folder) => ([browser, shots] = [launched, folder]),
);

let serial = 0;

/** A fresh account managing a new organization, signed in on a watched page; the Idempotency-Key of every POST to `path`. */
async function signedInPage(path: string): Promise<{ page: Page; problems: PageProblems; partnerId: string; keysSent: string[] }> {
  const email = `creation-retry-${(serial += 1)}-${Date.now()}@example.com`;
  const { account_id } = await world.stack.office.accounts.create('Retrying owner', { email, password: PASSWORD });
  const { partner_id } = await world.stack.office.organizations.create('Retry Games');
  await world.stack.office.memberships.set(partner_id, account_id, 'manager');
  const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1100, height: 800 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems = await watchPage(page);
  const keysSent: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith(path)) keysSent.push(request.headers()['idempotency-key'] ?? '(none)');
  });
  await page.goto(`${world.stack.baseUrl}/settings`);
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.click('#sign-in-submit');
  await page.waitForSelector('body[data-state="settings"]', { state: 'attached' });
  return { page, problems, partnerId: partner_id, keysSent };
}

const text = async (page: Page, selector: string) => ((await page.textContent(selector)) ?? '').trim();
const focusedLabel = (page: Page) => page.evaluate('document.activeElement && document.activeElement.getAttribute("aria-label")');

/** Sends a form and waits until the page answered (its status says something, the submit button is offered again). */
async function submit(page: Page, button: string, status: string) {
  await page.evaluate(`document.getElementById(${JSON.stringify(status)}).textContent = ''`);
  await page.click(button);
  await page.waitForSelector(`#${status}:not(:empty)`);
  await page.waitForSelector(`${button}:not([disabled])`, { state: 'attached' });
}

/** No script error, no CSP violation, and console errors only Chromium's notes of the expected 500 (and of the 401 the page's first look for a session gets). */
async function expectOnlyTheLostAnswer(problems: PageProblems) {
  expect(problems.pageErrors).toEqual([]);
  expect(problems.cspViolations).toEqual([]);
  expect(problems.consoleErrors.filter((error) => !/status of (500|401)\b/.test(error))).toEqual([]);
}

describe('the settings page retrying a creation whose answer was lost', () => {
  it('key form: the retry carries the same Idempotency-Key, shows the key created without its value and focuses its Revoke', async () => {
    // Prepare
    const { page, problems, keysSent } = await signedInPage('/settings/api/keys');
    await page.fill('#key-name', 'Deploy');
    await page.setChecked('#permanent', false);
    await page.fill('#days', '30');
    await page.fill('#key-password', PASSWORD);
    const fault = faults.arm({ component: 'api', call: 'TransactWriteItems', matches: (input) => JSON.stringify(input.TransactItems).includes('"type":"api_key"'), effect: 'fail-after' });

    // Act
    await submit(page, '#create-submit', 'create-status');
    const lost = await text(page, '#create-status');
    await captureState(page, shots, '01-key-answer-lost');
    await submit(page, '#create-submit', 'create-status');
    const replayed = await text(page, '#create-status');
    await page.waitForSelector('#keys-body tr[data-key-id]');
    const keyId = await page.getAttribute('#keys-body tr[data-key-id]', 'data-key-id');
    const focused = await focusedLabel(page);
    await captureState(page, shots, '02-key-created-by-the-lost-attempt');
    await page.fill('#key-password', PASSWORD);
    await submit(page, '#create-submit', 'create-status');
    await page.waitForSelector('#new-key', { state: 'visible' });
    await captureState(page, shots, '03-key-created-anew');

    // Assess
    expect(fault.fired()).toBe(true);
    expect(lost).toBe('An internal error occurred. Send the form again: if the key was created, you are told so, and it is never created twice.');
    expect(replayed).toBe(
      `Your earlier attempt created key Deploy (${keyId}), but its answer was lost, and a key value is shown only once. Revoke that key below, then create a new one.`,
    );
    expect(focused).toBe('Revoke Deploy');
    expect(keysSent).toHaveLength(3);
    expect(keysSent[0]).toMatch(/^[0-9a-f]{36}$/);
    expect(keysSent[1]).toBe(keysSent[0]);
    expect(keysSent[2]).not.toBe(keysSent[0]);
    expect(await page.$$eval('#keys-body tr[data-key-id]', (rows) => rows.length)).toBe(2);
    await expectOnlyTheLostAnswer(problems);
  });

  it('webhook form: the retry carries the same Idempotency-Key, shows the callback added without its secret and focuses its Deactivate', async () => {
    // Prepare
    const { page, problems, partnerId, keysSent } = await signedInPage('/settings/api/webhooks');
    await page.waitForSelector('#webhook-form', { state: 'visible' });
    await page.selectOption('#webhook-partner', partnerId);
    await page.fill('#webhook-url', 'https://hooks.partner-receiver.net/in');
    await page.fill('#webhook-password', PASSWORD);
    const fault = faults.arm({ component: 'api', call: 'TransactWriteItems', matches: (input) => JSON.stringify(input.TransactItems).includes('"type":"webhook"'), effect: 'fail-after' });

    // Act
    await submit(page, '#webhook-submit', 'webhook-create-status');
    const lost = await text(page, '#webhook-create-status');
    await captureState(page, shots, '04-webhook-answer-lost');
    await submit(page, '#webhook-submit', 'webhook-create-status');
    const replayed = await text(page, '#webhook-create-status');
    await page.waitForSelector('#webhooks-body tr[data-webhook-id]');
    const webhookId = await page.getAttribute('#webhooks-body tr[data-webhook-id]', 'data-webhook-id');
    const focused = await focusedLabel(page);
    await captureState(page, shots, '05-webhook-added-by-the-lost-attempt');

    // Assess
    expect(fault.fired()).toBe(true);
    expect(lost).toBe('An internal error occurred. Send the form again: if the callback was created, you are told so, and it is never created twice.');
    expect(replayed).toBe(
      `Your earlier attempt added callback ${webhookId} for Retry Games (${partnerId}), but its answer was lost, and a signing secret is shown only once. Deactivate that callback below, then add a new one.`,
    );
    expect(focused).toBe('Deactivate https://hooks.partner-receiver.net/in');
    expect(keysSent).toHaveLength(2);
    expect(keysSent[1]).toBe(keysSent[0]);
    expect(await page.$$eval('#webhooks-body tr[data-webhook-id]', (rows) => rows.length)).toBe(1);
    await expectOnlyTheLostAnswer(problems);
  });
});
