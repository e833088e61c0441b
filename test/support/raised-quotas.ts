/**
 * The service's functions on a platform whose quotas are raised out of reach (the same rows, the same writes, only
 * `n < limit` differs), for test files that sign in, create, verify and resend far more than one account or address
 * may a minute, or that call every operation many times. The limits themselves have their own tests (quotas,
 * web-settings-limits, webhook-limits, rolling-window).
 */
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { definition as settingsFunction } from '../../lambdas/settings/handler';
import { definition as signInFunction } from '../../lambdas/sign-in/handler';
import { FUNCTION_BUILDERS } from '../../lambdas/service/functions';
import { definition as webhookFunction } from '../../lambdas/webhooks/handler';
import type { ApiHandler } from '../../lambdas/shared/http/pipeline';
import type { EndpointGroup } from '../../lambdas/shared/http/routes';
import { LIMITS, type Limit } from '../../lambdas/shared/limits/limits-table';
import type { Platform } from '../../lambdas/shared/platform';
import { localPlatform } from './local-platform';
import { HANDLERS } from '../../local/handlers';

/** A platform (built on first use) whose limits of `kinds` are raised out of reach, on the local stack's client and switches. */
function raisedPlatform(kinds: ReadonlySet<Limit['kind']>): () => Platform {
  let raised: Platform | undefined;
  return () =>
    // The shared platform's client (fault-injection tests wrap it) and switches: local-platform.ts.
    (raised ??= localPlatform({ limits: LIMITS.map((l) => (kinds.has(l.kind) ? { ...l, limit: 100_000 } : l)) }));
}

/** The local stack's handlers, with the webhooks, settings and sign-in functions on the raised platform (quotas only). */
export function raisedWebhookHandlers() {
  const platform = raisedPlatform(new Set(['quota']));
  return {
    ...HANDLERS,
    webhooks: createSettingsHandler({ ...webhookFunction, platform }),
    // Signing in (many managers from 127.0.0.1) on the same raised platform.
    settings: createSettingsHandler({ ...settingsFunction, platform }),
    'sign-in': createSettingsHandler({ ...signInFunction, platform }),
  };
}

/** Every function on one platform whose quotas and rolling limits are raised (concurrency limits stay). */
export function raisedHandlers(): Record<EndpointGroup, ApiHandler> {
  const platform = raisedPlatform(new Set(['quota', 'rolling']));
  return Object.fromEntries(Object.entries(FUNCTION_BUILDERS).map(([group, build]) => [group, build(platform)])) as Record<EndpointGroup, ApiHandler>;
}
