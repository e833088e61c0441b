/**
 * The acceptance of the resumable claim (issue 31) in a real browser: Debian's headless Chromium through playwright-core
 * against the local front on DynamoDB Local, with the claim's transaction applied and its answer lost (the fault plan,
 * local/fault-injection.ts, armed before the click). The page shows its error; submitted again from the same page (or
 * the link opened again in the same browser after the tab was closed) it reaches the ticket; another browser gets
 * "already used"; one ticket. Every state is kept as a screenshot in test/artifacts/player-claim-resume/.
 */
import { browserSession } from './browser-session';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { FaultPlan } from '../../local/fault-injection';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';
import { captureState, watchPage, type PageProblems } from './chromium';

const faults = new FaultPlan();
let stack: TestStack;
let browser: Browser;
let shots: string;

const contexts = browserSession(
  'player-claim-resume',
  faults,
  async () => (stack = await startTestStack({ faults, webhooks: false })),
  (launched, folder) => ([browser, shots] = [launched, folder]),
);

let serial = 0;
const player = { in_game_name: 'Steve', game_account_id: '069a79f4-44e9-4726-a5be-fca90e38aaf5' };
const LOST = 'We could not confirm your submission. Please submit again: if it already arrived, this page then shows your ticket.';

/** A fresh invitation of a fresh organization: its id, link (with the token) and page (without). */
async function invitation() {
  const org = await createOrgWithManagerKey(stack.office, ['invitations:read', 'invitations:write', 'tickets:read']);
  const response = await stack.call(`/partners/${org.partner_id}/invitations`, {
    method: 'POST',
    headers: { ...bearer(org.key.key), 'Content-Type': 'application/json', 'Idempotency-Key': `claim-resume-browser-${(serial += 1)}-${Date.now()}` },
    body: JSON.stringify({ game: 'minecraft' }),
  });
  expect(response.status).toBe(201);
  const { data } = (await response.json()) as { data: { id: string; link: string } };
  return { id: data.id, link: data.link, page: data.link.split('#')[0] };
}

/** A page in `context` (a fresh one, no cookies and no storage, unless given), watched for script errors and CSP violations. */
async function newPage(given?: BrowserContext): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = given ?? (await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1024, height: 720 } }));
  if (!given) contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  return { context, page, problems: await watchPage(page) };
}

const shown = (page: Page, state: string) => page.waitForSelector(`body[data-state="${state}"]`, { state: 'attached' });
const screenshot = (page: Page, name: string) => captureState(page, shots, name);
const text = async (page: Page, selector: string) => ((await page.textContent(selector)) ?? '').trim();

/** No script error or CSP violation; console errors only Chromium's notes of the statuses the page handled. */
async function expectNoProblems(problems: PageProblems, expectedStatuses: number[] = []) {
  const statusOf = (e: string) => Number(/^Failed to load resource: the server responded with a status of (\d{3})\b/.exec(e)?.[1]);
  await expect.poll(() => [...new Set(problems.consoleErrors.map(statusOf).filter((s) => expectedStatuses.includes(s)))].sort()).toEqual([...expectedStatuses].sort());
  expect(problems.pageErrors).toEqual([]);
  expect(problems.cspViolations).toEqual([]);
  expect(problems.consoleErrors.filter((e) => !expectedStatuses.includes(statusOf(e)))).toEqual([]);
}

/** The claim's transaction (claimAndJoin: pending → joined with the ticket; the one write carrying the credential's digest). */
const claimTransaction = (input: Readonly<Record<string, unknown>>) => JSON.stringify(input).includes('credential_digest');

async function domainItems() {
  return (await stack.client.send(new ScanCommand({ TableName: stack.tables.domain, ConsistentRead: true }))).Items ?? [];
}
const ticketsOf = async (invitationId: string) => (await domainItems()).filter((item) => item.sk === 'TICKET' && item.invitation_id === invitationId);
const invitationOf = async (invitationId: string) => (await domainItems()).find((item) => item.pk === `INV#${invitationId}` && item.sk === 'INV');

async function fillAndSubmit(page: Page) {
  await page.fill('#in-game-name', player.in_game_name);
  await page.fill('#game-account-id', player.game_account_id);
  await page.click('#claim-submit');
}

describe('the join page when the claim’s answer is lost', { timeout: 240_000 }, () => {
  it('reaches the ticket when the player submits again from the same page; another browser gets "already used"; one ticket', async () => {
    // Prepare
    const inv = await invitation();
    const { context, page, problems } = await newPage();
    await page.goto(inv.link);
    await shown(page, 'claim');
    const lost = faults.arm({ component: 'api', call: 'TransactWriteItems', matches: claimTransaction, effect: 'crash-after' });

    // Act 1: the claim is applied, the function dies before it answers (502): the page says so.
    await fillAndSubmit(page);
    await page.waitForSelector('#claim-error:not([hidden])');

    // Assess 1
    expect(lost.fired()).toBe(true);
    expect(await text(page, '#claim-error')).toBe(LOST);
    expect(await page.isEnabled('#claim-submit')).toBe(true);
    expect(await page.inputValue('#in-game-name')).toBe(player.in_game_name);
    expect(await context.cookies()).toEqual([]);
    expect(await invitationOf(inv.id)).toMatchObject({ state: 'joined' });
    await screenshot(page, '01-answer-lost');

    // Act 2: the player submits again from the same page.
    await page.click('#claim-submit');
    await shown(page, 'ticket');

    // Assess 2: the ticket, the cookie, a message that is written; the submission forgotten.
    expect(await text(page, '#ticket-status')).toBe('Open: waiting for staff');
    expect(page.url()).toBe(inv.page);
    expect((await context.cookies()).map((c) => c.name)).toEqual(['player_credential']);
    const [ticket] = await ticketsOf(inv.id);
    expect(await text(page, '#ticket-id')).toBe(ticket.id);
    await screenshot(page, '02-resumed-ticket');
    await page.fill('#message-text', 'It is me, my first answer got lost.');
    await page.click('#message-submit');
    await page.waitForSelector('#messages li.player');
    expect(await page.locator('#messages li').count()).toBe(1);
    await screenshot(page, '03-resumed-message');
    expect(await page.evaluate('Object.keys(localStorage)')).toEqual([]);
    await expectNoProblems(problems, [502]);

    // Act 3: another browser opens the same link.
    const other = await newPage();
    await other.page.goto(inv.link);
    await shown(other.page, 'unavailable');

    // Assess 3
    expect(await text(other.page, '#unavailable-title')).toBe('This link has already been used');
    expect(await other.context.cookies()).toEqual([]);
    await screenshot(other.page, '04-other-browser-already-used');
    await expectNoProblems(other.problems);
    expect(await ticketsOf(inv.id)).toHaveLength(1);
  });

  it('reaches the ticket when the link is opened again in the same browser after the tab was closed (the function died: 502)', async () => {
    // Prepare
    const inv = await invitation();
    const first = await newPage();
    await first.page.goto(inv.link);
    await shown(first.page, 'claim');
    faults.arm({ component: 'api', call: 'TransactWriteItems', matches: claimTransaction, effect: 'crash-after' });
    await fillAndSubmit(first.page);
    await first.page.waitForSelector('#claim-error:not([hidden])');
    expect(await text(first.page, '#claim-error')).toBe(LOST);
    await screenshot(first.page, '05-answer-lost-502');
    await expectNoProblems(first.problems, [502]);
    await first.page.close();

    // Act: the same browser opens the link again.
    const again = await newPage(first.context);
    await again.page.goto(inv.link);
    await shown(again.page, 'ticket');

    // Assess
    expect(await text(again.page, '#ticket-status')).toBe('Open: waiting for staff');
    expect(again.page.url()).toBe(inv.page);
    expect((await first.context.cookies()).map((c) => c.name)).toEqual(['player_credential']);
    await screenshot(again.page, '06-reopened-ticket');
    await expectNoProblems(again.problems);
    expect(await ticketsOf(inv.id)).toHaveLength(1);
    expect(await invitationOf(inv.id)).toMatchObject({ state: 'joined' });
  });
});
