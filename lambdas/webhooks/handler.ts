/**
 * The `webhooks` function: the webhook callbacks of web settings (`/settings/api/webhooks…`),
 * session-based like the rest of settings (same cookie, same CSRF checks, same error shape),
 * in a function of its own because it alone seals and opens callback secrets (KMS), calls
 * receivers (verification and test events) and queues manual resends.
 */
import { lookupSession } from '../settings/settings-office';
import { createSettingsHandler, type SettingsFunction } from '../settings/settings-pipeline';
import { lazyContracts } from '../shared/http/contract-loading';
import { webhookAdmissionHolders, webhookOperations, webhookPrefetch, webhookViewReads } from './webhook-operations';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts). */
const CONTRACTS = lazyContracts(() => import('./webhook-contracts').then((module) => module.WEBHOOK_CONTRACTS));

export const operations = webhookOperations;

export const definition: SettingsFunction = {
  operations,
  contracts: CONTRACTS,
  sessions: lookupSession,
  admissionHolders: webhookAdmissionHolders,
  viewReads: webhookViewReads,
  prefetch: webhookPrefetch,
};

export const handler = createSettingsHandler(definition);
