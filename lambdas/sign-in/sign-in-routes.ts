/**
 * Signing in has a function of its own (each attempt a password hash): a flood of it spends that function's reserved
 * concurrency, never the settings function's (docs/infrastructure.md, "Sign-in's own function").
 * Declared beside the group's code; lambdas/service/routes.ts assembles every group's table for what sees the whole
 * service (the stack, WAF, the local front, the OpenAPI documents, the tests). The function loads only these.
 */
import type { RouteDefinition } from '../shared/http/routes';

export const SIGN_IN_ROUTES = [
  { id: 'settings-sign-in', method: 'POST', path: '/settings/api/session', group: 'sign-in', auth: 'web', category: 'settings-sign-in', query: [], body: 'json' },
] as const satisfies readonly RouteDefinition[];
