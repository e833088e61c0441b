/**
 * Signing in and two-factor on DynamoDB Local: a wrong password and an
 * unknown e-mail fail alike; enrolment shows a secret once and turns nothing
 * on until a code confirms it; with two-factor on a sign-in needs a current
 * code, each code is accepted once (also under concurrent sign-ins); turning
 * it off needs the password and a code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { signInKey } from '../../lambdas/back-office/sign-in-items';
import { codeAt, newTwoFactorSecret } from '../../lambdas/back-office/two-factor';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
let office: BackOffice;
/** The back office's clock, moved in 30-second steps. */
let now = new Date();

beforeAll(async () => {
  stack = await startTestStack();
  office = createBackOffice(stack.client, stack.tables.access, () => now);
});
afterAll(() => stack?.stop());

let serial = 0;
const PASSWORD = 'correct horse battery';
async function account() {
  const email = `two-factor-${(serial += 1)}-${Date.now()}@example.com`;
  const { account_id } = await office.accounts.create('Signer', { email, password: PASSWORD });
  return { account_id, email };
}
const nextStep = () => (now = new Date(now.getTime() + 30_000));

describe('signing in', () => {
  it('answers a wrong password and an unknown e-mail with the same code and message', async () => {
    const { email, account_id } = await account();
    expect((await office.signIn.verify({ email: email.toUpperCase(), password: PASSWORD })).account_id).toBe(account_id);
    const wrong = await office.signIn.verify({ email, password: 'not the password' }).catch((e: unknown) => e);
    const unknown = await office.signIn.verify({ email: `nobody-${serial}@example.com`, password: PASSWORD }).catch((e: unknown) => e);
    expect(wrong).toMatchObject({ code: 'INVALID_PASSWORD' });
    expect({ code: (unknown as { code: string }).code, message: (unknown as Error).message }).toEqual({ code: (wrong as { code: string }).code, message: (wrong as Error).message });
  });

  it('refuses a deactivated account only after the right password', async () => {
    const { email, account_id } = await account();
    await office.accounts.deactivate(account_id);
    await expect(office.signIn.verify({ email, password: 'not the password' })).rejects.toMatchObject({ code: 'INVALID_PASSWORD' });
    await expect(office.signIn.verify({ email, password: PASSWORD })).rejects.toMatchObject({ code: 'ACCOUNT_INACTIVE' });
  });
});

describe('two-factor', () => {
  it('is enrolled with a secret shown once, on only after a valid code, then needed at every sign-in, each code once', async () => {
    const { email, account_id } = await account();
    const { secret, otpauth_uri } = await office.signIn.enrolTwoFactor(account_id, PASSWORD);
    expect(otpauth_uri).toBe(`otpauth://totp/Partner%20API:${encodeURIComponent(email)}?secret=${secret}&issuer=Partner%20API`);
    // Pending: sign-in still needs no code.
    await office.signIn.verify({ email, password: PASSWORD });
    await expect(office.signIn.confirmTwoFactor(account_id, PASSWORD, '000000')).rejects.toMatchObject({ code: 'INVALID_TWO_FACTOR' });
    await office.signIn.confirmTwoFactor(account_id, PASSWORD, await codeAt(secret, now));

    nextStep();
    await expect(office.signIn.verify({ email, password: PASSWORD })).rejects.toMatchObject({ code: 'INVALID_TWO_FACTOR' });
    await expect(office.signIn.verify({ email, password: PASSWORD, twoFactorCode: '12345' })).rejects.toMatchObject({ code: 'INVALID_TWO_FACTOR' });
    const code = await codeAt(secret, now);
    await expect(office.signIn.verify({ email, password: 'not the password', twoFactorCode: code })).rejects.toMatchObject({ code: 'INVALID_PASSWORD' });
    expect((await office.signIn.verify({ email, password: PASSWORD, twoFactorCode: code })).account_id).toBe(account_id);
    // The same code again: refused (replay).
    await expect(office.signIn.verify({ email, password: PASSWORD, twoFactorCode: code })).rejects.toMatchObject({ code: 'INVALID_TWO_FACTOR' });
  });

  it('accepts one code for exactly one of 4 concurrent sign-ins', async () => {
    const { email, account_id } = await account();
    const { secret } = await office.signIn.enrolTwoFactor(account_id, PASSWORD);
    await office.signIn.confirmTwoFactor(account_id, PASSWORD, await codeAt(secret, now));
    nextStep();
    const code = await codeAt(secret, now);
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => office.signIn.verify({ email, password: PASSWORD, twoFactorCode: code })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
  });

  it('is turned off with the password and a current code only', async () => {
    const { email, account_id } = await account();
    const { secret } = await office.signIn.enrolTwoFactor(account_id, PASSWORD);
    await office.signIn.confirmTwoFactor(account_id, PASSWORD, await codeAt(secret, now));
    nextStep();
    await expect(office.signIn.disableTwoFactor(account_id, 'not the password', await codeAt(secret, now))).rejects.toMatchObject({ code: 'INVALID_PASSWORD' });
    await expect(office.signIn.disableTwoFactor(account_id, PASSWORD, '000000')).rejects.toMatchObject({ code: 'INVALID_TWO_FACTOR' });
    expect(await office.signIn.disableTwoFactor(account_id, PASSWORD, await codeAt(secret, now))).toEqual({ two_factor: 'off' });
    expect((await office.signIn.verify({ email, password: PASSWORD })).account_id).toBe(account_id);
  });
});

describe('seeds at rest', () => {
  const signInItem = async (accountId: string) =>
    (await stack.client.send(new GetCommand({ TableName: stack.tables.access, Key: signInKey(accountId), ConsistentRead: true }))).Item ?? {};

  it('are stored sealed, bound to their account: the table never holds a seed in clear', async () => {
    const { email, account_id } = await account();
    const { secret } = await office.signIn.enrolTwoFactor(account_id, PASSWORD);
    const pending = String((await signInItem(account_id)).two_factor_pending);
    expect(pending).toMatch(/^local:/);
    expect(pending).not.toContain(secret);
    await office.signIn.confirmTwoFactor(account_id, PASSWORD, await codeAt(secret, now));
    const stored = String((await signInItem(account_id)).two_factor_secret);
    expect(stored).toMatch(/^local:/);
    expect(JSON.stringify(await signInItem(account_id))).not.toContain(secret);
    nextStep();
    expect((await office.signIn.verify({ email, password: PASSWORD, twoFactorCode: await codeAt(secret, now) })).account_id).toBe(account_id);

    // Another account's sealed seed copied onto this one does not open (the context names the account).
    const other = await account();
    const { secret: otherSecret } = await office.signIn.enrolTwoFactor(other.account_id, PASSWORD);
    await stack.client.send(
      new UpdateCommand({ TableName: stack.tables.access, Key: signInKey(account_id), UpdateExpression: 'SET two_factor_secret = :s', ExpressionAttributeValues: { ':s': (await signInItem(other.account_id)).two_factor_pending } }),
    );
    nextStep();
    await expect(office.signIn.verify({ email, password: PASSWORD, twoFactorCode: await codeAt(otherSecret, now) })).rejects.toThrow(/does not open/);
  });

  it('stored in clear before sealing still work', async () => {
    const { email, account_id } = await account();
    const legacy = await newTwoFactorSecret();
    await stack.client.send(
      new UpdateCommand({ TableName: stack.tables.access, Key: signInKey(account_id), UpdateExpression: 'SET two_factor_secret = :s', ExpressionAttributeValues: { ':s': legacy } }),
    );
    nextStep();
    await expect(office.signIn.verify({ email, password: PASSWORD })).rejects.toMatchObject({ code: 'INVALID_TWO_FACTOR' });
    expect((await office.signIn.verify({ email, password: PASSWORD, twoFactorCode: await codeAt(legacy, now) })).account_id).toBe(account_id);
  });
});
