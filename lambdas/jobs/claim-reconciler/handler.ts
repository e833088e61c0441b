/**
 * The `claim-reconciler` job: run every minute by EventBridge Scheduler in
 * AWS (lib/constructs/scheduled-jobs.ts) and on an interval in the local
 * stack. Finishes claims left `claiming` (lambdas/invitations/claim-reconciler.ts),
 * logs one JSON line per run with the counts and records the run's metrics
 * (ReconcilerOutcomes, ClaimingBacklog, ClaimingOldestAgeSeconds: every run,
 * zeros included, so the alarms see a steady series). Not an API handler.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { reconcileClaims, type ReconcileResult } from '../../invitations/claim-reconciler';
import { InvitationStore } from '../../invitations/invitation-store';
import { observedJob } from '../../shared/observability/invocation';
import { logger } from '../../shared/observability/logger';
import { METRICS } from '../../shared/observability/metric-catalog';
import { recordMetric } from '../../shared/observability/metrics';
import { createDocumentClient, requireTable, tableNamesFromEnv } from '../../shared/storage/dynamo-client';
import { DynamoTicketBridge, type BridgeOutage } from '../../tickets/ticket-bridge';

/** A run's metrics (published when the invocation ends; nothing outside one, e.g. the local stack's interval). */
export function recordReconcilerMetrics(result: ReconcileResult): void {
  for (const outcome of ['joined', 'deferred', 'cleared'] as const) recordMetric(METRICS.reconcilerOutcomes, { outcome }, result[outcome]);
  recordMetric(METRICS.claimingBacklog, {}, result.claiming);
  recordMetric(METRICS.claimingOldestAge, {}, result.oldestClaimingAgeSeconds);
}

/** One run on `table`, logged (`when-changed`: only runs that found something). */
export async function runClaimReconciler(
  client: DynamoDBDocumentClient,
  table: string,
  log: 'always' | 'when-changed' = 'always',
  clock?: () => Date,
  /** The local stack's `ticket bridge --fail` switch; never set in AWS. */
  outage?: BridgeOutage,
): Promise<ReconcileResult> {
  const started = Date.now();
  try {
    const result = await reconcileClaims({ client, table, invitations: new InvitationStore(client, table), tickets: new DynamoTicketBridge(client, table, outage), clock });
    recordReconcilerMetrics(result);
    if (log === 'always' || result.found > 0) logger.info('claim reconciler run', { job: 'claim-reconciler', ...result, duration_ms: Date.now() - started });
    return result;
  } catch (error) {
    logger.error('claim reconciler run', { job: 'claim-reconciler', error, duration_ms: Date.now() - started });
    throw error;
  }
}

// Built on first use: the local stack sets the endpoint and table names after loading this module.
let client: DynamoDBDocumentClient | undefined;

export const handler = observedJob('claim-reconciler', async (): Promise<ReconcileResult> => {
  client ??= createDocumentClient();
  return runClaimReconciler(client, requireTable(tableNamesFromEnv(), 'domain'));
});
