/**
 * The DynamoDB adapter of admission: the one conditional UpdateItem per
 * principal item (guard, counters, lease) that buildAdmissionUpdate writes,
 * and the store calls around it (consistent read, old image on a failed
 * condition, compensation, release, rate-log claim). DynamoDB rejects a
 * request that declares an expression name or value it does not use, so
 * every plan is checked for that too.
 */
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AdmissionStore,
  buildAdmissionUpdate,
  QuotaStoreUnavailable,
  type CounterPlan,
  type ItemPlan,
} from '../../../lambdas/shared/limits/admission-store';
import { conditionFailed, documentClient, resolveUpdate, throttled, unusedPlaceholders } from '../support/admission-fixtures';

const TABLE = 'access-table';
const KEY = { pk: 'KEY#key_0001', sk: 'KEY' };
const ACCOUNT = { pk: 'ACCOUNT#acc_0001', sk: 'ACCOUNT' };
const ORG = { pk: 'ORG#org_0001', sk: 'ORG' };
const ddbMock = mockClient(DynamoDBDocumentClient);
const store = new AdmissionStore(documentClient, TABLE);

const counter = (attribute: string, mode: CounterPlan['mode'], windowId = 100, limit = 60): CounterPlan => ({ attribute, windowId, limit, mode });
const ADMISSION_ID = 'radm1';
const keyPlan = (overrides: Partial<ItemPlan> = {}): ItemPlan => ({
  admissionId: ADMISSION_ID,
  key: KEY,
  guard: { kind: 'key' },
  counters: [counter('q_key_minute', 'increment')],
  ...overrides,
});

/** Every admission write is stamped with its admission id and refuses to apply twice (an SDK retry after a timeout). */
const STAMPED = ' AND (attribute_not_exists(adm) OR adm <> "radm1")';

afterEach(() => {
  ddbMock.reset();
});

describe('buildAdmissionUpdate', () => {
  it('increments a counter only within its window and below its limit', () => {
    // Act
    const update = resolveUpdate(buildAdmissionUpdate(TABLE, keyPlan()));

    // Assess
    expect(update.condition).toBe('attribute_exists(pk) AND attribute_not_exists(revoked_at) AND q_key_minute.w = 100 AND q_key_minute.n < 60' + STAMPED);
    expect(update.update).toBe('SET q_key_minute.n = q_key_minute.n + 1, adm = "radm1"');
  });

  it('resets a counter only when it is missing or from an older window', () => {
    // Act
    const update = resolveUpdate(buildAdmissionUpdate(TABLE, keyPlan({ counters: [counter('q_key_minute', 'reset')] })));

    // Assess
    expect(update.condition).toBe('attribute_exists(pk) AND attribute_not_exists(revoked_at) AND (attribute_not_exists(q_key_minute) OR q_key_minute.w < 100)' + STAMPED);
    expect(update.update).toBe('SET q_key_minute = {"w":100,"n":1}, adm = "radm1"');
  });

  it('guards the account item on its status and credential generation', () => {
    // Act
    const input = buildAdmissionUpdate(TABLE, { admissionId: ADMISSION_ID, key: ACCOUNT, guard: { kind: 'account', credGen: 3 }, counters: [counter('q_account_minute', 'increment', 100, 300)] });

    // Assess
    expect(resolveUpdate(input).condition).toBe('status = "active" AND cred_gen = 3 AND q_account_minute.w = 100 AND q_account_minute.n < 300' + STAMPED);
    // `status` is a DynamoDB reserved word: it must go through a name placeholder.
    expect(input.ConditionExpression).not.toMatch(/\bstatus\b/);
  });

  it("guards the organization item on its status, key generation and the creator's grant", () => {
    // Act
    const input = buildAdmissionUpdate(TABLE, {
      admissionId: ADMISSION_ID,
      key: ORG,
      guard: { kind: 'organization', keyGen: 2, accountId: 'acc_0001', grant: 'grant_0001' },
      counters: [counter('q_organization_day', 'increment', 20, 20_000)],
    });

    // Assess
    expect(resolveUpdate(input).condition).toBe(
      'status = "active" AND key_gen = 2 AND managers.acc_0001 = "grant_0001" AND q_organization_day.w = 20 AND q_organization_day.n < 20000' + STAMPED,
    );
    // Account ids are map keys of any shape: never spliced into the expression.
    expect(input.ConditionExpression).not.toContain('acc_0001');
  });

  it('creates the lease map when the item has none', () => {
    // Act
    const update = resolveUpdate(
      buildAdmissionUpdate(TABLE, keyPlan({ lease: { leaseId: 'rreq1', expiresAtMs: 5000, limit: 2, expired: [], mode: 'create' } })),
    );

    // Assess
    expect(update.condition).toMatch(/ AND attribute_not_exists\(leases\)$/);
    expect(update.update).toBe('SET q_key_minute.n = q_key_minute.n + 1, adm = "radm1", leases = {"rreq1":5000}');
  });

  it('adds a lease while fewer than the limit are held', () => {
    // Act
    const update = resolveUpdate(
      buildAdmissionUpdate(TABLE, keyPlan({ lease: { leaseId: 'rreq1', expiresAtMs: 5000, limit: 2, expired: [], mode: 'add' } })),
    );

    // Assess
    expect(update.condition).toMatch(/ AND size\(leases\) < 2$/);
    expect(update.update).toBe('SET q_key_minute.n = q_key_minute.n + 1, adm = "radm1", leases.rreq1 = 5000');
  });

  it('drops expired leases in the same write, each asserted to exist, and counts only the live ones against the limit', () => {
    // Act
    const update = resolveUpdate(
      buildAdmissionUpdate(TABLE, keyPlan({ lease: { leaseId: 'rreq1', expiresAtMs: 5000, limit: 2, expired: ['ra', 'rb'], mode: 'add' } })),
    );

    // Assess
    expect(update.condition).toMatch(/ AND size\(leases\) < 4 AND attribute_exists\(leases\.ra\) AND attribute_exists\(leases\.rb\)$/);
    expect(update.update).toBe('SET q_key_minute.n = q_key_minute.n + 1, adm = "radm1", leases.rreq1 = 5000 REMOVE leases.ra, leases.rb');
  });

  const plans: { name: string; plan: ItemPlan }[] = [
    { name: 'a key item with two increments', plan: keyPlan({ counters: [counter('q_key_minute', 'increment'), counter('q_key_day', 'increment', 7, 5000)] }) },
    { name: 'a key item with a reset and an increment', plan: keyPlan({ counters: [counter('q_key_minute', 'reset'), counter('q_key_day', 'increment', 7, 5000)] }) },
    {
      name: 'an account item creating its lease map',
      plan: {
        admissionId: ADMISSION_ID,
        key: ACCOUNT,
        guard: { kind: 'account', credGen: 1 },
        counters: [counter('q_account_minute', 'reset')],
        lease: { leaseId: 'rreq1', expiresAtMs: 5000, limit: 6, expired: [], mode: 'create' },
      },
    },
    {
      name: 'an organization item dropping expired leases',
      plan: {
        admissionId: ADMISSION_ID,
        key: ORG,
        guard: { kind: 'organization', keyGen: 1, accountId: 'acc_0001', grant: 'g' },
        counters: [counter('q_organization_minute', 'increment'), counter('q_ticket_minute', 'reset')],
        lease: { leaseId: 'rreq1', expiresAtMs: 5000, limit: 4, expired: ['ra'], mode: 'add' },
      },
    },
  ];

  it.each(plans)('declares exactly the names and values it uses, for $name', ({ plan }) => {
    // Act
    const input = buildAdmissionUpdate(TABLE, plan);

    // Assess
    expect(unusedPlaceholders(input)).toEqual([]);
    expect(() => resolveUpdate(input)).not.toThrow();
    expect(Object.keys(input.ExpressionAttributeNames).length).toBeGreaterThan(0);
    expect(Object.keys(input.ExpressionAttributeValues).length).toBeGreaterThan(0);
    expect(input).toMatchObject({ TableName: TABLE, Key: plan.key, ReturnValues: 'UPDATED_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
  });
});

describe('AdmissionStore', () => {
  it('reads an item consistently', async () => {
    // Prepare
    ddbMock.on(GetCommand).resolves({ Item: { ...KEY, key_id: 'key_0001' } });

    // Act
    const item = await store.read(KEY);

    // Assess
    expect(item).toMatchObject({ key_id: 'key_0001' });
    expect(ddbMock.commandCalls(GetCommand)[0].args[0].input).toEqual({ TableName: TABLE, Key: KEY, ConsistentRead: true });
  });

  it('reports a failed read as QuotaStoreUnavailable, keeping the cause', async () => {
    // Prepare
    const cause = throttled();
    ddbMock.on(GetCommand).rejects(cause);

    // Act
    const error = await store.read(KEY).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(QuotaStoreUnavailable);
    expect((error as Error).cause).toBe(cause);
  });

  it('returns the new count of each counter of an admitted write', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({ Attributes: { q_key_minute: { w: 100, n: 1 }, q_key_day: { n: 42 } } });

    // Act
    const outcome = await store.apply(keyPlan({ counters: [counter('q_key_minute', 'reset'), counter('q_key_day', 'increment', 7, 5000)] }));

    // Assess
    expect(outcome).toEqual({ ok: true, counts: { q_key_minute: 1, q_key_day: 42 } });
  });

  it('returns the unmarshalled old image of a refused write', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).rejects(conditionFailed({ ...KEY, revoked_at: '2025-03-01T00:00:00.000Z', q_key_minute: { w: 100, n: 60 }, leases: { ra: 5 } }));

    // Act
    const outcome = await store.apply(keyPlan());

    // Assess
    expect(outcome).toEqual({
      ok: false,
      old: { ...KEY, revoked_at: '2025-03-01T00:00:00.000Z', q_key_minute: { w: 100, n: 60 }, leases: { ra: 5 } },
    });
  });

  it('admits, once, a write whose earlier attempt was applied before it timed out (the SDK retried it)', async () => {
    // Prepare: the retried write meets its own stamp.
    ddbMock.on(UpdateCommand).rejects(conditionFailed({ ...KEY, adm: ADMISSION_ID, q_key_minute: { w: 100, n: 7 } }));

    // Act
    const outcome = await store.apply(keyPlan());

    // Assess
    expect(outcome).toEqual({ ok: true, counts: { q_key_minute: 7 } });
  });

  it('still refuses when the stamp is another admission\'s', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).rejects(conditionFailed({ ...KEY, adm: 'rother', q_key_minute: { w: 100, n: 60 } }));

    // Act
    const outcome = await store.apply(keyPlan());

    // Assess
    expect(outcome).toMatchObject({ ok: false, old: { adm: 'rother' } });
  });

  it('returns no old image when the refused item does not exist', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).rejects(conditionFailed());

    // Act
    const outcome = await store.apply(keyPlan());

    // Assess
    expect(outcome).toEqual({ ok: false, old: undefined });
  });

  it('reports any other failure of a write as QuotaStoreUnavailable', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).rejects(throttled());

    // Act
    const error = await store.apply(keyPlan()).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(QuotaStoreUnavailable);
  });

  it('compensates by decrementing each counter still in its window and removing the lease', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({});
    const plan = keyPlan({
      counters: [counter('q_key_minute', 'increment'), counter('q_key_day', 'reset', 7, 5000)],
      lease: { leaseId: 'rreq1', expiresAtMs: 5000, limit: 2, expired: [], mode: 'add' },
    });

    // Act
    await store.compensate(plan, true);

    // Assess
    const [input] = ddbMock.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(resolveUpdate(input)).toEqual({
      update: 'SET undo = "radm1", q_key_minute.n = q_key_minute.n - 1, q_key_day.n = q_key_day.n - 1 REMOVE leases.rreq1',
      condition: '(attribute_not_exists(undo) OR undo <> "radm1") AND q_key_minute.w = 100 AND q_key_minute.n > 0 AND q_key_day.w = 7 AND q_key_day.n > 0',
    });
    expect(unusedPlaceholders(input)).toEqual([]);
  });

  it('leaves alone a counter whose window ended meanwhile, and still removes the lease', async () => {
    // Prepare
    ddbMock
      .on(UpdateCommand)
      .rejectsOnce(conditionFailed({ ...KEY, q_key_minute: { w: 101, n: 3 }, q_key_day: { w: 7, n: 9 } }))
      .resolves({});
    const plan = keyPlan({
      counters: [counter('q_key_minute', 'increment'), counter('q_key_day', 'increment', 7, 5000)],
      lease: { leaseId: 'rreq1', expiresAtMs: 5000, limit: 2, expired: [], mode: 'add' },
    });

    // Act
    await store.compensate(plan, true);

    // Assess
    const retry = ddbMock.commandCalls(UpdateCommand)[1].args[0].input;
    expect(resolveUpdate(retry)).toEqual({
      update: 'SET undo = "radm1", q_key_day.n = q_key_day.n - 1 REMOVE leases.rreq1',
      condition: '(attribute_not_exists(undo) OR undo <> "radm1") AND q_key_day.w = 7 AND q_key_day.n > 0',
    });
  });

  it('removes only the lease, with no counter condition, when no counter is left to take back', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).rejectsOnce(conditionFailed({ ...KEY, q_key_minute: { w: 101, n: 1 } })).resolves({});
    const plan = keyPlan({ lease: { leaseId: 'rreq1', expiresAtMs: 5000, limit: 2, expired: [], mode: 'add' } });

    // Act
    await store.compensate(plan, true);

    // Assess
    const retry = ddbMock.commandCalls(UpdateCommand)[1].args[0].input;
    expect(resolveUpdate(retry)).toEqual({ update: 'SET undo = "radm1" REMOVE leases.rreq1', condition: '(attribute_not_exists(undo) OR undo <> "radm1")' });
    expect(unusedPlaceholders(retry)).toEqual([]);
  });

  it('recognizes its own compensation, applied by an attempt that timed out, and does not take the counts back twice', async () => {
    // Prepare: the SDK's retry finds the stamp of the first attempt.
    ddbMock.on(UpdateCommand).rejects(conditionFailed({ ...KEY, undo: ADMISSION_ID, q_key_minute: { w: 100, n: 4 } }));

    // Act
    await store.compensate(keyPlan(), false);

    // Assess
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('stops compensating after three refused attempts', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).rejects(conditionFailed({ ...KEY, q_key_minute: { w: 100, n: 5 } }));

    // Act
    await store.compensate(keyPlan(), false);

    // Assess
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(3);
  });

  it('releases a lease by removing it from the map', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({});

    // Act
    await store.release(ORG, 'rreq1');

    // Assess
    const input = ddbMock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(input).toMatchObject({ TableName: TABLE, Key: ORG });
    expect(resolveUpdate(input).update).toBe('REMOVE leases.rreq1');
  });

  it('grants the rate-log slot of a minute to the first claim only', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolvesOnce({}).rejects(conditionFailed({ ...KEY, rate_logged_minute: 100 }));

    // Act
    const first = await store.claimRateLogSlot(KEY, 100);
    const second = await store.claimRateLogSlot(KEY, 100);

    // Assess
    expect([first, second]).toEqual([true, false]);
    expect(ddbMock.commandCalls(UpdateCommand)[0].args[0].input).toMatchObject({
      Key: KEY,
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(rate_logged_minute) OR rate_logged_minute < :minute)',
      ExpressionAttributeValues: { ':minute': 100 },
    });
  });
});
