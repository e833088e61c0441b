/**
 * Invitations through the local front on DynamoDB Local: creation with
 * Idempotency-Key (new, replay, conflict, concurrent same-scope creations,
 * the 50-active limit exact under concurrency and freed at expiry), the
 * list's pages, read, link and revoke, and that no read carries a link,
 * notes or a token.
 *
 * Invitations a test only needs to exist (the list's, those filling slots
 * before a race for the last ones) are created in the store; the creations
 * under test go through the API. The refusals, which create nothing, share
 * one organization.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { InvitationItem } from '../../lambdas/invitations/invitation-model';
import { InvitationStore } from '../../lambdas/invitations/invitation-store';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { definition as invitationsFunction } from '../../lambdas/invitations/handler';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { type Platform } from '../../lambdas/shared/platform';
import { HANDLERS } from '../../local/handlers';
import { captureLogs } from '../support/log-capture';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';
import { localPlatform } from '../support/local-platform';
import { InvitationSchema } from '../../lambdas/invitations/invitation-contracts';

/** The Invitation object's fields, as its contract declares them (the response schema is strict: nothing else is answered). */
const INVITATION_FIELDS = Object.keys(InvitationSchema.def.shape).sort();
/** What must never appear in an Invitation, whatever its contract says: the leak guard, kept explicit. */
const NEVER_IN_INVITATION = ['notes', 'request_fp', 'key_id', 'player', 'credential_digest', 'submission_digest', 'link', 'token'];

let stack: TestStack;
let platform: Platform;
/** The platform's clock: moved forward to show expiry. */
let now: Date | undefined;

beforeAll(async () => {
  // The invitation quotas (10 creations a minute per organization) and concurrency limits (2 in flight per key)
  // are shown by the quota tests; here they are raised out of reach so the store's own rules are what is tested.
  const raised = LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: 100_000 }));
  const invitations = createPartnerApiHandler({ ...invitationsFunction, platform: () => platform });
  stack = await startTestStack({ handlers: { ...HANDLERS, invitations } });
  // After the stack set the environment (table names) the platform reads.
  platform = localPlatform({ limits: raised, clock: () => now ?? new Date() });
});
afterAll(() => stack?.stop());

interface Org {
  partnerId: string;
  keys: string[];
  next: number;
  readOnly: string;
}

/** Several write keys (the per-key minute quota is 60) and one read-only key. */
async function createOrg(keys = 3): Promise<Org> {
  const org = await createOrgWithManagerKey(stack.office, ['invitations:read', 'invitations:write']);
  const all = [org.key.key];
  for (let i = 1; i < keys; i += 1) all.push((await stack.office.keys.create({ accountId: org.account_id, partnerId: org.partner_id, scopes: ['invitations:read', 'invitations:write'] })).key);
  const readOnly = (await stack.office.keys.create({ accountId: org.account_id, partnerId: org.partner_id, scopes: ['invitations:read'] })).key;
  return { partnerId: org.partner_id, keys: all, next: 0, readOnly };
}

let serial = 0;
const idempotencyKey = () => `test-key-${Date.now()}-${(serial += 1).toString().padStart(6, '0')}`;

async function call(org: Org, method: string, path: string, options: { body?: unknown; idem?: string | null; key?: string } = {}) {
  const headers: Record<string, string> = { ...bearer(options.key ?? org.keys[0]) };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.idem) headers['Idempotency-Key'] = options.idem;
  const response = await stack.call(`/partners/${org.partnerId}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  const json = JSON.parse(text) as { data?: Record<string, unknown>; error?: { code: string } };
  return { status: response.status, data: json.data as Record<string, any> | undefined, code: json.error?.code, text, headers: response.headers };
}

const create = (org: Org, body: unknown, idem: string | null = idempotencyKey(), key?: string) => call(org, 'POST', '/invitations', { body, idem, key });

/** `count` invitations of the organization made in the store, one after the other (oldest first), as seeding. */
async function seedInvitations(partnerId: string, count: number, game: (i: number) => 'fps' | 'minecraft' = () => 'fps') {
  const store = new InvitationStore(stack.client, stack.tables.domain);
  const items: InvitationItem[] = [];
  for (let i = 0; i < count; i += 1) {
    const creation = await store.create({ keyId: 'key_seed', partnerId, idempotencyKey: idempotencyKey() }, { game: game(i) }, new Date());
    if (creation.outcome !== 'created') throw new Error(`seeding: ${creation.outcome}`);
    items.push(creation.item);
  }
  return items;
}

/** The organization the refusals share: each must create nothing, so it has no invitation (checked where it matters). */
let refusals: Promise<Org> | undefined;
const refusalOrg = () => (refusals ??= createOrg(1));

describe('what a creation costs', () => {
  it('reads beside the admission: a new invitation in 3 sequential round trips, a replay in 2 (the call log)', async () => {
    const org = await createOrg();
    await call(org, 'GET', '/invitations'); // the key's facts cached, as in a warm container
    const idem = idempotencyKey();
    const logs = captureLogs();
    try {
      expect((await create(org, { game: 'fps' }, idem)).status).toBe(201);
      expect((await create(org, { game: 'fps' }, idem)).status).toBe(200);
      const costs = logs
        .lines()
        .filter((line) => line.message === 'request' && line.route === 'invitation-create')
        .map((line) => [line.status, (line.dynamo as { round_trips: number }).round_trips]);
      expect(costs).toEqual([
        [201, 3],
        [200, 2],
      ]);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('reads and revokes at the floor: the admission with the reads beside it, the change, the leases released (the call log)', async () => {
    // Prepare: a warm container (the key's facts cached, the organization's count seen once), two invitations.
    const org = await createOrg();
    const [first, second] = [await create(org, { game: 'fps' }), await create(org, { game: 'minecraft' })];
    await call(org, 'GET', '/invitations');
    const logs = captureLogs();
    try {
      // Act: each read once, a page after a creation this container has not counted, then a revoke.
      const id = String(first.data!.id);
      expect((await call(org, 'GET', `/invitations/${id}`)).status).toBe(200);
      expect((await call(org, 'GET', `/invitations/${id}/link`)).status).toBe(200);
      expect((await call(org, 'GET', '/invitations')).status).toBe(200);
      await create(org, { game: 'fps' });
      const listed = await call(org, 'GET', '/invitations?page=1');
      expect(listed.data!.items).toHaveLength(3);
      expect((await call(org, 'POST', `/invitations/${String(second.data!.id)}/revoke`)).status).toBe(200);
      expect((await call(org, 'GET', `/invitations/not-one-of-theirs`)).status).toBe(404);

      // Assess: sequential round trips per call, as the call log counts them.
      const costs = logs
        .lines()
        .filter((line) => line.message === 'request' && line.route !== 'invitation-create')
        .map((line) => [line.route, line.status, (line.dynamo as { round_trips: number }).round_trips]);
      expect(costs).toEqual([
        ['invitation', 200, 2],
        ['invitation-link', 200, 2],
        ['invitations', 200, 2],
        ['invitations', 200, 2],
        ['invitation-revoke', 200, 3],
        ['invitation', 404, 2],
      ]);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("does not read another organization's invitations beside the admission of a key not bound to it", async () => {
    const [org, other] = [await createOrg(), await createOrg()];
    await call(org, 'GET', '/invitations'); // the key's facts cached: its admission then reads nothing
    const logs = captureLogs();
    try {
      const refused = await call(other, 'POST', '/invitations', { body: { game: 'fps' }, idem: idempotencyKey(), key: org.keys[0] });
      expect(refused.status).toBe(403);
      const [line] = logs.lines().filter((l) => l.message === 'request' && l.route === 'invitation-create');
      // Admission's writes only: no BatchGetItem of the other organization's items.
      expect((line.dynamo as { rcu: number }).rcu).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe('POST /partners/{partner_id}/invitations', () => {
  it('creates a pending invitation with a link whose token is only in the fragment, and replays it', async () => {
    const org = await createOrg();
    const idem = idempotencyKey();
    const created = await create(org, { game: 'minecraft', notes: '  Player asked for a re-check.  ' }, idem);
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ game: 'minecraft', state: 'pending', ticket_id: null, archived_at: null, replayed: false });
    expect(Date.parse(created.data!.expires_at) - Date.parse(created.data!.created_at)).toBe(7 * 86_400_000);
    const link = new URL(created.data!.link);
    expect(link.pathname).toBe(`/v1/join/${created.data!.id}`);
    expect(link.hash).toMatch(/^#token=[A-Za-z0-9_-]{43}$/);
    expect(link.search).toBe('');
    expect(created.text).not.toContain('re-check');

    const replay = await create(org, { game: 'minecraft', notes: 'Player asked for a re-check.' }, idem);
    expect(replay.status).toBe(200);
    expect(replay.data).toEqual({ ...created.data, replayed: true });
  });

  it('answers 409 IDEMPOTENCY_CONFLICT for the same key with another game or other notes', async () => {
    const org = await createOrg();
    const idem = idempotencyKey();
    await create(org, { game: 'fps', notes: 'first' }, idem);
    expect((await create(org, { game: 'minecraft', notes: 'first' }, idem)).code).toBe('IDEMPOTENCY_CONFLICT');
    expect((await create(org, { game: 'fps', notes: 'second' }, idem)).code).toBe('IDEMPOTENCY_CONFLICT');
    expect((await create(org, { game: 'fps' }, idem)).code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('scopes the Idempotency-Key to the key: another key with the same Idempotency-Key creates another invitation', async () => {
    const org = await createOrg();
    const idem = idempotencyKey();
    const a = await create(org, { game: 'fps' }, idem, org.keys[0]);
    const b = await create(org, { game: 'fps' }, idem, org.keys[1]);
    expect(b.status).toBe(201);
    expect(b.data!.id).not.toBe(a.data!.id);
  });

  it('gives the replay a null link once the invitation is revoked, and never reuses the key for a new invitation', async () => {
    const org = await createOrg();
    const idem = idempotencyKey();
    const created = await create(org, { game: 'fps' }, idem);
    expect((await call(org, 'POST', `/invitations/${created.data!.id}/revoke`)).status).toBe(200);
    const replay = await create(org, { game: 'fps' }, idem);
    expect(replay).toMatchObject({ status: 200, data: { id: created.data!.id, state: 'revoked', link: null, replayed: true } });
  });

  it.each([
    [null, 'IDEMPOTENCY_KEY_REQUIRED', 400],
    ['short', 'IDEMPOTENCY_KEY_REQUIRED', 400],
    ['has spaces in it, sixteen+', 'IDEMPOTENCY_KEY_REQUIRED', 400],
    ['x'.repeat(129), 'IDEMPOTENCY_KEY_REQUIRED', 400],
  ])('refuses Idempotency-Key %s with %s', async (idem, code, status) => {
    const org = await refusalOrg();
    expect(await create(org, { game: 'fps' }, idem)).toMatchObject({ status, code });
  });

  it.each([
    [{ game: 'chess' }, 'INVALID_GAME'],
    [{}, 'INVALID_GAME'],
    [{ game: 'fps', notes: 'x' }, 'INVALID_FIELD'],
    [{ game: 'fps', notes: '  x  ' }, 'INVALID_FIELD'],
    [{ game: 'fps', notes: 'x'.repeat(601) }, 'INVALID_FIELD'],
    [{ game: 'fps', notes: 42 }, 'INVALID_FIELD'],
    [{ game: 'fps', notes: 'ab\u0000cd' }, 'INVALID_FIELD'],
    [{ game: 'fps', notes: 'bell \u0007 rings' }, 'INVALID_FIELD'],
    [{ game: 'fps', notes: 'next line \u0085 here' }, 'INVALID_FIELD'],
    [{ game: 'fps', holder_id: 'p1' }, 'UNKNOWN_FIELD'],
    [{ game: 'fps', expires_at: '2030-01-01T00:00:00Z' }, 'UNKNOWN_FIELD'],
  ])('refuses %j with 422 %s and creates nothing', async (body, code) => {
    const org = await refusalOrg();
    expect(await create(org, body)).toMatchObject({ status: 422, code });
    expect((await call(org, 'GET', '/invitations')).data).toMatchObject({ items: [], page_count: 0 });
  });

  it('accepts empty and whitespace-only notes, 600 characters after trimming, and line breaks and tabs', async () => {
    const org = await createOrg(1);
    for (const notes of ['', '   ', `  ${'n'.repeat(600)}  `, 'first line\nsecond\tline']) expect((await create(org, { game: 'fps', notes })).status).toBe(201);
  });

  it('creates one invitation from 20 concurrent requests of one scope; the others replay it', async () => {
    const org = await createOrg(1);
    const idem = idempotencyKey();
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(org, { game: 'minecraft' }, idem)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(19);
    expect(new Set(answers.map((a) => a.data!.id)).size).toBe(1);
    expect(answers.filter((a) => a.data!.replayed)).toHaveLength(19);
    expect((await call(org, 'GET', '/invitations')).data!.items).toHaveLength(1);
  });

  it('creates exactly 50 of 60 creations in the store, the last 20 concurrent for the last 10 slots (the organization item\u2019s version condition)', async () => {
    // Prepare: 40 of the 50 slots taken, one creation after the other. (60 at once from none cost ~1,800 transactions,
    // every creation but one losing each round of the version condition, to show what the race for the last slots
    // shows.)
    const store = new InvitationStore(stack.client, stack.tables.domain);
    const partnerId = `org_store_${Date.now()}`;
    await seedInvitations(partnerId, 40);

    // Act: twice as many concurrent creations as free slots, across keys.
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.create({ keyId: `key_${i % 6}`, partnerId, idempotencyKey: idempotencyKey() }, { game: 'fps' }, new Date())),
    );

    // Assess: exactly the free slots were taken, each creation number once.
    expect(outcomes.filter((o) => o.outcome === 'created')).toHaveLength(10);
    expect(outcomes.filter((o) => o.outcome === 'limit')).toHaveLength(10);
    const created = outcomes.flatMap((o) => (o.outcome === 'created' ? [o.item.seq] : []));
    expect([...created].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => 41 + i));
    expect((await store.page(partnerId, 3)).total).toBe(50);
  }, 240_000);

  it('refuses the 51st active invitation through the API, exactly under concurrent requests across keys, and frees a slot at revoke and at expiry', async () => {
    const org = await createOrg(5);
    // The first 45 in the store (seeding): the API's creations are the 10 racing for the last 5 slots and those after.
    const first = await seedInvitations(org.partnerId, 45);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => create(org, { game: 'fps' }, idempotencyKey(), org.keys[i % 5])));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(5);
    expect(answers.filter((a) => a.status !== 201).map((a) => [a.status, a.code])).toEqual(Array(5).fill([429, 'TOO_MANY_INVITES']));
    expect((await call(org, 'GET', '/invitations?page=3')).data).toMatchObject({ page: 3, page_count: 3 });

    // A revoked invitation frees its slot at once.
    await call(org, 'POST', `/invitations/${first[0].id}/revoke`);
    expect((await create(org, { game: 'fps' })).status).toBe(201);
    const sentAt = Date.now();
    const full = await create(org, { game: 'fps' });
    const answeredAt = Date.now();
    expect(full.code).toBe('TOO_MANY_INVITES');
    // Its own policy (not the key's minute that admitted it), until the earliest pending invitation expires.
    const freesAt = Math.ceil(Date.parse(first[1].expires_at) / 1000);
    expect(full.headers.get('x-ratelimit-policy')).toBe('organization-active-invitations');
    expect(full.headers.get('x-ratelimit-limit')).toBe('50');
    expect(full.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(full.headers.get('x-ratelimit-reset')).toBe(String(freesAt));
    // Seconds from the service's instant to the expiry: that instant lies between sending and the answer.
    const retryAfter = Number(full.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(freesAt - Math.floor(answeredAt / 1000));
    expect(retryAfter).toBeLessThanOrEqual(freesAt - Math.floor(sentAt / 1000));

    // At the expiry instant of the second oldest, two slots are free (the oldest was revoked); nothing swept them.
    now = new Date(Date.parse(first[1].expires_at));
    try {
      expect((await create(org, { game: 'fps' })).status).toBe(201);
      expect((await call(org, 'GET', `/invitations/${first[1].id}`)).data).toMatchObject({ state: 'expired' });
    } finally {
      now = undefined;
    }
  }, 240_000);
});

describe('reading, linking and revoking', () => {
  it('lists 20 per page, newest first, with page_count; a page beyond them is empty; INVALID_PAGE outside 1–10000', async () => {
    const org = await createOrg(1);
    const ids = (await seedInvitations(org.partnerId, 23, (i) => (i % 2 ? 'fps' : 'minecraft'))).map((item) => item.id);
    const first = await call(org, 'GET', '/invitations');
    expect(first.data).toMatchObject({ page: 1, page_count: 2 });
    expect(first.data!.items.map((i: { id: string }) => i.id)).toEqual([...ids].reverse().slice(0, 20));
    const second = await call(org, 'GET', '/invitations?page=2', { key: org.readOnly });
    expect(second.data!.items.map((i: { id: string }) => i.id)).toEqual([...ids].reverse().slice(20));
    expect((await call(org, 'GET', '/invitations?page=3')).data).toMatchObject({ items: [], page: 3, page_count: 2 });
    for (const page of ['0', '10001', 'x', '1.5', '', '-1']) expect(await call(org, 'GET', `/invitations?page=${page}`)).toMatchObject({ status: 422, code: 'INVALID_PAGE' });
    for (const item of first.data!.items) expect(Object.keys(item).sort()).toEqual(INVITATION_FIELDS);
  });

  it('reads one invitation without link, replayed, notes or token; 404 INVITE_UNAVAILABLE for a missing, malformed or foreign id', async () => {
    const org = await createOrg(1);
    const other = await createOrg(1);
    const created = await create(org, { game: 'fps', notes: 'SECRET-NOTES' });
    const read = await call(org, 'GET', `/invitations/${created.data!.id}`, { key: org.readOnly });
    expect(read.status).toBe(200);
    expect(Object.keys(read.data!).sort()).toEqual(INVITATION_FIELDS);
    for (const field of NEVER_IN_INVITATION) expect(Object.keys(read.data!)).not.toContain(field);
    expect(read.text).not.toMatch(/SECRET-NOTES|token|link/);
    for (const id of ['00000000-0000-8000-8000-000000000000', 'not-a-uuid']) expect(await call(org, 'GET', `/invitations/${id}`)).toMatchObject({ status: 404, code: 'INVITE_UNAVAILABLE' });
    expect(await call(other, 'GET', `/invitations/${created.data!.id}`)).toMatchObject({ status: 404, code: 'INVITE_UNAVAILABLE' });
  });

  it('gives the link again for a usable invitation (invitations:write only), and 409 INVITE_UNAVAILABLE once revoked or expired', async () => {
    const org = await createOrg(1);
    const created = await create(org, { game: 'minecraft' });
    const link = await call(org, 'GET', `/invitations/${created.data!.id}/link`);
    expect(link).toMatchObject({ status: 200, data: { id: created.data!.id, link: created.data!.link } });
    expect(await call(org, 'GET', `/invitations/${created.data!.id}/link`, { key: org.readOnly })).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    expect(await call(org, 'GET', '/invitations/00000000-0000-8000-8000-000000000000/link')).toMatchObject({ status: 409, code: 'INVITE_UNAVAILABLE' });

    const expiring = await create(org, { game: 'fps' });
    now = new Date(Date.parse(expiring.data!.expires_at));
    try {
      expect(await call(org, 'GET', `/invitations/${expiring.data!.id}/link`)).toMatchObject({ status: 409, code: 'INVITE_UNAVAILABLE' });
      expect((await call(org, 'GET', `/invitations/${expiring.data!.id}`)).data).toMatchObject({ state: 'expired' });
      expect(await call(org, 'POST', `/invitations/${expiring.data!.id}/revoke`)).toMatchObject({ status: 409, code: 'INVITE_UNAVAILABLE' });
    } finally {
      now = undefined;
    }
    await call(org, 'POST', `/invitations/${created.data!.id}/revoke`);
    expect(await call(org, 'GET', `/invitations/${created.data!.id}/link`)).toMatchObject({ status: 409, code: 'INVITE_UNAVAILABLE' });
  });

  it('revokes a pending invitation, answers the same on a repeated revoke, and refuses a body or a read-only key', async () => {
    const org = await createOrg(1);
    const created = await create(org, { game: 'fps' });
    const path = `/invitations/${created.data!.id}/revoke`;
    expect(await call(org, 'POST', path, { key: org.readOnly })).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    expect(await call(org, 'POST', path, { body: {} })).toMatchObject({ status: 400, code: 'BODY_NOT_ALLOWED' });
    const revoked = await call(org, 'POST', path);
    expect(revoked).toMatchObject({ status: 200, data: { id: created.data!.id, state: 'revoked' } });
    expect(await call(org, 'POST', path)).toMatchObject({ status: 200, data: revoked.data });
    expect(await call(org, 'POST', '/invitations/not-a-uuid/revoke')).toMatchObject({ status: 409, code: 'INVITE_UNAVAILABLE' });
  });
});
