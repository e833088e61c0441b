/**
 * Web-settings sessions on DynamoDB Local: only the token's digest stored;
 * ended by 30 idle minutes, by 12 hours whatever the activity, by signing
 * out, and, for every session of the account at once, by a password change
 * or a deactivation.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
let office: BackOffice;
let now = new Date();

beforeAll(async () => {
  stack = await startTestStack();
  office = createBackOffice(stack.client, stack.tables.access, () => now);
});
afterAll(() => stack?.stop());

const minutes = (n: number) => (now = new Date(now.getTime() + n * 60_000));
let serial = 0;
async function signedIn() {
  const { account_id } = await office.accounts.create('Settings', { email: `session-${(serial += 1)}-${Date.now()}@example.com`, password: 'correct horse battery' });
  return { account_id, session: await office.sessions.open(account_id) };
}

describe('settings sessions', () => {
  it('resolve to the account, store only the digest, and end after 30 idle minutes', async () => {
    const { account_id, session } = await signedIn();
    expect((await office.sessions.resolve(session.token))?.account_id).toBe(account_id);
    const { Items = [] } = await stack.client.send(new ScanCommand({ TableName: stack.tables.access, ConsistentRead: true }));
    expect(JSON.stringify(Items)).not.toContain(session.token);

    minutes(29);
    expect((await office.sessions.resolve(session.token))?.account_id).toBe(account_id);
    minutes(29);
    expect((await office.sessions.resolve(session.token))?.account_id).toBe(account_id);
    minutes(31);
    expect(await office.sessions.resolve(session.token)).toBeUndefined();
  });

  it('end 12 hours after sign-in however active', async () => {
    const { session } = await signedIn();
    for (let elapsed = 0; elapsed < 11 * 60; elapsed += 20) {
      expect(await office.sessions.resolve(session.token)).toBeDefined();
      minutes(20);
    }
    minutes(60);
    expect(await office.sessions.resolve(session.token)).toBeUndefined();
  });

  it('end at sign-out, and every session of the account at a password change or a deactivation', async () => {
    const first = await signedIn();
    await office.sessions.close(first.session.token);
    expect(await office.sessions.resolve(first.session.token)).toBeUndefined();

    const { account_id, session } = await signedIn();
    const other = await office.sessions.open(account_id);
    await office.accounts.setPassword(account_id, 'another long passphrase');
    expect(await office.sessions.resolve(session.token)).toBeUndefined();
    expect(await office.sessions.resolve(other.token)).toBeUndefined();
    const fresh = await office.sessions.open(account_id);
    expect(await office.sessions.resolve(fresh.token)).toBeDefined();
    await office.accounts.deactivate(account_id);
    expect(await office.sessions.resolve(fresh.token)).toBeUndefined();
    await expect(office.sessions.open(account_id)).rejects.toMatchObject({ code: 'ACCOUNT_INACTIVE' });
  });

  it('ignore a malformed or unknown token', async () => {
    expect(await office.sessions.resolve(undefined)).toBeUndefined();
    expect(await office.sessions.resolve('short')).toBeUndefined();
    expect(await office.sessions.resolve('A'.repeat(43))).toBeUndefined();
  });
});
