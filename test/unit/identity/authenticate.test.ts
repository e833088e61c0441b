/**
 * authenticate(): every invalid credential gets the same 401 after the same
 * work; organization and scope rules give their own codes; a warm container
 * spends one round trip per request and still sees revocations.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, ERROR_CATALOG } from '../../../lambdas/shared/http/errors';
import { accountKey, apiKeyKey, orgKey, toKeyFacts, type ApiKeyItem } from '../../../lambdas/shared/identity/access-items';
import { digestApiKey, generateApiKey, keyIdFromDigest, LIVE_KEY_PREFIX } from '../../../lambdas/shared/identity/api-keys';
import { authenticate, KeyFactsCache, type AccessRequirement } from '../../../lambdas/shared/identity/authenticate';
import { DynamoIdentityReader } from '../../../lambdas/shared/identity/identity-store';
import {
  ACCOUNT_ID,
  GRANT,
  NOW,
  PARTNER_ID,
  accountItem,
  bearer,
  issueKey,
  orgItem,
  serveItems,
  type StoredItem,
} from '../support/identity-fixtures';

const TABLE = 'access-table';
const ddbMock = mockClient(DynamoDBDocumentClient);
const documentClient = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
);
const reader = new DynamoIdentityReader(documentClient, TABLE);

function run(authorization: string | undefined, requirement: AccessRequirement = {}, cache = new KeyFactsCache(), now = NOW) {
  return authenticate(authorization, requirement, { reader, cache, now });
}

/** The operations sent, in order. */
const sentCommands = () => ddbMock.calls().map((call) => call.args[0].constructor.name);

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

afterEach(() => {
  ddbMock.reset();
});

describe('authenticate: round trips', () => {
  it('reads the key, then the account and organization in one BatchGetItem, on a cold container', async () => {
    // Prepare
    const issued = issueKey({ partner_id: PARTNER_ID });
    serveItems(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    await run(bearer(issued.key));

    // Assess
    expect(sentCommands()).toEqual(['GetCommand', 'BatchGetCommand']);
    expect(ddbMock.commandCalls(GetCommand)[0].args[0].input).toMatchObject({
      TableName: TABLE,
      Key: apiKeyKey(issued.keyId),
      ConsistentRead: true,
    });
    const batch = ddbMock.commandCalls(BatchGetCommand)[0].args[0].input.RequestItems?.[TABLE];
    expect(batch?.ConsistentRead).toBe(true);
    expect(batch?.Keys).toEqual([accountKey(ACCOUNT_ID), orgKey(PARTNER_ID)]);
  });

  it('spends exactly one BatchGetItem, including the key item, on a warm container', async () => {
    // Prepare
    const issued = issueKey({ partner_id: PARTNER_ID });
    serveItems(ddbMock, [issued.item, accountItem(), orgItem()]);
    const cache = new KeyFactsCache();
    await run(bearer(issued.key), {}, cache);
    ddbMock.resetHistory();

    // Act
    await run(bearer(issued.key), {}, cache);

    // Assess
    expect(sentCommands()).toEqual(['BatchGetCommand']);
    const keys = ddbMock.commandCalls(BatchGetCommand)[0].args[0].input.RequestItems?.[TABLE]?.Keys;
    expect(keys).toHaveLength(3);
    expect(keys).toEqual(expect.arrayContaining([accountKey(ACCOUNT_ID), apiKeyKey(issued.keyId), orgKey(PARTNER_ID)]));
  });

  it('sees a revocation on a warm container although the key facts are cached', async () => {
    // Prepare
    const issued = issueKey();
    const items: StoredItem[] = [issued.item, accountItem()];
    serveItems(ddbMock, items);
    const cache = new KeyFactsCache();
    await run(bearer(issued.key), {}, cache);
    items[0] = { ...issued.item, revoked_at: '2025-03-01T11:00:00.000Z' };

    // Act
    const error = await rejection(run(bearer(issued.key), {}, cache));

    // Assess
    expect(error.code).toBe('INVALID_API_KEY');
  });

  it('does not let cached facts vouch for a different key value with the same id', async () => {
    // Prepare: a stored, cached key whose id collides with the presented key's id.
    const presented = generateApiKey();
    const collidingId = keyIdFromDigest(digestApiKey(presented));
    const other = issueKey();
    const colliding: StoredItem = { ...other.item, ...apiKeyKey(collidingId), key_id: collidingId };
    serveItems(ddbMock, [colliding, accountItem()]);
    const cache = new KeyFactsCache();
    cache.set(toKeyFacts(colliding as unknown as ApiKeyItem));

    // Act
    const error = await rejection(run(bearer(presented), {}, cache));

    // Assess
    expect(sentCommands()).toEqual(['BatchGetCommand']);
    expect(error.code).toBe('INVALID_API_KEY');
  });
});

describe('authenticate: the principal', () => {
  it('returns the key, account, organization, scopes and expiry of a valid organization key', async () => {
    // Prepare
    const issued = issueKey({ partner_id: PARTNER_ID, scopes: ['records:read', 'tickets:read'], expires_at: null });
    serveItems(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    const principal = await run(bearer(issued.key), { scope: 'records:read', partnerId: PARTNER_ID });

    // Assess
    expect(principal).toEqual({
      keyId: issued.keyId,
      accountId: ACCOUNT_ID,
      partnerId: PARTNER_ID,
      scopes: ['records:read', 'tickets:read'],
      expiresAt: null,
    });
  });

  it('returns a null organization for a personal key', async () => {
    // Prepare
    const issued = issueKey();
    serveItems(ddbMock, [issued.item, accountItem()]);

    // Act
    const principal = await run(bearer(issued.key), { scope: 'public:read' });

    // Assess
    expect(principal.partnerId).toBeNull();
    expect(principal.expiresAt).toBe(issued.item.expires_at);
  });
});

describe('authenticate: invalid credentials are indistinguishable', () => {
  const unknownKey = generateApiKey();
  const presentedForMismatch = generateApiKey();

  interface InvalidCase {
    readonly name: string;
    readonly authorization: () => string | undefined;
    readonly items: () => StoredItem[];
  }

  const stored = {
    revoked: issueKey({ revoked_at: '2025-02-20T00:00:00.000Z' }),
    expired: issueKey({ expires_at: NOW.toISOString() }),
    deactivated: issueKey(),
    reset: issueKey({ account_gen: 1 }),
    regranted: issueKey({ partner_id: PARTNER_ID }),
    restored: issueKey({ partner_id: PARTNER_ID, org_gen: 1 }),
  };
  // A stored key under the presented key's id whose digest differs (an id collision).
  const mismatch = issueKey();
  const mismatchItem: StoredItem = {
    ...mismatch.item,
    ...apiKeyKey(keyIdFromDigest(digestApiKey(presentedForMismatch))),
    key_id: keyIdFromDigest(digestApiKey(presentedForMismatch)),
  };

  const cases: InvalidCase[] = [
    { name: 'a missing Authorization header', authorization: () => undefined, items: () => [accountItem()] },
    { name: 'an empty Authorization header', authorization: () => '', items: () => [accountItem()] },
    { name: 'another scheme', authorization: () => `Basic ${unknownKey}`, items: () => [accountItem()] },
    { name: 'a key without scheme', authorization: () => unknownKey, items: () => [accountItem()] },
    { name: 'a key of the wrong length', authorization: () => bearer(unknownKey.slice(0, -1)), items: () => [accountItem()] },
    { name: 'a key with upper-case hex', authorization: () => bearer(unknownKey.toUpperCase().replace('PAK_LIVE_', LIVE_KEY_PREFIX)), items: () => [accountItem()] },
    { name: 'a well-formed key nobody holds', authorization: () => bearer(unknownKey), items: () => [accountItem()] },
    { name: 'a key whose digest does not match the stored one', authorization: () => bearer(presentedForMismatch), items: () => [mismatchItem, accountItem()] },
    { name: 'a revoked key', authorization: () => bearer(stored.revoked.key), items: () => [stored.revoked.item, accountItem()] },
    { name: 'an expired key', authorization: () => bearer(stored.expired.key), items: () => [stored.expired.item, accountItem()] },
    {
      name: 'a key of a deactivated account',
      authorization: () => bearer(stored.deactivated.key),
      items: () => [stored.deactivated.item, accountItem({ status: 'deactivated' })],
    },
    {
      name: 'a key from before a password reset',
      authorization: () => bearer(stored.reset.key),
      items: () => [stored.reset.item, accountItem({ cred_gen: 2 })],
    },
    {
      name: 'an organization key whose creator was demoted and promoted again',
      authorization: () => bearer(stored.regranted.key),
      items: () => [stored.regranted.item, accountItem(), orgItem({ managers: { [ACCOUNT_ID]: 'grant_0002' } })],
    },
    {
      name: 'an organization key from before a restore',
      authorization: () => bearer(stored.restored.key),
      items: () => [stored.restored.item, accountItem(), orgItem({ key_gen: 2 })],
    },
  ];

  it.each(cases)('$name gets 401 INVALID_API_KEY with the one generic message', async ({ authorization, items }) => {
    // Prepare
    serveItems(ddbMock, items());

    // Act
    const error = await rejection(run(authorization()));

    // Assess
    expect(error.code).toBe('INVALID_API_KEY');
    expect(error.status).toBe(401);
    expect(error.message).toBe(ERROR_CATALOG.INVALID_API_KEY.message);
  });

  it.each([
    { name: 'a missing header', authorization: undefined },
    { name: 'a malformed header', authorization: 'Bearer not-a-key' },
    { name: 'a well-formed unknown key', authorization: bearer(unknownKey) },
  ])('looks a key up for $name, the same work as for any unknown key', async ({ authorization }) => {
    // Prepare
    serveItems(ddbMock, [accountItem()]);

    // Act
    await rejection(run(authorization));

    // Assess
    expect(sentCommands()).toEqual(['GetCommand']);
    const { Key } = ddbMock.commandCalls(GetCommand)[0].args[0].input;
    expect(Key?.pk).toMatch(/^KEY#key_[0-9a-f]{24}$/);
  });

  it('does not cache the facts of a key whose digest did not match', async () => {
    // Prepare
    serveItems(ddbMock, [mismatchItem, accountItem()]);
    const cache = new KeyFactsCache();

    // Act
    await rejection(run(bearer(presentedForMismatch), {}, cache));

    // Assess
    expect(cache.get(mismatchItem.key_id as string)).toBeUndefined();
  });
});

describe('authenticate: organization and scope rules', () => {
  it('answers PARTNER_INACTIVE while the organization is archived', async () => {
    // Prepare
    const issued = issueKey({ partner_id: PARTNER_ID });
    serveItems(ddbMock, [issued.item, accountItem(), orgItem({ status: 'archived' })]);

    // Act
    const error = await rejection(run(bearer(issued.key), { partnerId: PARTNER_ID }));

    // Assess
    expect(error).toMatchObject({ code: 'PARTNER_INACTIVE', status: 409 });
  });

  it('answers PARTNER_MANAGER_REQUIRED when the creator holds no manager grant', async () => {
    // Prepare
    const issued = issueKey({ partner_id: PARTNER_ID });
    serveItems(ddbMock, [issued.item, accountItem(), orgItem({ managers: {} })]);

    // Act
    const error = await rejection(run(bearer(issued.key), { partnerId: PARTNER_ID }));

    // Assess
    expect(error).toMatchObject({ code: 'PARTNER_MANAGER_REQUIRED', status: 403 });
  });

  it('answers PARTNER_SCOPE_MISMATCH when the path names another organization', async () => {
    // Prepare
    const issued = issueKey({ partner_id: PARTNER_ID });
    serveItems(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    const error = await rejection(run(bearer(issued.key), { partnerId: 'org_0002', scope: 'records:read' }));

    // Assess
    expect(error).toMatchObject({ code: 'PARTNER_SCOPE_MISMATCH', status: 403 });
  });

  it('answers PARTNER_SCOPE_MISMATCH for a personal key on an organization route', async () => {
    // Prepare
    const issued = issueKey();
    serveItems(ddbMock, [issued.item, accountItem()]);

    // Act
    const error = await rejection(run(bearer(issued.key), { partnerId: PARTNER_ID }));

    // Assess
    expect(error.code).toBe('PARTNER_SCOPE_MISMATCH');
  });

  it('answers INSUFFICIENT_SCOPE when the key lacks the route scope', async () => {
    // Prepare
    const issued = issueKey({ partner_id: PARTNER_ID, scopes: ['invitations:read'] });
    serveItems(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    const error = await rejection(run(bearer(issued.key), { partnerId: PARTNER_ID, scope: 'invitations:write' }));

    // Assess
    expect(error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403 });
  });

  it('admits a key carrying the scope on its own organization', async () => {
    // Prepare
    const issued = issueKey({ partner_id: PARTNER_ID, scopes: ['invitations:write'], manager_grant: GRANT });
    serveItems(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    const principal = await run(bearer(issued.key), { partnerId: PARTNER_ID, scope: 'invitations:write' });

    // Assess
    expect(principal.keyId).toBe(issued.keyId);
  });
});

describe('KeyFactsCache', () => {
  const facts = (keyId: string) => toKeyFacts({ ...issueKey().item, key_id: keyId } as ApiKeyItem);

  it('evicts the oldest entry beyond its capacity', () => {
    // Prepare
    const cache = new KeyFactsCache(2);

    // Act
    cache.set(facts('key_a'));
    cache.set(facts('key_b'));
    cache.set(facts('key_c'));

    // Assess
    expect(cache.get('key_a')).toBeUndefined();
    expect(cache.get('key_b')?.key_id).toBe('key_b');
    expect(cache.get('key_c')?.key_id).toBe('key_c');
  });

  it('treats a key set again as the newest', () => {
    // Prepare
    const cache = new KeyFactsCache(2);
    cache.set(facts('key_a'));
    cache.set(facts('key_b'));

    // Act
    cache.set(facts('key_a'));
    cache.set(facts('key_c'));

    // Assess
    expect(cache.get('key_a')?.key_id).toBe('key_a');
    expect(cache.get('key_b')).toBeUndefined();
  });
});
