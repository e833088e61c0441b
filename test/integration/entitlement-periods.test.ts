/**
 * Period events on DynamoDB Local: the entitlement-periods job writes an
 * organization's `entitlement.updated` when a grant starts or ends, once per
 * transition, with `created_at` = the instant, without any API call. The
 * back office and the job run on an injected clock; each test lives in its
 * own stretch of time (further apart than the job's catch-up window), so a
 * run sees only that test's grants and its counts are exact.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import { runPeriodTransitions } from '../../lambdas/entitlements/period-transitions';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
let office: BackOffice;
let now = new Date();
const HOUR = 3_600_000;

beforeAll(async () => {
  stack = await startTestStack();
  office = createBackOffice(stack.client, stack.tables.access, () => now, stack.tables.domain);
});
afterAll(() => stack?.stop());

let stretch = 0;
/** A fresh stretch of time, 10 days after the previous test's, and the clock set to its start. */
function freshTime(): number {
  stretch += 1;
  const base = Date.UTC(2031, 0, 1) + stretch * 10 * 24 * HOUR;
  now = new Date(base);
  return base;
}
const iso = (ms: number) => new Date(ms).toISOString();
const runAt = (ms: number) => runPeriodTransitions({ client: stack.client, table: stack.tables.domain, clock: () => new Date(ms) });
const eventsOf = async (partnerId: string) => (await office.records!.events(partnerId)).events;
const grantItem = async (owner: string, grantId: string) =>
  (await stack.client.send(new GetCommand({ TableName: stack.tables.domain, Key: { pk: `ENT#${owner.replace(':', '#')}`, sk: `GRANT#${grantId}` }, ConsistentRead: true }))).Item!;

async function organization() {
  const { partner_id } = await office.organizations.create('Org');
  return { partner_id, owner: `partner:${partner_id}` };
}

describe('entitlement-periods job', () => {
  it('writes a queued grant’s start, then its end, once each at the instant, and nothing before', async () => {
    const base = freshTime();
    const { partner_id, owner } = await organization();
    const start = base + HOUR;
    const end = base + 3 * HOUR;
    const { grant_id } = await office.entitlements!.grant({ owner, game: 'minecraft', units: 10, startsAt: iso(start), expiresAt: iso(end) });
    expect(await eventsOf(partner_id)).toHaveLength(1); // The grant's own event.

    expect(await runAt(start - 1)).toMatchObject({ due: 0, events: 0 });
    expect(await eventsOf(partner_id)).toHaveLength(1);

    expect(await runAt(start)).toMatchObject({ due: 1, transitioned: 1, events: 1 });
    expect(await runAt(start + 60_000)).toMatchObject({ events: 0 });
    // A use between the transitions keeps the grant's next marker (use() sets only its own attributes).
    now = new Date(start + 30 * 60_000);
    await office.entitlements!.use(owner, 'minecraft', 2);
    expect(await grantItem(owner, grant_id)).toMatchObject({ used_units: 2, due: 'end', gsi1sk: `${iso(end)}#${grant_id}` });

    expect(await runAt(end - 1)).toMatchObject({ events: 0 });
    expect(await runAt(end + 1_000)).toMatchObject({ due: 1, transitioned: 1, events: 1 });
    expect(await runAt(end + 120_000)).toMatchObject({ due: 0, events: 0 });

    const events = await eventsOf(partner_id);
    expect(events.map((e) => [e.type, e.created_at, e.data])).toEqual([
      ['entitlement.updated', iso(base), { game: 'minecraft' }], // grant
      ['entitlement.updated', iso(start), { game: 'minecraft' }], // start
      ['entitlement.updated', iso(start + 30 * 60_000), { game: 'minecraft' }], // use
      ['entitlement.updated', iso(end), { game: 'minecraft' }], // end
    ]);
    expect(events.every((e) => e.partner_id === partner_id && e.api_version === 'v1')).toBe(true);
    const item = await grantItem(owner, grant_id);
    expect(item).not.toHaveProperty('gsi1pk');
    expect(item).not.toHaveProperty('due');
  });

  it('writes no second start for a grant that starts at grant time: only its end', async () => {
    const base = freshTime();
    const { partner_id, owner } = await organization();
    await office.entitlements!.grant({ owner, game: 'fps', unlimited: true, expiresAt: iso(base + 2 * HOUR) });

    expect(await runAt(base + 60_000)).toMatchObject({ due: 0, events: 0 });
    expect(await runAt(base + 2 * HOUR)).toMatchObject({ due: 1, events: 1 });
    expect((await eventsOf(partner_id)).map((e) => e.created_at)).toEqual([iso(base), iso(base + 2 * HOUR)]);
  });

  it('writes a permanent grant’s start and no end; a permanent grant current at grant time is never due', async () => {
    const base = freshTime();
    const { partner_id, owner } = await organization();
    const queued = await office.entitlements!.grant({ owner, game: 'fps', units: 3, startsAt: iso(base + HOUR), permanent: true });
    const current = await office.entitlements!.grant({ owner, game: 'minecraft', units: 3, permanent: true });
    expect(await grantItem(owner, current.grant_id)).not.toHaveProperty('gsi1pk');

    expect(await runAt(base + HOUR)).toMatchObject({ due: 1, events: 1 });
    expect(await runAt(base + 40 * HOUR)).toMatchObject({ due: 0, events: 0 });
    // The two grants' own events share an instant: their order between them is not defined.
    const events = (await eventsOf(partner_id)).map((e) => [e.created_at, (e.data as { game: string }).game]);
    expect(events.slice(0, 2).sort()).toEqual([
      [iso(base), 'fps'],
      [iso(base), 'minecraft'],
    ]);
    expect(events.slice(2)).toEqual([[iso(base + HOUR), 'fps']]);
    expect(await grantItem(owner, queued.grant_id)).not.toHaveProperty('gsi1pk');
  });

  it('writes nothing for an account’s grants (accounts get no events)', async () => {
    const base = freshTime();
    const { account_id } = await office.accounts.create('Someone');
    const { grant_id } = await office.entitlements!.grant({ owner: `account:${account_id}`, game: 'fps', units: 3, startsAt: iso(base + HOUR), expiresAt: iso(base + 2 * HOUR) });
    expect(await grantItem(`account:${account_id}`, grant_id)).not.toHaveProperty('gsi1pk');

    expect(await runAt(base + HOUR)).toMatchObject({ due: 0, events: 0 });
    expect(await runAt(base + 3 * HOUR)).toMatchObject({ due: 0, events: 0 });
    expect(await eventsOf(account_id)).toEqual([]);
  });

  it('catches up after downtime: a run after both instants writes the start and the end, each at its own instant', async () => {
    const base = freshTime();
    const { partner_id, owner } = await organization();
    await office.entitlements!.grant({ owner, game: 'minecraft', units: 1, startsAt: iso(base + HOUR), expiresAt: iso(base + 2 * HOUR) });

    expect(await runAt(base + 30 * HOUR)).toMatchObject({ due: 1, transitioned: 1, events: 2 });
    expect(await runAt(base + 31 * HOUR)).toMatchObject({ due: 0, events: 0 });
    expect((await eventsOf(partner_id)).map((e) => e.created_at)).toEqual([iso(base), iso(base + HOUR), iso(base + 2 * HOUR)]);
  });

  it('writes each transition exactly once when 4 runs race, and again when they race at the ends', async () => {
    const base = freshTime();
    const { partner_id, owner } = await organization();
    const grants = 6;
    for (let i = 0; i < grants; i += 1) {
      await office.entitlements!.grant({ owner, game: i % 2 ? 'fps' : 'minecraft', units: 5, startsAt: iso(base + HOUR + i), expiresAt: iso(base + 2 * HOUR + i) });
    }

    for (const instant of [base + HOUR + 10_000, base + 2 * HOUR + 10_000]) {
      const runs = await Promise.all(Array.from({ length: 4 }, () => runAt(instant)));
      // Every run saw the due grants; between them, each grant was transitioned by exactly one.
      expect(runs.reduce((sum, r) => sum + r.transitioned, 0)).toBe(grants);
      expect(runs.reduce((sum, r) => sum + r.events, 0)).toBe(grants);
      expect(runs.every((r) => r.failed === 0 && r.deferred === 0)).toBe(true);
      expect(runs.reduce((sum, r) => sum + r.transitioned + r.already, 0)).toBe(runs.reduce((sum, r) => sum + r.due, 0));
    }

    const events = await eventsOf(partner_id);
    const count = (ms: number) => events.filter((e) => e.created_at === iso(ms)).length;
    expect(events).toHaveLength(3 * grants);
    for (let i = 0; i < grants; i += 1) {
      expect(count(base + HOUR + i)).toBe(1);
      expect(count(base + 2 * HOUR + i)).toBe(1);
    }
  });
});

describe('local stack: the job on an interval', () => {
  it('writes a start without anyone calling the job or the API', async () => {
    const local = await startTestStack({ scheduledJobs: { intervalMs: 200 } });
    try {
      const realOffice = createBackOffice(local.client, local.tables.access, undefined, local.tables.domain);
      const { partner_id } = await realOffice.organizations.create('Org');
      const startsAt = new Date(Date.now() + 1_000).toISOString();
      await realOffice.entitlements!.grant({ owner: `partner:${partner_id}`, game: 'fps', units: 1, startsAt, permanent: true });
      const deadline = Date.now() + 60_000;
      let events = (await realOffice.records!.events(partner_id)).events;
      while (events.length < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        events = (await realOffice.records!.events(partner_id)).events;
      }
      expect(events.map((e) => e.created_at).at(-1)).toBe(startsAt);
      expect(events).toHaveLength(2);
    } finally {
      await local.stop();
    }
  });
});
