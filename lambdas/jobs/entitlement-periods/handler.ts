/**
 * The `entitlement-periods` job: run every minute by EventBridge Scheduler in
 * AWS (lib/constructs/scheduled-jobs.ts) and by an interval in the local
 * stack. Writes the `entitlement.updated` event of every organization grant
 * that started or ended since the last run (lambdas/entitlements/period-transitions.ts)
 * and logs one JSON line per run with the counts. Not an API handler.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { runPeriodTransitions, type PeriodJobOptions, type PeriodJobResult } from '../../entitlements/period-transitions';
import { observedJob } from '../../shared/observability/invocation';
import { logger } from '../../shared/observability/logger';
import { createDocumentClient, requireTable, tableNamesFromEnv } from '../../shared/storage/dynamo-client';

/** Stop starting grants this long before the function's timeout; the next run continues. */
const STOP_BEFORE_TIMEOUT_MS = 2_000;

/**
 * One run, logged (`always`, or `when-changed`: only runs that wrote or deferred something, and failures).
 * A failure (the Query, or `failed` > 0) is logged as an error and thrown, so the run counts as a failed invocation.
 */
export async function runEntitlementPeriods(options: PeriodJobOptions, log: 'always' | 'when-changed' = 'always'): Promise<PeriodJobResult> {
  const started = Date.now();
  let result: PeriodJobResult;
  try {
    result = await runPeriodTransitions(options);
  } catch (error) {
    // The due grants could not be read: nothing was written, the next run tries again.
    logger.error('entitlement periods run', { job: 'entitlement-periods', error, duration_ms: Date.now() - started });
    throw error;
  }
  const { errors, ...counts } = result;
  const fields = { job: 'entitlement-periods', ...counts, duration_ms: Date.now() - started };
  if (result.failed > 0) {
    logger.error('entitlement periods run', { ...fields, errors: errors.slice(0, 10) });
    throw new Error(`entitlement-periods: ${result.failed} grant(s) failed: ${errors.slice(0, 3).join('; ')}`);
  }
  if (log === 'always' || result.events > 0 || result.deferred > 0) logger.info('entitlement periods run', fields);
  return result;
}

// Built on first use: the local stack sets the endpoint and table names after loading this module.
let client: DynamoDBDocumentClient | undefined;

export const handler = observedJob('entitlement-periods', async (_event: unknown, context): Promise<PeriodJobResult> => {
  client ??= createDocumentClient();
  return runEntitlementPeriods({
    client,
    table: requireTable(tableNamesFromEnv(), 'domain'),
    shouldStop: () => context.getRemainingTimeInMillis() < STOP_BEFORE_TIMEOUT_MS,
  });
});
