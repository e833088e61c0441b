/**
 * The typed client (client/) against the local stack: every method of the 14 operations, typed errors, the cursor
 * iterator keeping its filters across pages while records change, `records.sync` de-duplicating, and the retry rules
 * through a local front that answers 429 and 503 (with Retry-After) before passing requests on, refuses with 401, or
 * drops the connection after the stack created the invitation.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartnerClient, PartnerApiError, type PartnerClient } from '../../client/src';
import { claimInvitation } from '../../lambdas/invitations/claim';
import { InvitationStore } from '../../lambdas/invitations/invitation-store';
import { DynamoTicketBridge } from '../../lambdas/tickets/ticket-bridge';
import { raisedHandlers } from '../support/raised-quotas';
import { recordInput } from '../support/record-input';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
let partnerId: string;
let key: string;
let client: PartnerClient;
const servers: Server[] = [];

beforeAll(async () => {
  stack = await startTestStack({ handlers: raisedHandlers() });
  const { account_id } = await stack.office.accounts.create('Client manager');
  ({ partner_id: partnerId } = await stack.office.organizations.create('Client organization'));
  await stack.office.memberships.set(partnerId, account_id, 'manager');
  key = (await stack.office.keys.create({ accountId: account_id, partnerId, scopes: ['records:read', 'public:read', 'invitations:read', 'invitations:write', 'entitlements:read', 'tickets:read'] })).key;
  client = createPartnerClient({ baseUrl: stack.baseUrl, apiKey: key });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await stack?.stop();
});

/** A local front before the stack: `decide` answers a request itself (a status, or `drop` after passing it on), or passes it on. */
async function front(decide: (n: number, method: string, path: string) => { status: number; retryAfter?: string } | 'drop' | undefined) {
  let n = 0;
  const seen: { method: string; path: string; idempotencyKey?: string; body: string }[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const path = (request.url ?? '/').replace(/^\/v1/, '');
    seen.push({ method: request.method ?? 'GET', path, idempotencyKey: request.headers['idempotency-key'] as string | undefined, body });
    const decision = decide((n += 1), request.method ?? 'GET', path);
    if (decision && decision !== 'drop') {
      const code = decision.status === 401 ? 'INVALID_API_KEY' : decision.status === 429 ? 'RATE_LIMITED' : 'SERVICE_UNAVAILABLE';
      response.writeHead(decision.status, { 'Content-Type': 'application/json', 'X-Request-Id': `front-${n}`, ...(decision.retryAfter ? { 'Retry-After': decision.retryAfter } : {}) });
      response.end(JSON.stringify({ ok: false, error: { code, message: 'from the test front' }, request_id: `front-${n}` }));
      return;
    }
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)).map(([k, v]) => [k, String(v)]));
    const answer = await fetch(`${stack.baseUrl}${path}`, { method: request.method, headers, ...(body ? { body } : {}) });
    const text = await answer.text();
    if (decision === 'drop') {
      // The stack did the work; the answer never reaches the client.
      request.socket.destroy();
      return;
    }
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

const quick = { baseDelayMs: 1, maxDelayMs: 5 };

describe('every operation, typed', () => {
  it('health, me, entitlements, records, invitations and tickets answer their data; errors are PartnerApiError', async () => {
    expect((await client.health()).data).toMatchObject({ status: expect.any(String) });
    const me = await client.me();
    expect(me.data).toMatchObject({ partner_id: partnerId });
    expect(me.requestId).toEqual(expect.any(String));
    expect(me.rateLimit.policy).toBe('key-minute');
    // The account's own entitlements need a personal key (no organization).
    const personal = await stack.office.keys.create({ accountId: String(me.data.account_id), scopes: ['entitlements:read'] });
    expect((await createPartnerClient({ baseUrl: stack.baseUrl, apiKey: personal.key }).entitlements()).data.games).toHaveLength(2);
    expect((await client.partnerEntitlements(partnerId)).data.owner_id).toBe(partnerId);

    const put = await stack.office.records!.put(partnerId, recordInput('Client'));
    const { id: recordId, uuid } = put;
    expect((await client.getRecord(partnerId, recordId)).data.id).toBe(recordId);
    expect((await client.lookupRecord(uuid)).data.uuid).toBe(uuid);
    expect((await client.listRecords(partnerId, { limit: 1 })).data.items).toHaveLength(1);

    const created = await client.createInvitation(partnerId, { game: 'fps', notes: 'From the client' });
    expect(created).toMatchObject({ replayed: false, idempotencyKey: expect.stringMatching(/^inv-/) });
    expect(created.data.link).toMatch(/\/join\//);
    const replay = await client.createInvitation(partnerId, { game: 'fps', notes: 'From the client' }, created.idempotencyKey);
    expect(replay).toMatchObject({ replayed: true, data: { id: created.data.id } });
    expect((await client.getInvitation(partnerId, created.data.id)).data.state).toBe('pending');
    expect((await client.getInvitationLink(partnerId, created.data.id)).data.link).toBe(created.data.link);
    expect((await client.listInvitations(partnerId)).data.items.map((i) => i.id)).toContain(created.data.id);

    const ticketError = await client.getTicket(partnerId, created.data.id).catch((error: unknown) => error);
    expect(ticketError).toBeInstanceOf(PartnerApiError);
    expect(ticketError).toMatchObject({ code: 'PLAYER_NOT_JOINED', status: 409, requestId: expect.any(String), retryable: false });

    const invitations = new InvitationStore(stack.client, stack.tables.domain);
    const tickets = new DynamoTicketBridge(stack.client, stack.tables.domain);
    await claimInvitation({ invitations, tickets }, created.data.id, { in_game_name: 'Alex', game_account_id: 'alex_01' }, new Date());
    expect((await client.getTicket(partnerId, created.data.id)).data).toMatchObject({ invitation_id: created.data.id, message_count: 0 });
    expect((await client.listTickets(partnerId)).data.items.map((i) => i.id)).toEqual([created.data.id]);
    const iterated = [];
    for await (const ticket of client.iterateTickets(partnerId)) iterated.push(ticket.id);
    expect(iterated).toEqual([created.data.id]);

    const second = await client.createInvitation(partnerId, { game: 'minecraft' });
    expect((await client.revokeInvitation(partnerId, second.data.id)).data.state).toBe('revoked');
    const conflict = await client.createInvitation(partnerId, { game: 'fps' }, second.idempotencyKey).catch((error: unknown) => error);
    expect(conflict).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', status: 409 });
  });
});

describe('paging', () => {
  it('iterates records across pages keeping its filters while records change, and sync answers each record once', async () => {
    const { partner_id: org } = await stack.office.organizations.create('Paged organization');
    const { account_id } = await stack.office.accounts.create('Paging manager');
    await stack.office.memberships.set(org, account_id, 'manager');
    const pagingKey = (await stack.office.keys.create({ accountId: account_id, partnerId: org, scopes: ['records:read'] })).key;
    const paging = createPartnerClient({ baseUrl: stack.baseUrl, apiKey: pagingKey });
    const since = new Date(Date.now() - 1000).toISOString();
    const games = ['minecraft', 'fps'] as const;
    for (let i = 0; i < 9; i += 1) await stack.office.records!.put(org, recordInput(`Page${i}`, { game_category: games[i % 2] }));

    const seen: string[] = [];
    for await (const record of paging.iterateRecords(org, { limit: 2, game: 'minecraft' })) {
      seen.push(record.id);
      // A write while paging: the list is a live view.
      if (seen.length === 1) await stack.office.records!.put(org, recordInput('Late', { game_category: 'fps' }));
      expect(record.game_category ?? record.game).toBeDefined();
    }
    const minecraft = (await paging.listRecords(org, { limit: 100, game: 'minecraft' })).data.items;
    expect(new Set(seen)).toEqual(new Set(minecraft.map((r) => r.id)));

    const synced = await paging.records.sync(org, { since });
    const all = (await paging.listRecords(org, { limit: 100 })).data.items;
    expect(synced.records.map((r) => r.id).sort()).toEqual(all.map((r) => r.id).sort());
    expect(new Set(synced.records.map((r) => r.id)).size).toBe(synced.records.length);
    expect(synced.watermark).toBe(all.map((r) => r.updated_at).sort().at(-1));
  });

  it('iterates and syncs while another writer adds records concurrently: filters kept, each record once, none of the earlier ones missed', async () => {
    const { partner_id: org } = await stack.office.organizations.create('Busy organization');
    const { account_id } = await stack.office.accounts.create('Busy manager');
    await stack.office.memberships.set(org, account_id, 'manager');
    const busyKey = (await stack.office.keys.create({ accountId: account_id, partnerId: org, scopes: ['records:read'] })).key;
    const busy = createPartnerClient({ baseUrl: stack.baseUrl, apiKey: busyKey });
    const games = ['minecraft', 'fps'] as const;
    for (let i = 0; i < 12; i += 1) await stack.office.records!.put(org, recordInput('Busy', { game_category: games[i % 2] }));
    const before = (await busy.listRecords(org, { limit: 100, game: 'minecraft' })).data.items.map((r) => r.id);
    const since = (await busy.listRecords(org, { limit: 100 })).data.items.map((r) => r.updated_at).sort()[0];

    // A writer adding records of both games while the readers page (at least 4, at most 30: one list page holds them all).
    let reading = true;
    let written = 0;
    const writer = (async () => {
      while ((reading || written < 4) && written < 30) {
        await stack.office.records!.put(org, recordInput('Conc', { game_category: games[written % 2] }));
        written += 1;
      }
    })();
    const seen: string[] = [];
    const seenGames = new Set<string | undefined>();
    for await (const record of busy.iterateRecords(org, { limit: 2, game: 'minecraft' })) {
      seen.push(record.id);
      seenGames.add(record.game_category ?? record.game);
    }
    const firstSync = await busy.records.sync(org, { since });
    reading = false;
    await writer;

    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(before));
    expect([...seenGames]).toEqual(['minecraft']);
    expect(new Set(firstSync.records.map((r) => r.id)).size).toBe(firstSync.records.length);
    // What the first sync missed (written after it passed), the next one from its watermark brings: together, everything.
    const secondSync = await busy.records.sync(org, { since: firstSync.watermark });
    const all = (await busy.listRecords(org, { limit: 100 })).data.items.map((r) => r.id);
    expect(all.length).toBe(12 + written);
    expect(new Set([...firstSync.records, ...secondSync.records].map((r) => r.id))).toEqual(new Set(all));
  });
});

describe('the retry rules, through a front that fails first', () => {
  it('retries a GET after 429 and 503, waiting their Retry-After, then answers the success', async () => {
    const test = await front((n) => (n === 1 ? { status: 429, retryAfter: '1' } : n === 2 ? { status: 503, retryAfter: '1' } : undefined));
    const started = Date.now();
    const me = await createPartnerClient({ baseUrl: test.url, apiKey: key, ...quick }).me();
    expect(me.data.partner_id).toBe(partnerId);
    expect(test.seen).toHaveLength(3);
    // Two Retry-After waits of a second each (a lower bound, with a timer's millisecond of rounding each: nothing here
    // asserts how fast a machine is).
    expect(Date.now() - started).toBeGreaterThanOrEqual(1990);
  });

  it('never retries a 401: one request, a typed error', async () => {
    const test = await front(() => ({ status: 401 }));
    const error = await createPartnerClient({ baseUrl: test.url, apiKey: key, ...quick }).me().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_API_KEY', status: 401, retryable: false });
    expect(test.seen).toHaveLength(1);
  });

  it('retries a creation whose connection dropped after the stack created it: the same key and body, one invitation', async () => {
    const test = await front((n, method) => (method === 'POST' && n === 1 ? 'drop' : undefined));
    const before = (await client.listInvitations(partnerId)).data.items.length;
    const created = await createPartnerClient({ baseUrl: test.url, apiKey: key, ...quick }).createInvitation(partnerId, { game: 'fps', notes: 'Dropped once' });
    expect(created.replayed).toBe(true);
    expect(test.seen.map((s) => s.idempotencyKey)).toEqual([created.idempotencyKey, created.idempotencyKey]);
    expect(test.seen[0].body).toBe(test.seen[1].body);
    expect((await client.listInvitations(partnerId)).data.items.length).toBe(before + 1);
  });
});
