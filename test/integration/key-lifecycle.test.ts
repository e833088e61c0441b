/**
 * The spec's "API key lifecycle": each trigger stops the key at once, and
 * restoring what triggered it restores nothing, for expiring and permanent
 * keys alike. A key created after the restore works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

const me = async (key: string) => (await stack.call('/me', { headers: bearer(key) })).status;

async function orgFixture() {
  const org = await createOrgWithManagerKey(stack.office, ['records:read']);
  const permanent = await stack.office.keys.create({ accountId: org.account_id, partnerId: org.partner_id, scopes: ['records:read'], permanent: true });
  const personal = await stack.office.keys.create({ accountId: org.account_id, scopes: ['public:read'], permanent: true });
  expect([await me(org.key.key), await me(permanent.key), await me(personal.key)]).toEqual([200, 200, 200]);
  return { ...org, keys: [org.key.key, permanent.key], personal: personal.key };
}

describe('API key lifecycle', () => {
  it('removing the creator from the organization revokes its organization keys; rejoining restores none', async () => {
    const f = await orgFixture();
    await stack.office.memberships.remove(f.partner_id, f.account_id);
    for (const key of f.keys) expect(await me(key)).toBe(403);
    expect(await me(f.personal)).toBe(200);
    await stack.office.memberships.set(f.partner_id, f.account_id, 'manager');
    for (const key of f.keys) expect(await me(key)).toBe(401);
    const fresh = await stack.office.keys.create({ accountId: f.account_id, partnerId: f.partner_id, scopes: ['records:read'] });
    expect(await me(fresh.key)).toBe(200);
  });

  it('demoting the creator to member revokes its organization keys; re-promotion restores none', async () => {
    const f = await orgFixture();
    await stack.office.memberships.set(f.partner_id, f.account_id, 'member');
    for (const key of f.keys) expect(await me(key)).toBe(403);
    await stack.office.memberships.set(f.partner_id, f.account_id, 'manager');
    for (const key of f.keys) expect(await me(key)).toBe(401);
  });

  it('archiving the organization revokes its keys of every creator; restoring restores none', async () => {
    const f = await orgFixture();
    const { account_id: second } = await stack.office.accounts.create();
    await stack.office.memberships.set(f.partner_id, second, 'manager');
    const secondKey = await stack.office.keys.create({ accountId: second, partnerId: f.partner_id, scopes: ['records:read'] });
    await stack.office.organizations.archive(f.partner_id);
    for (const key of [...f.keys, secondKey.key]) expect(await me(key)).toBe(409);
    await stack.office.organizations.restore(f.partner_id);
    for (const key of [...f.keys, secondKey.key]) expect(await me(key)).toBe(401);
    expect(await me(f.personal)).toBe(200);
    const fresh = await stack.office.keys.create({ accountId: f.account_id, partnerId: f.partner_id, scopes: ['records:read'] });
    expect(await me(fresh.key)).toBe(200);
  });

  it('deactivating the account revokes all its keys; re-enabling restores none', async () => {
    const f = await orgFixture();
    await stack.office.accounts.deactivate(f.account_id);
    for (const key of [...f.keys, f.personal]) expect(await me(key)).toBe(401);
    await stack.office.accounts.reactivate(f.account_id);
    for (const key of [...f.keys, f.personal]) expect(await me(key)).toBe(401);
    const fresh = await stack.office.keys.create({ accountId: f.account_id, scopes: ['public:read'] });
    expect(await me(fresh.key)).toBe(200);
  });

  it('a password reset revokes all keys of the account at once and for good', async () => {
    const f = await orgFixture();
    await stack.office.accounts.resetPassword(f.account_id);
    for (const key of [...f.keys, f.personal]) expect(await me(key)).toBe(401);
    const fresh = await stack.office.keys.create({ accountId: f.account_id, scopes: ['public:read'] });
    expect(await me(fresh.key)).toBe(200);
    for (const key of [...f.keys, f.personal]) expect(await me(key)).toBe(401);
  });

  it('revocation by the creator is permanent and shows in the key list', async () => {
    const f = await orgFixture();
    const listed = await stack.office.keys.list(f.account_id);
    const target = listed.keys.find((k) => k.partner_id === null);
    await stack.office.keys.revoke(target!.key_id);
    expect(await me(f.personal)).toBe(401);
    const after = await stack.office.keys.list(f.account_id);
    expect(after.keys.find((k) => k.key_id === target!.key_id)).toMatchObject({ status: 'revoked' });
    expect(JSON.stringify(after)).not.toContain('pak_live_');
  });

  it('lists lifecycle-revoked keys as revoked and frees their place under the 20-key limit', async () => {
    const f = await orgFixture();
    await stack.office.organizations.archive(f.partner_id);
    const listed = await stack.office.keys.list(f.account_id);
    expect(listed.keys.filter((k) => k.partner_id === f.partner_id).map((k) => k.status)).toEqual(['revoked', 'revoked']);
  });
});
