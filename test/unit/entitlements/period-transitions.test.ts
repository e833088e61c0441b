/**
 * Period events: which transitions a grant has, which marker a new grant
 * gets at grant time (none for a start already reached, none for accounts,
 * none for a permanent grant already started), the hour buckets a run reads,
 * what a run at a given instant emits and leaves, and (on a mocked client)
 * the transaction a run sends and how it counts lost races and failures.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runEntitlementPeriods } from '../../../lambdas/jobs/entitlement-periods/handler';
import { captureLogs } from '../../support/log-capture';
import {
  dueBucket,
  dueBuckets,
  grantMarker,
  markerAttributes,
  nextTransition,
  planTransitions,
  runPeriodTransitions,
  transitionsOf,
  type MarkedGrant,
} from '../../../lambdas/entitlements/period-transitions';

const T0 = '2026-11-22T12:00:00.000Z';
const T1 = '2026-11-22T13:30:00.000Z';
const at = (iso: string, ms = 0) => new Date(Date.parse(iso) + ms);

describe('transitionsOf / nextTransition', () => {
  it('lists the start, then the end; a permanent grant has no end; a grant that can never be current has none', () => {
    expect(transitionsOf({ starts_at: T0, expires_at: T1 })).toEqual([
      { kind: 'start', at: T0 },
      { kind: 'end', at: T1 },
    ]);
    expect(transitionsOf({ starts_at: T0, expires_at: null })).toEqual([{ kind: 'start', at: T0 }]);
    expect(transitionsOf({ starts_at: T1, expires_at: T0 })).toEqual([]);
    expect(transitionsOf({ starts_at: T0, expires_at: T0 })).toEqual([]);
  });

  it('normalizes instants to the ISO form the index sorts on', () => {
    expect(transitionsOf({ starts_at: '2026-11-22T13:00:00+01:00', expires_at: null })).toEqual([{ kind: 'start', at: T0 }]);
  });

  it('answers the first transition strictly after the instant', () => {
    const period = { starts_at: T0, expires_at: T1 };
    expect(nextTransition(period, at(T0, -1))).toEqual({ kind: 'start', at: T0 });
    expect(nextTransition(period, at(T0))).toEqual({ kind: 'end', at: T1 });
    expect(nextTransition(period, at(T1))).toBeNull();
  });
});

describe('grantMarker (at grant time)', () => {
  it('marks a queued organization grant with its start, in the start hour’s bucket', () => {
    expect(grantMarker('partner', 'grant_a', { starts_at: T1, expires_at: null }, at(T0))).toEqual({
      gsi1pk: 'ENTDUE#2026-11-22T13',
      gsi1sk: `${T1}#grant_a`,
      due: 'start',
    });
  });

  it('marks a grant that starts at grant time with its end only: its start had its event with the grant', () => {
    expect(grantMarker('partner', 'grant_a', { starts_at: T0, expires_at: T1 }, at(T0))).toEqual(markerAttributes('grant_a', { kind: 'end', at: T1 }));
    expect(grantMarker('partner', 'grant_a', { starts_at: T0, expires_at: T1 }, at(T0, 5))).toMatchObject({ due: 'end' });
  });

  it('marks nothing for a permanent grant already started, a grant already ended, or an account', () => {
    expect(grantMarker('partner', 'grant_a', { starts_at: T0, expires_at: null }, at(T0))).toEqual({});
    expect(grantMarker('partner', 'grant_a', { starts_at: T0, expires_at: T1 }, at(T1))).toEqual({});
    expect(grantMarker('account', 'grant_a', { starts_at: T1, expires_at: null }, at(T0))).toEqual({});
  });
});

describe('dueBuckets', () => {
  it('reads the hours from the catch-up window’s start up to the current hour, oldest first', () => {
    expect(dueBuckets(at('2026-11-22T12:59:59.999Z'), 2)).toEqual(['ENTDUE#2026-11-22T10', 'ENTDUE#2026-11-22T11', 'ENTDUE#2026-11-22T12']);
    expect(dueBuckets(at('2026-11-23T00:00:00.000Z'), 1)).toEqual(['ENTDUE#2026-11-22T23', 'ENTDUE#2026-11-23T00']);
    expect(dueBuckets(at(T0), 48)).toHaveLength(49);
    expect(dueBuckets(at(T0), 48)[0]).toBe(dueBucket('2026-11-20T12:00:00.000Z'));
  });
});

describe('planTransitions (what a run at `now` writes)', () => {
  const marked = (due: 'start' | 'end', expires_at: string | null = T1): MarkedGrant => ({
    pk: 'ENT#partner#org_1',
    sk: 'GRANT#grant_a',
    grant_id: 'grant_a',
    game: 'fps',
    starts_at: T0,
    expires_at,
    due,
    gsi1sk: `${due === 'start' ? T0 : T1}#grant_a`,
  });

  it('at the start (inclusive), emits the start and moves the marker to the end', () => {
    expect(planTransitions(marked('start'), at(T0))).toEqual({ emit: [{ kind: 'start', at: T0 }], next: { kind: 'end', at: T1 } });
  });

  it('emits the start and the end together when the run comes after both, and leaves no marker', () => {
    expect(planTransitions(marked('start'), at(T1, 60_000))).toEqual({
      emit: [
        { kind: 'start', at: T0 },
        { kind: 'end', at: T1 },
      ],
      next: null,
    });
  });

  it('leaves no marker after the start of a permanent grant, or after an end', () => {
    expect(planTransitions(marked('start', null), at(T1))).toEqual({ emit: [{ kind: 'start', at: T0 }], next: null });
    expect(planTransitions(marked('end'), at(T1))).toEqual({ emit: [{ kind: 'end', at: T1 }], next: null });
  });

  it('emits nothing before the instant', () => {
    expect(planTransitions(marked('end'), at(T1, -1))).toEqual({ emit: [], next: { kind: 'end', at: T1 } });
  });
});

describe('runPeriodTransitions (mocked DynamoDB)', () => {
  const ddbMock = mockClient(DynamoDBDocumentClient);
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
  afterEach(() => {
    ddbMock.reset();
    vi.restoreAllMocks();
  });
  const due: MarkedGrant = {
    pk: 'ENT#partner#org_1',
    sk: 'GRANT#grant_a',
    grant_id: 'grant_a',
    game: 'minecraft',
    starts_at: T0,
    expires_at: T1,
    due: 'start',
    gsi1sk: `${T0}#grant_a`,
  };
  const cancelled = (code: string) => Object.assign(new Error('cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: code }] });
  const run = (options: { shouldStop?: () => boolean } = {}) =>
    runPeriodTransitions({ client, table: 'domain', clock: () => at(T0, 1_000), catchUpHours: 0, ...options });

  it('Queries the hour bucket on gsi1 up to now, and sends one transaction: the marker moved on its condition, the event at the instant', async () => {
    ddbMock.on(QueryCommand).resolves({ Items: [due] });
    ddbMock.on(TransactWriteCommand).resolves({});

    expect(await run()).toMatchObject({ buckets: 1, due: 1, transitioned: 1, events: 1, already: 0, failed: 0 });

    expect(ddbMock.commandCalls(QueryCommand)[0].args[0].input).toMatchObject({
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :bucket AND gsi1sk <= :upto',
      ExpressionAttributeValues: { ':bucket': 'ENTDUE#2026-11-22T12', ':upto': '2026-11-22T12:00:01.000Z#~' },
    });
    const [update, put] = ddbMock.commandCalls(TransactWriteCommand)[0].args[0].input.TransactItems!;
    expect(update.Update).toMatchObject({
      Key: { pk: due.pk, sk: due.sk },
      ConditionExpression: 'gsi1sk = :read AND #due = :readKind',
      UpdateExpression: 'SET gsi1pk = :pk, gsi1sk = :sk, #due = :kind',
      ExpressionAttributeValues: { ':read': due.gsi1sk, ':readKind': 'start', ':pk': 'ENTDUE#2026-11-22T13', ':sk': `${T1}#grant_a`, ':kind': 'end' },
    });
    expect(put.Put).toMatchObject({
      ConditionExpression: 'attribute_not_exists(pk)',
      Item: { pk: 'EVENTS#org_1', event: { type: 'entitlement.updated', partner_id: 'org_1', created_at: T0, data: { game: 'minecraft' } } },
    });
  });

  it('counts a failed marker condition as already done, and retries a write conflict until the condition decides', async () => {
    ddbMock.on(QueryCommand).resolves({ Items: [due] });
    ddbMock.on(TransactWriteCommand).rejectsOnce(cancelled('TransactionConflict')).rejects(cancelled('ConditionalCheckFailed'));

    expect(await run()).toMatchObject({ due: 1, transitioned: 0, events: 0, already: 1, deferred: 0, failed: 0 });
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });

  it('defers a grant whose conflicts persist, or when told to stop, to the next run', async () => {
    ddbMock.on(QueryCommand).resolves({ Items: [due] });
    ddbMock.on(TransactWriteCommand).rejects(cancelled('TransactionConflict'));
    expect(await run()).toMatchObject({ transitioned: 0, deferred: 1, failed: 0 });

    ddbMock.resetHistory();
    expect(await run({ shouldStop: () => true })).toMatchObject({ due: 1, deferred: 1 });
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('fails the run (logged as an error, then thrown) when a grant’s write fails otherwise', async () => {
    const logs = captureLogs();
    ddbMock.on(QueryCommand).resolves({ Items: [due] });
    ddbMock.on(TransactWriteCommand).rejects(Object.assign(new Error('boom'), { name: 'InternalServerError' }));

    await expect(runEntitlementPeriods({ client, table: 'domain', clock: () => at(T0, 1_000), catchUpHours: 0 })).rejects.toThrow(/1 grant\(s\) failed: grant_a: boom/);
    expect(logs.lines()).toEqual([expect.objectContaining({ level: 'ERROR', job: 'entitlement-periods', failed: 1, due: 1 })]);
  });

  it('logs one line per run with the counts (always in AWS; locally only when something was written)', async () => {
    const logs = captureLogs();
    ddbMock.on(QueryCommand).resolves({ Items: [] });

    await runEntitlementPeriods({ client, table: 'domain', clock: () => at(T0), catchUpHours: 0 }, 'when-changed');
    expect(logs.text()).toBe('');
    await runEntitlementPeriods({ client, table: 'domain', clock: () => at(T0), catchUpHours: 0 });
    expect(logs.lines()).toEqual([expect.objectContaining({ level: 'INFO', message: 'entitlement periods run', due: 0, events: 0, buckets: 1 })]);
  });
});
