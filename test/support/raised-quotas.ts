/**
 * The settings and webhooks functions on a platform whose quotas are raised out of reach (the same rows, the same
 * writes, only `n < limit` differs), for test files that sign in, create, verify and resend far more than one
 * account or address may a minute. The limits themselves have their own tests (web-settings-limits, webhook-limits).
 */
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { definition as settingsFunction } from '../../lambdas/settings/handler';
import { definition as webhookFunction } from '../../lambdas/webhooks/handler';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { createPlatform, sharedPlatform, type Platform } from '../../lambdas/shared/platform';
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
    webhooks: createSettingsHandler({ ...webhookFunction, platform }),
    // Signing in (many managers from 127.0.0.1) on the same raised platform.
    settings: createSettingsHandler({ ...settingsFunction, platform }),
  };
}

