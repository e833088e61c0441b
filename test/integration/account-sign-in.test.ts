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
import { verifyPassword } from '../../lambdas/back-office/passwords';
import { signInKey } from '../../lambdas/back-office/sign-in-items';
import { codeAt } from '../../lambdas/back-office/two-factor';
import { runAdminCommand } from '../../scripts/admin-cli';
import { raisedWebhookHandlers } from '../support/raised-quotas';
import { SettingsBrowser } from '../support/settings-browser';
import { bearer, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  // Many sign-ins from 127.0.0.1: the quotas out of reach (their own tests: web-settings-limits.test.ts).
  stack = await startTestStack({ handlers: raisedWebhookHandlers() });
});
afterAll(() => stack?.stop());

const admin = (...argv: string[]) => runAdminCommand(argv, stack.office);
/** A command whose password comes from standard input (`--password-stdin`), as a script would give it. */
const adminWithPassword = (password: string, ...argv: string[]) => runAdminCommand([...argv, '--password-stdin'], stack.office, { read: async () => password });
let serial = 0;
const address = () => `Player.Admin+${(serial += 1)}.${Date.now()}@Example.COM`;

describe('accounts with an e-mail and a password', () => {
  it('stores the normalized address and only a hash, outside the account item, and finds the account by its address', async () => {
    const email = address();
    const created = (await adminWithPassword('correct horse battery', 'account', 'create', '--name', 'Ops', '--email', `  ${email} `)) as { account_id: string; email: string };
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
    await expect(adminWithPassword('correct horse battery', 'account', 'create')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(adminWithPassword('short', 'account', 'create', '--email', address())).rejects.toMatchObject({ code: 'INVALID_PASSWORD' });
  });
});

describe('account set-password', () => {
  it('sets the password of an account created without one, and revokes every key of the account for good', async () => {
    const { account_id } = (await admin('account', 'create', '--email', address())) as { account_id: string };
    const key = (await admin('key', 'create', '--account', account_id, '--scopes', 'public:read', '--permanent')) as { key: string };
    expect((await stack.call('/me', { headers: bearer(key.key) })).status).toBe(200);

    expect(await adminWithPassword('a new long password', 'account', 'set-password', '--account', account_id)).toEqual({ account_id, status: 'active' });
    const found = await stack.office.accounts.findByEmail((await stack.client.send(new GetCommand({ TableName: stack.tables.access, Key: signInKey(account_id) }))).Item!.email as string);
    expect(await verifyPassword('a new long password', found?.signIn.password_hash)).toBe(true);
    expect((await stack.call('/me', { headers: bearer(key.key) })).status).toBe(401);
    // Keys created after the reset work; the old one never comes back.
    const fresh = (await admin('key', 'create', '--account', account_id, '--scopes', 'public:read', '--permanent')) as { key: string };
    expect((await stack.call('/me', { headers: bearer(fresh.key) })).status).toBe(200);
    expect((await stack.call('/me', { headers: bearer(key.key) })).status).toBe(401);
  });

  it('refuses an unknown account, an account without an address, and a password outside the rules', async () => {
    await expect(adminWithPassword('a new long password', 'account', 'set-password', '--account', 'acc_missing')).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
    const { account_id } = (await admin('account', 'create')) as { account_id: string };
    await expect(adminWithPassword('a new long password', 'account', 'set-password', '--account', account_id)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(adminWithPassword('short', 'account', 'set-password', '--account', account_id)).rejects.toMatchObject({ code: 'INVALID_PASSWORD' });
  });
});

describe('account reset-password and reset-two-factor (a compromised account, a lost authenticator)', () => {
  /** An account that signs in with `password`, with a key, signed in in a browser; optionally with two-factor on. */
  async function signedInAccount(twoFactor: boolean) {
    const email = address();
    const password = 'correct horse battery';
    const { account_id } = (await adminWithPassword(password, 'account', 'create', '--email', email)) as { account_id: string };
    const key = (await admin('key', 'create', '--account', account_id, '--scopes', 'public:read', '--permanent')) as { key: string };
    let secret: string | undefined;
    if (twoFactor) {
      secret = (await stack.office.signIn.enrolTwoFactor(account_id, password)).secret;
      await stack.office.signIn.confirmTwoFactor(account_id, password, await codeAt(secret, new Date()));
    }
    const browser = new SettingsBrowser(stack);
    const code = secret ? await codeAt(secret, new Date(Date.now() + 30_000)) : undefined;
    expect((await browser.signIn(email, password, code)).status).toBe(200);
    return { account_id, email, password, key: key.key, browser, secret };
  }

  it('reset-password: the old password no longer signs in, every key and session ends, audited in the same write; set-password gives a new one', async () => {
    const { account_id, email, password, key, browser } = await signedInAccount(false);

    expect(await admin('account', 'reset-password', '--account', account_id)).toEqual({ account_id, status: 'active', two_factor_cleared: false });

    expect((await new SettingsBrowser(stack).signIn(email, password)).status).toBe(401);
    expect((await browser.get('/settings/api/session')).status).toBe(401);
    expect((await stack.call('/me', { headers: bearer(key) })).status).toBe(401);
    const { Item: signIn } = await stack.client.send(new GetCommand({ TableName: stack.tables.access, Key: signInKey(account_id), ConsistentRead: true }));
    expect(signIn).not.toHaveProperty('password_hash');
    expect((await stack.office.audit.list(account_id))[0]).toMatchObject({ action: 'password.reset', via: 'operator' });

    await adminWithPassword('a brand new passphrase', 'account', 'set-password', '--account', account_id);
    expect((await new SettingsBrowser(stack).signIn(email, 'a brand new passphrase')).status).toBe(200);
    expect((await new SettingsBrowser(stack).signIn(email, password)).status).toBe(401);
  });

  it('reset-password --clear-two-factor also turns two-factor off (audited); without it two-factor stays', async () => {
    const kept = await signedInAccount(true);
    await admin('account', 'reset-password', '--account', kept.account_id);
    await adminWithPassword('a brand new passphrase', 'account', 'set-password', '--account', kept.account_id);
    expect((await new SettingsBrowser(stack).signIn(kept.email, 'a brand new passphrase')).status).toBe(401);

    const cleared = await signedInAccount(true);
    expect(await admin('account', 'reset-password', '--account', cleared.account_id, '--clear-two-factor')).toMatchObject({ two_factor_cleared: true });
    expect((await stack.office.audit.list(cleared.account_id)).slice(0, 2).map((e) => e.action).sort()).toEqual(['password.reset', 'two_factor.reset']);
    await adminWithPassword('a brand new passphrase', 'account', 'set-password', '--account', cleared.account_id);
    expect((await new SettingsBrowser(stack).signIn(cleared.email, 'a brand new passphrase')).status).toBe(200);
  });

  it('reset-two-factor: the owner signs in with the password alone and may enrol again; audited; keys stay, sessions end', async () => {
    const { account_id, email, password, key, browser: lostDevice } = await signedInAccount(true);
    expect((await new SettingsBrowser(stack).signIn(email, password)).status).toBe(401);

    expect(await admin('account', 'reset-two-factor', '--account', account_id)).toEqual({ account_id, two_factor: 'off' });
    // A session may be open on the lost device.
    expect((await lostDevice.get('/settings/api/session')).status).toBe(401);

    const browser = new SettingsBrowser(stack);
    expect((await browser.signIn(email, password)).status).toBe(200);
    expect((await (await browser.get('/settings/api/session')).json()).two_factor).toBe('off');
    expect((await stack.office.audit.list(account_id)).slice(0, 2).map((e) => [e.action, e.via])).toEqual([
      ['sign_in.succeeded', 'settings'],
      ['two_factor.reset', 'operator'],
    ]);
    expect((await stack.call('/me', { headers: bearer(key) })).status).toBe(200);
    await expect(admin('account', 'reset-two-factor', '--account', 'acc_missing')).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
  });
});
