/**
 * The join page sends a message once however its answer is lost (issue 31), in headless Chromium against the local
 * front on DynamoDB Local: the message's transaction is applied and its answer lost (`fail-after`: 503, and
 * `crash-after`: the function dies, 502), the page says it could not confirm the message, the player presses Send
 * again, and the page sends the same text with the same client message id: the conversation shows the message once,
 * the organization gets one `ticket.message.created`. A new message then gets a new id. Screenshots of each state in
 * test/artifacts/player-message-resend/.
 */
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { definition as playerFunction } from '../../lambdas/player/handler';
import { createPlayerHandler } from '../../lambdas/player/player-pipeline';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { type Platform } from '../../lambdas/shared/platform';
import { FaultPlan } from '../../local/fault-injection';
import { HANDLERS } from '../../local/handlers';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';
import { browserSession } from './browser-session';
import { captureState, watchPage } from './chromium';
import { localPlatform } from '../support/local-platform';

let stack: TestStack;
const faults = new FaultPlan();
/** The player limits raised out of reach, on the plan's client. */
let platform: Platform;
let browser: Browser;
let shots: string;

const contexts = browserSession(
  'player-message-resend',
  faults,
  async () => {
    const player = createPlayerHandler({ ...playerFunction, platform: () => platform });
    stack = await startTestStack({ faults, webhooks: false, handlers: { ...HANDLERS, player } });
    const raised = LIMITS.map((limit) => (limit.kind === 'edge' ? limit : { ...limit, limit: 100_000 }));
    platform = localPlatform({ limits: raised });
    return stack;
  },
  (launched, folder) => ([browser, shots] = [launched, folder]),
);


let serial = 0;

/** A claimed ticket in a fresh browser: the page showing it, the organization, and every message body the page sent. */
async function claimedInBrowser() {
  const org = await createOrgWithManagerKey(stack.office, ['invitations:write', 'tickets:read']);
  const response = await stack.call(`/partners/${org.partner_id}/invitations`, {
    method: 'POST',
    headers: { ...bearer(org.key.key), 'Content-Type': 'application/json', 'Idempotency-Key': `message-resend-${(serial += 1)}-${Date.now()}` },
    body: JSON.stringify({ game: 'minecraft' }),
  });
  const { data } = (await response.json()) as { data: { id: string; link: string } };
  const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1024, height: 720 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const problems = await watchPage(page);
  const sent: Array<{ text: string; client_message_id?: string }> = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/messages')) sent.push(request.postDataJSON() as { text: string; client_message_id?: string });
  });
  await page.goto(data.link);
  await shown(page, 'claim');
  await page.fill('#in-game-name', 'Steve');
  await page.fill('#game-account-id', 'steve-1');
  await page.click('#claim-submit');
  await shown(page, 'ticket');
  return { org, id: data.id, page, problems, sent };
}

const shown = (page: Page, state: string) => page.waitForSelector(`body[data-state="${state}"]`, { state: 'attached' });

const messageEvents = async (partnerId: string) => (await stack.office.records!.events(partnerId)).events.filter((event) => event.type === 'ticket.message.created');

async function messageCount(org: Awaited<ReturnType<typeof createOrgWithManagerKey>>, invitationId: string) {
  const response = await stack.call(`/partners/${org.partner_id}/tickets/${invitationId}`, { headers: bearer(org.key.key) });
  return ((await response.json()) as { data: { message_count: number } }).data.message_count;
}

describe('the join page sending a message whose answer was lost', { timeout: 240_000 }, () => {
  it.each([
    ['fail-after', 503],
    ['crash-after', 502],
  ] as const)('%s (%i): the page asks to send again, sends the same id, and the message is posted once', async (effect, status) => {
    // Prepare
    const { org, id, page, problems, sent } = await claimedInBrowser();
    const fault = faults.arm({ component: 'api', call: 'TransactWriteItems', matches: (input) => JSON.stringify(input.TransactItems).includes('"author":"user"'), effect });
    await page.fill('#message-text', 'Here is my clip.');
    await page.click('#message-submit');
    await page.waitForSelector('#message-error:not([hidden])');
    expect(await page.textContent('#message-error')).toBe('We could not confirm that your message was sent. Please press Send again in a moment: it will not be posted twice.');
    expect(await page.inputValue('#message-text')).toBe('Here is my clip.');
    await captureState(page, shots, `${effect}-1-not-confirmed`);

    // Act
    await page.click('#message-submit');
    await page.waitForSelector('#messages li.player');

    // Assess
    expect(fault.fired()).toBe(true);
    expect(sent).toHaveLength(2);
    expect(sent[0].client_message_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(sent[1]).toEqual(sent[0]);
    expect(await page.locator('#messages li').count()).toBe(1);
    expect(await page.inputValue('#message-text')).toBe('');
    expect(await page.isVisible('#message-error')).toBe(false);
    expect(await messageEvents(org.partner_id)).toHaveLength(1);
    expect(await messageCount(org, id)).toBe(1);
    await captureState(page, shots, `${effect}-2-sent-once`);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.cspViolations).toEqual([]);
    expect(problems.consoleErrors.every((error) => error.includes(`status of ${status}`))).toBe(true);
  });

  it('gives the next message, and an edited text, a new id', async () => {
    // Prepare
    const { org, page, sent } = await claimedInBrowser();
    faults.arm({ component: 'api', call: 'TransactWriteItems', matches: (input) => JSON.stringify(input.TransactItems).includes('"author":"user"'), effect: 'fail' });
    await page.fill('#message-text', 'Frist message.');
    await page.click('#message-submit');
    await page.waitForSelector('#message-error:not([hidden])');

    // Act
    await page.fill('#message-text', 'First message.');
    await page.click('#message-submit');
    await page.waitForSelector('#messages li.player');
    await page.fill('#message-text', 'Second message.');
    await page.click('#message-submit');
    await page.waitForFunction(() => document.querySelectorAll('#messages li.player').length === 2);

    // Assess
    expect(sent.map((body) => body.text)).toEqual(['Frist message.', 'First message.', 'Second message.']);
    expect(new Set(sent.map((body) => body.client_message_id)).size).toBe(3);
    expect(await messageEvents(org.partner_id)).toHaveLength(2);
  });
});
