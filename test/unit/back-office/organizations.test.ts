/**
 * Organizations against a mocked document client: restoring an archived
 * organization raises its key generation in one conditional write, and
 * restoring an active one changes nothing.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { orgKey } from '../../../lambdas/shared/identity/access-items';
import { orgItem, PARTNER_ID, serveItems } from '../support/identity-fixtures';
import { conditionFailed, failure, TABLE, useMockedBackOffice } from './mocked-back-office';

const { ddbMock, office } = useMockedBackOffice();

describe('organization lifecycle', () => {
  it('restoreOrg raises the key generation of an archived organization', async () => {
    // Prepare
    ddbMock.on(UpdateCommand).resolves({ Attributes: { ...orgItem({ status: 'active', key_gen: 3 }) } });

    // Act
    const result = await office.organizations.restore(PARTNER_ID);

    // Assess
    expect(result).toEqual({ partner_id: PARTNER_ID, status: 'active' });
    const update = ddbMock.commandCalls(UpdateCommand)[0].args[0].input;
    expect(update).toMatchObject({ TableName: TABLE, Key: orgKey(PARTNER_ID), ExpressionAttributeValues: { ':one': 1, ':active': 'active', ':archived': 'archived' } });
    expect(update.UpdateExpression).toMatch(/key_gen = key_gen \+ :one/);
    expect(update.UpdateExpression).toMatch(/#status = :active/);
    expect(update.ConditionExpression).toMatch(/#status = :archived/);
  });

  it('restoreOrg of an active organization changes nothing and succeeds', async () => {
    // Prepare
    serveItems(ddbMock, [orgItem({ status: 'active', key_gen: 2 })]);
    ddbMock.on(UpdateCommand).rejects(conditionFailed());

    // Act
    const result = await office.organizations.restore(PARTNER_ID);

    // Assess
    expect(result).toEqual({ partner_id: PARTNER_ID, status: 'active' });
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('restoreOrg of a missing organization fails with ORG_NOT_FOUND', async () => {
    // Prepare
    serveItems(ddbMock, []);
    ddbMock.on(UpdateCommand).rejects(conditionFailed());

    // Act
    const error = await failure(office.organizations.restore(PARTNER_ID));

    // Assess
    expect(error.code).toBe('ORG_NOT_FOUND');
  });});
