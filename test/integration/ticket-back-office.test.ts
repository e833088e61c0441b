/**
 * Staff and system actions on tickets, invitation archive and expire-now,
 * through the admin CLI's command runner on DynamoDB Local: each ticket
 * change comes with its event (`ticket.message.created`,
 * `ticket.status.updated`), messages count in `message_count`, system
 * actions do not, concurrent messages are all counted, and the API shows
 * the result.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimInvitation } from '../../lambdas/invitations/claim';
import { InvitationStore, organizationKey } from '../../lambdas/invitations/invitation-store';
import { DynamoTicketBridge } from '../../lambdas/tickets/ticket-bridge';
import { runAdminCommand } from '../../scripts/admin-cli';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
let invitations: InvitationStore;
let tickets: DynamoTicketBridge;
beforeAll(async () => {
  stack = await startTestStack();
  invitations = new InvitationStore(stack.client, stack.tables.domain);
  tickets = new DynamoTicketBridge(stack.client, stack.tables.domain);
});
afterAll(() => stack?.stop());

let serial = 0;
async function joinedInvitation() {
  const org = await createOrgWithManagerKey(stack.office, ['tickets:read', 'invitations:read']);
  const creation = await invitations.create({ keyId: org.key.key_id, partnerId: org.partner_id, idempotencyKey: `ticket-office-${(serial += 1)}-0123456` }, { game: 'fps' }, new Date());
  if (creation.outcome !== 'created') throw new Error(creation.outcome);
  await claimInvitation({ invitations, tickets }, creation.item.id, { in_game_name: 'Alex', game_account_id: 'alex' }, new Date());
  return { org, id: creation.item.id };
}

const admin = (...argv: string[]) => runAdminCommand(argv, stack.office);
const eventsOf = async (partnerId: string) => (await stack.office.records!.events(partnerId)).events;

describe('ticket actions in the back office', () => {
  it('adds messages (counted) and changes status and assignee (not counted), each with its event', async () => {
    const { org, id } = await joinedInvitation();
    const before = (await eventsOf(org.partner_id)).length;

    await admin('ticket', 'message', '--invitation', id, '--author', 'staff', '--text', 'We are looking into it.');
    await admin('ticket', 'status', '--invitation', id, '--status', 'waiting_user');
    await admin('ticket', 'message', '--invitation', id, '--author', 'user', '--text', 'Here is my video.');
    const assigned = await admin('ticket', 'assign', '--invitation', id, '--to', 'Sam Reviewer');

    expect(assigned).toMatchObject({ status: 'waiting_user', message_count: 2 });
    const events = (await eventsOf(org.partner_id)).slice(before);
    expect(events.map((e) => [e.type, (e.data as { status: string }).status])).toEqual([
      ['ticket.message.created', 'open'],
      ['ticket.status.updated', 'waiting_user'],
      ['ticket.message.created', 'waiting_user'],
      ['ticket.status.updated', 'waiting_user'],
    ]);
    const response = await stack.call(`/partners/${org.partner_id}/tickets/${id}`, { headers: bearer(org.key.key) });
    const body = (await response.json()) as { data: Record<string, unknown> };
    expect(body.data).toMatchObject({ status: 'waiting_user', message_count: 2 });
    expect(JSON.stringify(body)).not.toMatch(/looking into|video|Sam Reviewer/);
  });

  it('counts every one of 8 concurrent messages', async () => {
    const { org, id } = await joinedInvitation();
    await Promise.all(Array.from({ length: 8 }, (_, i) => admin('ticket', 'message', '--invitation', id, '--author', 'staff', '--text', `note ${i}`)));
    const response = await stack.call(`/partners/${org.partner_id}/tickets/${id}`, { headers: bearer(org.key.key) });
    expect(((await response.json()) as { data: { message_count: number } }).data.message_count).toBe(8);
    expect((await eventsOf(org.partner_id)).filter((e) => e.type === 'ticket.message.created')).toHaveLength(8);
  });

  it('refuses a ticket action before the join, an unknown invitation, a bad status or author', async () => {
    const org = await createOrgWithManagerKey(stack.office, ['tickets:read']);
    const creation = await invitations.create({ keyId: org.key.key_id, partnerId: org.partner_id, idempotencyKey: `ticket-office-pending-${serial}-01` }, { game: 'fps' }, new Date());
    const pendingId = (creation as { item: { id: string } }).item.id;
    await expect(admin('ticket', 'status', '--invitation', pendingId, '--status', 'resolved')).rejects.toMatchObject({ code: 'NOT_JOINED' });
    await expect(admin('ticket', 'status', '--invitation', '00000000-0000-8000-8000-000000000000', '--status', 'resolved')).rejects.toMatchObject({ code: 'INVITATION_NOT_FOUND' });
    const { id } = await joinedInvitation();
    await expect(admin('ticket', 'status', '--invitation', id, '--status', 'closed')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(admin('ticket', 'message', '--invitation', id, '--author', 'bot', '--text', 'x')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(admin('ticket', 'message', '--invitation', id, '--author', 'staff', '--text', '   ')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('invitation archive and expire-now', () => {
  it('archives once (archived_at kept) and shows it in reads', async () => {
    const { org, id } = await joinedInvitation();
    const first = (await admin('invitation', 'archive', '--org', org.partner_id, '--invitation', id)) as { archived_at: string };
    const second = (await admin('invitation', 'archive', '--org', org.partner_id, '--invitation', id)) as { archived_at: string };
    expect(second.archived_at).toBe(first.archived_at);
    await expect(admin('invitation', 'archive', '--org', 'org_other', '--invitation', id)).rejects.toMatchObject({ code: 'INVITATION_NOT_FOUND' });
  });

  it('expires a pending invitation now, which frees its slot at once', async () => {
    const org = await createOrgWithManagerKey(stack.office, ['invitations:read']);
    const creation = await invitations.create({ keyId: org.key.key_id, partnerId: org.partner_id, idempotencyKey: `expire-now-${(serial += 1)}-0123456` }, { game: 'fps' }, new Date());
    const id = (creation as { item: { id: string } }).item.id;
    expect(await admin('invitation', 'expire-now', '--invitation', id)).toMatchObject({ id, state: 'expired' });
    const { Item } = await stack.client.send(new GetCommand({ TableName: stack.tables.domain, Key: organizationKey(org.partner_id), ConsistentRead: true }));
    expect(Object.values(Item!.active as Record<string, number>).every((expiry) => expiry <= Date.now())).toBe(true);
  });
});
