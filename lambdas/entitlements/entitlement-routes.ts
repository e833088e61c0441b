/**
 * The `entitlements` function's routes.
 * Declared beside the group's code; lambdas/service/routes.ts assembles every group's table for what sees the whole
 * service (the stack, WAF, the local front, the OpenAPI documents, the tests). The function loads only these.
 */
import type { RouteDefinition } from '../shared/http/routes';

export const ENTITLEMENT_ROUTES = [
  { id: 'entitlements', method: 'GET', path: '/entitlements', group: 'entitlements', auth: 'key', scope: 'entitlements:read', query: [], body: 'none' },
  {
    id: 'org-entitlements',
    method: 'GET',
    path: '/partners/{partner_id}/entitlements',
    group: 'entitlements',
    auth: 'key',
    scope: 'entitlements:read',
    partnerBound: true,
    query: [],
    body: 'none',
  },
] as const satisfies readonly RouteDefinition[];
