/**
 * The `tickets` function's routes.
 * Declared beside the group's code; lambdas/service/routes.ts assembles every group's table for what sees the whole
 * service (the stack, WAF, the local front, the OpenAPI documents, the tests). The function loads only these.
 */
import type { RouteDefinition } from '../shared/http/routes';

export const TICKET_ROUTES = [
  {
    id: 'tickets',
    method: 'GET',
    path: '/partners/{partner_id}/tickets',
    group: 'tickets',
    auth: 'key',
    scope: 'tickets:read',
    partnerBound: true,
    category: 'ticket',
    query: ['page'],
    body: 'none',
  },
  {
    id: 'ticket',
    method: 'GET',
    path: '/partners/{partner_id}/tickets/{invitation_id}',
    group: 'tickets',
    auth: 'key',
    scope: 'tickets:read',
    partnerBound: true,
    category: 'ticket',
    query: [],
    body: 'none',
  },
] as const satisfies readonly RouteDefinition[];
