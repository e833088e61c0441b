/**
 * The `settings` function: web settings (`/settings…`), the page and the
 * settings API its script calls, but for signing in (the `sign-in` function,
 * lambdas/sign-in/handler.ts: a flood of password hashes there never takes
 * this function's executions) and the webhook callbacks (`webhooks`).
 * Session-based (the `settings_session` cookie), no API key (the pipeline
 * refuses one), errors in the web-settings shape; its limits count per
 * account. It also answers the web side's unknown paths (404).
 */
import { lazyContracts } from '../shared/http/contract-loading';
import { createSettingsHandler, type SettingsFunction } from './settings-pipeline';
import { lazyOperation } from '../shared/http/pipeline';
import { lookupSession, settingsOperations, settingsPrefetch, settingsViewReads } from './settings-operations';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts). */
const CONTRACTS = lazyContracts(() => import('./settings-contracts').then((module) => module.SETTINGS_CONTRACTS));

export const operations = {
  // The page's markup and script load on its first call, not at a cold start (the settings API does not need them).
  'settings-page': lazyOperation(async () => (await import('./settings-page')).settingsPage),
  ...settingsOperations,
};

export const definition: SettingsFunction = { operations, contracts: CONTRACTS, sessions: lookupSession, viewReads: settingsViewReads, prefetch: settingsPrefetch };

export const handler = createSettingsHandler(definition);
