/**
 * The owner's remedies on the settings page, in headless Chromium against the local stack: a browser left signed in
 * makes three wrong re-checks (its session ends, and the page goes back to signing in), the owner's own page then
 * shows each failure in the recent activity and signs out everywhere (both pages back to signing in). Screenshots of
 * each state are kept in test/artifacts/web-settings-remedies/.
 */
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/test-stack';
import { browserSession } from './browser-session';
import { captureState, watchPage } from './chromium';

let stack: TestStack;
let browser: Browser;
let shots: string;
const contexts = browserSession(
  'web-settings-remedies',
  undefined,
  async () => (stack = await startTestStack()),
  (launched, folder) => {
    browser = launched;
    shots = folder;
  },
);

const PASSWORD = 'correct horse battery';

async function signedInPage(email: string): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1100, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await watchPage(page);
  await page.goto(`${stack.baseUrl}/settings`);
  await page.waitForSelector('body[data-state="sign-in"]', { state: 'attached' });
  await page.fill('#email', email);
  await page.fill('#password', PASSWORD);
  await page.click('#sign-in-submit');
  await page.waitForSelector('body[data-state="settings"]', { state: 'attached' });
  return page;
}

describe('the owner keeps their remedies', () => {
  it('a left-open browser\u2019s wrong passwords end its session and show in the activity; sign out everywhere ends every session', async () => {
    // Prepare
    const email = `remedies-browser-${Date.now()}@example.com`;
    await stack.office.accounts.create('Owner', { email, password: PASSWORD });
    const leftOpen = await signedInPage(email);
    const own = await signedInPage(email);

    // Act: three wrong passwords in the left-open browser's password form.
    for (let i = 0; i < 3; i += 1) {
      await leftOpen.fill('#current-password', `wrong guess ${i}`);
      await leftOpen.fill('#new-password', 'a brand new passphrase');
      await leftOpen.fill('#confirm-password', 'a brand new passphrase');
      await leftOpen.click('#password-submit');
      await expect.poll(async () => (await leftOpen.textContent('#password-status')) ?? '').toMatch(/wrong/i);
      if (i < 2) await leftOpen.evaluate(() => (document.getElementById('password-status') as HTMLElement).replaceChildren());
    }
    await captureState(leftOpen, shots, 'left-open-after-three-wrong-passwords');
    // Its next call finds the session ended: back to signing in.
    await leftOpen.reload();
    await leftOpen.waitForSelector('body[data-state="sign-in"]', { state: 'attached' });

    await own.reload();
    await own.waitForSelector('#audit-body tr[data-action="session.ended"]');
    const refusals = await own.$$eval('#audit-body tr[data-action="reauth.failed"]', (rows) => rows.map((row) => row.textContent ?? ''));
    await captureState(own, shots, 'owner-activity-shows-refused-changes');
    await own.click('#sign-out-everywhere');
    await own.waitForSelector('body[data-state="sign-in"]', { state: 'attached' });
    await captureState(own, shots, 'signed-out-everywhere');

    // Assess
    expect(refusals).toHaveLength(3);
    for (const row of refusals) expect(row).toContain('POST /settings/api/password');
    expect(await own.textContent('#sign-in-status')).toMatch(/signed out everywhere/i);
  }, 180_000);
});
