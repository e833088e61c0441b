/**
 * The `system` function's route: the health check (it also answers every path no route declares: 404).
 * Declared beside the group's code; lambdas/service/routes.ts assembles every group's table for what sees the whole
 * service (the stack, WAF, the local front, the OpenAPI documents, the tests). The function loads only these.
 */
import type { RouteDefinition } from '../shared/http/routes';

export const SYSTEM_ROUTES = [
  { id: 'health', method: 'GET', path: '/health', group: 'system', auth: 'none', query: [], body: 'none' },
] as const satisfies readonly RouteDefinition[];
