/**
 * Accounts against a mocked document client: each lifecycle trigger is one
 * conditional write to the account item (status, credential generation),
 * and repeating one on an account already in that state changes nothing.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { accountKey } from '../../../lambdas/shared/identity/access-items';
import { signInKey } from '../../../lambdas/back-office/sign-in-items';
import { ACCOUNT_ID, accountItem, serveItems } from '../support/identity-fixtures';
import { failure, TABLE, transactionCanceled, useMockedBackOffice } from './mocked-back-office';

const { ddbMock, office } = useMockedBackOffice();

describe('account lifecycle', () => {
  it('resetPassword raises the credential generation and removes the password, audited, in one transaction', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem({ cred_gen: 4 }), { ...signInKey(ACCOUNT_ID), account_id: ACCOUNT_ID, email: 'a@example.com', password_hash: 'scrypt$x' }]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    const result = await office.accounts.resetPassword(ACCOUNT_ID);

    // Assess
    expect(result).toEqual({ account_id: ACCOUNT_ID, status: 'active', two_factor_cleared: false });
    const items = ddbMock.commandCalls(TransactWriteCommand)[0].args[0].input.TransactItems ?? [];
    const [account, signIn, audit] = items;
    expect(account.Update).toMatchObject({ TableName: TABLE, Key: accountKey(ACCOUNT_ID), ConditionExpression: 'attribute_exists(pk)' });
    expect(account.Update?.UpdateExpression).toMatch(/cred_gen = cred_gen \+ :one/);
    expect(signIn.Update).toMatchObject({ Key: signInKey(ACCOUNT_ID) });
    expect(signIn.Update?.UpdateExpression).toMatch(/REMOVE password_hash$/);
    expect(audit.Put?.Item).toMatchObject({ action: 'password.reset', via: 'operator' });
    expect(items).toHaveLength(3);
  });

  it('resetPassword of a missing account fails with ACCOUNT_NOT_FOUND', async () => {
    // Prepare
    serveItems(ddbMock, []);
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled());

    // Act
    const error = await failure(office.accounts.resetPassword(ACCOUNT_ID));

    // Assess
    expect(error.code).toBe('ACCOUNT_NOT_FOUND');
  });

  it('deactivateAccount sets the status without raising the generation, audited in the same transaction', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem({ status: 'active' })]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    const result = await office.accounts.deactivate(ACCOUNT_ID);

    // Assess
    expect(result).toEqual({ account_id: ACCOUNT_ID, status: 'active' }); // as the mock serves it after the write
    const [update, audit] = ddbMock.commandCalls(TransactWriteCommand)[0].args[0].input.TransactItems ?? [];
    expect(update.Update?.ExpressionAttributeValues).toMatchObject({ ':deactivated': 'deactivated', ':read': '2025-01-01T00:00:00.000Z' });
    expect(update.Update?.UpdateExpression).not.toMatch(/cred_gen/);
    expect(update.Update?.ConditionExpression).toMatch(/updated_at = :read/);
    expect(audit.Put?.Item).toMatchObject({ pk: accountKey(ACCOUNT_ID).pk, action: 'account.deactivated', via: 'operator' });
  });

  it('reactivateAccount raises the generation so keys from before the deactivation stay revoked', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem({ status: 'deactivated', cred_gen: 1 })]);
    ddbMock.on(TransactWriteCommand).resolves({});

    // Act
    await office.accounts.reactivate(ACCOUNT_ID);

    // Assess
    const [update, audit] = ddbMock.commandCalls(TransactWriteCommand)[0].args[0].input.TransactItems ?? [];
    expect(update.Update?.UpdateExpression).toMatch(/cred_gen = cred_gen \+ :one/);
    expect(update.Update?.ExpressionAttributeValues).toMatchObject({ ':active': 'active', ':one': 1 });
    expect(audit.Put?.Item).toMatchObject({ action: 'account.reactivated' });
  });

  it('reactivateAccount raises the generation only of a deactivated account, and leaves an active one untouched', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem({ status: 'active', cred_gen: 1 })]);
    ddbMock.on(TransactWriteCommand).rejects(transactionCanceled());

    // Act
    const result = await office.accounts.reactivate(ACCOUNT_ID);

    // Assess
    expect(result).toEqual({ account_id: ACCOUNT_ID, status: 'active' });
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(1);
    const [update] = ddbMock.commandCalls(TransactWriteCommand)[0].args[0].input.TransactItems ?? [];
    expect(update.Update?.ConditionExpression).toMatch(/#status = :deactivated/);
    expect(update.Update?.ExpressionAttributeValues).toMatchObject({ ':deactivated': 'deactivated' });
  });
});
