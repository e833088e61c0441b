/**
 * The `webhooks` function: the webhook callbacks of web settings (`/settings/api/webhooks…`),
 * session-based like the rest of settings (same cookie, same CSRF checks, same error shape),
 * in a function of its own because it alone seals and opens callback secrets (KMS), calls
 * receivers (verification and test events) and queues manual resends.
 */
import { createApiHandler } from '../shared/http/pipeline';
import { lookupSession } from '../settings/settings-operations';
import { webhookAdmissionHolders, webhookOperations } from './webhook-operations';

export const operations = webhookOperations;

export const handler = createApiHandler({ operations, sessions: lookupSession, admissionHolders: webhookAdmissionHolders });
