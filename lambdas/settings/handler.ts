/**
 * The `settings` function: web settings (`/settings…`), the page and the
 * settings API its script calls, but for signing in (the `sign-in` function,
 * lambdas/sign-in/handler.ts: a flood of password hashes there never takes
 * this function's executions) and the webhook callbacks (`webhooks`).
 * Session-based (the `settings_session` cookie), no API key (the pipeline
 * refuses one), errors in the web-settings shape; its limits count per
 * account. It also answers the web side's unknown paths (404).
 */
import type { RouteOperations } from '../shared/http/pipeline';
import { lazyContracts } from '../shared/http/contract-loading';
import { lazyChunk } from '../shared/http/lazy-chunk';
import { routesExcept } from '../shared/http/routes';
import { SETTINGS_ROUTES } from './settings-routes';
import { createSettingsHandler, type SettingsFunction } from './settings-pipeline';
import { lookupSession } from './session-lookup';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts, lazy-chunk.ts). */
const CONTRACTS = lazyContracts(() => import('./settings-contracts').then((module) => module.SETTINGS_CONTRACTS));
const CODE = lazyChunk(() => import('./settings-operations'));
/** The page's markup and script load on its first call, not with the settings API's routes (which do not need them). */
const PAGE = lazyChunk(() => import('./settings-page'));

export const operations = {
  'settings-page': PAGE.fn((m) => m.settingsPage),
  ...CODE.routeTable(routesExcept(SETTINGS_ROUTES, 'settings-page'), (m) => m.SETTINGS_OPERATIONS),
} satisfies RouteOperations<typeof SETTINGS_ROUTES>;

export const definition: SettingsFunction = {
  operations,
  contracts: CONTRACTS,
  routes: SETTINGS_ROUTES,
  chunks: [CODE],
  sessions: lookupSession,
  viewReads: CODE.table(['settings-session', 'settings-organizations', 'settings-keys'], (m) => m.SETTINGS_VIEW_READS),
  prefetch: CODE.table(['settings-key-create', 'settings-audit'], (m) => m.SETTINGS_PREFETCH),
};

export const handler = createSettingsHandler(definition);
