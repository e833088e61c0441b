/**
 * The `invitations` function's routes.
 * Declared beside the group's code; lambdas/service/routes.ts assembles every group's table for what sees the whole
 * service (the stack, WAF, the local front, the OpenAPI documents, the tests). The function loads only these.
 */
import type { RouteDefinition } from '../shared/http/routes';

export const INVITATION_ROUTES = [
  {
    id: 'invitations',
    method: 'GET',
    path: '/partners/{partner_id}/invitations',
    group: 'invitations',
    auth: 'key',
    scope: 'invitations:read',
    partnerBound: true,
    category: 'invitation',
    query: ['page'],
    body: 'none',
  },
  {
    id: 'invitation-create',
    method: 'POST',
    path: '/partners/{partner_id}/invitations',
    group: 'invitations',
    auth: 'key',
    scope: 'invitations:write',
    partnerBound: true,
    category: 'invitation-create',
    query: [],
    body: 'json',
  },
  {
    id: 'invitation',
    method: 'GET',
    path: '/partners/{partner_id}/invitations/{invitation_id}',
    group: 'invitations',
    auth: 'key',
    scope: 'invitations:read',
    partnerBound: true,
    category: 'invitation',
    query: [],
    body: 'none',
  },
  {
    id: 'invitation-link',
    method: 'GET',
    path: '/partners/{partner_id}/invitations/{invitation_id}/link',
    group: 'invitations',
    auth: 'key',
    scope: 'invitations:write',
    partnerBound: true,
    category: 'invitation',
    query: [],
    body: 'none',
  },
  {
    id: 'invitation-revoke',
    method: 'POST',
    path: '/partners/{partner_id}/invitations/{invitation_id}/revoke',
    group: 'invitations',
    auth: 'key',
    scope: 'invitations:write',
    partnerBound: true,
    category: 'invitation',
    query: [],
    body: 'none',
  },
] as const satisfies readonly RouteDefinition[];
