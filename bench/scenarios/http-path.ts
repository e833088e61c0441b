/**
 * The HTTP path's own cost, in the same run as GET /me through the front:
 * - `GET /health` through the local front (HTTP over loopback, the API Gateway
 *   event, the system function's pipeline; no DynamoDB): the floor of any
 *   request through the front;
 * - `GET /me` in process: the identity function's handler called here with
 *   the event the front would build, organization key, warm: the same
 *   pipeline and DynamoDB writes without HTTP and the front.
 * GET /me through the front minus the second is the front's own time; the
 * second minus the admission in process (quota-peers `service`) the
 * pipeline's. Report: bench/report.ts httpPathNotes.
 */
import { randomUUID } from 'node:crypto';
import { KeepAliveClient } from '../http-client';
import { runLoad } from '../load';
import { benchHandlers } from '../platform';
import { defineScenario, type LatencyRow } from '../scenario';
import { summarizeLatency } from '../stats';
import { lambdaContext, proxyEvent } from '../../test/unit/support/api-gateway-event';

export const HTTP_PATH_SCENARIO = 'http-path';
export const HEALTH_VARIANT = 'GET /health through the front';
export const ME_IN_PROCESS_VARIANT = 'GET /me in process, org key';

export const httpPath = defineScenario({
  name: HTTP_PATH_SCENARIO,
  description: 'GET /health through the front, and GET /me in process (the identity handler called here): the front and the pipeline apart',
  run: async (context) => {
    const { plan, progress, demo } = context;
    const identity = benchHandlers(() => context.platform).identity;
    const authorization = `Bearer ${demo.organization_key}`;
    const rows: LatencyRow[] = [];
    for (const concurrency of plan.concurrencies) {
      progress(`${HEALTH_VARIANT} at ${concurrency} concurrent`);
      const client = new KeepAliveClient(context.stack.baseUrl, concurrency);
      try {
        const health = await runLoad({
          concurrency,
          warmup: plan.warmupRequests,
          requests: plan.measuredRequests,
          operation: async () => {
            const answer = await client.get('/health', {});
            if (answer.status !== 200) throw new Error(`GET /health answered ${answer.status}: ${answer.body}`);
          },
        });
        rows.push({ kind: 'latency', scenario: HTTP_PATH_SCENARIO, label: 'GET /health', variant: HEALTH_VARIANT, concurrency, ...summarizeLatency(health.durationsMs, health.elapsedMs) });
      } finally {
        client.close();
      }
      progress(`${ME_IN_PROCESS_VARIANT} at ${concurrency} concurrent`);
      context.accessLog.clear();
      const me = await runLoad({
        concurrency,
        warmup: plan.warmupRequests,
        requests: plan.measuredRequests,
        operation: async () => {
          const event = proxyEvent({ method: 'GET', path: '/me', headers: { Authorization: authorization }, requestId: randomUUID() });
          // A fresh context per invocation, as Lambda gives (the pipeline keeps its state on it).
          const answer = await identity(event, lambdaContext('partner-api-bench-identity'));
          if (answer.statusCode !== 200) throw new Error(`GET /me in process answered ${answer.statusCode}: ${answer.body}`);
        },
      });
      context.accessLog.clear();
      rows.push({ kind: 'latency', scenario: HTTP_PATH_SCENARIO, label: 'GET /me in process', variant: ME_IN_PROCESS_VARIANT, concurrency, ...summarizeLatency(me.durationsMs, me.elapsedMs) });
    }
    return rows;
  },
});
