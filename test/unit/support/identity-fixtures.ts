/**
 * Items of the identity part of the `access` table, as the back office
 * writes them, and a mocked DynamoDBDocumentClient that answers GetItem and
 * BatchGetItem from a list of such items (the list is read on every call, so
 * a test can change an item between two requests), and admission's
 * conditional writes as a table with room in every window would.
 */
import type { AwsClientStub } from 'aws-sdk-client-mock';
import {
  BatchGetCommand,
  GetCommand,
  QueryCommand,
  UpdateCommand,
  type BatchGetCommandInput,
  type DynamoDBDocumentClient,
  type GetCommandInput,
  type QueryCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import {
  accountKey,
  apiKeyKey,
  orgKey,
  type AccountItem,
  type ApiKeyItem,
  type OrgItem,
} from '../../../lambdas/shared/identity/access-items';
import { digestApiKey, generateApiKey, keyIdFromDigest } from '../../../lambdas/shared/identity/api-keys';
import { conditionFailed } from './admission-fixtures';

export type StoredItem = Record<string, unknown> & { pk: string; sk: string };

export const NOW = new Date('2025-03-01T12:00:00.000Z');
export const ACCOUNT_ID = 'acc_0001';
export const PARTNER_ID = 'org_0001';
export const GRANT = 'grant_0001';

export function accountItem(overrides: Partial<AccountItem> = {}): StoredItem {
  const account: AccountItem = {
    account_id: ACCOUNT_ID,
    name: 'Account',
    status: 'active',
    cred_gen: 1,
    key_set_version: 0,
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
  return { ...accountKey(account.account_id), type: 'account', ...account };
}

export function orgItem(overrides: Partial<OrgItem> = {}): StoredItem {
  const org: OrgItem = {
    partner_id: PARTNER_ID,
    name: 'Organization',
    status: 'active',
    key_gen: 1,
    managers: { [ACCOUNT_ID]: GRANT },
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
  return { ...orgKey(org.partner_id), type: 'org', ...org };
}

export interface IssuedKey {
  /** The full key value a client presents. */
  readonly key: string;
  readonly keyId: string;
  readonly item: StoredItem & ApiKeyItem;
}

/** A key as createKey stores it (digest only), with the value a client would hold. */
export function issueKey(overrides: Partial<ApiKeyItem> = {}, key = generateApiKey()): IssuedKey {
  const digest = digestApiKey(key);
  const keyId = keyIdFromDigest(digest);
  const partnerId = overrides.partner_id ?? null;
  const item: ApiKeyItem = {
    key_id: keyId,
    digest,
    account_id: ACCOUNT_ID,
    partner_id: partnerId,
    scopes: partnerId ? ['records:read', 'public:read'] : ['public:read'],
    created_at: '2025-02-01T00:00:00.000Z',
    expires_at: '2025-05-02T00:00:00.000Z',
    account_gen: 1,
    org_gen: partnerId ? 1 : null,
    manager_grant: partnerId ? GRANT : null,
    ...overrides,
  };
  return { key, keyId, item: { ...apiKeyKey(keyId), type: 'api_key', ...item } };
}

export const bearer = (key: string) => `Bearer ${key}`;

const findItem = (items: readonly StoredItem[], key: Record<string, unknown> | undefined) =>
  items.find((item) => item.pk === key?.pk && item.sk === key?.sk);

/** Answer GetCommand and BatchGetCommand from `items`, as a table holding exactly those items would. */
export function serveItems(mock: AwsClientStub<DynamoDBDocumentClient>, items: StoredItem[]): void {
  const find = (key: Record<string, unknown> | undefined) => findItem(items, key);
  mock.on(GetCommand).callsFake((input: GetCommandInput) => {
    const item = find(input.Key);
    return item ? { Item: structuredClone(item) } : {};
  });
  // An organization's partition read backwards, the organization item first (organization-entries.ts orgWithMembers):
  // answered from the stored items, as DynamoDB would.
  mock.on(QueryCommand, { KeyConditionExpression: 'pk = :pk AND sk BETWEEN :members AND :org' }).callsFake((input: QueryCommandInput) => {
    const values = input.ExpressionAttributeValues ?? {};
    const inRange = items.filter((item) => item.pk === values[':pk'] && String(item.sk) >= String(values[':members']) && String(item.sk) <= String(values[':org']));
    const ordered = [...inRange].sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1));
    return { Items: structuredClone(input.ScanIndexForward === false ? ordered.reverse() : ordered) };
  });
  mock.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => ({
    Responses: Object.fromEntries(
      Object.entries(input.RequestItems ?? {}).map(([table, request]) => [
        table,
        (request.Keys ?? []).flatMap((key) => {
          const item = find(key);
          return item ? [structuredClone(item)] : [];
        }),
      ]),
    ),
    UnprocessedKeys: {},
  }));
}

/**
 * serveItems, plus admission's writes answered as a table with room in every
 * window and slot: an UpdateCommand on a stored item succeeds and reports
 * each counter it touches at 1 (ReturnValues UPDATED_NEW); one on a missing
 * item fails its condition without an old image. The guards are not
 * evaluated: a test about a refused write mocks that write itself.
 */
export function serveAdmission(mock: AwsClientStub<DynamoDBDocumentClient>, items: StoredItem[]): void {
  serveItems(mock, items);
  mock.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
    if (!findItem(items, input.Key)) return Promise.reject(conditionFailed());
    const counters = Object.values(input.ExpressionAttributeNames ?? {}).filter((name) => name.startsWith('q_'));
    return { Attributes: Object.fromEntries(counters.map((name) => [name, { n: 1 }])) };
  });
}
