/**
 * The claim at its floor (issue 34): through the local front on DynamoDB Local, a successful claim costs at most 3
 * sequential round trips and 10 billed write units (the player admission's two counters, 1 each, and one transaction
 * of at most 4 items, 2 each), with draft notes and without; and the claim's one transaction (claimAndJoin) under each
 * fault at its call site (local/fault-injection.ts) answers what happened, leaves nothing stuck and never makes a
 * second ticket or a second `invitation.joined`.
 */
import { request } from 'node:http';
import { GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { credentialDigest } from '../../lambdas/invitations/claim';
import { invitationKey, organizationKey } from '../../lambdas/invitations/invitation-store';
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
const invitation = (notes?: string) => invitationToClaim(stack, notes);

interface Answer {
  readonly status: number;
  readonly body: { data?: any; error?: { code: string } } | undefined;
  readonly cookie: string | undefined;
}

/** A claim from its own loopback address (the player limits count by source IP: each test's browser counts apart). */
let address = 150;
function claimFrom(page: string, body: Record<string, unknown>): Promise<Answer> {
  const localAddress = `127.0.0.${(address += 1)}`;
  return new Promise((resolve, reject) => {
    const req = request(`${page}/claim`, { method: 'POST', localAddress, headers: { 'Content-Type': 'application/json' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const cookie = (response.headers['set-cookie'] ?? []).find((value) => value.startsWith('player_credential='))?.split(';')[0];
        resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, cookie });
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The claiming browser's view with `cookie`: 200 with its ticket when the cookie is the claim's credential. */
function viewWith(page: string, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${page}/view`, { localAddress: `127.0.0.${(address += 1)}`, headers: { Cookie: cookie } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The claim's transaction (claimAndJoin): the one write that carries the credential's digest. */
const claimTransaction = (input: Readonly<Record<string, unknown>>) => JSON.stringify(input).includes('credential_digest');

const stored = async (id: string) => (await stack.client.send(new GetCommand({ TableName: stack.tables.domain, Key: invitationKey(id), ConsistentRead: true }))).Item!;
const ticketsOf = async (invitationId: string) =>
  ((await stack.client.send(new ScanCommand({ TableName: stack.tables.domain, ConsistentRead: true }))).Items ?? []).filter((item) => item.sk === 'TICKET' && item.invitation_id === invitationId);
const joinedEvents = async (partnerId: string) => (await stack.office.records!.events(partnerId)).events.filter((event) => event.type === 'invitation.joined');
const organization = async (partnerId: string) => (await stack.client.send(new GetCommand({ TableName: stack.tables.domain, Key: organizationKey(partnerId), ConsistentRead: true }))).Item!;

interface Cost {
  readonly round_trips: number;
  readonly wcu: number;
  readonly tx_items?: number;
  readonly tx_wcu?: number;
}
/** What AWS bills: single writes as reported (1 a KB), and 2 per item of a transaction (items under 1 KB). */
const billedWriteUnits = (cost: Cost) => cost.wcu - (cost.tx_wcu ?? 0) + 2 * (cost.tx_items ?? 0);

describe('what a successful claim costs', () => {
  it.each([
    ['without draft notes', undefined],
    ['with draft notes (the brief kept on the ticket item)', 'Internal: check the alt account before anything else.'],
  ])('%s: at most 3 round trips and 10 billed write units', async (_, notes) => {
    // Prepare
    const inv = await invitation(notes);
    const logs = captureLogs();

    // Act
    let claimed: Answer;
    try {
      claimed = await claimFrom(inv.page, { token: inv.token, ...player, submission_id: submissionId() });
    } finally {
      vi.restoreAllMocks();
    }

    // Assess
    expect(claimed.status).toBe(201);
    const costs = logs
      .lines()
      .filter((line) => line.message === 'request' && line.route === 'player-claim')
      .map((line) => line.dynamo as Cost);
    expect(costs).toHaveLength(1);
    expect(costs[0].round_trips).toBeLessThanOrEqual(3);
    expect(costs[0].tx_items).toBeLessThanOrEqual(4);
    expect(billedWriteUnits(costs[0])).toBeLessThanOrEqual(10);
    // What the one transaction wrote: joined, the notes erased onto the ticket's brief, the slot released, one event.
    const [ticket] = await ticketsOf(inv.id);
    expect(await stored(inv.id)).toMatchObject({ state: 'joined', ticket_id: ticket.id });
    expect(await stored(inv.id)).not.toHaveProperty('notes');
    expect(ticket.brief).toBe(notes);
    expect(ticket).toMatchObject({ message_count: 0, entry_count: 0 });
    expect((await organization(inv.org.partner_id)).active).toEqual({});
    expect(await joinedEvents(inv.org.partner_id)).toHaveLength(1);
    expect(await viewWith(inv.page, claimed.cookie!)).toBe(200);
  });
});

describe('the claim’s transaction under faults at its call site', () => {
  it('fail (not applied): an error and no cookie, nothing written; the same submission again claims with one ticket and one event', async () => {
    // Prepare
    const inv = await invitation('Brief.');
    const submission = submissionId();
    const rule = faults.arm({ component: 'api', call: 'TransactWriteItems', matches: claimTransaction, effect: 'fail' });

    // Act
    const failed = await claimFrom(inv.page, { token: inv.token, ...player, submission_id: submission });
    const between = await stored(inv.id);
    const ticketsBetween = await ticketsOf(inv.id);
    const again = await claimFrom(inv.page, { token: inv.token, ...player, submission_id: submission });

    // Assess
    expect(rule.fired()).toBe(true);
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(failed.cookie).toBeUndefined();
    expect(between).toMatchObject({ state: 'pending', notes: 'Brief.' });
    expect(ticketsBetween).toEqual([]);
    expect(again.status).toBe(201);
    const tickets = await ticketsOf(inv.id);
    expect(tickets).toHaveLength(1);
    expect(again.body?.data.ticket.id).toBe(tickets[0].id);
    expect((await stored(inv.id)).credential_digest).toBe(credentialDigest(again.cookie!.split('=')[1]));
    expect(await joinedEvents(inv.org.partner_id)).toHaveLength(1);
  });

  it.each(['lose-answer', 'fail-after'] as const)('%s (applied, its answer lost): 201 with a cookie that is the stored one, one ticket, one event, no marker', async (effect) => {
    // Prepare
    const inv = await invitation('Brief.');
    const rule = faults.arm({ component: 'api', call: 'TransactWriteItems', matches: claimTransaction, effect });

    // Act
    const claimed = await claimFrom(inv.page, { token: inv.token, ...player, submission_id: submissionId() });

    // Assess
    expect(rule.fired()).toBe(true);
    expect(claimed.status).toBe(201);
    const tickets = await ticketsOf(inv.id);
    expect(tickets).toHaveLength(1);
    expect(claimed.body?.data).toMatchObject({ invitation: { state: 'joined' }, ticket: { id: tickets[0].id } });
    expect((await stored(inv.id)).credential_digest).toBe(credentialDigest(claimed.cookie!.split('=')[1]));
    expect(await viewWith(inv.page, claimed.cookie!)).toBe(200);
    expect(await joinedEvents(inv.org.partner_id)).toHaveLength(1);
    const hour = `CLAIMING#${new Date().toISOString().slice(0, 13)}`;
    const markers = await stack.client.send(new QueryCommand({ TableName: stack.tables.domain, KeyConditionExpression: 'pk = :pk AND sk = :sk', ExpressionAttributeValues: { ':pk': hour, ':sk': inv.id } }));
    expect(markers.Items).toEqual([]);
  });

  it('crash-after (applied, the function gone): 502 and no cookie; nothing is left to finish; the same submission gets a working cookie for the same ticket', async () => {
    // Prepare
    const inv = await invitation();
    const submission = submissionId();
    faults.arm({ component: 'api', call: 'TransactWriteItems', matches: claimTransaction, effect: 'crash-after' });

    // Act
    const lost = await claimFrom(inv.page, { token: inv.token, ...player, submission_id: submission });
    const left = await stored(inv.id);
    const again = await claimFrom(inv.page, { token: inv.token, ...player, submission_id: submission });

    // Assess
    expect(lost.status).toBe(502);
    expect(lost.cookie).toBeUndefined();
    expect(left).toMatchObject({ state: 'joined', ticket_id: expect.stringMatching(/^tkt_/) });
    expect(again.status).toBe(201);
    expect(again.body?.data.ticket.id).toBe(left.ticket_id);
    expect((await stored(inv.id)).credential_digest).toBe(credentialDigest(again.cookie!.split('=')[1]));
    expect(await ticketsOf(inv.id)).toHaveLength(1);
    expect(await joinedEvents(inv.org.partner_id)).toHaveLength(1);
  });
});
