/**
 * The `webhook-sweeper` job: run every minute by EventBridge Scheduler in AWS
 * (lib/constructs/webhook-delivery.ts) and on an interval in the local stack. Queues again the
 * webhook deliveries whose next attempt is overdue past the grace (lambdas/webhooks/delivery-sweeper.ts),
 * logs one line per run that found something, and records WebhookDeliveriesSwept every run (zeros
 * included: the alarm sees a steady series). Not an API handler.
 */
import { observedJob } from '../../shared/observability/invocation';
import { logger } from '../../shared/observability/logger';
import { sharedPlatform, type Platform } from '../../shared/platform';
import { requireTable } from '../../shared/storage/table-names';
import { sweepDeliveries, type SweepResult } from '../../webhooks/delivery-sweeper';
import { webhookServicesOf } from '../../webhooks/services';

/** One run on the platform's access table and delivery queue. */
export async function runWebhookSweeper(platform: Platform, log: 'always' | 'when-changed' = 'always'): Promise<SweepResult> {
  const started = Date.now();
  const services = webhookServicesOf(platform);
  try {
    const result = await sweepDeliveries({
      client: platform.documentClient,
      table: requireTable(platform.tables, 'access'),
      deliveries: services.deliveries,
      queue: services.runtime.queue,
      clock: platform.clock,
      graceMs: services.runtime.sweepGraceMs,
    });
    if (log === 'always' || result.requeued > 0) logger.info('webhook sweeper run', { job: 'webhook-sweeper', ...result, duration_ms: Date.now() - started });
    return result;
  } catch (error) {
    logger.error('webhook sweeper run', { job: 'webhook-sweeper', error, duration_ms: Date.now() - started });
    throw error;
  }
}

export const handler = observedJob('webhook-sweeper', (): Promise<SweepResult> => runWebhookSweeper(sharedPlatform()));
