/** The `entitlements` function: `GET /entitlements` and `GET /partners/{partner_id}/entitlements`. */
import { createApiHandler } from '../shared/http/pipeline';
import { readOrganizationEntitlements, readPersonalEntitlements } from './read-entitlements';

export const operations = { entitlements: readPersonalEntitlements, 'org-entitlements': readOrganizationEntitlements };

export const handler = createApiHandler({ operations });
