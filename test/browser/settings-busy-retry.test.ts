/**
 * The settings page when the service is checking too many passwords at once (issue 33, point 1), in a real browser
 * (headless Chromium through playwright-core) against the local front on DynamoDB Local. The process's password checks
 * are taken by the test (the gate's one slot, held), so the key creation is refused with 503 PASSWORD_CHECK_BUSY and
 * Retry-After. The page waits the Retry-After and sends the same request again by itself, with the same
 * Idempotency-Key, while the form stays busy: once the slot is free the key is created and shown. Still refused after
 * its 3 retries, the page says the service is busy and when to try again (nothing was created, so no "send again"
 * advice about a lost creation). Screenshots in test/artifacts/settings-busy-retry/.
 *
 * The front's function timeout is 4 s here, so a refusal comes after about 2 s of waiting (the request's deadline less
 * the reserve for answering), not 8; the waits are the page's own.
 */
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { passwordGate, usePasswordCheckCapacity } from '../../lambdas/back-office/passwords';
import { raisedWebhookHandlers } from '../support/raised-quotas';
import { startTestStack, type TestStack } from '../support/test-stack';
import { browserSession } from './browser-session';
import { captureState, watchPage, type PageProblems } from './chromium';

const PASSWORD = 'correct horse battery';
let stack: TestStack;
let browser: Browser;
let shots: string;

const contexts = browserSession(
  'settings-busy-retry',
  undefined,
  async () => {
    const restoreGate = usePasswordCheckCapacity(1);
    stack = await startTestStack({ handlers: raisedWebhookHandlers(), functionTimeoutMs: 4000 });
    return {
      stop: async () => {
        await stack.stop();
        restoreGate();
      },
    };
  },
  (launched, folder) => ([browser, shots] = [launched, folder]),
);

let serial = 0;

interface Sent {
  readonly idempotencyKey: string;
  readonly status: number;
  readonly code?: string;
  readonly retryAfter?: string;
}

/** A fresh account signed in on a watched page, and every answer to its key creations. */
async function signedInPage(): Promise<{ page: Page; problems: PageProblems; accountId: string; sent: Sent[] }> {
  const email = `busy-retry-${(serial += 1)}-${Date.now()}@example.com`;
  const { account_id } = await stack.office.accounts.create('Busy owner', { email, password: PASSWORD });
  const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1100, height: 800 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const problems = await watchPage(page);
  const sent: Sent[] = [];
  page.on('response', async (response) => {
    const request = response.request();
    if (request.method() !== 'POST' || !new URL(request.url()).pathname.endsWith('/settings/api/keys')) return;
    const body = (await response.json().catch(() => ({}))) as { code?: string };
    sent.push({ idempotencyKey: request.headers()['idempotency-key'] ?? '(none)', status: response.status(), code: body.code, retryAfter: response.headers()['retry-after'] });
  });
  await page.goto(`${stack.baseUrl}/settings`);
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.click('#sign-in-submit');
  await page.waitForSelector('body[data-state="settings"]', { state: 'attached' });
  return { page, problems, accountId: account_id, sent };
}

/** The process's one password slot, taken until `release()`. */
function holdPasswordChecks(): { release: () => Promise<void> } {
  let free!: () => void;
  const held = passwordGate().run(() => new Promise<void>((resolve) => (free = resolve)), { latestStart: () => Number.POSITIVE_INFINITY, holdMs: () => 0 });
  return {
    release: async () => {
      free();
      await held;
    },
  };
}

/** Waits until the page has seen `count` answers to its key creations. */
async function answers(sent: Sent[], count: number) {
  await expect.poll(() => sent.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(count);
}

/** No script error or CSP violation; console errors only Chromium's notes of the expected 503s (and the signed-out page's 401). */
function expectOnlyTheBusyAnswers(problems: PageProblems) {
  expect(problems.pageErrors).toEqual([]);
  expect(problems.cspViolations).toEqual([]);
  expect(problems.consoleErrors.filter((error) => !/status of (503|401)\b/.test(error))).toEqual([]);
}

async function fillKeyForm(page: Page, name: string) {
  await page.fill('#key-name', name);
  await page.fill('#key-password', PASSWORD);
}

describe('the settings page when the password checks are busy', () => {
  it('sends a refused key creation again by itself after Retry-After, with the same Idempotency-Key, and shows the key', async () => {
    // Prepare
    const { page, problems, accountId, sent } = await signedInPage();
    await fillKeyForm(page, 'Busy deploy');
    const checks = holdPasswordChecks();

    // Act: the owner submits once; the first attempt is refused while the checks are taken, then they come free.
    await page.click('#create-submit');
    await answers(sent, 1);
    const busyForm = await page.getAttribute('#create-key-form', 'aria-busy');
    await checks.release();
    await page.waitForSelector('#new-key', { state: 'visible' });
    await captureState(page, shots, '01-created-by-the-retry');

    // Assess
    expect(sent.map(({ status, code }) => [status, code])).toEqual([
      [503, 'PASSWORD_CHECK_BUSY'],
      [201, undefined],
    ]);
    expect(Number(sent[0].retryAfter)).toBeGreaterThanOrEqual(1);
    expect(sent[0].idempotencyKey).toMatch(/^[0-9a-f]{36}$/);
    expect(sent[1].idempotencyKey).toBe(sent[0].idempotencyKey);
    expect(busyForm).toBe('true');
    expect((await page.textContent('#create-status'))?.trim()).toBe('Key Busy deploy created. Copy its value now.');
    expect((await stack.office.keys.list(accountId)).keys).toHaveLength(1);
    expectOnlyTheBusyAnswers(problems);
  });

  it('after 3 retries still refused, says the service is busy and when to try again; the next submission creates the key once', async () => {
    // Prepare
    const { page, problems, accountId, sent } = await signedInPage();
    await fillKeyForm(page, 'Patient deploy');
    const checks = holdPasswordChecks();

    // Act
    await page.click('#create-submit');
    await page.waitForSelector('#create-status:not(:empty)');
    const refusal = (await page.textContent('#create-status'))?.trim();
    await captureState(page, shots, '02-still-busy-after-retries');
    await checks.release();
    await page.fill('#key-password', PASSWORD);
    await page.click('#create-submit');
    await page.waitForSelector('#new-key', { state: 'visible' });

    // Assess: the first submission and its 3 retries refused (one Idempotency-Key), then the owner's own retry of it.
    expect(sent.map(({ status }) => status)).toEqual([503, 503, 503, 503, 201]);
    expect(new Set(sent.map((s) => s.idempotencyKey)).size).toBe(1);
    expect(refusal).toMatch(/^The service is checking too many passwords right now; try again in \d+ seconds?\.$/);
    expect((await stack.office.keys.list(accountId)).keys).toHaveLength(1);
    expectOnlyTheBusyAnswers(problems);
  });
});
