/** The `entitlements` function: `GET /entitlements` and `GET /partners/{partner_id}/entitlements`. */
import { lazyContracts } from '../shared/http/contract-loading';
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import { readOrganizationEntitlements, readPersonalEntitlements } from './read-entitlements';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts). */
const CONTRACTS = lazyContracts(() => import('./entitlement-contracts').then((module) => module.ENTITLEMENT_CONTRACTS));

export const operations = { entitlements: readPersonalEntitlements, 'org-entitlements': readOrganizationEntitlements };

export const definition = { operations, contracts: CONTRACTS };

export const handler = createPartnerApiHandler(definition);
