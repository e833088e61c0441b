/**
 * Demo data for the local stack: one organization, a manager account, an
 * organization key with every organization scope and a personal key with
 * every personal scope.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createBackOffice } from '../lambdas/back-office/back-office';
import { ORGANIZATION_SCOPES, PERSONAL_SCOPES } from '../lambdas/shared/identity/scopes';

export interface DemoData {
  readonly account_id: string;
  readonly partner_id: string;
  readonly organization_key: string;
  readonly personal_key: string;
}

export async function seedDemo(client: DynamoDBDocumentClient, accessTable: string): Promise<DemoData> {
  const office = createBackOffice(client, accessTable);
  const { account_id } = await office.accounts.create('Demo manager');
  const { partner_id } = await office.organizations.create('Demo organization');
  await office.memberships.set(partner_id, account_id, 'manager');
  const organization = await office.keys.create({ accountId: account_id, partnerId: partner_id, scopes: [...ORGANIZATION_SCOPES] });
  const personal = await office.keys.create({ accountId: account_id, scopes: [...PERSONAL_SCOPES] });
  return { account_id, partner_id, organization_key: organization.key, personal_key: personal.key };
}
