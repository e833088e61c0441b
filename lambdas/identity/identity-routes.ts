/**
 * The `identity` function's route.
 * Declared beside the group's code; lambdas/service/routes.ts assembles every group's table for what sees the whole
 * service (the stack, WAF, the local front, the OpenAPI documents, the tests). The function loads only these.
 */
import type { RouteDefinition } from '../shared/http/routes';

export const IDENTITY_ROUTES = [
  { id: 'me', method: 'GET', path: '/me', group: 'identity', auth: 'key', query: [], body: 'none' },
] as const satisfies readonly RouteDefinition[];
