/**
 * The player's message at its floor (issue 34), through the local front on DynamoDB Local: three sequential round
 * trips (the credential's read of the invitation; the admission with the ticket and its conversation read beside it;
 * the change's transaction), answered from that read with the new entry, the same view a fresh view shows; concurrent
 * messages all stored once with exact counts (a lost race reads again); and the ticket bridge's change from a read
 * that another change overtook, or whose page is not its ticket's, never answering a conversation it did not see.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { captureLogs } from '../support/log-capture';
import { definition as playerFunction } from '../../lambdas/player/handler';
import { createPlayerHandler } from '../../lambdas/player/player-pipeline';
import { VISIBLE_ENTRIES } from '../../lambdas/player/player-operations';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { createPlatform, sharedPlatform, type Platform } from '../../lambdas/shared/platform';
import { DynamoTicketBridge } from '../../lambdas/tickets/ticket-bridge';
import { ticketIdFor } from '../../lambdas/tickets/ticket-model';
import { HANDLERS } from '../../local/handlers';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
/** The player limits raised out of reach (every call of this file comes from one address). */
let platform: Platform;
let bridge: DynamoTicketBridge;
beforeAll(async () => {
  const player = createPlayerHandler({ ...playerFunction, platform: () => platform });
  stack = await startTestStack({ webhooks: false, handlers: { ...HANDLERS, player } });
  const raised = LIMITS.map((limit) => (limit.kind === 'edge' ? limit : { ...limit, limit: 100_000 }));
  platform = createPlatform({ limits: raised, edgeGuard: undefined, documentClient: sharedPlatform().documentClient });
  bridge = new DynamoTicketBridge(stack.client, stack.tables.domain);
});
afterAll(() => stack?.stop());

const json = { 'Content-Type': 'application/json' };
let serial = 0;

/** A claimed invitation: its page URL, the claiming browser's cookie, its ticket id and the organization. */
async function claimedTicket() {
  const org = await createOrgWithManagerKey(stack.office, ['invitations:write', 'tickets:read']);
  const created = await stack.call(`/partners/${org.partner_id}/invitations`, {
    method: 'POST',
    headers: { ...bearer(org.key.key), ...json, 'Idempotency-Key': `message-cost-${(serial += 1)}-${Date.now()}` },
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
  return { org, id: data.id, ticketId: ticketIdFor(data.id), page, cookie };
}

type Answer = { status: number; body: { ok: boolean; data?: { ticket: { messages: { author: string; text: string }[] } }; error?: { code: string } } };

async function post(page: string, cookie: string, text: string, clientMessageId = `cost-${(serial += 1)}-0123456789abcdef`): Promise<Answer> {
  const response = await fetch(`${page}/messages`, { method: 'POST', headers: { ...json, Cookie: cookie }, body: JSON.stringify({ text, client_message_id: clientMessageId }) });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const viewOf = async (page: string, cookie: string) => ((await (await fetch(`${page}/view`, { headers: { Cookie: cookie } })).json()) as { data: unknown }).data;

const messageEvents = async (partnerId: string) => (await stack.office.records!.events(partnerId)).events.filter((event) => event.type === 'ticket.message.created');

/** The player messages' request lines: status and sequential round trips. */
async function messageCosts(act: () => Promise<unknown>) {
  const logs = captureLogs();
  try {
    await act();
  } finally {
    vi.restoreAllMocks();
  }
  return logs
    .lines()
    .filter((line) => line.message === 'request' && line.route === 'player-message')
    .map((line) => [line.status, (line.dynamo as { round_trips: number }).round_trips]);
}

describe("the player's message at its floor", () => {
  // Each test's first message opens the link's message windows (join-message-hour, -day), which costs the admission a
  // round trip of its own once (shared/limits: a window its container has not seen): every later message is measured.
  it('costs 3 sequential round trips and answers what a fresh view shows (staff before it, the brief hidden)', async () => {
    // Prepare
    const { id, page, cookie } = await claimedTicket();
    await post(page, cookie, 'Hello?');
    await stack.office.invitations!.message(id, 'staff', 'Hello, how can we help?');
    let answer: Answer | undefined;

    // Act
    const costs = await messageCosts(async () => {
      answer = await post(page, cookie, 'My clip is attached.');
    });

    // Assess
    expect(costs).toEqual([[201, 3]]);
    expect(answer?.body.data).toEqual(await viewOf(page, cookie));
    expect(answer?.body.data?.ticket.messages.map((m) => [m.author, m.text])).toEqual([
      ['player', 'Hello?'],
      ['staff', 'Hello, how can we help?'],
      ['player', 'My clip is attached.'],
    ]);
  });

  it('answers the visible page past its length as the view does: the oldest entry leaves, the new one shows, still 3 round trips', async () => {
    // Prepare: a conversation of one page and one entry, the player's first (the brief lives on the ticket item, not in it).
    const { id, page, cookie } = await claimedTicket();
    await post(page, cookie, 'Hello?');
    for (let n = 1; n <= VISIBLE_ENTRIES; n += 1) await bridge.change(ticketIdFor(id), { kind: 'message', author: 'staff', text: `Staff ${n}` }, new Date());
    let answer: Answer | undefined;

    // Act
    const costs = await messageCosts(async () => {
      answer = await post(page, cookie, 'The newest one.');
    });

    // Assess
    expect(costs).toEqual([[201, 3]]);
    const messages = answer?.body.data?.ticket.messages ?? [];
    expect([messages.length, messages[0]?.text, messages.at(-1)?.text]).toEqual([VISIBLE_ENTRIES, 'Staff 2', 'The newest one.']);
    expect(answer?.body.data).toEqual(await viewOf(page, cookie));
  });

  it('stores every one of 6 concurrent messages once: exact counts, one event each, each answer holding its own message', async () => {
    // Prepare
    const { org, ticketId, page, cookie } = await claimedTicket();
    const texts = Array.from({ length: 6 }, (_, n) => `Concurrent ${n}`);

    // Act
    const answers = await Promise.all(texts.map((text) => post(page, cookie, text)));

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(201));
    answers.forEach((answer, n) => expect(answer.body.data?.ticket.messages.map((m) => m.text)).toContain(texts[n]));
    const stored = (await bridge.get(ticketId)) as unknown as { message_count: number; entry_count: number };
    expect([stored.message_count, stored.entry_count]).toEqual([6, 6]);
    expect((await bridge.conversation(ticketId, VISIBLE_ENTRIES)).map((entry) => entry.text).sort()).toEqual([...texts].sort());
    expect(await messageEvents(org.partner_id)).toHaveLength(6);
  });
});

describe("the ticket bridge's change from a read made before it", () => {
  it('answers the read page with the new entry when nothing came between', async () => {
    // Prepare
    const { id, ticketId } = await claimedTicket();
    await stack.office.invitations!.message(id, 'staff', 'First.');
    const read = await bridge.read(ticketId, VISIBLE_ENTRIES);

    // Act
    const changed = await bridge.change(ticketId, { kind: 'message', author: 'user', text: 'Second.' }, new Date(), undefined, read);

    // Assess
    expect(changed?.conversation).toEqual(await bridge.conversation(ticketId, VISIBLE_ENTRIES));
    expect(changed?.ticket).toMatchObject({ message_count: 2 });
  });

  it('reads again when another change overtook the read: the counts exact, no conversation answered from the stale read', async () => {
    // Prepare
    const { id, ticketId } = await claimedTicket();
    const read = await bridge.read(ticketId, VISIBLE_ENTRIES);
    await stack.office.invitations!.message(id, 'staff', 'In between.');

    // Act
    const changed = await bridge.change(ticketId, { kind: 'message', author: 'user', text: 'After the read.' }, new Date(), undefined, read);

    // Assess
    expect(changed?.conversation).toBeUndefined();
    expect(changed?.ticket).toMatchObject({ message_count: 2 });
    expect((await bridge.conversation(ticketId, VISIBLE_ENTRIES)).map((entry) => [entry.seq, entry.text])).toEqual([
      [1, 'In between.'],
      [2, 'After the read.'],
    ]);
  });

  it('answers no conversation from a page older than its ticket (a change landed between the two reads)', async () => {
    // Prepare: the page read before a change, the ticket after it (the transaction's condition holds on the ticket).
    const { id, ticketId } = await claimedTicket();
    const olderPage = await bridge.conversation(ticketId, VISIBLE_ENTRIES);
    await stack.office.invitations!.message(id, 'staff', 'Missing from the page.');
    const ticket = await bridge.get(ticketId);

    // Act
    const changed = await bridge.change(ticketId, { kind: 'message', author: 'user', text: 'Mine.' }, new Date(), undefined, {
      ticketId,
      ticket,
      entries: olderPage,
      limit: VISIBLE_ENTRIES,
    });

    // Assess
    expect(changed?.replayed).toBe(false);
    expect(changed?.conversation).toBeUndefined();
    expect(changed?.ticket).toMatchObject({ message_count: 2 });
  });
});
