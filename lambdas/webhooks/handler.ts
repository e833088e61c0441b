/**
 * The `webhooks` function: the webhook callbacks of web settings (`/settings/api/webhooks…`),
 * session-based like the rest of settings (same cookie, same CSRF checks, same error shape),
 * in a function of its own because it alone seals and opens callback secrets (KMS), calls
 * receivers (verification and test events) and queues manual resends.
 */
import type { RouteOperations } from '../shared/http/pipeline';
import { lookupSession } from '../settings/session-lookup';
import { createSettingsHandler, type SettingsFunction } from '../settings/settings-pipeline';
import { lazyContracts } from '../shared/http/contract-loading';
import { lazyChunk } from '../shared/http/lazy-chunk';
import { WEBHOOK_ROUTES } from './webhook-routes';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts, lazy-chunk.ts). */
const CONTRACTS = lazyContracts(() => import('./webhook-contracts').then((module) => module.WEBHOOK_CONTRACTS));
const CODE = lazyChunk(() => import('./webhook-operations'));

export const operations = CODE.table(
  ['webhooks', 'webhook-create', 'webhook-verify', 'webhook-test', 'webhook-deactivate', 'webhook-deliveries', 'webhook-resend'],
  (m) => m.webhookOperations,
) satisfies RouteOperations<typeof WEBHOOK_ROUTES>;

export const definition: SettingsFunction = {
  operations,
  contracts: CONTRACTS,
  routes: WEBHOOK_ROUTES, chunks: [CODE],
  sessions: lookupSession,
  admissionHolders: CODE.fn((m) => m.webhookAdmissionHolders),
  viewReads: CODE.table(['webhooks'], (m) => m.webhookViewReads),
  prefetch: CODE.table(['webhook-create'], (m) => m.webhookPrefetch),
};

export const handler = createSettingsHandler(definition);
