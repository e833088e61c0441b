/**
 * The player site's join page in a real browser (headless Chromium through
 * playwright-core) against the local front on DynamoDB Local: a created
 * link opened (the claim form, a preview that changes nothing), the claim
 * (the ticket, the token gone from the address bar, the HttpOnly Secure
 * SameSite=Strict cookie), the player's and staff's messages and the status,
 * a second browser refused, every unavailable state, a refused input, the
 * ticket still being created, and the loading state. Every page is watched
 * for script errors, console errors and CSP violations, and every state is
 * kept as a full-page screenshot in test/artifacts/player-site/.
 *
 * The link is the one the API gives (http://127.0.0.1:<port>/v1/join/<id>#token=…):
 * Chromium treats 127.0.0.1 as a potentially trustworthy origin, so the
 * Secure cookie is kept over plain http there.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { createPlayerHandler } from '../../lambdas/player/player-pipeline';
import { definition as invitationsFunction } from '../../lambdas/invitations/handler';
import { definition as playerFunction } from '../../lambdas/player/handler';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { type Platform } from '../../lambdas/shared/platform';
import { HANDLERS } from '../../local/handlers';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';
import { artifactsDir, launchChromium, watchPage, type PageProblems, captureState, tabTo } from './chromium';
import { localPlatform } from '../support/local-platform';

let stack: TestStack;
/** Player limits raised out of reach; the ticket bridge can be switched off. */
let platform: Platform;
let bridgeDown = false;
let browser: Browser;
let shots: string;

beforeAll(async () => {
  shots = artifactsDir('player-site');
  const raised = LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: 100_000 }));
  const player = createPlayerHandler({ ...playerFunction, platform: () => platform });
  const invitations = createPartnerApiHandler({ ...invitationsFunction, platform: () => platform });
  stack = await startTestStack({ handlers: { ...HANDLERS, player, invitations } });
  platform = localPlatform({ limits: raised, localSwitches: { ticketBridgeDown: () => bridgeDown } });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 180_000);

/** Each test's browser contexts, closed after it. */
const contexts: BrowserContext[] = [];
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});

let serial = 0;

/** A fresh invitation from a fresh organization: its id, link (with the token), page (without) and token. */
async function invitation() {
  const org = await createOrgWithManagerKey(stack.office, ['invitations:read', 'invitations:write', 'tickets:read']);
  const response = await stack.call(`/partners/${org.partner_id}/invitations`, {
    method: 'POST',
    headers: { ...bearer(org.key.key), 'Content-Type': 'application/json', 'Idempotency-Key': `player-browser-${(serial += 1)}-${Date.now()}` },
    body: JSON.stringify({ game: 'minecraft', notes: 'Internal: check the alt account.' }),
  });
  expect(response.status).toBe(201);
  const { data } = (await response.json()) as { data: { id: string; link: string } };
  const [page, fragment] = data.link.split('#');
  return { org, id: data.id, link: data.link, page, token: new URLSearchParams(fragment).get('token') as string };
}

async function invitationState(inv: Awaited<ReturnType<typeof invitation>>) {
  const response = await stack.call(`/partners/${inv.org.partner_id}/invitations/${inv.id}`, { headers: bearer(inv.org.key.key) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { state: string; ticket_id?: string } }).data;
}

async function tableSnapshot() {
  const items = (await stack.client.send(new ScanCommand({ TableName: stack.tables.domain, ConsistentRead: true }))).Items ?? [];
  return JSON.stringify(items.sort((a, b) => `${a.pk}${a.sk}`.localeCompare(`${b.pk}${b.sk}`)));
}

/** A fresh browser context (no cookies) and a watched page in it. */
async function newPage(): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1024, height: 720 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  return { context, page, problems: await watchPage(page) };
}

/** Waits until the page shows section `state` (the script sets body[data-state]). */
const shown = (page: Page, state: string, timeout?: number) => page.waitForSelector(`body[data-state="${state}"]`, { state: 'attached', timeout });

/** Every state the tests visit: its screenshot, and its accessibility audit (chromium.ts captureState). */
const screenshot = (page: Page, name: string) => captureState(page, shots, name);

const text = async (page: Page, selector: string) => ((await page.textContent(selector)) ?? '').trim();
/** As rendered (the author line is a block of its own). */
const rendered = async (page: Page, selector: string) => (await page.innerText(selector)).trim();

/**
 * No script error and no CSP violation; console errors only Chromium's notes of the
 * JSON routes' expected refusals ("Failed to load resource: … status of 404 …").
 */
async function expectNoProblems(problems: PageProblems, expectedStatuses: number[] = []) {
  const statusOf = (e: string) => Number(/^Failed to load resource: the server responded with a status of (\d{3})\b/.exec(e)?.[1]);
  // The refusals the page handles were reported (the watch is live); console events may trail the page's own update.
  await expect.poll(() => [...new Set(problems.consoleErrors.map(statusOf).filter((s) => expectedStatuses.includes(s)))].sort()).toEqual([...expectedStatuses].sort());
  expect(problems.pageErrors).toEqual([]);
  expect(problems.cspViolations).toEqual([]);
  expect(problems.consoleErrors.filter((e) => !expectedStatuses.includes(statusOf(e)))).toEqual([]);
}

/** The sections the page shows (one at a time). */
async function visibleSections(page: Page) {
  const visible: string[] = [];
  for (const section of ['loading', 'unavailable', 'claim', 'processing', 'ticket']) if (await page.isVisible(`#${section}`)) visible.push(section);
  return visible;
}

const player = { in_game_name: 'Steve', game_account_id: '069a79f4-44e9-4726-a5be-fca90e38aaf5' };

describe('the join page in Chromium', { timeout: 240_000 }, () => {
  it('is watched for CSP violations: markup the policy does not allow is reported', async () => {
    const inv = await invitation();
    const { page, problems } = await newPage();
    await page.goto(inv.link);
    await shown(page, 'claim');
    await expectNoProblems(problems);
    // Script and style the page's hashes do not cover are refused, and the watch reports both.
    await expect(page.addScriptTag({ content: 'window.injected = 1' })).rejects.toThrow(/Content Security Policy/);
    await expect(page.addStyleTag({ content: 'body { color: red }' })).rejects.toThrow(/Content Security Policy/);
    await expect.poll(() => problems.cspViolations.length).toBe(2);
    expect(problems.cspViolations.map((v) => v.split(' ')[0]).sort()).toEqual(['script-src-elem', 'style-src-elem']);
    expect(problems.consoleErrors.filter((e) => /Content Security Policy/.test(e))).toHaveLength(2);
    expect(await page.evaluate('window.injected')).toBeUndefined();
  });

  it('shows the loading state until the view answers', async () => {
    const inv = await invitation();
    const { page, problems } = await newPage();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname.endsWith('/view'),
      async (route) => {
        await released;
        await route.continue();
      },
    );
    await page.goto(inv.link);
    await shown(page, 'loading');
    expect(await visibleSections(page)).toEqual(['loading']);
    expect(await text(page, '#loading')).toBe('Loading your invitation…');
    await screenshot(page, '01-loading');
    release();
    await shown(page, 'claim');
    await expectNoProblems(problems);
  });

  it('claims a link, shows the ticket and its conversation to that browser, and only "already used" to another', async () => {
    const inv = await invitation();
    const { context, page, problems } = await newPage();

    // 1. The link opened: the claim form with the game; the preview wrote nothing, the invitation is still pending.
    const before = await tableSnapshot();
    await page.goto(inv.link);
    await shown(page, 'claim');
    expect(await visibleSections(page)).toEqual(['claim']);
    expect(await text(page, '#claim h1')).toBe('You are invited to a screening ticket');
    expect(await text(page, '#game')).toBe('Minecraft');
    expect(await page.isVisible('#claim-form')).toBe(true);
    expect(await page.isVisible('#claim-error')).toBe(false);
    // The organization's notes are not the player's to read.
    expect(await page.content()).not.toContain('alt account');
    await screenshot(page, '02-claim');
    expect(await tableSnapshot()).toBe(before);
    expect((await invitationState(inv)).state).toBe('pending');

    // 2. The claim: the ticket, the token gone from the address bar, the credential cookie.
    await page.fill('#in-game-name', player.in_game_name);
    await page.fill('#game-account-id', player.game_account_id);
    await page.click('#claim-submit');
    await shown(page, 'ticket');
    expect(await visibleSections(page)).toEqual(['ticket']);
    expect(await text(page, '#ticket-status')).toBe('Open: waiting for staff');
    expect(await page.isVisible('#no-messages')).toBe(true);
    expect(await page.locator('#messages li').count()).toBe(0);
    expect(page.url()).toBe(inv.page);
    expect(page.url()).not.toContain('token');
    expect(page.url()).not.toContain(inv.token);
    await screenshot(page, '03-ticket-open');

    const now = Date.now() / 1000;
    const cookies = await context.cookies();
    expect(cookies.map((c) => c.name)).toEqual(['player_credential']);
    const [cookie] = cookies;
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: `/v1/join/${inv.id}`, domain: '127.0.0.1' });
    expect(cookie.expires).toBeGreaterThan(now);
    expect(cookie.expires).toBeLessThanOrEqual(now + 90 * 86_400);
    // HttpOnly: the page's script cannot read it.
    expect(await page.evaluate('document.cookie')).toBe('');

    const joined = await invitationState(inv);
    expect(joined.state).toBe('joined');
    expect(await text(page, '#ticket-id')).toBe(joined.ticket_id);

    // 3. The player's message, then staff's after a reload, then the status change.
    await page.fill('#message-text', 'Here is my clip:\nhttps://example.com/clip');
    await page.click('#message-submit');
    await page.waitForSelector('#messages li.player');
    expect(await page.locator('#messages li').count()).toBe(1);
    expect(await rendered(page, '#messages li.player')).toMatch(/^You · .+\nHere is my clip:\nhttps:\/\/example\.com\/clip$/);
    expect(await page.inputValue('#message-text')).toBe('');
    expect(await page.isVisible('#no-messages')).toBe(false);
    expect(await page.isVisible('#message-error')).toBe(false);
    await screenshot(page, '04-ticket-player-message');

    await stack.office.invitations!.message(inv.id, 'staff', 'Thanks, we are reviewing it.');
    await page.reload();
    await shown(page, 'ticket');
    await page.waitForSelector('#messages li.staff');
    expect(await page.locator('#messages li').evaluateAll((items) => items.map((li) => li.className))).toEqual(['player', 'staff']);
    expect(await rendered(page, '#messages li.staff')).toMatch(/^Staff · .+\nThanks, we are reviewing it\.$/);
    expect(await text(page, '#ticket-status')).toBe('Open: waiting for staff');
    await screenshot(page, '05-ticket-staff-message');

    await stack.office.invitations!.status(inv.id, 'waiting_user');
    await page.reload();
    await shown(page, 'ticket');
    expect(await text(page, '#ticket-status')).toBe('Waiting for your reply');
    expect(await page.locator('#messages li').count()).toBe(2);
    await screenshot(page, '06-ticket-waiting-user');
    await expectNoProblems(problems);

    // 4. Another browser (no cookie) with the same link: only that the link was used.
    const other = await newPage();
    await other.page.goto(inv.link);
    await shown(other.page, 'unavailable');
    expect(await visibleSections(other.page)).toEqual(['unavailable']);
    expect(await text(other.page, '#unavailable-title')).toBe('This link has already been used');
    expect(await other.page.isVisible('#claim-form')).toBe(false);
    expect(await other.page.isVisible('#message-form')).toBe(false);
    expect(await other.page.content()).not.toContain('Thanks, we are reviewing it.');
    expect(await other.context.cookies()).toEqual([]);
    await screenshot(other.page, '07-already-used');
    await expectNoProblems(other.problems);
  });

  it('claims by keyboard alone, every stop with visible focus', async () => {
    const inv = await invitation();
    const { page, problems } = await newPage();
    await page.goto(inv.link);
    await shown(page, 'claim');
    await tabTo(page, 'in-game-name');
    await page.keyboard.type(player.in_game_name);
    expect(await tabTo(page, 'game-account-id')).toEqual(['game-account-id']);
    await page.keyboard.type(player.game_account_id);
    expect(await tabTo(page, 'claim-submit')).toEqual(['claim-submit']);
    await screenshot(page, '02b-claim-keyboard-focus');
    await page.keyboard.press('Enter');
    await shown(page, 'ticket');
    expect(await text(page, '#ticket-status')).toBe('Open: waiting for staff');
    // The conversation is reachable the same way.
    await tabTo(page, 'message-text');
    await expectNoProblems(problems);
  });

  it('tells an invalid, a revoked and an expired link apart', async () => {
    const valid = await invitation();
    const other = await invitation();

    // A well-formed token of another invitation, and no token at all: "not valid" (the view answers 404).
    for (const link of [`${valid.page}#token=${other.token}`, valid.page]) {
      const { page, problems } = await newPage();
      await page.goto(link);
      await shown(page, 'unavailable');
      expect(await visibleSections(page)).toEqual(['unavailable']);
      expect(await text(page, '#unavailable-title')).toBe('This link is not valid');
      expect(await page.isVisible('#claim-form')).toBe(false);
      if (link !== valid.page) await screenshot(page, '08-invalid-link');
      await expectNoProblems(problems, [404]);
    }

    const revoked = await invitation();
    const revoke = await stack.call(`/partners/${revoked.org.partner_id}/invitations/${revoked.id}/revoke`, { method: 'POST', headers: bearer(revoked.org.key.key) });
    expect(revoke.status).toBe(200);
    const expired = await invitation();
    await stack.office.invitations!.expireNow(expired.id);

    for (const [inv, title, name] of [
      [revoked, 'This invitation was withdrawn', '09-revoked'],
      [expired, 'This invitation has expired', '10-expired'],
    ] as const) {
      const { page, problems } = await newPage();
      await page.goto(inv.link);
      await shown(page, 'unavailable');
      expect(await visibleSections(page)).toEqual(['unavailable']);
      expect(await text(page, '#unavailable-title')).toBe(title);
      expect(await page.isVisible('#claim-form')).toBe(false);
      await screenshot(page, name);
      await expectNoProblems(problems);
    }
  });

  it('shows the notice for details the API refuses (422), and claims nothing', async () => {
    const inv = await invitation();
    const { context, page, problems } = await newPage();
    await page.goto(inv.link);
    await shown(page, 'claim');
    await page.fill('#in-game-name', player.in_game_name);
    await page.fill('#game-account-id', 'has space');
    await page.click('#claim-submit');
    await page.waitForSelector('#claim-error', { state: 'visible' });
    expect(await text(page, '#claim-error')).toMatch(/^Please check your details: the in-game name takes 1 to 40 characters/);
    expect(await visibleSections(page)).toEqual(['claim']);
    expect(await page.isEnabled('#claim-submit')).toBe(true);
    expect(await page.inputValue('#game-account-id')).toBe('has space');
    await screenshot(page, '11-claim-error');
    expect(await context.cookies()).toEqual([]);
    expect((await invitationState(inv)).state).toBe('pending');
    await expectNoProblems(problems, [422]);
  });

  it('shows that the ticket is being created while the ticket service is down, and the ticket once it is back', async () => {
    const inv = await invitation();
    const { page, problems } = await newPage();
    await page.goto(inv.link);
    await shown(page, 'claim');
    bridgeDown = true;
    try {
      await page.fill('#in-game-name', player.in_game_name);
      await page.fill('#game-account-id', player.game_account_id);
      await page.click('#claim-submit');
      await shown(page, 'processing');
      expect(await visibleSections(page)).toEqual(['processing']);
      expect(await text(page, '#processing h1')).toBe('Your submission was received');
      expect(page.url()).toBe(inv.page);
      await screenshot(page, '12-processing');
      expect((await invitationState(inv)).state).toBe('claiming');
    } finally {
      bridgeDown = false;
    }
    // The page polls the view on its own; the claiming browser's view finishes the claim.
    await shown(page, 'ticket', 30_000);
    expect(await text(page, '#ticket-status')).toBe('Open: waiting for staff');
    await screenshot(page, '13-ticket-after-processing');
    expect((await invitationState(inv)).state).toBe('joined');
    await expectNoProblems(problems);
  });
});

describe('a second player cookie planted by another website', { timeout: 240_000 }, () => {
  it('shows that the page refuses to guess, writes nothing, and shows the ticket again once the planted cookie is gone', async () => {
    const inv = await invitation();
    const { context, page, problems } = await newPage();
    await page.goto(inv.link);
    await shown(page, 'claim');
    await page.fill('#in-game-name', player.in_game_name);
    await page.fill('#game-account-id', player.game_account_id);
    await page.click('#claim-submit');
    await shown(page, 'ticket');

    // Another host of a shared parent domain would use Domain=<parent>; on 127.0.0.1 a longer path shows the same:
    // the browser sends the planted cookie first, then the player's own.
    const plantedPath = `/v1/join/${inv.id}/view`;
    await context.addCookies([{ name: 'player_credential', value: 'A'.repeat(43), domain: '127.0.0.1', path: plantedPath, secure: true, httpOnly: true, sameSite: 'Strict' }]);
    const before = await tableSnapshot();
    await page.reload();
    await shown(page, 'unavailable');
    expect(await visibleSections(page)).toEqual(['unavailable']);
    expect(await text(page, '#unavailable-title')).toBe('This page cannot be shown safely in this browser');
    expect(await text(page, '#unavailable-text')).toContain('second access cookie that this site did not set');
    await screenshot(page, '14-two-player-cookies');
    expect(await tableSnapshot()).toBe(before);

    await context.clearCookies({ name: 'player_credential', path: plantedPath });
    await page.reload();
    await shown(page, 'ticket');
    expect(await text(page, '#ticket-status')).toBe('Open: waiting for staff');
    await expectNoProblems(problems, [400]);
  });
});
