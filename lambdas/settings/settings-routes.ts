/**
 * Web settings (docs/web-settings.md): the page, and the settings API its script calls (but for signing in:
 * lambdas/sign-in, and the webhook callbacks: lambdas/webhooks). It also answers the web side's unknown paths (404).
 * Declared beside the group's code; lambdas/service/routes.ts assembles every group's table for what sees the whole
 * service (the stack, WAF, the local front, the OpenAPI documents, the tests). The function loads only these.
 */
import type { RouteDefinition } from '../shared/http/routes';

export const SETTINGS_ROUTES = [
  { id: 'settings-page', method: 'GET', path: '/settings', group: 'settings', auth: 'web', query: [], body: 'none' },
  { id: 'settings-sign-out', method: 'DELETE', path: '/settings/api/session', group: 'settings', auth: 'web', query: [], body: 'none' },
  { id: 'settings-session', method: 'GET', path: '/settings/api/session', group: 'settings', auth: 'session', category: 'settings-view', query: [], body: 'none' },
  { id: 'settings-organizations', method: 'GET', path: '/settings/api/organizations', group: 'settings', auth: 'session', category: 'settings-view', query: [], body: 'none' },
  { id: 'settings-keys', method: 'GET', path: '/settings/api/keys', group: 'settings', auth: 'session', category: 'settings-view', query: [], body: 'none' },
  { id: 'settings-key-create', method: 'POST', path: '/settings/api/keys', group: 'settings', auth: 'session', category: 'settings-key-create', query: [], body: 'json' },
  { id: 'settings-key-revoke', method: 'POST', path: '/settings/api/keys/{key_id}/revoke', group: 'settings', auth: 'session', category: 'settings-revoke', query: [], body: 'none' },
  // The remedies (password change, two-factor confirm, sign out everywhere) count on their session only: nothing another session spends can block them.
  { id: 'settings-password', method: 'POST', path: '/settings/api/password', group: 'settings', auth: 'session', category: 'settings-remedy', query: [], body: 'json' },
  { id: 'settings-two-factor-enrol', method: 'POST', path: '/settings/api/two-factor/enrol', group: 'settings', auth: 'session', category: 'settings-change', query: [], body: 'json' },
  { id: 'settings-two-factor-confirm', method: 'POST', path: '/settings/api/two-factor/confirm', group: 'settings', auth: 'session', category: 'settings-remedy', query: [], body: 'json' },
  { id: 'settings-two-factor-disable', method: 'POST', path: '/settings/api/two-factor/disable', group: 'settings', auth: 'session', category: 'settings-change', query: [], body: 'json' },
  { id: 'settings-sign-out-everywhere', method: 'POST', path: '/settings/api/sign-out-everywhere', group: 'settings', auth: 'session', category: 'settings-remedy', query: [], body: 'none' },
  { id: 'settings-audit', method: 'GET', path: '/settings/api/audit', group: 'settings', auth: 'session', category: 'settings-view', query: ['cursor'], body: 'none' },
] as const satisfies readonly RouteDefinition[];
