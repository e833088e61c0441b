/**
 * What the back-office concepts share (lambdas/back-office/identity-store.ts),
 * against a mocked document client: a new account or organization item is
 * written only where none exists, with no concurrency slot taken.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { BackOffice } from '../../../lambdas/back-office/back-office';
import { accountKey, orgKey } from '../../../lambdas/shared/identity/access-items';
import { TABLE, useMockedBackOffice } from './mocked-back-office';

const { ddbMock, office } = useMockedBackOffice();

describe('creating an identity item', () => {
  it.each<{ name: string; prefix: string; create: (office: BackOffice) => Promise<string>; key: (id: string) => { pk: string; sk: string }; item: object }>([
    { name: 'account', prefix: 'acc', create: async (o) => (await o.accounts.create('Alice')).account_id, key: accountKey, item: { type: 'account', name: 'Alice', status: 'active', cred_gen: 1, key_set_version: 0 } },
    { name: 'organization', prefix: 'org', create: async (o) => (await o.organizations.create('Team Blue')).partner_id, key: orgKey, item: { type: 'org', name: 'Team Blue', status: 'active', key_gen: 1, managers: {} } },
  ])('writes a new $name item, never over an existing one, with an empty lease map', async ({ prefix, create, key, item }) => {
    // Prepare
    ddbMock.on(PutCommand).resolves({});

    // Act
    const id = await create(office);

    // Assess
    expect(id).toMatch(new RegExp(`^${prefix}_[0-9a-f]{20}$`));
    expect(ddbMock.commandCalls(PutCommand)[0].args[0].input).toMatchObject({
      TableName: TABLE,
      ConditionExpression: 'attribute_not_exists(pk)',
      Item: { ...key(id), ...item, leases: {} },
    });
  });
});
