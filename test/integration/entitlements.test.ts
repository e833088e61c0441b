/**
 * Entitlements through the local front and DynamoDB Local: the personal and
 * organization summaries (personal keys only on /entitlements), grants, uses
 * and refunds from the back office with their `entitlement.updated` events,
 * and exact use under concurrency (a grant is never overdrawn).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

const entitlements = () => stack.office.entitlements!;
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

async function summary(path: string, key: string) {
  const response = await stack.call(path, { headers: bearer(key) });
  const body = (await response.json()) as { data?: { owner_type: string; owner_id: string; games: Record<string, unknown>[] }; error?: { code: string } };
  return { status: response.status, code: body.error?.code, data: body.data };
}

async function setup() {
  const org = await createOrgWithManagerKey(stack.office, ['entitlements:read']);
  const personal = await stack.office.keys.create({ accountId: org.account_id, scopes: ['entitlements:read'] });
  return { ...org, orgKey: org.key.key, personalKey: personal.key };
}

describe('GET /entitlements and GET /partners/{partner_id}/entitlements', () => {
  it('answers two zeroed entries when nothing is held, for the account and for the organization', async () => {
    const { account_id, partner_id, orgKey, personalKey } = await setup();
    const zero = { remaining_units: 0, unlimited: false, total_units: 0, used_units: 0, expires_at: null, next_starts_at: null };
    expect(await summary('/entitlements', personalKey)).toEqual({
      status: 200,
      code: undefined,
      data: { owner_type: 'account', owner_id: account_id, games: [{ game: 'minecraft', ...zero }, { game: 'fps', ...zero }] },
    });
    expect((await summary(`/partners/${partner_id}/entitlements`, orgKey)).data).toMatchObject({ owner_type: 'partner', owner_id: partner_id });
  });

  it('refuses an organization key on the personal endpoint with 403 PERSONAL_KEY_REQUIRED', async () => {
    const { orgKey } = await setup();
    expect(await summary('/entitlements', orgKey)).toMatchObject({ status: 403, code: 'PERSONAL_KEY_REQUIRED' });
  });

  it('keeps the personal and organization balances apart', async () => {
    const { account_id, partner_id, orgKey, personalKey } = await setup();
    await entitlements().grant({ owner: `partner:${partner_id}`, game: 'minecraft', units: 10, expiresAt: inDays(30) });
    await entitlements().grant({ owner: `account:${account_id}`, game: 'fps', units: 3, permanent: true });
    const org = await summary(`/partners/${partner_id}/entitlements`, orgKey);
    const personal = await summary('/entitlements', personalKey);
    expect(org.data?.games.map((g) => g.total_units)).toEqual([10, 0]);
    expect(personal.data?.games.map((g) => g.total_units)).toEqual([0, 3]);
    expect(personal.data?.games[1]).toMatchObject({ expires_at: null });
  });

  it('reflects counted, unlimited, queued and expired grants, uses and refunds', async () => {
    const { partner_id, orgKey } = await setup();
    const owner = `partner:${partner_id}`;
    await entitlements().grant({ owner, game: 'minecraft', units: 10, expiresAt: inDays(30) });
    await entitlements().grant({ owner, game: 'minecraft', units: 5, startsAt: inDays(-40), expiresAt: inDays(-10) });
    const queuedStart = inDays(45);
    await entitlements().grant({ owner, game: 'minecraft', units: 100, startsAt: queuedStart, expiresAt: inDays(90) });
    await entitlements().grant({ owner, game: 'fps', unlimited: true, expiresAt: inDays(7) });
    const first = await entitlements().use(owner, 'minecraft', 4);
    await entitlements().use(owner, 'minecraft', 1);
    await entitlements().refund(first.use_id);
    await entitlements().refund(first.use_id);
    await entitlements().use(owner, 'fps', 2);

    const { data } = await summary(`/partners/${partner_id}/entitlements`, orgKey);
    expect(data?.games[0]).toMatchObject({ game: 'minecraft', total_units: 10, used_units: 1, remaining_units: 9, unlimited: false, next_starts_at: queuedStart });
    expect(data?.games[1]).toMatchObject({ game: 'fps', total_units: 0, remaining_units: 0, unlimited: true, used_units: 2 });

    const { events } = await stack.office.records!.events(partner_id);
    // 4 grants, 3 uses, 1 refund (the repeated refund changes nothing): each with its event.
    expect(events.map((e) => e.type)).toEqual(Array(8).fill('entitlement.updated'));
    expect(events.map((e) => (e.data as { game: string }).game)).toEqual(['minecraft', 'minecraft', 'minecraft', 'fps', 'minecraft', 'minecraft', 'minecraft', 'fps']);
  });

  it('never overdraws a grant: 8 concurrent uses of 1 unit against 5 units use exactly 5', async () => {
    const { partner_id, orgKey } = await setup();
    const owner = `partner:${partner_id}`;
    await entitlements().grant({ owner, game: 'fps', units: 5, expiresAt: inDays(30) });
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => entitlements().use(owner, 'fps', 1)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
    for (const refused of outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')) {
      expect(refused.reason).toMatchObject({ code: 'INSUFFICIENT_UNITS' });
    }
    const { data } = await summary(`/partners/${partner_id}/entitlements`, orgKey);
    expect(data?.games[1]).toMatchObject({ used_units: 5, remaining_units: 0 });
  });
});
