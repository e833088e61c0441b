/**
 * The webhook stores and runtime of one container (per platform): the
 * callbacks and deliveries over the `access` table, the queue, the state
 * machine, the sealer and the sender, and a short-lived cache of opened
 * signing secrets (a warm worker does not call KMS for every attempt).
 */
import { perPlatform, type Platform } from '../shared/platform';
import { requireTable } from '../shared/storage/table-names';
import { Callbacks } from './callbacks';
import { Deliveries } from './deliveries';
import type { WebhookItem } from './webhook-items';
import { webhookRuntimeOf, type WebhookRuntime } from './webhook-runtime';

/** Opened secrets are kept this long in a container's memory. */
export const SECRET_CACHE_MS = 5 * 60_000;
/** At most this many opened secrets per container. */
const SECRET_CACHE_ENTRIES = 1000;

export interface WebhookServices {
  readonly callbacks: Callbacks;
  readonly deliveries: Deliveries;
  readonly runtime: WebhookRuntime;
  /** The callback's signing secret in clear, opened by the sealer (cached briefly per container). */
  secretOf(item: Pick<WebhookItem, 'webhook_id' | 'partner_id' | 'sealed_secret'>): Promise<string>;
}

export const webhookServicesOf = perPlatform((platform: Platform): WebhookServices => {
  const table = requireTable(platform.tables, 'access');
  const runtime = webhookRuntimeOf(platform);
  const opened = new Map<string, { secret: string; until: number }>();
  return {
    callbacks: new Callbacks(platform.documentClient, table, platform.clock),
    deliveries: new Deliveries(platform.documentClient, table, platform.clock, runtime.attemptLeaseMs),
    runtime,
    async secretOf(item) {
      const now = Date.now();
      const cached = opened.get(item.webhook_id);
      if (cached && cached.until > now) return cached.secret;
      const secret = await runtime.sealer.open(item.sealed_secret, { webhookId: item.webhook_id, partnerId: item.partner_id });
      // Bounded: a container serving many callbacks forgets the expired ones before adding more.
      if (opened.size >= SECRET_CACHE_ENTRIES) for (const [id, entry] of opened) if (entry.until <= now) opened.delete(id);
      if (opened.size < SECRET_CACHE_ENTRIES) opened.set(item.webhook_id, { secret, until: now + SECRET_CACHE_MS });
      return secret;
    },
  };
});
