/**
 * A player's message is stored once however its answer is lost (issue 31), through the local front on DynamoDB
 * Local with faults injected at the call: the message's transaction applied and every try's answer lost
 * (`fail-after`: 503) or the function dying right after it (`crash-after`: 502), then the page sending the same
 * message again with the same client message id → the answer a first success gives, one message, one
 * `ticket.message.created` (one event id). The same id with another text is refused (409 IDEMPOTENCY_CONFLICT). The
 * SDK's own retry of a lost answer (`lose-answer`) is harmless already (the transaction's ClientRequestToken).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { definition as playerFunction } from '../../lambdas/player/handler';
import { createPlayerHandler } from '../../lambdas/player/player-pipeline';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { createPlatform, sharedPlatform, type Platform } from '../../lambdas/shared/platform';
import { FaultPlan, type FaultEffect } from '../../local/fault-injection';
import { HANDLERS } from '../../local/handlers';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
const faults = new FaultPlan();
/** The player limits raised out of reach (every call of this file comes from one address), on the plan's client. */
let platform: Platform;
beforeAll(async () => {
  const player = createPlayerHandler({ ...playerFunction, platform: () => platform });
  stack = await startTestStack({ faults, webhooks: false, handlers: { ...HANDLERS, player } });
  const raised = LIMITS.map((limit) => (limit.kind === 'edge' ? limit : { ...limit, limit: 100_000 }));
  platform = createPlatform({ limits: raised, edgeGuard: undefined, documentClient: sharedPlatform().documentClient });
});
afterEach(() => faults.reset());
afterAll(() => stack?.stop());

const json = { 'Content-Type': 'application/json' };
let serial = 0;

/** A claimed invitation: its page URL, the claiming browser's cookie, and the organization (to read its events). */
async function claimedTicket() {
  const org = await createOrgWithManagerKey(stack.office, ['invitations:write', 'tickets:read']);
  const created = await stack.call(`/partners/${org.partner_id}/invitations`, {
    method: 'POST',
    headers: { ...bearer(org.key.key), ...json, 'Idempotency-Key': `resubmission-${(serial += 1)}-${Date.now()}` },
    body: JSON.stringify({ game: 'minecraft', notes: 'Brief for staff.' }),
  });
  const { data } = (await created.json()) as { data: { id: string; link: string } };
  const [page, fragment] = data.link.split('#');
  const claimed = await fetch(`${page}/claim`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ token: new URLSearchParams(fragment).get('token'), in_game_name: 'Steve', game_account_id: 'steve-1' }),
  });
  expect(claimed.status).toBe(201);
  const cookie = (claimed.headers.get('set-cookie') as string).split(';')[0];
  return { org, id: data.id, page, cookie };
}

type Answer = { status: number; retryAfter: string | null; body: { ok: boolean; data?: unknown; error?: { code: string; message: string } } };

async function post(page: string, cookie: string, body: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${page}/messages`, { method: 'POST', headers: { ...json, Cookie: cookie }, body: JSON.stringify(body) });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as Answer['body'] };
}

const viewOf = async (page: string, cookie: string) => ((await (await fetch(`${page}/view`, { headers: { Cookie: cookie } })).json()) as { data: unknown }).data;

const messageEvents = async (partnerId: string) => (await stack.office.records!.events(partnerId)).events.filter((event) => event.type === 'ticket.message.created');

async function messageCount(org: Awaited<ReturnType<typeof createOrgWithManagerKey>>, invitationId: string) {
  const response = await stack.call(`/partners/${org.partner_id}/tickets/${invitationId}`, { headers: bearer(org.key.key) });
  return ((await response.json()) as { data: { message_count: number } }).data.message_count;
}

/** The player message's transaction (the claim's, with the brief, is one too: its entry's author is `organization`). */
const messageTransaction = (effect: FaultEffect) =>
  faults.arm({
    component: 'api',
    call: 'TransactWriteItems',
    matches: (input) => JSON.stringify(input.TransactItems).includes('"author":"user"'),
    effect,
  });

describe("a player's message whose answer was lost, sent again by the page with the same client message id", () => {
  it.each([
    ['fail-after', 503],
    ['crash-after', 502],
  ] as const)('%s (the player sees %i): the resubmission answers as a first success, one message, one event', async (effect, firstStatus) => {
    // Prepare
    const { org, id, page, cookie } = await claimedTicket();
    const fault = messageTransaction(effect);
    const message = { text: 'Here is my clip.', client_message_id: `msg-${effect}-0123456789abcdef` };

    // Act
    const first = await post(page, cookie, message);
    const again = await post(page, cookie, message);

    // Assess
    expect(fault.fired()).toBe(true);
    expect(first.status).toBe(firstStatus);
    expect([again.status, again.body.ok]).toEqual([201, true]);
    expect(again.body.data).toEqual(await viewOf(page, cookie));
    expect(again.body.data).toMatchObject({ ticket: { messages: [{ author: 'player', text: 'Here is my clip.' }] } });
    const events = await messageEvents(org.partner_id);
    expect(events).toHaveLength(1);
    expect(await messageCount(org, id)).toBe(1);
  });

  it('recognizes the resubmission after staff wrote meanwhile: the player\u2019s message once, staff\u2019s kept', async () => {
    // Prepare
    const { org, id, page, cookie } = await claimedTicket();
    messageTransaction('fail-after');
    const message = { text: 'My clip, again.', client_message_id: 'msg-staff-between-0123456789' };
    expect((await post(page, cookie, message)).status).toBe(503);
    await stack.office.invitations!.message(id, 'staff', 'Thanks, looking.');

    // Act
    const again = await post(page, cookie, message);

    // Assess
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({ ticket: { messages: [{ author: 'player', text: 'My clip, again.' }, { author: 'staff', text: 'Thanks, looking.' }] } });
    expect(await messageEvents(org.partner_id)).toHaveLength(2);
    expect(await messageCount(org, id)).toBe(2);
  });

  it('stores one message of 5 concurrent submissions with one id, each answered 201 (a retryable 503 sent again)', async () => {
    // Prepare
    const { org, id, page, cookie } = await claimedTicket();
    const message = { text: 'Double-clicked.', client_message_id: 'msg-concurrent-0123456789' };

    // Act: five at once; one refused with a retryable 503 (a loaded machine: the admission's store or the ticket store
    // not answering in time) is sent again, as the player does when the page asks.
    const burst = await Promise.all(Array.from({ length: 5 }, () => post(page, cookie, message)));
    const answers = await Promise.all(burst.map((answer) => (answer.status === 503 ? post(page, cookie, message) : answer)));

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual(Array(5).fill(201));
    expect(await messageEvents(org.partner_id)).toHaveLength(1);
    expect(await messageCount(org, id)).toBe(1);
  });

  it('answers a resubmission after a success as the success did, and writes nothing more', async () => {
    // Prepare
    const { org, page, cookie } = await claimedTicket();
    const message = { text: 'Only once, please.', client_message_id: 'msg-twice-0123456789abcdef' };
    const first = await post(page, cookie, message);

    // Act
    const again = await post(page, cookie, message);

    // Assess
    expect(first.status).toBe(201);
    expect([again.status, again.body.data]).toEqual([201, first.body.data]);
    expect(await messageEvents(org.partner_id)).toHaveLength(1);
  });

  it('refuses the same client message id with another text: 409 IDEMPOTENCY_CONFLICT, the first message alone stored', async () => {
    // Prepare
    const { org, id, page, cookie } = await claimedTicket();
    const fault = messageTransaction('fail-after');
    await post(page, cookie, { text: 'The first text.', client_message_id: 'msg-conflict-0123456789abcdef' });

    // Act
    const other = await post(page, cookie, { text: 'Another text.', client_message_id: 'msg-conflict-0123456789abcdef' });

    // Assess
    expect(fault.fired()).toBe(true);
    expect(other.status).toBe(409);
    expect(other.body.error?.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(await viewOf(page, cookie)).toMatchObject({ ticket: { messages: [{ author: 'player', text: 'The first text.' }] } });
    expect(await messageEvents(org.partner_id)).toHaveLength(1);
    expect(await messageCount(org, id)).toBe(1);
  });

  it('keeps two messages with two ids apart, the same text included', async () => {
    // Prepare
    const { org, page, cookie } = await claimedTicket();

    // Act
    const one = await post(page, cookie, { text: 'ok', client_message_id: 'msg-one-0123456789abcdef' });
    const two = await post(page, cookie, { text: 'ok', client_message_id: 'msg-two-0123456789abcdef' });

    // Assess
    expect([one.status, two.status]).toEqual([201, 201]);
    expect(await messageEvents(org.partner_id)).toHaveLength(2);
  });

  it('refuses a client message id outside its rules (16–128 letters, digits, _ and -) with 422 INVALID_FIELD', async () => {
    // Prepare
    const { page, cookie } = await claimedTicket();

    // Act
    const answers = await Promise.all(['short', 'x'.repeat(129), 'has spaces in it, sixteen+'].map((client_message_id) => post(page, cookie, { text: 'hi', client_message_id })));

    // Assess
    expect(answers.map((answer) => [answer.status, answer.body.error?.code])).toEqual(Array(3).fill([422, 'INVALID_FIELD']));
  });

  it('lose-answer: the SDK sends the transaction again under its own token, and the first answer is already right', async () => {
    // Prepare
    const { org, page, cookie } = await claimedTicket();
    const fault = messageTransaction('lose-answer');

    // Act
    const first = await post(page, cookie, { text: 'Lost once below the SDK.', client_message_id: 'msg-lost-0123456789abcdef' });

    // Assess
    expect(fault.fired()).toBe(true);
    expect(first.status).toBe(201);
    expect(await messageEvents(org.partner_id)).toHaveLength(1);
  });
});
