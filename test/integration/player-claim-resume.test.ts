/**
 * The claim is resumable (issue 31): a claim applied while its answer was lost (every SDK try lost, the function's
 * deadline right after the write) is answered again, with a fresh credential, to a resubmission of the same
 * submission id from the same browser, through the local front on DynamoDB Local with faults injected at the call
 * site (local/fault-injection.ts). Another browser (another submission id) still gets 409, the credential nobody
 * received stops working, and there is always exactly one ticket.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { credentialDigest } from '../../lambdas/invitations/claim';
import { reconcileClaims } from '../../lambdas/invitations/claim-reconciler';
import { InvitationStore, invitationKey } from '../../lambdas/invitations/invitation-store';
import { DynamoTicketBridge } from '../../lambdas/tickets/ticket-bridge';
import { FaultPlan } from '../../local/fault-injection';
import { captureLogs } from '../support/log-capture';
import { startTestStack, type TestStack } from '../support/test-stack';
import { CLAIMING_PLAYER, invitationToClaim, submissionId } from '../support/claim-world';

const faults = new FaultPlan();
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ faults, webhooks: false });
}, 180_000);
afterAll(() => stack?.stop());
afterEach(() => faults.reset());

const player = CLAIMING_PLAYER;

/** A fresh invitation of a fresh organization: its id, page (the link without its fragment) and token. */
const invitation = () => invitationToClaim(stack, 'Internal: check the alt account.');

type Body = { ok: boolean; data?: any; error?: { code: string; message: string } };
interface Answer {
  readonly status: number;
  readonly body: Body | undefined;
  /** The player cookie the answer set (`player_credential=…`), if any. */
  readonly cookie: string | undefined;
}

/**
 * A browser's calls from its own loopback address: the player limits count by source IP (30 calls a minute), so each
 * test's browsers count apart.
 */
function browserAt(localAddress: string) {
  const call = (url: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
      const headers = { ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }), ...init.headers };
      const req = request(url, { method: init.method ?? 'GET', localAddress, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          let body: Body | undefined;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
          } catch {
            body = undefined;
          }
          const setCookie = (response.headers['set-cookie'] ?? []).find((value) => value.startsWith('player_credential='));
          resolve({ status: response.statusCode ?? 0, body, cookie: setCookie?.split(';')[0] });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  return {
    claim: (page: string, body: Record<string, unknown>) => call(`${page}/claim`, { method: 'POST', body }),
    view: (page: string, cookie: string) => call(`${page}/view`, { headers: { Cookie: cookie } }),
    message: (page: string, cookie: string, text: string) => call(`${page}/messages`, { method: 'POST', headers: { Cookie: cookie }, body: { text } }),
  };
}
let address = 40;
/** A browser at an address no other test of this file used. */
const newBrowser = () => browserAt(`127.0.0.${(address += 1)}`);

/** The claim's transaction (claimAndJoin: pending → joined with the ticket and the event; beginClaim while the ticket store is down). */
const claimTransaction = (input: Readonly<Record<string, unknown>>) => JSON.stringify(input).includes('credential_digest');
/** A joining transaction (claimAndJoin; completeClaim: claiming → joined). */
const joiningTransaction = (input: Readonly<Record<string, unknown>>) => JSON.stringify(input).includes('joined_at');
/** The re-issue of the credential to a resubmission (a single UpdateItem of the invitation's credential digest). */
const credentialReissue = (input: Readonly<Record<string, unknown>>) => String(input.UpdateExpression ?? '').includes('credential_digest');

const stored = async (id: string) =>
  (await stack.client.send(new GetCommand({ TableName: stack.tables.domain, Key: invitationKey(id), ConsistentRead: true }))).Item as Record<string, unknown>;

async function domainItems() {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await stack.client.send(new ScanCommand({ TableName: stack.tables.domain, ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
const ticketsOf = async (invitationId: string) => (await domainItems()).filter((item) => item.sk === 'TICKET' && item.invitation_id === invitationId);
const joinedEvents = async (partnerId: string) => (await stack.office.records!.events(partnerId)).events.filter((event) => event.type === 'invitation.joined');
const credentialOf = (cookie: string) => cookie.split('=')[1];

/** The claiming browser's cookie works: its view shows the ticket, and it can write a message. */
async function expectWorkingCredential(browser: ReturnType<typeof browserAt>, page: string, cookie: string, ticketId: string) {
  const mine = await browser.view(page, cookie);
  expect(mine.status).toBe(200);
  expect(mine.body?.data).toMatchObject({ access: 'player', invitation: { state: 'joined' }, ticket: { id: ticketId } });
  const posted = await browser.message(page, cookie, 'Hello, it is me.');
  expect(posted.status).toBe(201);
  expect(posted.body?.data.ticket.messages).toEqual([expect.objectContaining({ author: 'player', text: 'Hello, it is me.' })]);
}

describe('a claim applied while its answer was lost', () => {
  it('answers what happened when every try of the claim’s transaction lost its answer (fail-after): 201 at once, a working cookie, one ticket, one event', async () => {
    // Prepare
    const inv = await invitation();
    const browser = newBrowser();
    const rule = faults.arm({ component: 'api', call: 'TransactWriteItems', matches: claimTransaction, effect: 'fail-after' });

    // Act
    const lost = await browser.claim(inv.page, { token: inv.token, ...player, submission_id: submissionId() });

    // Assess
    expect(rule.fired()).toBe(true);
    expect(lost.status).toBe(201);
    expect(lost.body?.data).toMatchObject({ invitation: { id: inv.id, state: 'joined' }, access: 'player', ticket: { status: 'open' } });
    const tickets = await ticketsOf(inv.id);
    expect(tickets).toHaveLength(1);
    expect(lost.body?.data.ticket.id).toBe(tickets[0].id);
    expect((await stored(inv.id)).credential_digest).toBe(credentialDigest(credentialOf(lost.cookie!)));
    await expectWorkingCredential(browser, inv.page, lost.cookie!, String(tickets[0].id));
    expect(await joinedEvents(inv.org.partner_id)).toHaveLength(1);
  });

  it('answers the same browser again after the answer never reached it (crash-after: 502): a new cookie, the undelivered credential revoked, one ticket', async () => {
    // Prepare
    const inv = await invitation();
    const browser = newBrowser();
    const submission = submissionId();
    faults.arm({ component: 'api', call: 'TransactWriteItems', matches: claimTransaction, effect: 'crash-after' });

    // Act
    const lost = await browser.claim(inv.page, { token: inv.token, ...player, submission_id: submission });
    const afterLost = await stored(inv.id);
    const again = await browser.claim(inv.page, { token: inv.token, ...player, submission_id: submission });

    // Assess
    expect(lost.status).toBe(502);
    expect(lost.cookie).toBeUndefined();
    expect(afterLost).toMatchObject({ state: 'joined' });
    expect(again.status).toBe(201);
    expect(again.body?.data).toMatchObject({ invitation: { id: inv.id, state: 'joined' }, access: 'player', ticket: { status: 'open' } });
    const tickets = await ticketsOf(inv.id);
    expect(tickets).toHaveLength(1);
    expect(again.body?.data.ticket.id).toBe(tickets[0].id);
    await expectWorkingCredential(browser, inv.page, again.cookie!, String(tickets[0].id));
    // One credential is valid: the one the resubmission received. The first (never delivered) digest is gone.
    const after = await stored(inv.id);
    expect(after.credential_digest).toBe(credentialDigest(credentialOf(again.cookie!)));
    expect(after.credential_digest).not.toBe(afterLost.credential_digest);
    expect((await browser.view(inv.page, `player_credential=${randomBytes(32).toString('base64url')}`)).status).toBe(404);
    expect(await joinedEvents(inv.org.partner_id)).toHaveLength(1);
  });

  it('answers the same browser again after the function died right after the claim (crash-after: 502), and another browser still gets 409', async () => {
    // Prepare
    const inv = await invitation();
    const browser = newBrowser();
    const other = newBrowser();
    const submission = submissionId();
    faults.arm({ component: 'api', call: 'TransactWriteItems', matches: claimTransaction, effect: 'crash-after' });

    // Act
    const lost = await browser.claim(inv.page, { token: inv.token, ...player, submission_id: submission });
    const otherBrowser = await other.claim(inv.page, { token: inv.token, in_game_name: 'Alex', game_account_id: 'alex_01', submission_id: submissionId() });
    const noSubmission = await other.claim(inv.page, { token: inv.token, ...player });
    const again = await browser.claim(inv.page, { token: inv.token, ...player, submission_id: submission });

    // Assess
    expect(lost.status).toBe(502);
    expect(lost.cookie).toBeUndefined();
    expect(otherBrowser.status).toBe(409);
    expect(otherBrowser.body?.error).toEqual({ code: 'INVITE_UNAVAILABLE', message: 'This link has already been used.' });
    expect(otherBrowser.cookie).toBeUndefined();
    expect(noSubmission.status).toBe(409);
    expect(again.status).toBe(201);
    const tickets = await ticketsOf(inv.id);
    expect(tickets).toHaveLength(1);
    expect(tickets[0]).toMatchObject({ player: { in_game_name: 'Steve', game_account_id: player.game_account_id } });
    await expectWorkingCredential(browser, inv.page, again.cookie!, String(tickets[0].id));
  });

  it('is no second way in: the submission id without the link’s token is refused, and only its digest is stored', async () => {
    // Prepare
    const inv = await invitation();
    const browser = newBrowser();
    const submission = submissionId();
    faults.arm({ component: 'api', call: 'TransactWriteItems', matches: claimTransaction, effect: 'crash-after' });
    expect((await browser.claim(inv.page, { token: inv.token, ...player, submission_id: submission })).status).toBe(502);
    const otherInvitation = await invitation();

    // Act
    const wrongToken = await browser.claim(inv.page, { token: otherInvitation.token, ...player, submission_id: submission });
    const noToken = await browser.claim(inv.page, { ...player, submission_id: submission });
    const tooShort = await browser.claim(inv.page, { token: inv.token, ...player, submission_id: 'short' });

    // Assess
    expect(wrongToken.status).toBe(409);
    expect(wrongToken.body?.error).toEqual({ code: 'INVITE_UNAVAILABLE', message: 'This link is not valid.' });
    expect(noToken.status).toBe(409);
    expect(tooShort.status).toBe(422);
    expect(tooShort.body?.error?.code).toBe('INVALID_FIELD');
    expect([wrongToken.cookie, noToken.cookie, tooShort.cookie]).toEqual([undefined, undefined, undefined]);
    const item = await stored(inv.id);
    expect(item.submission_digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(await domainItems())).not.toContain(submission);
  });

  it('answers the same browser again after the function died right after the joining transaction: the same ticket, one invitation.joined', async () => {
    // Prepare
    const inv = await invitation();
    const browser = newBrowser();
    const submission = submissionId();
    faults.arm({ component: 'api', call: 'TransactWriteItems', matches: joiningTransaction, effect: 'crash-after' });

    // Act
    const lost = await browser.claim(inv.page, { token: inv.token, ...player, submission_id: submission });
    const joined = await stored(inv.id);
    const again = await browser.claim(inv.page, { token: inv.token, ...player, submission_id: submission });

    // Assess
    expect(lost.status).toBe(502);
    expect(joined).toMatchObject({ state: 'joined', ticket_id: expect.stringMatching(/^tkt_/) });
    expect(again.status).toBe(201);
    expect(again.body?.data).toMatchObject({ invitation: { state: 'joined' }, access: 'player', ticket: { id: joined.ticket_id } });
    expect(await ticketsOf(inv.id)).toHaveLength(1);
    expect(await joinedEvents(inv.org.partner_id)).toHaveLength(1);
    await expectWorkingCredential(browser, inv.page, again.cookie!, String(joined.ticket_id));
  });

  it('answers the same browser again after a crash and a reconciler run (which finds nothing left to finish)', async () => {
    // Prepare
    const inv = await invitation();
    const browser = newBrowser();
    const submission = submissionId();
    faults.arm({ component: 'api', call: 'TransactWriteItems', matches: claimTransaction, effect: 'crash-after' });
    expect((await browser.claim(inv.page, { token: inv.token, ...player, submission_id: submission })).status).toBe(502);
    const invitations = new InvitationStore(stack.client, stack.tables.domain);
    const tickets = new DynamoTicketBridge(stack.client, stack.tables.domain);
    const later = new Date(Date.now() + 2 * 60_000);
    await reconcileClaims({ client: stack.client, table: stack.tables.domain, invitations, tickets, clock: () => later });
    const reconciled = await stored(inv.id);

    // Act
    const again = await browser.claim(inv.page, { token: inv.token, ...player, submission_id: submission });

    // Assess
    expect(reconciled).toMatchObject({ state: 'joined', ticket_id: expect.stringMatching(/^tkt_/) });
    expect(again.status).toBe(201);
    expect(again.body?.data).toMatchObject({ access: 'player', ticket: { id: reconciled.ticket_id } });
    expect(await ticketsOf(inv.id)).toHaveLength(1);
    expect(await joinedEvents(inv.org.partner_id)).toHaveLength(1);
    await expectWorkingCredential(browser, inv.page, again.cookie!, String(reconciled.ticket_id));
  });

  it('recognises its own re-issue when that answer is lost below the SDK (lose-answer): 201 and a working cookie', async () => {
    // Prepare
    const inv = await invitation();
    const browser = newBrowser();
    const submission = submissionId();
    faults.arm({ component: 'api', call: 'TransactWriteItems', matches: claimTransaction, effect: 'crash-after' });
    expect((await browser.claim(inv.page, { token: inv.token, ...player, submission_id: submission })).status).toBe(502);
    const rule = faults.arm({ component: 'api', call: 'UpdateItem', matches: credentialReissue, effect: 'lose-answer' });

    // Act
    const again = await browser.claim(inv.page, { token: inv.token, ...player, submission_id: submission });

    // Assess
    expect(rule.fired()).toBe(true);
    expect(again.status).toBe(201);
    expect((await stored(inv.id)).credential_digest).toBe(credentialDigest(credentialOf(again.cookie!)));
    await expectWorkingCredential(browser, inv.page, again.cookie!, again.body?.data.ticket.id);
  });
});

describe('a claim whose answer the SDK lost and sent again (lose-answer)', () => {
  it('is answered right the first time: 201, a working cookie, one ticket, the submission’s digest stored', async () => {
    // Prepare
    const inv = await invitation();
    const browser = newBrowser();
    const rule = faults.arm({ component: 'api', call: 'TransactWriteItems', matches: claimTransaction, effect: 'lose-answer' });

    // Act
    const claimed = await browser.claim(inv.page, { token: inv.token, ...player, submission_id: submissionId() });

    // Assess
    expect(rule.fired()).toBe(true);
    expect(claimed.status).toBe(201);
    const tickets = await ticketsOf(inv.id);
    expect(tickets).toHaveLength(1);
    await expectWorkingCredential(browser, inv.page, claimed.cookie!, String(tickets[0].id));
    expect((await stored(inv.id)).submission_digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('what a claim with a submission id costs', () => {
  it('costs what a claim without one does: the same round trips and write units', async () => {
    // Prepare
    const [withId, without] = [await invitation(), await invitation()];
    const browser = newBrowser();
    const logs = captureLogs();

    // Act
    let answers: Answer[];
    try {
      answers = [await browser.claim(without.page, { token: without.token, ...player }), await browser.claim(withId.page, { token: withId.token, ...player, submission_id: submissionId() })];
    } finally {
      vi.restoreAllMocks();
    }

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    const costs = logs
      .lines()
      .filter((line) => line.message === 'request' && line.route === 'player-claim')
      .map((line) => line.dynamo as { round_trips: number; wcu: number })
      .map(({ round_trips, wcu }) => [round_trips, wcu]);
    expect(costs).toHaveLength(2);
    expect(costs[1]).toEqual(costs[0]);
  });
});

describe('concurrent browsers, each with its own submission id', () => {
  it('gives one ticket to one of 8, and a loser’s resubmission keeps answering 409', async () => {
    // Prepare
    const inv = await invitation();
    const browsers = Array.from({ length: 8 }, () => ({ browser: newBrowser(), submission: submissionId() }));

    // Act
    const answers = await Promise.all(browsers.map(({ browser, submission }, i) => browser.claim(inv.page, { token: inv.token, in_game_name: `Player ${i}`, game_account_id: `acct_${i}`, submission_id: submission })));
    const winner = answers.findIndex((answer) => answer.status === 201);
    // Two of the losers (the link counts 10 claims an hour: 8 and 2).
    const resubmitted = await Promise.all(
      browsers
        .filter((_, i) => i !== winner)
        .slice(0, 2)
        .map(({ browser, submission }) => browser.claim(inv.page, { token: inv.token, ...player, submission_id: submission })),
    );

    // Assess
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    expect(resubmitted.map((answer) => answer.status)).toEqual([409, 409]);
    expect(resubmitted.map((answer) => answer.cookie)).toEqual([undefined, undefined]);
    expect(await ticketsOf(inv.id)).toHaveLength(1);
    expect((await stored(inv.id)).credential_digest).toBe(credentialDigest(credentialOf(answers[winner].cookie!)));
  });
});
