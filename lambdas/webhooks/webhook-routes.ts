/**
 * Webhook callbacks in web settings (docs/webhooks.md): their own function (KMS, the delivery queue), the same session and limits.
 * Declared beside the group's code; lambdas/service/routes.ts assembles every group's table for what sees the whole
 * service (the stack, WAF, the local front, the OpenAPI documents, the tests). The function loads only these.
 */
import type { RouteDefinition } from '../shared/http/routes';

export const WEBHOOK_ROUTES = [
  { id: 'webhooks', method: 'GET', path: '/settings/api/webhooks', group: 'webhooks', auth: 'session', category: 'settings-view', query: [], body: 'none' },
  { id: 'webhook-create', method: 'POST', path: '/settings/api/webhooks', group: 'webhooks', auth: 'session', category: 'settings-webhook-create', query: [], body: 'json' },
  { id: 'webhook-verify', method: 'POST', path: '/settings/api/webhooks/{webhook_id}/verify', group: 'webhooks', auth: 'session', category: 'settings-webhook-check', query: [], body: 'none' },
  { id: 'webhook-test', method: 'POST', path: '/settings/api/webhooks/{webhook_id}/test', group: 'webhooks', auth: 'session', category: 'settings-webhook-check', query: [], body: 'none' },
  { id: 'webhook-deactivate', method: 'POST', path: '/settings/api/webhooks/{webhook_id}/deactivate', group: 'webhooks', auth: 'session', category: 'settings-revoke', query: [], body: 'none' },
  { id: 'webhook-deliveries', method: 'GET', path: '/settings/api/webhooks/{webhook_id}/deliveries', group: 'webhooks', auth: 'session', category: 'settings-view', query: [], body: 'none' },
  {
    id: 'webhook-resend',
    method: 'POST',
    path: '/settings/api/webhooks/{webhook_id}/deliveries/{delivery_id}/resend',
    group: 'webhooks',
    auth: 'session',
    category: 'settings-webhook-resend',
    query: [],
    body: 'none',
  },
] as const satisfies readonly RouteDefinition[];
