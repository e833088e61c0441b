/**
 * The player site (not part of the partner API: docs/player-site.md): the page, and the calls its script makes.
 * Declared beside the group's code; lambdas/service/routes.ts assembles every group's table for what sees the whole
 * service (the stack, WAF, the local front, the OpenAPI documents, the tests). The function loads only these.
 */
import type { RouteDefinition } from '../shared/http/routes';

export const PLAYER_ROUTES = [
  { id: 'player-page', method: 'GET', path: '/join/{invitation_id}', group: 'player', auth: 'player', query: [], body: 'none' },
  { id: 'player-view', method: 'GET', path: '/join/{invitation_id}/view', group: 'player', auth: 'player', category: 'player-view', query: [], body: 'none' },
  { id: 'player-claim', method: 'POST', path: '/join/{invitation_id}/claim', group: 'player', auth: 'player', category: 'player-claim', query: [], body: 'json' },
  { id: 'player-message', method: 'POST', path: '/join/{invitation_id}/messages', group: 'player', auth: 'player', category: 'player-message', query: [], body: 'json' },
] as const satisfies readonly RouteDefinition[];
