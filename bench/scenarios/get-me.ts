/**
 * `GET /me` through the local front: HTTP over loopback with keep-alive, the
 * API Gateway v1 event, the identity handler, DynamoDB Local. Warm: the key's
 * immutable facts are in the container's cache, one BatchGetItem round trip.
 * Cold: the cache is emptied before each request, as in a container that has
 * not seen the key (GetItem of the key, then BatchGetItem: two round trips);
 * it is not a Lambda cold start, whose import cost the bundle rows show.
 *
 * Per-request DynamoDB work comes from the handler's own access-log line.
 */
import { sharedPlatform } from '../../lambdas/shared/platform';
import { KeepAliveClient } from '../http-client';
import { runLoad, type LoadPhase } from '../load';
import { defineScenario, type BenchContext, type DynamoPerRequest, type LatencyRow } from '../scenario';
import { mean, round, summarizeLatency } from '../stats';
import { GET_ITEM_SCENARIO } from './dynamo-get-item';

const SCENARIO = 'get-me';
const BASELINE = { scenario: GET_ITEM_SCENARIO, variant: 'raw' } as const;

async function measure(context: BenchContext, args: { concurrency: number; warmup: number; requests: number; cold: boolean }) {
  const client = new KeepAliveClient(context.stack.baseUrl, args.concurrency);
  const headers = { Authorization: `Bearer ${context.demo.organization_key}` };
  const keyCache = sharedPlatform().keyCache;
  try {
    return await runLoad({
      concurrency: args.concurrency,
      warmup: args.warmup,
      requests: args.requests,
      prepare: args.cold ? () => keyCache.clear() : undefined,
      operation: async () => {
        const answer = await client.get('/me', headers);
        if (answer.status !== 200 || !answer.requestId) {
          throw new Error(`GET /me answered ${answer.status}: ${answer.body}\n${context.accessLog.drainFailures().join('\n')}`);
        }
        return answer.requestId;
      },
    });
  } finally {
    client.close();
  }
}

function dynamoPerRequest(context: BenchContext, phase: LoadPhase<string>): DynamoPerRequest | undefined {
  const figures = phase.values.map((id) => context.accessLog.take(id)).filter((f) => f !== undefined);
  if (figures.length === 0) return undefined;
  const roundTrips = figures.map((f) => f.round_trips);
  return {
    calls: round(mean(figures.map((f) => f.calls)), 2),
    round_trips: round(mean(roundTrips), 2),
    rcu: round(mean(figures.map((f) => f.rcu)), 2),
    wcu: round(mean(figures.map((f) => f.wcu)), 2),
    logged: figures.length,
    round_trips_min: Math.min(...roundTrips),
    round_trips_max: Math.max(...roundTrips),
  };
}

export const getMe = defineScenario({
  name: SCENARIO,
  description: 'GET /me with the demo organization key through the local front (keep-alive HTTP)',
  run: async (context) => {
    const { plan, progress } = context;
    const runs = [
      ...plan.concurrencies.map((concurrency) => ({
        variant: 'warm',
        concurrency,
        warmup: plan.warmupRequests,
        requests: plan.measuredRequests,
        cold: false,
      })),
      // Cold requests one at a time: emptying the shared cache under concurrent clients would warm some of them.
      { variant: 'cold', concurrency: 1, warmup: Math.ceil(plan.coldRequests / 10), requests: plan.coldRequests, cold: true },
    ];
    const rows: LatencyRow[] = [];
    for (const run of runs) {
      progress(`GET /me ${run.variant} at ${run.concurrency} concurrent`);
      const phase = await measure(context, run);
      const dynamo = dynamoPerRequest(context, phase);
      context.accessLog.clear();
      if (dynamo?.logged !== phase.values.length) {
        progress(`warning: ${dynamo?.logged ?? 0} of ${phase.values.length} requests left an access-log line with DynamoDB figures`);
      }
      rows.push({
        kind: 'latency',
        scenario: SCENARIO,
        label: 'GET /me',
        variant: run.variant,
        concurrency: run.concurrency,
        ...summarizeLatency(phase.durationsMs, phase.elapsedMs),
        dynamo,
        baseline: BASELINE,
      });
    }
    return rows;
  },
});
