/**
 * Accounts that can sign in to web settings, on DynamoDB Local: an e-mail
 * reserved for one account however concurrent the creations, a password
 * stored only as a hash (apart from the account item admission reads), and
 * `account set-password`, a reset that revokes every key of the account for
 * good.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountKey } from '../../lambdas/shared/identity/access-items';
import { verifyPassword } from '../../lambdas/shared/identity/passwords';
import { signInKey } from '../../lambdas/shared/identity/sign-in-items';
import { runAdminCommand } from '../../scripts/admin-cli';
import { bearer, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

const admin = (...argv: string[]) => runAdminCommand(argv, stack.office);
let serial = 0;
const address = () => `Player.Admin+${(serial += 1)}.${Date.now()}@Example.COM`;

describe('accounts with an e-mail and a password', () => {
  it('stores the normalized address and only a hash, outside the account item, and finds the account by its address', async () => {
    const email = address();
    const created = (await admin('account', 'create', '--name', 'Ops', '--email', `  ${email} `, '--password', 'correct horse battery')) as { account_id: string; email: string };
    expect(created.email).toBe(email.toLowerCase());
    expect(JSON.stringify(created)).not.toMatch(/scrypt|horse/);

    const { Item: account } = await stack.client.send(new GetCommand({ TableName: stack.tables.access, Key: accountKey(created.account_id), ConsistentRead: true }));
    expect(JSON.stringify(account)).not.toMatch(/scrypt|password/);
    const { Item: signIn } = await stack.client.send(new GetCommand({ TableName: stack.tables.access, Key: signInKey(created.account_id), ConsistentRead: true }));
    expect(await verifyPassword('correct horse battery', signIn?.password_hash as string)).toBe(true);

    const found = await stack.office.accounts.findByEmail(email.toUpperCase());
    expect(found?.account.account_id).toBe(created.account_id);
    expect(await stack.office.accounts.findByEmail('nobody@example.com')).toBeUndefined();
  });

  it('reserves an address for exactly one of 6 concurrent creations', async () => {
    const email = address();
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => admin('account', 'create', '--email', email)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes.filter((x) => x.status === 'rejected')) expect((o as PromiseRejectedResult).reason).toMatchObject({ code: 'EMAIL_TAKEN' });
  });

  it('refuses a bad address, a password without an address, and a password outside the rules', async () => {
    await expect(admin('account', 'create', '--email', 'not-an-address')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(admin('account', 'create', '--password', 'correct horse battery')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(admin('account', 'create', '--email', address(), '--password', 'short')).rejects.toMatchObject({ code: 'INVALID_PASSWORD' });
  });
});

describe('account set-password', () => {
  it('sets the password of an account created without one, and revokes every key of the account for good', async () => {
    const { account_id } = (await admin('account', 'create', '--email', address())) as { account_id: string };
    const key = (await admin('key', 'create', '--account', account_id, '--scopes', 'public:read', '--permanent')) as { key: string };
    expect((await stack.call('/me', { headers: bearer(key.key) })).status).toBe(200);

    expect(await admin('account', 'set-password', '--account', account_id, '--password', 'a new long password')).toEqual({ account_id, status: 'active' });
    const found = await stack.office.accounts.findByEmail((await stack.client.send(new GetCommand({ TableName: stack.tables.access, Key: signInKey(account_id) }))).Item!.email as string);
    expect(await verifyPassword('a new long password', found?.signIn.password_hash)).toBe(true);
    expect((await stack.call('/me', { headers: bearer(key.key) })).status).toBe(401);
    // Keys created after the reset work; the old one never comes back.
    const fresh = (await admin('key', 'create', '--account', account_id, '--scopes', 'public:read', '--permanent')) as { key: string };
    expect((await stack.call('/me', { headers: bearer(fresh.key) })).status).toBe(200);
    expect((await stack.call('/me', { headers: bearer(key.key) })).status).toBe(401);
  });

  it('refuses an unknown account, an account without an address, and a password outside the rules', async () => {
    await expect(admin('account', 'set-password', '--account', 'acc_missing', '--password', 'a new long password')).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
    const { account_id } = (await admin('account', 'create')) as { account_id: string };
    await expect(admin('account', 'set-password', '--account', account_id, '--password', 'a new long password')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(admin('account', 'set-password', '--account', account_id, '--password', 'short')).rejects.toMatchObject({ code: 'INVALID_PASSWORD' });
  });
});
