/**
 * The settings page tells the owner, right after signing in, that attempts at their address were refused since
 * their last sign-in (issue 32, finding 3), in headless Chromium against the local front: strangers' wrong passwords
 * from other source IPs, then the owner signs in through the form and reads the notice; the recent activity keeps
 * the count. The page is watched for script errors, console errors and CSP violations; its state is kept as a
 * screenshot in test/artifacts/sign-in-refusals/.
 */
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { PASSWORD, startSignInWorld, type SignInWorld } from '../support/sign-in-world';
import { browserSession } from './browser-session';
import { captureState, watchPage } from './chromium';

let world: SignInWorld;
let browser: Browser;
let shots: string;
const contexts = browserSession(
  'sign-in-refusals',
  undefined,
  async () => (world = await startSignInWorld()),
  (launched, folder) => {
    browser = launched;
    shots = folder;
  },
);

describe('the settings page after signing in', () => {
  it('shows how many attempts at the address were refused since the last sign-in, and when the last one was', async () => {
    // Prepare
    world.freshDay();
    const { email } = await world.owner();
    expect(await world.strangersGuess(email, 2)).toEqual([401, 401]);
    const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1100, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const problems = await watchPage(page);
    await page.goto(`${world.stack.baseUrl}/settings`);
    await page.waitForSelector('body[data-state="sign-in"]', { state: 'attached' });

    // Act
    await page.fill('#email', email);
    await page.fill('#password', PASSWORD);
    await page.click('#sign-in-submit');
    await page.waitForSelector('body[data-state="settings"]', { state: 'attached' });
    await page.waitForSelector('#audit-body tr[data-action="sign_in.refused_attempts"]');

    // Assess
    const notice = ((await page.textContent('#settings-status')) ?? '').trim();
    const when = world.clock.now.toLocaleString('en-US', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'short' });
    expect(notice).toBe(
      `2 sign-in attempts with your e-mail address failed since you last signed in (the last on ${when}). ` +
        'If that was not you, someone may be trying to guess your password: keep it long and used nowhere else, and turn on two-factor sign-in.',
    );
    expect(((await page.textContent('#audit-body tr[data-action="sign_in.refused_attempts"]')) ?? '').replace(/\s+/g, ' ')).toContain('Sign-in attempts refused since the last sign-in: 2');
    await captureState(page, shots, 'signed-in-after-refused-attempts');
    expect(problems.pageErrors).toEqual([]);
    expect(problems.cspViolations).toEqual([]);
    // Chromium's note of the page's first question, who is signed in (nobody yet: 401).
    expect(problems.consoleErrors).toEqual(['Failed to load resource: the server responded with a status of 401 (Unauthorized)']);
  });
});
