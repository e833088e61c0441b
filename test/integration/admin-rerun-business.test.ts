/**
 * An operator re-running a records or entitlements command of the admin CLI after an error that left its outcome
 * unknown (docs/operations.md "Running a command again"): `entitlement grant`, `entitlement use`, `record put`,
 * `record move`, `record delete` and `record archive` with the same `--request-id` make their change once (one grant,
 * one charge, one event in the outbox) and answer it again, `replayed`.
 *
 * The first run's transaction is applied with every try's answer lost (`fail-after` at the call site,
 * local/fault-injection.ts), on a back office of its own; the checks read through the test stack's own back office,
 * which no rule counts.
 */
import { describe, expect, it } from 'vitest';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import { EntitlementStore } from '../../lambdas/entitlements/entitlement-store';
import { describeFailure, runAdminCommand } from '../../scripts/admin-cli';
import { recordInput } from '../support/record-input';
import { withFaultyClient, type FaultyClient } from '../support/faulty-client';
import type { TestStack } from '../support/test-stack';

let stack: TestStack;
let faulty: FaultyClient;
let office: BackOffice;
const faults = withFaultyClient((world) => {
  ({ stack, client: faulty } = world);
  office = createBackOffice(faulty, stack.tables.access, undefined, stack.tables.domain);
});

/** One run of the CLI's command, as an invocation the fault plan counts. */
const admin = (...argv: string[]) => faults.invocation('api', () => runAdminCommand(argv, office));

const failureOf = (run: Promise<unknown>) =>
  run.then(
    () => {
      throw new Error('the command succeeded');
    },
    (error: unknown) => describeFailure(error),
  );

let serial = 0;
const requestId = () => `req-${Date.now()}-${(serial += 1)}`;

/** Every try of the next transaction is applied and its answer lost: the run fails. */
const loseNextTransaction = () => faults.arm({ component: 'api', call: 'TransactWriteItems', effect: 'fail-after' });

const eventsOf = async (partnerId: string) => (await stack.office.records!.events(partnerId)).events;
const grantsOf = (partnerId: string) => new EntitlementStore(stack.client, stack.tables.domain).grants({ type: 'partner', id: partnerId }, true);
const newOrg = async () => (await stack.office.organizations.create('Org')).partner_id;
const later = new Date(Date.now() + 30 * 86_400_000).toISOString();

describe('entitlement grant --request-id', () => {
  it('answers the grant its first run made when that run failed after the write: one grant, one event', async () => {
    // Prepare
    const org = await newOrg();
    const argv = ['entitlement', 'grant', '--owner', `partner:${org}`, '--game', 'fps', '--units', '10', '--expires-at', later, '--request-id', requestId()];
    const lost = loseNextTransaction();

    // Act
    const first = await failureOf(admin(...argv));
    const again = (await admin(...argv)) as { grant_id: string };

    // Assess
    expect(lost.fired()).toBe(true);
    expect(first.message).toContain('re-run with --request-id');
    expect(again).toMatchObject({ owner_id: org, grant_id: expect.stringMatching(/^grant_[0-9a-f]{20}$/), units: 10, used_units: 0, replayed: true });
    expect((await grantsOf(org)).map((grant) => grant.grant_id)).toEqual([again.grant_id]);
    expect((await eventsOf(org)).map((event) => event.type)).toEqual(['entitlement.updated']);
  });

  it('refuses the same request id for another owner (REQUEST_ID_REUSED) and grants nothing', async () => {
    // Prepare
    const [org, other] = [await newOrg(), await newOrg()];
    const id = requestId();
    await admin('entitlement', 'grant', '--owner', `partner:${org}`, '--game', 'fps', '--units', '10', '--permanent', '--request-id', id);

    // Act
    const refused = await failureOf(admin('entitlement', 'grant', '--owner', `partner:${other}`, '--game', 'fps', '--units', '10', '--permanent', '--request-id', id));

    // Assess
    expect(refused.code).toBe('REQUEST_ID_REUSED');
    expect(await grantsOf(other)).toEqual([]);
    expect(await eventsOf(other)).toEqual([]);
  });
});

describe('entitlement use --request-id', () => {
  it('answers the use its first run made when that run failed after the write: charged once, one event', async () => {
    // Prepare
    const org = await newOrg();
    await stack.office.entitlements!.grant({ owner: `partner:${org}`, game: 'minecraft', units: 10, permanent: true });
    const argv = ['entitlement', 'use', '--owner', `partner:${org}`, '--game', 'minecraft', '--units', '3', '--request-id', requestId()];
    const lost = loseNextTransaction();

    // Act
    const first = await failureOf(admin(...argv));
    const again = await admin(...argv);

    // Assess
    expect(lost.fired()).toBe(true);
    expect(first.message).toContain('re-run with --request-id');
    expect(again).toEqual({ use_id: expect.stringMatching(/^use_[0-9a-f]{20}$/), grant_id: expect.stringMatching(/^grant_/), replayed: true });
    expect((await grantsOf(org)).map((grant) => grant.used_units)).toEqual([3]);
    expect((await eventsOf(org)).map((event) => event.type)).toEqual(['entitlement.updated', 'entitlement.updated']);
  });

  it('answers the use when the first run took the last units, instead of INSUFFICIENT_UNITS', async () => {
    // Prepare
    const org = await newOrg();
    await stack.office.entitlements!.grant({ owner: `partner:${org}`, game: 'fps', units: 2, permanent: true });
    const argv = ['entitlement', 'use', '--owner', `partner:${org}`, '--game', 'fps', '--units', '2', '--request-id', requestId()];
    loseNextTransaction();
    await failureOf(admin(...argv));

    // Act
    const again = await admin(...argv);

    // Assess
    expect(again).toMatchObject({ replayed: true });
    expect((await grantsOf(org)).map((grant) => grant.used_units)).toEqual([2]);
  });

  it('refuses the same request id with other units (REQUEST_ID_REUSED) and charges nothing more', async () => {
    // Prepare
    const org = await newOrg();
    await stack.office.entitlements!.grant({ owner: `partner:${org}`, game: 'fps', units: 10, permanent: true });
    const id = requestId();
    await admin('entitlement', 'use', '--owner', `partner:${org}`, '--game', 'fps', '--units', '1', '--request-id', id);

    // Act
    const refused = await failureOf(admin('entitlement', 'use', '--owner', `partner:${org}`, '--game', 'fps', '--units', '2', '--request-id', id));

    // Assess
    expect(refused.code).toBe('REQUEST_ID_REUSED');
    expect((await grantsOf(org)).map((grant) => grant.used_units)).toEqual([1]);
  });
});

describe('record put --request-id', () => {
  it('answers the record its first run made when that run failed after the write: one record.created, no record.updated', async () => {
    // Prepare
    const org = await newOrg();
    const argv = ['record', 'put', '--org', org, '--json', JSON.stringify(recordInput('RERUN')), '--request-id', requestId()];
    const lost = loseNextTransaction();

    // Act
    const first = await failureOf(admin(...argv));
    const again = (await admin(...argv)) as { id: string; event_id: string };

    // Assess
    expect(lost.fired()).toBe(true);
    expect(first.message).toContain('re-run with --request-id');
    expect(again).toMatchObject({ id: expect.stringMatching(/^rec_/), partner_id: org, replayed: true });
    expect((await eventsOf(org)).map((event) => [event.type, event.id])).toEqual([['record.created', again.event_id]]);
  });

  it('refuses the same request id with another record (REQUEST_ID_REUSED) and writes nothing', async () => {
    // Prepare
    const org = await newOrg();
    const id = requestId();
    await admin('record', 'put', '--org', org, '--json', JSON.stringify(recordInput('FIRST')), '--request-id', id);

    // Act
    const refused = await failureOf(admin('record', 'put', '--org', org, '--json', JSON.stringify(recordInput('OTHER')), '--request-id', id));

    // Assess
    expect(refused.code).toBe('REQUEST_ID_REUSED');
    expect((await eventsOf(org)).map((event) => event.type)).toEqual(['record.created']);
  });
});

describe('record move --request-id', () => {
  it('answers the move and the events its first run made when that run failed after the write, and moves nothing back', async () => {
    // Prepare
    const [from, to] = [await newOrg(), await newOrg()];
    const { id: recordId } = await stack.office.records!.put(from, recordInput('MOVE'));
    const id = requestId();
    const lost = loseNextTransaction();

    // Act
    const first = await failureOf(admin('record', 'move', '--record', recordId, '--to', to, '--request-id', id));
    const again = (await admin('record', 'move', '--record', recordId, '--to', to, '--request-id', id)) as { event_ids: string[] };
    await stack.office.records!.move(recordId, from);
    const afterMovedBack = (await admin('record', 'move', '--record', recordId, '--to', to, '--request-id', id)) as { partner_id: string };

    // Assess
    expect(lost.fired()).toBe(true);
    expect(first.message).toContain('re-run with --request-id');
    const [, left] = await eventsOf(from);
    const [arrived] = await eventsOf(to);
    expect(again).toMatchObject({ id: recordId, partner_id: to, event_ids: [left.id, arrived.id], replayed: true });
    expect(afterMovedBack).toMatchObject({ partner_id: from, replayed: true });
    expect((await eventsOf(to)).map((event) => event.type)).toEqual(['record.created', 'record.deleted']);
  });
});

describe('record delete --request-id', () => {
  it('answers the delete its first run made when that run failed after the write, instead of RECORD_NOT_FOUND: one record.deleted', async () => {
    // Prepare
    const org = await newOrg();
    const { id: recordId } = await stack.office.records!.put(org, recordInput('DELETE'));
    const argv = ['record', 'delete', '--org', org, '--record', recordId, '--request-id', requestId()];
    const lost = loseNextTransaction();

    // Act
    const first = await failureOf(admin(...argv));
    const again = (await admin(...argv)) as { event_id: string };

    // Assess
    expect(lost.fired()).toBe(true);
    expect(first.code).not.toBe('RECORD_NOT_FOUND');
    expect(again).toMatchObject({ record_id: recordId, deleted: true, replayed: true });
    expect((await eventsOf(org)).map((event) => [event.type, event.type === 'record.deleted' ? event.id : null])).toEqual([
      ['record.created', null],
      ['record.deleted', again.event_id],
    ]);
  });

  it('still answers RECORD_NOT_FOUND for a request that never deleted anything', async () => {
    // Prepare
    const org = await newOrg();

    // Act
    const refused = await failureOf(admin('record', 'delete', '--org', org, '--record', 'rec_00000000000000000000', '--request-id', requestId()));

    // Assess
    expect(refused.code).toBe('RECORD_NOT_FOUND');
  });
});

describe('record archive --request-id', () => {
  it('answers the archive its first run made when that run failed after the write, instead of ALREADY_ARCHIVED: one unit used', async () => {
    // Prepare
    const org = await newOrg();
    await stack.office.entitlements!.grant({ owner: `partner:${org}`, game: 'fps', units: 5, permanent: true });
    const { id: recordId } = await stack.office.records!.put(org, recordInput('ARCHIVE'));
    const argv = ['record', 'archive', '--org', org, '--record', recordId, '--game', 'fps', '--request-id', requestId()];
    const lost = loseNextTransaction();

    // Act
    const first = await failureOf(admin(...argv));
    const again = await admin(...argv);

    // Assess
    expect(lost.fired()).toBe(true);
    expect(first.code).not.toBe('ALREADY_ARCHIVED');
    expect(again).toMatchObject({ record_id: recordId, archived: true, use_id: expect.stringMatching(/^use_/), replayed: true });
    expect((await grantsOf(org)).map((grant) => grant.used_units)).toEqual([1]);
  });
});

describe('a lost answer below the SDK at each command’s own transaction (the SDK sends it again, same token)', () => {
  const loseOneAnswer = () => faults.arm({ component: 'api', call: 'TransactWriteItems', effect: 'lose-answer' });

  it('entitlement grant: one grant, one event, answered as made', async () => {
    const org = await newOrg();
    const lost = loseOneAnswer();
    const answer = await admin('entitlement', 'grant', '--owner', `partner:${org}`, '--game', 'fps', '--units', '10', '--permanent', '--request-id', requestId());
    expect(lost.fired()).toBe(true);
    expect(answer).toMatchObject({ owner_id: org, units: 10 });
    expect(answer).not.toHaveProperty('replayed');
    expect(await grantsOf(org)).toHaveLength(1);
    expect((await eventsOf(org)).map((event) => event.type)).toEqual(['entitlement.updated']);
  });

  it('entitlement use: charged once, one event', async () => {
    const org = await newOrg();
    await stack.office.entitlements!.grant({ owner: `partner:${org}`, game: 'fps', units: 10, permanent: true });
    const before = (await eventsOf(org)).length;
    const lost = loseOneAnswer();
    const answer = await admin('entitlement', 'use', '--owner', `partner:${org}`, '--game', 'fps', '--units', '3', '--request-id', requestId());
    expect(lost.fired()).toBe(true);
    expect(answer).toMatchObject({ use_id: expect.stringMatching(/^use_/) });
    expect((await grantsOf(org)).map((grant) => grant.used_units)).toEqual([3]);
    expect((await eventsOf(org)).length - before).toBe(1);
  });

  it('record put and record delete: one change and one event each', async () => {
    const org = await newOrg();
    let lost = loseOneAnswer();
    const put = (await admin('record', 'put', '--org', org, '--json', JSON.stringify(recordInput('LOSTPUT')), '--request-id', requestId())) as { id: string };
    expect(lost.fired()).toBe(true);
    expect((await eventsOf(org)).map((event) => event.type)).toEqual(['record.created']);
    lost = loseOneAnswer();
    await admin('record', 'delete', '--org', org, '--record', put.id, '--request-id', requestId());
    expect(lost.fired()).toBe(true);
    expect((await eventsOf(org)).map((event) => event.type)).toEqual(['record.created', 'record.deleted']);
  });
});
