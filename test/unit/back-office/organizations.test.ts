/**
 * Organizations against a mocked document client: restoring an archived
 * organization raises its key generation in one conditional transaction with
 * its managers' audit entries, and restoring an active one changes nothing.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { orgKey } from '../../../lambdas/shared/identity/access-items';
import { orgItem, PARTNER_ID, serveItems } from '../support/identity-fixtures';
import { failure, membershipItem, TABLE, transactionCanceled, useMockedBackOffice } from './mocked-back-office';
import { orgEntryKey } from '../../../lambdas/back-office/organization-entries';

const { ddbMock, office } = useMockedBackOffice();

describe('organization lifecycle', () => {
  it('restoreOrg raises the key generation of an archived organization, audited in each manager\u2019s trail in the same transaction', async () => {
    // Prepare
    serveItems(ddbMock, [orgItem({ status: 'archived', key_gen: 2, managers: { acc_m1: 'grant_1', acc_m2: 'grant_2' } })]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    await office.organizations.restore(PARTNER_ID);

    // Assess
    const [update, ...audits] = ddbMock.commandCalls(TransactWriteCommand)[0].args[0].input.TransactItems ?? [];
    expect(update.Update).toMatchObject({ TableName: TABLE, Key: orgKey(PARTNER_ID), ExpressionAttributeValues: { ':one': 1, ':active': 'active', ':archived': 'archived' } });
    expect(update.Update?.UpdateExpression).toMatch(/key_gen = key_gen \+ :one/);
    expect(update.Update?.UpdateExpression).toMatch(/#status = :active/);
    expect(update.Update?.ConditionExpression).toMatch(/#status = :archived/);
    expect(audits.map((a) => [a.Put?.Item?.pk, a.Put?.Item?.action, a.Put?.Item?.partner_id])).toEqual([
      ['ACCOUNT#acc_m1', 'organization.restored', PARTNER_ID],
      ['ACCOUNT#acc_m2', 'organization.restored', PARTNER_ID],
    ]);
  });

  it('restoreOrg of an active organization changes nothing and succeeds', async () => {
    // Prepare
    serveItems(ddbMock, [orgItem({ status: 'active', key_gen: 2 })]);
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled());

    // Act
    const result = await office.organizations.restore(PARTNER_ID);

    // Assess
    expect(result).toEqual({ partner_id: PARTNER_ID, status: 'active' });
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('restoreOrg of a missing organization fails with ORG_NOT_FOUND', async () => {
    // Prepare
    serveItems(ddbMock, []);

    // Act
    const error = await failure(office.organizations.restore(PARTNER_ID));

    // Assess
    expect(error.code).toBe('ORG_NOT_FOUND');
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('renaming', () => {
  it("renames the organization and writes every member's organization entry in one transaction conditioned on the organization as read", async () => {
    // Prepare
    serveItems(ddbMock, [
      orgItem({ name: 'Old', key_gen: 2, updated_at: '2025-02-01T00:00:00.000Z' }),
      membershipItem({ account_id: 'acc_m1', role: 'manager', grant: 'grant_1' }),
      membershipItem({ account_id: 'acc_m2' }),
    ]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    const result = await office.organizations.rename(PARTNER_ID, 'New');

    // Assess
    expect(result.partner_id).toBe(PARTNER_ID);
    const transactions = ddbMock.commandCalls(TransactWriteCommand);
    expect(transactions).toHaveLength(1);
    const [update, ...entries] = transactions[0].args[0].input.TransactItems ?? [];
    expect(update.Update).toMatchObject({ Key: orgKey(PARTNER_ID), ExpressionAttributeNames: { '#name': 'name' }, ExpressionAttributeValues: { ':name': 'New', ':read': '2025-02-01T00:00:00.000Z' } });
    expect(entries.map((e) => e.Put?.Item)).toEqual([
      { ...orgEntryKey('acc_m1', PARTNER_ID), type: 'org_entry', partner_id: PARTNER_ID, account_id: 'acc_m1', role: 'manager', grant: 'grant_1', org_name: 'New', org_status: 'active', org_key_gen: 2 },
      { ...orgEntryKey('acc_m2', PARTNER_ID), type: 'org_entry', partner_id: PARTNER_ID, account_id: 'acc_m2', role: 'member', org_name: 'New', org_status: 'active', org_key_gen: 2 },
    ]);
  });

  it('refuses an empty name before touching the table', async () => {
    // Act
    const error = await failure(office.organizations.rename(PARTNER_ID, '  '));

    // Assess
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});
