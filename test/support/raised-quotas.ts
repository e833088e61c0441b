/**
 * The settings and webhooks functions on a platform whose quotas are raised out of reach (the same rows, the same
 * writes, only `n < limit` differs), for test files that sign in, create, verify and resend far more than one
 * account or address may a minute. The limits themselves have their own tests (web-settings-limits, webhook-limits).
 */
import { operations as settingsOperations } from '../../lambdas/settings/handler';
import { lookupSession } from '../../lambdas/settings/settings-operations';
import { createApiHandler } from '../../lambdas/shared/http/pipeline';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { createPlatform, sharedPlatform, type Platform } from '../../lambdas/shared/platform';
import { webhookAdmissionHolders, webhookOperations } from '../../lambdas/webhooks/webhook-operations';
import { HANDLERS } from '../../local/handlers';

/** The local stack's handlers, with the webhooks and settings functions on the raised platform. */
export function raisedWebhookHandlers() {
  let raised: Platform | undefined;
  const platform = () =>
    (raised ??= createPlatform({
      limits: LIMITS.map((l) => (l.kind === 'quota' ? { ...l, limit: 100_000 } : l)),
      edgeGuard: undefined,
      localSwitches: sharedPlatform().localSwitches,
      // The shared platform's client: what the local stack gave it (fault-injection tests wrap it).
      documentClient: sharedPlatform().documentClient,
    }));
  return {
    ...HANDLERS,
    webhooks: createApiHandler({ operations: webhookOperations, sessions: lookupSession, admissionHolders: webhookAdmissionHolders, platform }),
    // Signing in (many managers from 127.0.0.1) on the same raised platform.
    settings: createApiHandler({ operations: settingsOperations, sessions: lookupSession, platform }),
  };
}

