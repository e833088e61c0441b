/**
 * Demo data for the local stack: one organization, a manager account, an
 * organization key with every organization scope and a personal key with
 * every personal scope.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IdentityBackOffice } from '../lambdas/shared/identity/back-office';
import { ORGANIZATION_SCOPES, PERSONAL_SCOPES } from '../lambdas/shared/identity/scopes';

export interface DemoData {
  readonly account_id: string;
  readonly partner_id: string;
  readonly organization_key: string;
  readonly personal_key: string;
}

export async function seedDemo(client: DynamoDBDocumentClient, accessTable: string): Promise<DemoData> {
  const office = new IdentityBackOffice(client, accessTable);
  const { account_id } = await office.createAccount('Demo manager');
  const { partner_id } = await office.createOrg('Demo organization');
  await office.setMember(partner_id, account_id, 'manager');
  const organization = await office.createKey({ accountId: account_id, partnerId: partner_id, scopes: [...ORGANIZATION_SCOPES] });
  const personal = await office.createKey({ accountId: account_id, scopes: [...PERSONAL_SCOPES] });
  return { account_id, partner_id, organization_key: organization.key, personal_key: personal.key };
}
