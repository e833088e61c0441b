/**
 * Accounts against a mocked document client: each lifecycle trigger is one
 * conditional write to the account item (status, credential generation),
 * and repeating one on an account already in that state changes nothing.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { accountKey } from '../../../lambdas/shared/identity/access-items';
import { ACCOUNT_ID, accountItem, serveItems } from '../support/identity-fixtures';
import { conditionFailed, failure, TABLE, useMockedBackOffice } from './mocked-back-office';

const { ddbMock, office } = useMockedBackOffice();

describe('account lifecycle', () => {
  it('resetPassword raises the credential generation', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({ Attributes: { ...accountItem({ cred_gen: 4 }) } });

    // Act
    const result = await office.accounts.resetPassword(ACCOUNT_ID);

    // Assess
    expect(result).toEqual({ account_id: ACCOUNT_ID, status: 'active' });
    const update = ddbMock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(update).toMatchObject({ TableName: TABLE, Key: accountKey(ACCOUNT_ID), ConditionExpression: 'attribute_exists(pk)' });
    expect(update.UpdateExpression).toMatch(/cred_gen = cred_gen \+ :one/);
    expect(update.ExpressionAttributeValues).toMatchObject({ ':one': 1 });
  });

  it('resetPassword of a missing account fails with ACCOUNT_NOT_FOUND', async () => {
    // Prepare
    serveItems(ddbMock, []);
    ddbMock.on(UpdateCommand).rejects(conditionFailed());

    // Act
    const error = await failure(office.accounts.resetPassword(ACCOUNT_ID));

    // Assess
    expect(error.code).toBe('ACCOUNT_NOT_FOUND');
  });

  it('deactivateAccount sets the status without raising the generation', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({ Attributes: { ...accountItem({ status: 'deactivated' }) } });

    // Act
    const result = await office.accounts.deactivate(ACCOUNT_ID);

    // Assess
    expect(result).toEqual({ account_id: ACCOUNT_ID, status: 'deactivated' });
    const update = ddbMock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(update.ExpressionAttributeValues).toMatchObject({ ':deactivated': 'deactivated' });
    expect(update.UpdateExpression).not.toMatch(/cred_gen/);
  });

  it('reactivateAccount raises the generation so keys from before the deactivation stay revoked', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({ Attributes: { ...accountItem({ cred_gen: 2 }) } });

    // Act
    await office.accounts.reactivate(ACCOUNT_ID);

    // Assess
    const update = ddbMock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(update.UpdateExpression).toMatch(/cred_gen = cred_gen \+ :one/);
    expect(update.ExpressionAttributeValues).toMatchObject({ ':active': 'active', ':one': 1 });
  });

  it('reactivateAccount raises the generation only of a deactivated account, and leaves an active one untouched', async () => {
    // Prepare
    serveItems(ddbMock, [accountItem({ status: 'active', cred_gen: 1 })]);
    ddbMock.on(UpdateCommand).rejects(conditionFailed());

    // Act
    const result = await office.accounts.reactivate(ACCOUNT_ID);

    // Assess
    expect(result).toEqual({ account_id: ACCOUNT_ID, status: 'active' });
    const update = ddbMock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(update.ConditionExpression).toMatch(/#status = :deactivated/);
    expect(update.ExpressionAttributeValues).toMatchObject({ ':deactivated': 'deactivated' });
  });});
