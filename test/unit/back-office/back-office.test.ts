/**
 * The identity back office against a mocked document client: key creation
 * is one conditional transaction that stores only the digest, its input
 * rules and limit, its retry on a lost race, and the lifecycle operations
 * that revoke keys by raising a generation or replacing a grant.
 */
import { ConditionalCheckFailedException, DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { accountKey, accountKeyEntryKey, apiKeyKey, membershipKey, orgKey } from '../../../lambdas/shared/identity/access-items';
import { digestApiKey, keyIdFromDigest, LIVE_KEY_PATTERN } from '../../../lambdas/shared/identity/api-keys';
import { createBackOffice, BackOfficeError, type CreateKeyInput } from '../../../lambdas/back-office/back-office';
import { ACCOUNT_ID, GRANT, NOW, PARTNER_ID, accountItem, issueKey, orgItem, serveItems, type StoredItem } from '../support/identity-fixtures';

const TABLE = 'access-table';
const DAY_MS = 86_400_000;
const ddbMock = mockClient(DynamoDBDocumentClient);
const office = createBackOffice(
  DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } })),
  TABLE,
  () => NOW,
);

const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
const transactionCanceled = () =>
  new TransactionCanceledException({
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, ConditionalCheckFailed]',
    $metadata: {},
    CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
  });

/** The registry entry createKey writes under the account, for a key that is active at NOW unless overridden. */
function keyEntry(overrides: Parameters<typeof issueKey>[0] = {}): StoredItem {
  const { pk: _pk, sk: _sk, digest: _digest, ...rest } = issueKey(overrides).item;
  return { ...accountKeyEntryKey(ACCOUNT_ID, rest.key_id), ...rest, type: 'account_key' };
}

function prepareAccount(options: { entries?: StoredItem[]; items?: StoredItem[] } = {}) {
  serveItems(ddbMock, options.items ?? [accountItem({ cred_gen: 3, key_set_version: 7 }), orgItem({ key_gen: 2 })]);
  ddbMock.on(QueryCommand).resolves({ Items: options.entries ?? [] });
  ddbMock.on(TransactWriteCommand).resolves({});
}

const transactions = (): TransactWriteCommandInput[] => ddbMock.commandCalls(TransactWriteCommand).map((call) => call.args[0].input);
const everythingSent = () => JSON.stringify(ddbMock.calls().map((call) => call.args[0].input));

async function failure(promise: Promise<unknown>): Promise<BackOfficeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BackOfficeError);
  return error as BackOfficeError;
}

beforeEach(() => {
  // No waiting between creation attempts.
  vi.spyOn(Math, 'random').mockReturnValue(0);
});

afterEach(() => {
  ddbMock.reset();
  vi.restoreAllMocks();
});

describe('createKey: the transaction', () => {
  it('writes a personal key in one transaction conditioned on the account status, generation and key-set version', async () => {
    // Prepare
    prepareAccount();

    // Act
    const created = await office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'] });

    // Assess
    expect(transactions()).toHaveLength(1);
    const items = transactions()[0].TransactItems ?? [];
    expect(items).toHaveLength(3);
    const [keyPut, entryPut, accountUpdate] = items;
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
    expect(items).toHaveLength(4);
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

  it('reads the registry consistently', async () => {
    // Prepare
    prepareAccount();

    // Act
    await office.keys.create({ accountId: ACCOUNT_ID, scopes: ['public:read'] });

    // Assess
    expect(ddbMock.commandCalls(QueryCommand)[0].args[0].input).toMatchObject({
      TableName: TABLE,
      ConsistentRead: true,
      ExpressionAttributeValues: { ':pk': accountKey(ACCOUNT_ID).pk, ':prefix': 'KEY#' },
    });
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
    expect(afterLoss.some((call) => call.args[0] instanceof GetCommand && call.args[0].input.Key?.pk === accountKey(ACCOUNT_ID).pk)).toBe(true);
    expect(afterLoss.some((call) => call.args[0] instanceof QueryCommand)).toBe(true);
    const stored = transactions()[1].TransactItems?.[0].Put?.Item;
    expect(stored?.digest).toBe(digestApiKey(created.key));
    expect(stored?.key_id).toBe(created.key_id);
  });

  it('rechecks the limit on the retry: a race lost to the 20th key ends in KEY_LIMIT', async () => {
    // Prepare
    prepareAccount();
    const full = Array.from({ length: 20 }, () => keyEntry({ account_gen: 3, expires_at: null }));
    ddbMock.on(QueryCommand).resolvesOnce({ Items: full.slice(0, 19) }).resolves({ Items: full });
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

describe('lifecycle operations', () => {
  it('restoreOrg raises the key generation of an archived organization', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({ Attributes: { ...orgItem({ status: 'active', key_gen: 3 }) } });

    // Act
    const result = await office.organizations.restore(PARTNER_ID);

    // Assess
    expect(result).toEqual({ partner_id: PARTNER_ID, status: 'active' });
    const update = ddbMock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(update).toMatchObject({ TableName: TABLE, Key: orgKey(PARTNER_ID), ExpressionAttributeValues: { ':one': 1, ':active': 'active', ':archived': 'archived' } });
    expect(update.UpdateExpression).toMatch(/key_gen = key_gen \+ :one/);
    expect(update.UpdateExpression).toMatch(/#status = :active/);
    expect(update.ConditionExpression).toMatch(/#status = :archived/);
  });

  it('restoreOrg of an active organization changes nothing and succeeds', async () => {
    // Prepare
    serveItems(ddbMock, [orgItem({ status: 'active', key_gen: 2 })]);
    ddbMock.on(UpdateCommand).rejects(conditionFailed());

    // Act
    const result = await office.organizations.restore(PARTNER_ID);

    // Assess
    expect(result).toEqual({ partner_id: PARTNER_ID, status: 'active' });
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('restoreOrg of a missing organization fails with ORG_NOT_FOUND', async () => {
    // Prepare
    serveItems(ddbMock, []);
    ddbMock.on(UpdateCommand).rejects(conditionFailed());

    // Act
    const error = await failure(office.organizations.restore(PARTNER_ID));

    // Assess
    expect(error.code).toBe('ORG_NOT_FOUND');
  });

  it('resetPassword raises the credential generation', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({ Attributes: { ...accountItem({ cred_gen: 4 }) } });

    // Act
    const result = await office.accounts.resetPassword(ACCOUNT_ID);

    // Assess
    expect(result).toEqual({ account_id: ACCOUNT_ID, status: 'active' });
    const update = ddbMock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(update).toMatchObject({ TableName: TABLE, Key: accountKey(ACCOUNT_ID), ConditionExpression: 'attribute_exists(pk)' });
    expect(update.UpdateExpression).toMatch(/cred_gen = cred_gen \+ :one/);
    expect(update.ExpressionAttributeValues).toMatchObject({ ':one': 1 });
  });

  it('resetPassword of a missing account fails with ACCOUNT_NOT_FOUND', async () => {
    // Prepare
    serveItems(ddbMock, []);
    ddbMock.on(UpdateCommand).rejects(conditionFailed());

    // Act
    const error = await failure(office.accounts.resetPassword(ACCOUNT_ID));

    // Assess
    expect(error.code).toBe('ACCOUNT_NOT_FOUND');
  });

  it('deactivateAccount sets the status without raising the generation', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({ Attributes: { ...accountItem({ status: 'deactivated' }) } });

    // Act
    const result = await office.accounts.deactivate(ACCOUNT_ID);

    // Assess
    expect(result).toEqual({ account_id: ACCOUNT_ID, status: 'deactivated' });
    const update = ddbMock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(update.ExpressionAttributeValues).toMatchObject({ ':deactivated': 'deactivated' });
    expect(update.UpdateExpression).not.toMatch(/cred_gen/);
  });

  it('reactivateAccount raises the generation so keys from before the deactivation stay revoked', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({ Attributes: { ...accountItem({ cred_gen: 2 }) } });

    // Act
    await office.accounts.reactivate(ACCOUNT_ID);

    // Assess
    const update = ddbMock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(update.UpdateExpression).toMatch(/cred_gen = cred_gen \+ :one/);
    expect(update.ExpressionAttributeValues).toMatchObject({ ':active': 'active', ':one': 1 });
  });

  it('reactivateAccount raises the generation only of a deactivated account, and leaves an active one untouched', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem({ status: 'active', cred_gen: 1 })]);
    ddbMock.on(UpdateCommand).rejects(conditionFailed());

    // Act
    const result = await office.accounts.reactivate(ACCOUNT_ID);

    // Assess
    expect(result).toEqual({ account_id: ACCOUNT_ID, status: 'active' });
    const update = ddbMock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(update.ConditionExpression).toMatch(/#status = :deactivated/);
    expect(update.ExpressionAttributeValues).toMatchObject({ ':deactivated': 'deactivated' });
  });
});

describe('memberships', () => {
  const orgUpdate = () => transactions()[0].TransactItems?.[1].Update;

  it('setMember manager mints a grant and records it on the membership and the organization', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem(), orgItem({ managers: {} })]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    const result = await office.memberships.set(PARTNER_ID, ACCOUNT_ID, 'manager');

    // Assess
    expect(result).toEqual({ partner_id: PARTNER_ID, account_id: ACCOUNT_ID, role: 'manager' });
    const membershipPut = transactions()[0].TransactItems?.[0].Put;
    const grant = membershipPut?.Item?.grant as string;
    expect(grant).toMatch(/^grant_[0-9a-f]{20}$/);
    expect(membershipPut?.Item).toMatchObject({ ...membershipKey(PARTNER_ID, ACCOUNT_ID), role: 'manager' });
    expect(orgUpdate()).toMatchObject({ Key: orgKey(PARTNER_ID), ExpressionAttributeValues: { ':grant': grant } });
  });

  it('setMember manager keeps the grant of an account that already is manager (its keys stay valid)', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem(), orgItem({ managers: { [ACCOUNT_ID]: GRANT } })]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    await office.memberships.set(PARTNER_ID, ACCOUNT_ID, 'manager');

    // Assess
    expect(orgUpdate()?.ExpressionAttributeValues).toMatchObject({ ':grant': GRANT });
  });

  it('setMember member removes the grant, which revokes the keys the account made for the organization', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem(), orgItem()]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    await office.memberships.set(PARTNER_ID, ACCOUNT_ID, 'member');

    // Assess
    expect(orgUpdate()?.UpdateExpression).toMatch(/REMOVE managers\.#account/);
    expect(orgUpdate()?.ExpressionAttributeNames).toEqual({ '#account': ACCOUNT_ID });
    expect(transactions()[0].TransactItems?.[0].Put?.Item?.grant).toBeUndefined();
  });

  it('setMember refuses an unknown account or organization', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem()]);

    // Act
    const noOrg = await failure(office.memberships.set(PARTNER_ID, ACCOUNT_ID, 'manager'));
    const noAccount = await failure(office.memberships.set(PARTNER_ID, 'acc_missing', 'manager'));

    // Assess
    expect([noOrg.code, noAccount.code]).toEqual(['ORG_NOT_FOUND', 'ACCOUNT_NOT_FOUND']);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('removeMember deletes the membership and the grant together, and reports a missing membership', async () => {
    // Prepare
    ddbMock.on(TransactWriteCommand).resolvesOnce({}).rejectsOnce(transactionCanceled());

    // Act
    const removed = await office.memberships.remove(PARTNER_ID, ACCOUNT_ID);
    const missing = await failure(office.memberships.remove(PARTNER_ID, ACCOUNT_ID));

    // Assess
    expect(removed).toEqual({ partner_id: PARTNER_ID, account_id: ACCOUNT_ID, removed: true });
    const [remove, update] = transactions()[0].TransactItems ?? [];
    expect(remove.Delete?.Key).toEqual(membershipKey(PARTNER_ID, ACCOUNT_ID));
    expect(update.Update?.UpdateExpression).toMatch(/REMOVE managers\.#account/);
    expect(missing.code).toBe('MEMBER_NOT_FOUND');
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

    // Assess
    for (const item of transactions()[0].TransactItems ?? []) {
      expect(item.Update?.ConditionExpression ?? '').toMatch(/attribute_exists\(pk\)/);
    }
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
});

describe('listKeys', () => {
  it('lists keys oldest first with their status and reason, never a digest or value', async () => {
    // Prepare
    const items = [accountItem({ cred_gen: 3 }), orgItem({ status: 'archived' })];
    serveItems(ddbMock, items);
    const live = keyEntry({ account_gen: 3, created_at: '2025-02-02T00:00:00.000Z', expires_at: null });
    const expired = keyEntry({ account_gen: 3, created_at: '2025-01-01T00:00:00.000Z', expires_at: '2025-02-01T00:00:00.000Z' });
    const suspended = keyEntry({ account_gen: 3, partner_id: PARTNER_ID, org_gen: 1, created_at: '2025-01-15T00:00:00.000Z' });
    ddbMock.on(QueryCommand).resolves({ Items: [live, expired, suspended] });

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
    serveItems(ddbMock, [accountItem({ cred_gen: 1 })]);
    const first = keyEntry({ created_at: '2025-02-01T00:00:00.000Z' });
    const second = keyEntry({ created_at: '2025-02-02T00:00:00.000Z' });
    ddbMock
      .on(QueryCommand)
      .resolvesOnce({ Items: [first], LastEvaluatedKey: { pk: first.pk, sk: first.sk } })
      .resolves({ Items: [second] });

    // Act
    const { keys } = await office.keys.list(ACCOUNT_ID);

    // Assess
    expect(keys.map((k) => k.key_id)).toEqual([first.key_id, second.key_id]);
    expect(ddbMock.commandCalls(QueryCommand)[1].args[0].input.ExclusiveStartKey).toEqual({ pk: first.pk, sk: first.sk });
  });
});
