/**
 * Demo data for the local stack: one organization, a manager account that
 * signs in to web settings (its e-mail and a random password, printed by
 * `npm start`), an organization key with every organization scope and a
 * personal key with every personal scope.
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createBackOffice } from '../lambdas/back-office/back-office';
import { ORGANIZATION_SCOPES, PERSONAL_SCOPES } from '../lambdas/shared/identity/scopes';

export interface DemoData {
  readonly account_id: string;
  readonly partner_id: string;
  readonly organization_key: string;
  readonly personal_key: string;
  /** Web settings sign-in of the manager (absent in data saved before web settings existed). */
  readonly email?: string;
  readonly password?: string;
}

export const DEMO_EMAIL = 'manager@example.com';

export async function seedDemo(client: DynamoDBDocumentClient, accessTable: string): Promise<DemoData> {
  const office = createBackOffice(client, accessTable);
  const password = `demo-${randomBytes(9).toString('base64url')}`;
  const { account_id } = await office.accounts.create('Demo manager', { email: DEMO_EMAIL, password });
  const { partner_id } = await office.organizations.create('Demo organization');
  await office.memberships.set(partner_id, account_id, 'manager');
  const organization = await office.keys.create({ accountId: account_id, partnerId: partner_id, scopes: [...ORGANIZATION_SCOPES] });
  const personal = await office.keys.create({ accountId: account_id, scopes: [...PERSONAL_SCOPES] });
  return { account_id, partner_id, organization_key: organization.key, personal_key: personal.key, email: DEMO_EMAIL, password };
}
