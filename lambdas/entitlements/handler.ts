/** The `entitlements` function: `GET /entitlements` and `GET /partners/{partner_id}/entitlements`. */
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import { ENTITLEMENT_CONTRACTS } from './entitlement-contracts';
import { readOrganizationEntitlements, readPersonalEntitlements } from './read-entitlements';

export const operations = { entitlements: readPersonalEntitlements, 'org-entitlements': readOrganizationEntitlements };

export const definition = { operations, contracts: ENTITLEMENT_CONTRACTS };

export const handler = createPartnerApiHandler(definition);
