/**
 * The `webhooks` function: the webhook callbacks of web settings (`/settings/api/webhooks…`),
 * session-based like the rest of settings (same cookie, same CSRF checks, same error shape),
 * in a function of its own because it alone seals and opens callback secrets (KMS), calls
 * receivers (verification and test events) and queues manual resends.
 */
import { lookupSession } from '../settings/session-lookup';
import { createSettingsHandler, type SettingsFunction } from '../settings/settings-pipeline';
import { lazyContracts } from '../shared/http/contract-loading';
import { lazyChunk } from '../shared/http/lazy-chunk';
import { WEBHOOK_ROUTES } from './webhook-routes';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts, lazy-chunk.ts). */
const CONTRACTS = lazyContracts(() => import('./webhook-contracts').then((module) => module.WEBHOOK_CONTRACTS));
const CODE = lazyChunk(() => import('./webhook-operations'));

export const operations = CODE.routeTable(WEBHOOK_ROUTES, (m) => m.WEBHOOK_OPERATIONS);

export const definition: SettingsFunction = {
  operations,
  contracts: CONTRACTS,
  routes: WEBHOOK_ROUTES,
  chunks: [CODE],
  sessions: lookupSession,
  admissionHolders: CODE.fn((m) => m.webhookAdmissionHolders),
  viewReads: CODE.table(['webhooks'], (m) => m.WEBHOOK_VIEW_READS),
  prefetch: CODE.table(['webhook-create'], (m) => m.WEBHOOK_PREFETCH),
};

export const handler = createSettingsHandler(definition);
