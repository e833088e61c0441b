/**
 * The `claim-reconciler` job: run every minute by EventBridge Scheduler in
 * AWS (lib/constructs/scheduled-jobs.ts) and on an interval in the local
 * stack. Finishes claims left `claiming` (lambdas/invitations/claim-reconciler.ts)
 * and logs one JSON line per run with the counts. Not an API handler.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { reconcileClaims, type ReconcileResult } from '../../invitations/claim-reconciler';
import { InvitationStore } from '../../invitations/invitation-store';
import { logger } from '../../shared/observability/logger';
import { createDocumentClient, requireTable, tableNamesFromEnv } from '../../shared/storage/dynamo-client';
import { DynamoTicketBridge, type BridgeOutage } from '../../tickets/ticket-bridge';

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
    if (log === 'always' || result.found > 0) logger.info('claim reconciler run', { job: 'claim-reconciler', ...result, duration_ms: Date.now() - started });
    return result;
  } catch (error) {
    logger.error('claim reconciler run', { job: 'claim-reconciler', error, duration_ms: Date.now() - started });
    throw error;
  }
}

// Built on first use: the local stack sets the endpoint and table names after loading this module.
let client: DynamoDBDocumentClient | undefined;

export async function handler(): Promise<ReconcileResult> {
  client ??= createDocumentClient();
  return runClaimReconciler(client, requireTable(tableNamesFromEnv(), 'domain'));
}
