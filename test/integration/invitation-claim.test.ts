/**
 * The claim on DynamoDB Local (the player site will call claimInvitation):
 * of 20 concurrent claims exactly one wins and one ticket and one
 * `invitation.joined` exist; a failing ticket store leaves the invitation
 * `claiming` (never reusable, still holding its slot past its expiry) until
 * the claim is finished, with no second ticket; notes are erased at join and
 * the fingerprint still detects a conflicting replay.
 */
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimInvitation, finishClaim } from '../../lambdas/invitations/claim';
import { reconcileClaims } from '../../lambdas/invitations/claim-reconciler';
import { InvitationStore, organizationKey } from '../../lambdas/invitations/invitation-store';
import { DynamoTicketBridge, TicketServiceUnavailable, type TicketBridge } from '../../lambdas/tickets/ticket-bridge';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
let invitations: InvitationStore;
let tickets: DynamoTicketBridge;

beforeAll(async () => {
  stack = await startTestStack();
  invitations = new InvitationStore(stack.client, stack.tables.domain);
  tickets = new DynamoTicketBridge(stack.client, stack.tables.domain);
});
afterAll(() => stack?.stop());

/** A ticket store that does not answer: the claim takes the path without a ticket (pending → claiming). */
const failing: TicketBridge = {
  creationFor: () => {
    throw new TicketServiceUnavailable();
  },
  createForInvitation: async () => {
    throw new TicketServiceUnavailable();
  },
  get: async () => undefined,
};

let serial = 0;
const player = { in_game_name: 'Steve', game_account_id: '069a79f4-44e9-4726-a5be-fca90e38aaf5' };

async function newInvitation(notes?: string, at = new Date()) {
  const partnerId = `org_claim_${(serial += 1)}_${Date.now()}`;
  const scope = { keyId: 'key_claim', partnerId, idempotencyKey: `claim-test-key-${serial}-abcdef` };
  const creation = await invitations.create(scope, { game: 'minecraft', notes }, at);
  if (creation.outcome !== 'created') throw new Error(creation.outcome);
  return { item: creation.item, scope };
}

async function domainItems(prefix: string) {
  const { Items = [] } = await stack.client.send(new ScanCommand({ TableName: stack.tables.domain, ConsistentRead: true }));
  return Items.filter((item) => String(item.pk).startsWith(prefix));
}

describe('claiming an invitation', () => {
  it('lets exactly one of 20 concurrent claims win: one ticket, one invitation.joined', async () => {
    const { item } = await newInvitation('Please re-check the Bedrock account.');
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => claimInvitation({ invitations, tickets }, item.id, player, new Date())));

    const joined = outcomes.filter((o) => o.outcome === 'joined');
    expect(joined).toHaveLength(1);
    for (const o of outcomes.filter((x) => x.outcome !== 'joined')) expect(o).toMatchObject({ outcome: 'unavailable', state: expect.stringMatching(/^(claiming|joined)$/) });
    const after = await invitations.find(item.id);
    expect(after).toMatchObject({ state: 'joined', ticket_id: (joined[0] as { ticketId: string }).ticketId });
    expect(after).not.toHaveProperty('notes');
    const ticketItems = (await domainItems('TICKET#')).filter((t) => t.invitation_id === item.id);
    expect(ticketItems).toHaveLength(1);
    expect(ticketItems[0]).toMatchObject({ status: 'open', message_count: 0, partner_id: item.partner_id, game: 'minecraft' });
    const events = (await stack.office.records!.events(item.partner_id)).events.filter((e) => e.type === 'invitation.joined');
    expect(events.map((e) => e.data)).toEqual([{ ticket_id: ticketItems[0].id, invitation_id: item.id, status: 'open' }]);
  });

  it('keeps the fingerprint after the notes are erased: a replay with the same notes replays, other notes conflict', async () => {
    const { item, scope } = await newInvitation('Original notes');
    await claimInvitation({ invitations, tickets }, item.id, player, new Date());
    expect(await invitations.create(scope, { game: 'minecraft', notes: 'Original notes' }, new Date())).toMatchObject({ outcome: 'replayed', item: { state: 'joined' } });
    expect(await invitations.create(scope, { game: 'minecraft', notes: 'Other notes' }, new Date())).toEqual({ outcome: 'conflict' });
  });

  it('refuses a revoked, an expired or an unknown invitation', async () => {
    const revoked = await newInvitation();
    await invitations.revoke(revoked.item.partner_id, revoked.item.id, new Date());
    expect(await claimInvitation({ invitations, tickets }, revoked.item.id, player, new Date())).toEqual({ outcome: 'unavailable', state: 'revoked' });
    const expired = await newInvitation();
    expect(await claimInvitation({ invitations, tickets }, expired.item.id, player, new Date(Date.parse(expired.item.expires_at)))).toEqual({ outcome: 'unavailable', state: 'expired' });
    expect(await claimInvitation({ invitations, tickets }, '00000000-0000-8000-8000-000000000000', player, new Date())).toEqual({ outcome: 'unavailable', state: 'missing' });
  });

  it('stays claiming when the ticket store fails (holding its slot past expiry, never reusable), then finishes with one ticket', async () => {
    const created = new Date();
    const { item } = await newInvitation('notes', created);
    const first = await claimInvitation({ invitations, tickets: failing }, item.id, player, new Date());
    expect(first).toMatchObject({ outcome: 'claiming', credential: expect.any(String) });
    const afterExpiry = new Date(Date.parse(item.expires_at) + 1000);
    // Past its expiry the claim is not reopened, and a second browser cannot claim.
    expect(await claimInvitation({ invitations, tickets }, item.id, player, afterExpiry)).toEqual({ outcome: 'unavailable', state: 'claiming' });

    // It holds its slot: the organization's active entry says claiming, which no expiry frees.
    const { Item: organization } = await stack.client.send(new GetCommand({ TableName: stack.tables.domain, Key: organizationKey(item.partner_id), ConsistentRead: true }));
    expect(organization!.active).toEqual({ [String(item.seq)]: -1 });

    const claiming = (await invitations.find(item.id))!;
    const ticketId = (await finishClaim({ invitations, tickets }, claiming, afterExpiry)).id;
    const again = (await finishClaim({ invitations, tickets }, claiming, afterExpiry)).id;
    expect(again).toBe(ticketId);
    expect(await invitations.find(item.id)).toMatchObject({ state: 'joined', ticket_id: ticketId });
    expect((await domainItems('TICKET#')).filter((t) => t.invitation_id === item.id)).toHaveLength(1);
    expect((await stack.office.records!.events(item.partner_id)).events.filter((e) => e.type === 'invitation.joined')).toHaveLength(1);
  });

  it('is finished by the reconciler once the ticket store is back: one ticket, one event, the marker removed, concurrent runs included', async () => {
    const { item } = await newInvitation('notes');
    const started = new Date();
    expect(await claimInvitation({ invitations, tickets: failing }, item.id, player, started)).toMatchObject({ outcome: 'claiming' });
    expect((await domainItems('CLAIMING#')).filter((m) => m.invitation_id === item.id)).toHaveLength(1);

    // Too young: left to the player's own request.
    const young = await reconcileClaims({ client: stack.client, table: stack.tables.domain, invitations, tickets, clock: () => started });
    expect(young.joined).toBe(0);
    // The store still failing: deferred, still claiming.
    const later = new Date(started.getTime() + 2 * 60_000);
    expect(await reconcileClaims({ client: stack.client, table: stack.tables.domain, invitations, tickets: failing, clock: () => later })).toMatchObject({ deferred: 1, joined: 0 });
    expect(await invitations.find(item.id)).toMatchObject({ state: 'claiming' });

    await Promise.all(Array.from({ length: 3 }, () => reconcileClaims({ client: stack.client, table: stack.tables.domain, invitations, tickets, clock: () => later })));
    expect(await invitations.find(item.id)).toMatchObject({ state: 'joined', ticket_id: expect.stringMatching(/^tkt_/) });
    expect((await domainItems('TICKET#')).filter((t) => t.invitation_id === item.id)).toHaveLength(1);
    expect((await stack.office.records!.events(item.partner_id)).events.filter((e) => e.type === 'invitation.joined')).toHaveLength(1);
    await reconcileClaims({ client: stack.client, table: stack.tables.domain, invitations, tickets, clock: () => later });
    expect((await domainItems('CLAIMING#')).filter((m) => m.invitation_id === item.id)).toEqual([]);
  });

  it('leaves no claim marker behind a claim that joined at once', async () => {
    const { item } = await newInvitation();
    await claimInvitation({ invitations, tickets }, item.id, player, new Date());
    expect((await domainItems('CLAIMING#')).filter((m) => m.invitation_id === item.id)).toEqual([]);
  });
});
