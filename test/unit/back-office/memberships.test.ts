/**
 * Memberships against a mocked document client: a role change writes the
 * membership and the organization's grant together, conditioned on both
 * exactly as read, and a lost race reads again and decides again (so a
 * promotion can never put back a grant a concurrent demotion removed);
 * removal always applies.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { membershipKey, orgKey } from '../../../lambdas/shared/identity/access-items';
import { ACCOUNT_ID, GRANT, PARTNER_ID, accountItem, orgItem, serveItems, type StoredItem } from '../support/identity-fixtures';
import { failure, membershipItem, transactionCanceled, useMockedBackOffice } from './mocked-back-office';
import { MEMBERS_PER_ORGANIZATION, orgEntryKey } from '../../../lambdas/back-office/organization-entries';

const { ddbMock, office, transactions } = useMockedBackOffice();

const membershipPut = (n = 0) => transactions()[n].TransactItems?.[0].Put;
const orgUpdate = (n = 0) => transactions()[n].TransactItems?.[1].Update;

describe('setting and removing a role', () => {
  it("writes the account's organization entry (role, grant, the organization's name, status and key generation) in the role's transaction, conditioned on the organization as read", async () => {
    // Prepare
    serveItems(ddbMock, [accountItem(), orgItem({ managers: {}, name: 'Acme', key_gen: 3, updated_at: '2025-02-02T00:00:00.000Z' })]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    await office.memberships.set(PARTNER_ID, ACCOUNT_ID, 'manager');

    // Assess
    const items = transactions()[0].TransactItems ?? [];
    const grant = membershipPut()?.Item?.grant as string;
    expect(items.map((item) => item.Put?.Item?.sk ?? item.Update?.Key?.sk)).toContain(orgEntryKey(ACCOUNT_ID, PARTNER_ID).sk);
    expect(items.find((item) => item.Put?.Item?.type === 'org_entry')?.Put?.Item).toEqual({
      ...orgEntryKey(ACCOUNT_ID, PARTNER_ID),
      type: 'org_entry',
      partner_id: PARTNER_ID,
      account_id: ACCOUNT_ID,
      role: 'manager',
      grant,
      org_name: 'Acme',
      org_status: 'active',
      org_key_gen: 3,
    });
    expect(orgUpdate()?.ExpressionAttributeValues).toMatchObject({ ':read': '2025-02-02T00:00:00.000Z' });
  });

  it(`refuses a ${MEMBERS_PER_ORGANIZATION + 1}th member with MEMBER_LIMIT (an organization's change rewrites every member's entry in one transaction), and still changes a member's role`, async () => {
    // Prepare
    const others = Array.from({ length: MEMBERS_PER_ORGANIZATION }, (_, i) => membershipItem({ account_id: `acc_other_${i}` }));
    serveItems(ddbMock, [accountItem(), accountItem({ account_id: 'acc_other_0' }), orgItem({ managers: {} }), ...others]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    const error = await failure(office.memberships.set(PARTNER_ID, ACCOUNT_ID, 'member'));
    await office.memberships.set(PARTNER_ID, 'acc_other_0', 'manager');

    // Assess
    expect(error.code).toBe('MEMBER_LIMIT');
    expect(transactions()).toHaveLength(1);
  });

  it('setMember manager mints a grant and records it on the membership and the organization', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem(), orgItem({ managers: {} })]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    const result = await office.memberships.set(PARTNER_ID, ACCOUNT_ID, 'manager');

    // Assess
    expect(result).toEqual({ partner_id: PARTNER_ID, account_id: ACCOUNT_ID, role: 'manager' });
    const grant = membershipPut()?.Item?.grant as string;
    expect(grant).toMatch(/^grant_[0-9a-f]{20}$/);
    expect(membershipPut()?.Item).toMatchObject({ ...membershipKey(PARTNER_ID, ACCOUNT_ID), role: 'manager' });
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
    expect(membershipPut()?.Item?.grant).toBeUndefined();
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
    // A missing membership is an answer, not a lost race: tried once.
    expect(transactions()).toHaveLength(2);
  });

  it('removeMember retries a transaction that lost to a concurrent write: removal always applies', async () => {
    // Prepare
    ddbMock.on(TransactWriteCommand).rejectsOnce(transactionCanceled('TransactionConflict')).resolves({});

    // Act
    const removed = await office.memberships.remove(PARTNER_ID, ACCOUNT_ID);

    // Assess
    expect(removed).toEqual({ partner_id: PARTNER_ID, account_id: ACCOUNT_ID, removed: true });
    expect(transactions()).toHaveLength(2);
    expect(orgUpdate(1)?.UpdateExpression).toMatch(/REMOVE managers\.#account/);
  });
});

describe('setMember: conditioned on what it read', () => {
  it('a first promotion requires the grant and the membership to be still absent', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem(), orgItem({ managers: {} })]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    await office.memberships.set(PARTNER_ID, ACCOUNT_ID, 'manager');

    // Assess
    expect(membershipPut()?.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(orgUpdate()?.ConditionExpression).toBe('attribute_exists(pk) AND attribute_not_exists(managers.#account) AND updated_at = :read');
    expect(orgUpdate()?.ExpressionAttributeValues).not.toHaveProperty(':current');
  });

  it.each(['manager', 'member'] as const)('setting %s on a manager requires the grant, role and version exactly as read', async (role) => {
    // Prepare
    const membership = membershipItem({ role: 'manager', grant: GRANT, updated_at: '2025-02-01T00:00:00.000Z' });
    serveItems(ddbMock, [accountItem(), orgItem({ managers: { [ACCOUNT_ID]: GRANT } }), membership]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    await office.memberships.set(PARTNER_ID, ACCOUNT_ID, role);

    // Assess
    expect(orgUpdate()?.ConditionExpression).toBe('managers.#account = :current AND updated_at = :read');
    expect(orgUpdate()?.ExpressionAttributeValues).toMatchObject({ ':current': GRANT });
    expect(membershipPut()).toMatchObject({
      ConditionExpression: '#role = :role AND updated_at = :updated AND #grant = :read_grant',
      ExpressionAttributeNames: { '#role': 'role', '#grant': 'grant' },
      ExpressionAttributeValues: { ':role': 'manager', ':updated': '2025-02-01T00:00:00.000Z', ':read_grant': GRANT },
    });
  });

  it('promoting a member requires the membership to be still a member without a grant', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem(), orgItem({ managers: {} }), membershipItem({ role: 'member' })]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    await office.memberships.set(PARTNER_ID, ACCOUNT_ID, 'manager');

    // Assess
    expect(membershipPut()?.ConditionExpression).toBe('#role = :role AND updated_at = :updated AND attribute_not_exists(#grant)');
    expect(membershipPut()?.ExpressionAttributeValues).toMatchObject({ ':role': 'member' });
    expect(membershipPut()?.ExpressionAttributeValues).not.toHaveProperty(':read_grant');
  });

  it('a promotion that lost to a demotion reads again and mints a new grant, never the one it read', async () => {
    // Prepare: a manager; the first attempt's write loses to a demotion that lands meanwhile.
    const items: StoredItem[] = [accountItem(), orgItem({ managers: { [ACCOUNT_ID]: GRANT } }), membershipItem({ role: 'manager', grant: GRANT })];
    serveItems(ddbMock, items);
    ddbMock
      .on(TransactWriteCommand)
      .callsFakeOnce(() => {
        items.splice(1, 2, orgItem({ managers: {} }), membershipItem({ role: 'member', updated_at: '2025-03-01T11:00:00.000Z' }));
        return Promise.reject(transactionCanceled());
      })
      .resolves({});

    // Act
    const result = await office.memberships.set(PARTNER_ID, ACCOUNT_ID, 'manager');

    // Assess
    expect(result).toEqual({ partner_id: PARTNER_ID, account_id: ACCOUNT_ID, role: 'manager' });
    expect(transactions()).toHaveLength(2);
    const written = (orgUpdate(1)?.ExpressionAttributeValues ?? {})[':grant'];
    expect(written).toMatch(/^grant_[0-9a-f]{20}$/);
    expect(written).not.toBe(GRANT);
    expect(orgUpdate(1)?.ConditionExpression).toBe('attribute_exists(pk) AND attribute_not_exists(managers.#account) AND updated_at = :read');
    expect(membershipPut(1)?.ExpressionAttributeValues).toMatchObject({ ':role': 'member' });
  });

  it('gives up with CONFLICT when every attempt loses, and does not retry other failures', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem(), orgItem()]);
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled('TransactionConflict'));

    // Act
    const error = await failure(office.memberships.set(PARTNER_ID, ACCOUNT_ID, 'member'));
    const attempts = transactions().length;
    ddbMock.on(TransactWriteCommand).rejects(Object.assign(new Error('Service unavailable'), { name: 'InternalServerError' }));
    const outage = office.memberships.set(PARTNER_ID, ACCOUNT_ID, 'member');

    // Assess
    expect(error.code).toBe('CONFLICT');
    expect(attempts).toBeGreaterThan(1);
    await expect(outage).rejects.toThrow('Service unavailable');
    expect(transactions()).toHaveLength(attempts + 1);
  });
});