/**
 * Ticket endpoints through the local front on DynamoDB Local: the list of
 * joined invitations (newest created first, pages across blocks of the
 * joined index, archived ones included), and one ticket by invitation id
 * with its errors.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { claimInvitation } from '../../lambdas/invitations/claim';
import { INVITATION_LIFETIME_MS } from '../../lambdas/invitations/invitation-model';
import { InvitationStore, invitationKey } from '../../lambdas/invitations/invitation-store';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { definition as ticketsFunction } from '../../lambdas/tickets/handler';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { type Platform } from '../../lambdas/shared/platform';
import { DynamoTicketBridge, ticketKey } from '../../lambdas/tickets/ticket-bridge';
import { HANDLERS } from '../../local/handlers';
import { captureLogs } from '../support/log-capture';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';
import { localPlatform } from '../support/local-platform';

let stack: TestStack;
let platform: Platform;
let invitations: InvitationStore;
let tickets: DynamoTicketBridge;

beforeAll(async () => {
  // Quotas and concurrency limits out of reach: the quota tests show those; here the list is under test.
  const raised = LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: 100_000 }));
  const ticketHandler = createPartnerApiHandler({ ...ticketsFunction, platform: () => platform });
  stack = await startTestStack({ handlers: { ...HANDLERS, tickets: ticketHandler } });
  platform = localPlatform({ limits: raised });
  invitations = new InvitationStore(stack.client, stack.tables.domain);
  tickets = new DynamoTicketBridge(stack.client, stack.tables.domain);
});
afterAll(() => stack?.stop());

const player = { in_game_name: 'Alex', game_account_id: 'alex_01' };
let serial = 0;

async function organization() {
  const org = await createOrgWithManagerKey(stack.office, ['tickets:read']);
  /** A new invitation, created now or at `at` (one created more than a week ago is expired at once). */
  const create = async (at = new Date()) => {
    const creation = await invitations.create({ keyId: org.key.key_id, partnerId: org.partner_id, idempotencyKey: `tickets-test-${(serial += 1)}-0123456` }, { game: 'fps', notes: 'From the organization' }, at);
    if (creation.outcome !== 'created') throw new Error(creation.outcome);
    return creation.item;
  };
  return { ...org, create };
}

async function get(key: string, path: string) {
  const response = await stack.call(path, { headers: bearer(key) });
  const text = await response.text();
  const body = JSON.parse(text) as { data?: Record<string, any>; error?: { code: string } };
  return { status: response.status, data: body.data, code: body.error?.code, text, retryAfter: response.headers.get('retry-after') };
}

describe('GET /partners/{partner_id}/tickets', () => {
  it('lists joined invitations only, newest created first, 20 per page, across blocks of the joined index', async () => {
    // Prepare: 130 invitations, every third joined: 44 joined, spread over three blocks of 50 creation numbers. Of the
    // others, half stay pending (43, below the 50-active limit: a join frees its slot) and half are created expired (a
    // week and a day ago: their slots free themselves), so none needs a write of its own after its creation. The claim
    // is handed the invitation its creation wrote, as the player site hands it the one it read.
    const org = await organization();
    const joinedIds: string[] = [];
    const expiredAt = () => new Date(Date.now() - INVITATION_LIFETIME_MS - 86_400_000);
    for (let i = 0; i < 130; i += 1) {
      const item = await org.create(i % 3 === 2 ? expiredAt() : new Date());
      if (i % 3 === 0) {
        expect(await claimInvitation({ invitations, tickets }, item.id, player, new Date(), item)).toMatchObject({ outcome: 'joined' });
        joinedIds.push(item.id);
      }
    }
    const newestFirst = [...joinedIds].reverse();

    // Act: every page through the API, one past the last.
    const base = `/partners/${org.partner_id}/tickets`;
    const pages = [await get(org.key.key, base), await get(org.key.key, `${base}?page=2`), await get(org.key.key, `${base}?page=3`), await get(org.key.key, `${base}?page=4`)];

    // Assess: the joined ones only, newest first, 20 a page.
    expect(pages.map((p) => p.data!.page_count)).toEqual([3, 3, 3, 3]);
    expect(pages.map((p) => p.data!.items.length)).toEqual([20, 20, 4, 0]);
    expect(pages.flatMap((p) => p.data!.items.map((i: { id: string }) => i.id))).toEqual(newestFirst);
    for (const item of pages[0].data!.items) expect(item).toMatchObject({ state: 'joined', ticket_id: expect.stringMatching(/^tkt_/) });
    expect(pages[0].text).not.toMatch(/From the organization|player|credential|token/);
    expect(await get(org.key.key, `${base}?page=0`)).toMatchObject({ status: 422, code: 'INVALID_PAGE' });

    // A join after this container counted the blocks: the pages read from the old counts' blocks still show it first.
    const later = await org.create();
    expect(await claimInvitation({ invitations, tickets }, later.id, player, new Date())).toMatchObject({ outcome: 'joined' });
    const again = await get(org.key.key, `${base}?page=3`);
    expect(again.data!.items.map((i: { id: string }) => i.id)).toEqual(newestFirst.slice(39));
    expect((await get(org.key.key, base)).data!.items[0].id).toBe(later.id);
  }, 120_000);

  it('includes archived joined invitations, and an empty organization has page_count 0', async () => {
    const org = await organization();
    expect((await get(org.key.key, `/partners/${org.partner_id}/tickets`)).data).toEqual({ items: [], page_count: 0 });
    const item = await org.create();
    await claimInvitation({ invitations, tickets }, item.id, player, new Date());
    await stack.client.send(new UpdateCommand({ TableName: stack.tables.domain, Key: invitationKey(item.id), UpdateExpression: 'SET archived_at = :now', ExpressionAttributeValues: { ':now': new Date().toISOString() } }));
    const page = await get(org.key.key, `/partners/${org.partner_id}/tickets`);
    expect(page.data!.items).toEqual([expect.objectContaining({ id: item.id, archived_at: expect.any(String) })]);
  });
});

describe('GET /partners/{partner_id}/tickets/{invitation_id}', () => {
  it('answers the Ticket of a joined invitation, with no conversation content', async () => {
    const org = await organization();
    const item = await org.create();
    const claim = await claimInvitation({ invitations, tickets }, item.id, player, new Date());
    const answer = await get(org.key.key, `/partners/${org.partner_id}/tickets/${item.id}`);
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({
      id: (claim as { ticketId: string }).ticketId,
      invitation_id: item.id,
      partner_id: org.partner_id,
      game: 'fps',
      status: 'open',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      message_count: 0,
    });
    expect(answer.text).not.toMatch(/From the organization|Alex/);
  });

  it('answers 409 PLAYER_NOT_JOINED before the join, 404 TICKET_NOT_FOUND for a missing, malformed or foreign invitation', async () => {
    const org = await organization();
    const other = await organization();
    const pending = await org.create();
    expect(await get(org.key.key, `/partners/${org.partner_id}/tickets/${pending.id}`)).toMatchObject({ status: 409, code: 'PLAYER_NOT_JOINED' });
    expect(await get(other.key.key, `/partners/${other.partner_id}/tickets/${pending.id}`)).toMatchObject({ status: 404, code: 'TICKET_NOT_FOUND' });
    expect(await get(org.key.key, `/partners/${org.partner_id}/tickets/00000000-0000-8000-8000-000000000000`)).toMatchObject({ status: 404, code: 'TICKET_NOT_FOUND' });
    expect(await get(org.key.key, `/partners/${org.partner_id}/tickets/not-a-uuid`)).toMatchObject({ status: 404, code: 'TICKET_NOT_FOUND' });
  });

  it('re-checks the ticket\u2019s organization: 403 PARTNER_ACCESS_FORBIDDEN when the store says another', async () => {
    const org = await organization();
    const item = await org.create();
    const claim = (await claimInvitation({ invitations, tickets }, item.id, player, new Date())) as { ticketId: string };
    await stack.client.send(new UpdateCommand({ TableName: stack.tables.domain, Key: ticketKey(claim.ticketId), UpdateExpression: 'SET partner_id = :other', ExpressionAttributeValues: { ':other': 'org_someone_else' } }));
    expect(await get(org.key.key, `/partners/${org.partner_id}/tickets/${item.id}`)).toMatchObject({ status: 403, code: 'PARTNER_ACCESS_FORBIDDEN' });
  });
});

describe('what a ticket read costs', () => {
  it('one ticket, and a page of them, in 2 sequential round trips: the reads beside the admission, then the release (the call log)', async () => {
    // Prepare: a joined invitation, a pending one, and a warm container (the key's facts cached).
    const org = await organization();
    const joined = await org.create();
    expect(await claimInvitation({ invitations, tickets }, joined.id, player, new Date())).toMatchObject({ outcome: 'joined' });
    const pending = await org.create();
    await get(org.key.key, `/partners/${org.partner_id}/tickets`);
    const logs = captureLogs();
    try {
      // Act
      expect((await get(org.key.key, `/partners/${org.partner_id}/tickets/${joined.id}`)).status).toBe(200);
      expect((await get(org.key.key, `/partners/${org.partner_id}/tickets/${pending.id}`)).status).toBe(409);
      expect((await get(org.key.key, `/partners/${org.partner_id}/tickets`)).status).toBe(200);

      // Assess
      const costs = logs
        .lines()
        .filter((line) => line.message === 'request')
        .map((line) => [line.route, line.status, (line.dynamo as { round_trips: number }).round_trips]);
      expect(costs).toEqual([
        ['ticket', 200, 2],
        ['ticket', 409, 2],
        // The page's block read beside the organization's joined counts, from the counts this container saw last time.
        ['tickets', 200, 2],
      ]);
    } finally {
      vi.restoreAllMocks();
    }
  });
});
