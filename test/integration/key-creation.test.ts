/**
 * Key creation rules against DynamoDB Local, including the 20-key limit
 * under concurrent creation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficeError, KEY_LIMIT_PER_ACCOUNT } from '../../lambdas/back-office/back-office';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

describe('key creation', () => {
  it('admits exactly 20 of 30 concurrent creations for one account', async () => {
    const { account_id } = await stack.office.accounts.create();
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, () => stack.office.keys.create({ accountId: account_id, scopes: ['public:read'] })),
    );
    const created = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(created).toHaveLength(KEY_LIMIT_PER_ACCOUNT);
    for (const r of refused) expect((r.reason as BackOfficeError).code).toBe('KEY_LIMIT');
    const listed = await stack.office.keys.list(account_id);
    expect(listed.keys.filter((k) => k.status === 'active')).toHaveLength(KEY_LIMIT_PER_ACCOUNT);
  });

  it('counts only unexpired, unrevoked keys toward the limit', async () => {
    const { account_id } = await stack.office.accounts.create();
    const keys = [];
    for (let i = 0; i < KEY_LIMIT_PER_ACCOUNT; i += 1) keys.push(await stack.office.keys.create({ accountId: account_id, scopes: ['public:read'] }));
    await expect(stack.office.keys.create({ accountId: account_id, scopes: ['public:read'] })).rejects.toMatchObject({ code: 'KEY_LIMIT' });
    await stack.office.keys.revoke(keys[0].key_id);
    await expect(stack.office.keys.create({ accountId: account_id, scopes: ['public:read'], permanent: true })).resolves.toMatchObject({ expires_at: null });
  });

  it('gives organization keys only to active managers of an active organization', async () => {
    const { account_id } = await stack.office.accounts.create();
    const { partner_id } = await stack.office.organizations.create();
    await expect(stack.office.keys.create({ accountId: account_id, partnerId: partner_id, scopes: ['records:read'] })).rejects.toMatchObject({
      code: 'PARTNER_MANAGER_REQUIRED',
    });
    await stack.office.memberships.set(partner_id, account_id, 'member');
    await expect(stack.office.keys.create({ accountId: account_id, partnerId: partner_id, scopes: ['records:read'] })).rejects.toMatchObject({
      code: 'PARTNER_MANAGER_REQUIRED',
    });
    await stack.office.memberships.set(partner_id, account_id, 'manager');
    await stack.office.organizations.archive(partner_id);
    await expect(stack.office.keys.create({ accountId: account_id, partnerId: partner_id, scopes: ['records:read'] })).rejects.toMatchObject({
      code: 'PARTNER_INACTIVE',
    });
  });

  it('tells an account that does not manage an archived organization no more than that (no existence or standing oracle)', async () => {
    const { account_id: outsider } = await stack.office.accounts.create();
    const { partner_id } = await stack.office.organizations.create();
    await stack.office.organizations.archive(partner_id);
    await expect(stack.office.keys.create({ accountId: outsider, partnerId: partner_id, scopes: ['records:read'] })).rejects.toMatchObject({
      code: 'PARTNER_MANAGER_REQUIRED',
    });
  });

  it('refuses scopes a key type may not carry and validities outside 1–365 days', async () => {
    const { account_id } = await stack.office.accounts.create();
    await expect(stack.office.keys.create({ accountId: account_id, scopes: ['records:read'] })).rejects.toMatchObject({ code: 'INVALID_SCOPES' });
    await expect(stack.office.keys.create({ accountId: account_id, scopes: ['public:read'], days: 366 })).rejects.toMatchObject({ code: 'INVALID_EXPIRY' });
    const key = await stack.office.keys.create({ accountId: account_id, scopes: ['public:read'], days: 365 });
    expect(Date.parse(key.expires_at!) - Date.now()).toBeGreaterThan(364 * 86_400_000);
  });

  it('stores only a digest of the key', async () => {
    const { account_id } = await stack.office.accounts.create();
    const key = await stack.office.keys.create({ accountId: account_id, scopes: ['public:read'] });
    const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
    const { Items } = await stack.client.send(new ScanCommand({ TableName: stack.tables.access }));
    expect(JSON.stringify(Items)).not.toContain(key.key.slice('pak_live_'.length));
  });
});
