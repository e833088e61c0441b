/**
 * The `records` function's routes.
 * Declared beside the group's code; lambdas/service/routes.ts assembles every group's table for what sees the whole
 * service (the stack, WAF, the local front, the OpenAPI documents, the tests). The function loads only these.
 */
import type { RouteDefinition } from '../shared/http/routes';

export const RECORD_ROUTES = [
  { id: 'record-lookup', method: 'GET', path: '/records/{uuid}', group: 'records', auth: 'key', scope: 'public:read', query: [], body: 'none' },
  {
    id: 'org-records',
    method: 'GET',
    path: '/partners/{partner_id}/records',
    group: 'records',
    auth: 'key',
    scope: 'records:read',
    partnerBound: true,
    query: ['limit', 'cursor', 'updated_after', 'result', 'game', 'player_name'],
    body: 'none',
  },
  {
    id: 'org-record',
    method: 'GET',
    path: '/partners/{partner_id}/records/{record_id}',
    group: 'records',
    auth: 'key',
    scope: 'records:read',
    partnerBound: true,
    query: [],
    body: 'none',
  },
] as const satisfies readonly RouteDefinition[];
