/**
 * API keys against a mocked document client: key creation is one
 * conditional transaction that stores only the digest, with its input rules,
 * its 20-key limit and its retry on a lost race; revocation never creates an
 * item and is retried after a transaction conflict; listing shows each key's
 * standing, never a value.
 */
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { CreateKeyInput } from '../../../lambdas/back-office/back-office';
import { accountKey, accountKeyEntryKey, apiKeyKey, orgKey } from '../../../lambdas/shared/identity/access-items';
import { digestApiKey, keyIdFromDigest, LIVE_KEY_PATTERN } from '../../../lambdas/shared/identity/api-keys';
import { ACCOUNT_ID, GRANT, NOW, PARTNER_ID, accountItem, issueKey, orgItem, serveItems, type StoredItem } from '../support/identity-fixtures';
import { failure, TABLE, transactionCanceled, useMockedBackOffice } from './mocked-back-office';

const DAY_MS = 86_400_000;
const { ddbMock, office, transactions } = useMockedBackOffice();

/** The registry entry createKey writes under the account, for a key that is active at NOW unless overridden. */
function keyEntry(overrides: Parameters<typeof issueKey>[0] = {}): StoredItem {
  const { pk: _pk, sk: _sk, digest: _digest, ...rest } = issueKey(overrides).item;
  return { ...accountKeyEntryKey(ACCOUNT_ID, rest.key_id), ...rest, type: 'account_key' };
}

/**
 * The stored items and the account's partition as one Query of it answers (api-keys.ts accountPartition): the account
 * item first, then its key entries. (Every Query of these tests gets that answer: the other reads keep what they ask for.)
 */
function prepareAccount(options: { entries?: StoredItem[]; items?: StoredItem[] } = {}) {
  const items = options.items ?? [accountItem({ cred_gen: 3, key_set_version: 7 }), orgItem({ key_gen: 2 })];
  serveItems(ddbMock, items);
  ddbMock.on(QueryCommand).resolves({ Items: partition(items, options.entries ?? []) });
  ddbMock.on(TransactWriteCommand).resolves({});
}

/** The account item among `items` (if any), then `entries`: the account's partition in key order. */
const partition = (items: readonly StoredItem[], entries: readonly StoredItem[]): StoredItem[] => [...items.filter((item) => item.sk === 'ACCOUNT'), ...entries];

const everythingSent = () => JSON.stringify(ddbMock.calls().map((call) => call.args[0].input));

describe('createKey: the transaction', () => {
  it('writes a personal key in one transaction conditioned on the account status, generation and key-set version', async () => {
    // Prepare
    prepareAccount();

    // Act
    const created = await office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'] });

    // Assess
    expect(transactions()).toHaveLength(1);
    const items = transactions()[0].TransactItems ?? [];
    expect(items).toHaveLength(4);
    const [keyPut, entryPut, accountUpdate, auditPut] = items;
    // The audit entry rides in the same transaction: no key without its entry, no entry without its key.
    expect(auditPut.Put?.Item).toMatchObject({ pk: accountKey(ACCOUNT_ID).pk, action: 'key.created', via: 'operator', key_id: created.key_id });
    expect(keyPut.Put).toMatchObject({
      TableName: TABLE,
      ConditionExpression: 'attribute_not_exists(pk)',
      Item: { ...apiKeyKey(created.key_id), key_id: created.key_id, account_id: ACCOUNT_ID, partner_id: null, account_gen: 3, org_gen: null, manager_grant: null },
    });
    expect(entryPut.Put?.Item).toMatchObject({ ...accountKeyEntryKey(ACCOUNT_ID, created.key_id), key_id: created.key_id, scopes: ['public:read'] });
    expect(accountUpdate.Update).toMatchObject({
      TableName: TABLE,
      Key: accountKey(ACCOUNT_ID),
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':active': 'active', ':gen': 3, ':version': 7, ':next': 8 },
    });
    const condition = accountUpdate.Update?.ConditionExpression ?? '';
    expect(condition).toMatch(/#status = :active/);
    expect(condition).toMatch(/cred_gen = :gen/);
    expect(condition).toMatch(/key_set_version = :version/);
    expect(accountUpdate.Update?.UpdateExpression).toMatch(/key_set_version = :next/);
  });

  it('adds a check of the organization status, key generation and manager grant for an organization key', async () => {
    // Prepare
    prepareAccount();

    // Act
    const created = await office.keys.create({ accountId: ACCOUNT_ID, partnerId: PARTNER_ID, scopes: ['records:read', 'tickets:read'] });

    // Assess
    const items = transactions()[0].TransactItems ?? [];
    expect(items).toHaveLength(5);
    expect(items[0].Put?.Item).toMatchObject({ partner_id: PARTNER_ID, org_gen: 2, manager_grant: GRANT, scopes: ['records:read', 'tickets:read'] });
    const check = items[3].ConditionCheck;
    expect(check).toMatchObject({
      TableName: TABLE,
      Key: orgKey(PARTNER_ID),
      ExpressionAttributeNames: { '#status': 'status', '#account': ACCOUNT_ID },
      ExpressionAttributeValues: { ':active': 'active', ':gen': 2, ':grant': GRANT },
    });
    expect(check?.ConditionExpression).toMatch(/#status = :active/);
    expect(check?.ConditionExpression).toMatch(/key_gen = :gen/);
    expect(check?.ConditionExpression).toMatch(/managers\.#account = :grant/);
    expect(created).toMatchObject({ partner_id: PARTNER_ID, scopes: ['records:read', 'tickets:read'] });
  });

  it('stores only the digest: the key value appears in no command sent', async () => {
    // Prepare
    prepareAccount();

    // Act
    const created = await office.keys.create({ accountId: ACCOUNT_ID, partnerId: PARTNER_ID, scopes: ['records:read'] });

    // Assess
    expect(created.key).toMatch(LIVE_KEY_PATTERN);
    const sent = everythingSent();
    expect(sent).not.toContain(created.key);
    expect(sent).not.toContain(created.key.slice('pak_live_'.length));
    const [keyPut, entryPut] = transactions()[0].TransactItems ?? [];
    expect(keyPut.Put?.Item?.digest).toBe(digestApiKey(created.key));
    expect(created.key_id).toBe(keyIdFromDigest(digestApiKey(created.key)));
    expect(entryPut.Put?.Item).not.toHaveProperty('digest');
  });

  it('gives a key 90 days by default, and keeps it listed 90 days past its expiry', async () => {
    // Prepare
    prepareAccount();

    // Act
    const created = await office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'] });

    // Assess
    const expiresAt = new Date(NOW.getTime() + 90 * DAY_MS).toISOString();
    expect(created.expires_at).toBe(expiresAt);
    const [keyPut, entryPut] = transactions()[0].TransactItems ?? [];
    const ttl = Date.parse(expiresAt) / 1000 + 90 * 86_400;
    expect(keyPut.Put?.Item).toMatchObject({ expires_at: expiresAt, created_at: NOW.toISOString(), ttl });
    expect(entryPut.Put?.Item).toMatchObject({ expires_at: expiresAt, ttl });
  });

  it.each([1, 365])('accepts a validity of %i days', async (days) => {
    // Prepare
    prepareAccount();

    // Act
    const created = await office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'], days });

    // Assess
    expect(created.expires_at).toBe(new Date(NOW.getTime() + days * DAY_MS).toISOString());
  });

  it('creates a permanent key with a null expiry and no TTL', async () => {
    // Prepare
    prepareAccount();

    // Act
    const created = await office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'], permanent: true });

    // Assess
    expect(created.expires_at).toBeNull();
    const [keyPut, entryPut] = transactions()[0].TransactItems ?? [];
    expect(keyPut.Put?.Item).toMatchObject({ expires_at: null });
    expect(keyPut.Put?.Item).not.toHaveProperty('ttl');
    expect(entryPut.Put?.Item).not.toHaveProperty('ttl');
  });
});

describe('createKey: input rules', () => {
  it.each<{ name: string; input: Partial<CreateKeyInput> }>([
    { name: 'an organization scope on a personal key', input: { scopes: ['records:read'] } },
    { name: 'an unknown scope', input: { partnerId: PARTNER_ID, scopes: ['records:write'] } },
    { name: 'a repeated scope', input: { scopes: ['public:read', 'public:read'] } },
    { name: 'no scope', input: { scopes: [] } },
  ])('refuses $name with INVALID_SCOPES before touching the table', async ({ input }) => {
    // Prepare
    prepareAccount();

    // Act
    const error = await failure(office.keys.create({ accountId: ACCOUNT_ID, scopes: [], ...input }));

    // Assess
    expect(error.code).toBe('INVALID_SCOPES');
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it.each<{ name: string; input: Partial<CreateKeyInput> }>([
    { name: '0 days', input: { days: 0 } },
    { name: '366 days', input: { days: 366 } },
    { name: '1.5 days', input: { days: 1.5 } },
    { name: 'a negative validity', input: { days: -1 } },
    { name: 'NaN days', input: { days: Number.NaN } },
    { name: 'days and permanent together', input: { days: 30, permanent: true } },
  ])('refuses $name with INVALID_EXPIRY before touching the table', async ({ input }) => {
    // Prepare
    prepareAccount();

    // Act
    const error = await failure(office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'], ...input }));

    // Assess
    expect(error.code).toBe('INVALID_EXPIRY');
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it.each<{ name: string; items: StoredItem[]; partnerId?: string; code: string }>([
    { name: 'a missing account', items: [], code: 'ACCOUNT_NOT_FOUND' },
    { name: 'a deactivated account', items: [accountItem({ status: 'deactivated' })], code: 'ACCOUNT_INACTIVE' },
    { name: 'a missing organization', items: [accountItem()], partnerId: PARTNER_ID, code: 'ORG_NOT_FOUND' },
    { name: 'an archived organization', items: [accountItem(), orgItem({ status: 'archived' })], partnerId: PARTNER_ID, code: 'PARTNER_INACTIVE' },
    { name: 'a creator who is not manager', items: [accountItem(), orgItem({ managers: {} })], partnerId: PARTNER_ID, code: 'PARTNER_MANAGER_REQUIRED' },
  ])('refuses $name with $code and writes nothing', async ({ items, partnerId, code }) => {
    // Prepare
    prepareAccount({ items });

    // Act
    const error = await failure(office.keys.create({ accountId: ACCOUNT_ID, partnerId, scopes: ['public:read'] }));

    // Assess
    expect(error.code).toBe(code);
    expect(transactions()).toHaveLength(0);
  });
});

describe('createKey: the 20-key limit', () => {
  const active = () => Array.from({ length: 20 }, () => keyEntry({ account_gen: 3, expires_at: '2025-06-01T00:00:00.000Z' }));

  it('refuses a 21st active key with KEY_LIMIT', async () => {
    // Prepare
    prepareAccount({ entries: active() });

    // Act
    const error = await failure(office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'] }));

    // Assess
    expect(error.code).toBe('KEY_LIMIT');
    expect(transactions()).toHaveLength(0);
  });

  it('counts permanent keys toward the limit', async () => {
    // Prepare
    prepareAccount({ entries: Array.from({ length: 20 }, () => keyEntry({ account_gen: 3, expires_at: null })) });

    // Act
    const error = await failure(office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'], permanent: true }));

    // Assess
    expect(error.code).toBe('KEY_LIMIT');
  });

  it('does not count expired, revoked or lifecycle-revoked keys', async () => {
    // Prepare: 19 active keys, and one expired, one revoked, one from before a password reset.
    const entries = [
      ...active().slice(0, 19),
      keyEntry({ account_gen: 3, expires_at: NOW.toISOString() }),
      keyEntry({ account_gen: 3, revoked_at: '2025-02-01T00:00:00.000Z' }),
      keyEntry({ account_gen: 2, expires_at: null }),
    ];
    prepareAccount({ entries });

    // Act
    const created = await office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'] });

    // Assess
    expect(created.key).toMatch(LIVE_KEY_PATTERN);
    expect(transactions()).toHaveLength(1);
  });

  it('reads the account and its registry consistently, in one Query of its partition, the account item first', async () => {
    // Prepare
    prepareAccount();

    // Act
    await office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'] });

    // Assess: 'ACCOUNT' sorts before 'KEY#…' and 'ORG#…': the entries are never older than the version read.
    expect(ddbMock.commandCalls(QueryCommand)[0].args[0].input).toMatchObject({
      TableName: TABLE,
      ConsistentRead: true,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': accountKey(ACCOUNT_ID).pk, ':from': 'ACCOUNT', ':to': 'ORG$' },
    });
    expect(ddbMock.commandCalls(GetCommand).filter((call) => call.args[0].input.Key?.pk === accountKey(ACCOUNT_ID).pk)).toHaveLength(0);
  });
});

describe('createKey: lost races', () => {
  it('re-reads and retries after a cancelled transaction, and returns the key it stored', async () => {
    // Prepare
    prepareAccount();
    ddbMock.on(TransactWriteCommand).rejectsOnce(transactionCanceled()).resolves({});

    // Act
    const created = await office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'] });

    // Assess
    expect(transactions()).toHaveLength(2);
    // The second attempt decides on fresh reads of the account and its registry.
    const afterLoss = ddbMock.calls().slice(ddbMock.calls().findIndex((call) => call.args[0] instanceof TransactWriteCommand) + 1);
    expect(afterLoss.some((call) => call.args[0] instanceof QueryCommand && call.args[0].input.ExpressionAttributeValues?.[':pk'] === accountKey(ACCOUNT_ID).pk)).toBe(true);
    const stored = transactions()[1].TransactItems?.[0].Put?.Item;
    expect(stored?.digest).toBe(digestApiKey(created.key));
    expect(stored?.key_id).toBe(created.key_id);
  });

  it('rechecks the limit on the retry: a race lost to the 20th key ends in KEY_LIMIT', async () => {
    // Prepare
    prepareAccount();
    const full = Array.from({ length: 20 }, () => keyEntry({ account_gen: 3, expires_at: null }));
    const account = [accountItem({ cred_gen: 3, key_set_version: 7 })];
    ddbMock.on(QueryCommand).resolvesOnce({ Items: partition(account, full.slice(0, 19)) }).resolves({ Items: partition(account, full) });
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled());

    // Act
    const error = await failure(office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'] }));

    // Assess
    expect(error.code).toBe('KEY_LIMIT');
    expect(transactions()).toHaveLength(1);
  });

  it('gives up with CONFLICT when every attempt loses', async () => {
    // Prepare
    prepareAccount();
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled());

    // Act
    const error = await failure(office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'] }));

    // Assess
    expect(error.code).toBe('CONFLICT');
    expect(transactions().length).toBeGreaterThan(1);
  });

  it('does not retry a failure that is not a lost race', async () => {
    // Prepare
    prepareAccount();
    const outage = Object.assign(new Error('Service unavailable'), { name: 'InternalServerError' });
    ddbMock.on(TransactWriteCommand).rejects(outage);

    // Act
    const result = office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'] });

    // Assess
    await expect(result).rejects.toThrow('Service unavailable');
    expect(transactions()).toHaveLength(1);
  });
});

describe('revokeKey', () => {
  it('never creates an item: every update of the revocation requires its item to exist', async () => {
    // Prepare
    const issued = issueKey();
    serveItems(ddbMock, [issued.item]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    await office.keys.revoke(issued.keyId);

    // Assess: every update requires its item; the one Put is the audit entry (a new item of its own).
    const items = transactions()[0].TransactItems ?? [];
    for (const item of items.filter((i) => i.Update)) expect(item.Update?.ConditionExpression ?? '').toMatch(/attribute_exists\(pk\)/);
    expect(items.filter((i) => i.Put).map((i) => i.Put?.Item?.action)).toEqual(['key.revoked']);
  });

  it('revokes the key item alone when its registry entry is already gone', async () => {
    // Prepare
    const issued = issueKey();
    serveItems(ddbMock, [issued.item]);
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled());
    ddbMock.on(UpdateCommand).resolves({});

    // Act
    const result = await office.keys.revoke(issued.keyId);

    // Assess
    expect(result).toEqual({ key_id: issued.keyId, revoked_at: NOW.toISOString() });
    const update = ddbMock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(update).toMatchObject({ Key: apiKeyKey(issued.keyId), ConditionExpression: 'attribute_exists(pk)' });
  });

  it('fails with KEY_NOT_FOUND for an unknown key', async () => {
    // Prepare
    serveItems(ddbMock, []);

    // Act
    const error = await failure(office.keys.revoke('key_missing'));

    // Assess
    expect(error.code).toBe('KEY_NOT_FOUND');
  });

  it('retries a transaction that lost to a concurrent write, and revokes key and entry together', async () => {
    // Prepare
    const issued = issueKey();
    serveItems(ddbMock, [issued.item]);
    ddbMock.on(TransactWriteCommand).rejectsOnce(transactionCanceled('TransactionConflict')).resolves({});

    // Act
    const result = await office.keys.revoke(issued.keyId);

    // Assess
    expect(result).toEqual({ key_id: issued.keyId, revoked_at: NOW.toISOString() });
    expect(transactions()).toHaveLength(2);
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('keeps the time of an earlier revocation and writes nothing', async () => {
    // Prepare
    const issued = issueKey({ revoked_at: '2025-02-15T00:00:00.000Z' });
    serveItems(ddbMock, [issued.item]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    const result = await office.keys.revoke(issued.keyId);

    // Assess
    expect(result.revoked_at).toBe('2025-02-15T00:00:00.000Z');
    expect(transactions()).toHaveLength(0);
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('answers the time of a revocation that won the race, recorded once', async () => {
    // Prepare: the key reads unrevoked, then a concurrent revocation commits first.
    const issued = issueKey();
    const revoked = { ...issued.item, revoked_at: '2025-02-15T00:00:00.000Z' };
    ddbMock.on(GetCommand).resolvesOnce({ Item: issued.item }).resolves({ Item: revoked });
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled());

    // Act
    const result = await office.keys.revoke(issued.keyId);

    // Assess
    expect(result).toEqual({ key_id: issued.keyId, revoked_at: '2025-02-15T00:00:00.000Z' });
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});

describe('listKeys', () => {
  it('lists keys oldest first with their status and reason, never a digest or value', async () => {
    // Prepare
    const items = [accountItem({ cred_gen: 3 }), orgItem({ status: 'archived' })];
    serveItems(ddbMock, items);
    const live = keyEntry({ account_gen: 3, created_at: '2025-02-02T00:00:00.000Z', expires_at: null });
    const expired = keyEntry({ account_gen: 3, created_at: '2025-01-01T00:00:00.000Z', expires_at: '2025-02-01T00:00:00.000Z' });
    const suspended = keyEntry({ account_gen: 3, partner_id: PARTNER_ID, org_gen: 1, created_at: '2025-01-15T00:00:00.000Z' });
    ddbMock.on(QueryCommand).resolves({ Items: partition(items, [live, expired, suspended]) });

    // Act
    const { keys } = await office.keys.list(ACCOUNT_ID);

    // Assess
    expect(keys.map((k) => [k.key_id, k.status, k.reason])).toEqual([
      [expired.key_id, 'expired', 'expired'],
      [suspended.key_id, 'revoked', 'organization_archived'],
      [live.key_id, 'active', undefined],
    ]);
    expect(JSON.stringify(keys)).not.toMatch(/digest|pak_live_/);
  });

  it('follows the pages of the registry', async () => {
    // Prepare
    const account = accountItem({ cred_gen: 1 });
    serveItems(ddbMock, [account]);
    const first = keyEntry({ created_at: '2025-02-01T00:00:00.000Z' });
    const second = keyEntry({ created_at: '2025-02-02T00:00:00.000Z' });
    // The account's partition, in two pages.
    ddbMock
      .on(QueryCommand)
      .resolvesOnce({ Items: [account, first], LastEvaluatedKey: { pk: first.pk, sk: first.sk } })
      .resolves({ Items: [second] });

    // Act
    const { keys } = await office.keys.list(ACCOUNT_ID);

    // Assess
    expect(keys.map((k) => k.key_id)).toEqual([first.key_id, second.key_id]);
    const queries = ddbMock.commandCalls(QueryCommand);
    expect(queries).toHaveLength(2);
    expect(queries[1].args[0].input.ExclusiveStartKey).toEqual({ pk: first.pk, sk: first.sk });
  });
});