/**
 * The HTTP path's own cost: four kinds of request interleaved in one closed
 * loop (request i is kind i mod 4), so that each is measured under the same
 * load at the same moment of the run (DynamoDB Local's speed drifts between
 * scenarios by more than the differences sought here):
 * - `GET /me through the front`: HTTP over loopback, the API Gateway event,
 *   the identity function's pipeline, its three writes (organization key);
 * - `GET /me in process`: the identity handler called here with the event
 *   the front would build: the same without HTTP and the front;
 * - `admission in process`: the pipeline's two steps alone (authenticateKey,
 *   admitRequest, as quota-peers' `service`): the same writes without the
 *   pipeline around them;
 * - `GET /health through the front`: the front and the system function's
 *   pipeline, no DynamoDB.
 * Report: bench/report.ts httpPathNotes (target: GET /me through the front
 * within 1 ms of the admission in process).
 */
import { randomUUID } from 'node:crypto';
import { authenticateKey } from '../../lambdas/shared/identity/key-authentication';
import { decisionDepsOf } from '../../lambdas/shared/limits/admission';
import { admitRequest } from '../../lambdas/shared/limits/key-admission';
import { KeepAliveClient } from '../http-client';
import { runLoad } from '../load';
import { benchHandlers } from '../platform';
import { defineScenario, type LatencyRow } from '../scenario';
import { summarizeLatency } from '../stats';
import { HTTP_PATH_KINDS, HTTP_PATH_SCENARIO, type HttpPathKind } from './http-path-kinds';
import { lambdaContext, proxyEvent } from '../../test/unit/support/api-gateway-event';


export const httpPath = defineScenario({
  name: HTTP_PATH_SCENARIO,
  description: 'GET /me through the front, in process, its admission alone, and GET /health, interleaved: the front and the pipeline apart',
  run: async (context) => {
    const { plan, progress, demo, platform } = context;
    const identity = benchHandlers(() => platform).identity;
    const authorization = `Bearer ${demo.organization_key}`;
    const rows: LatencyRow[] = [];
    for (const concurrency of plan.concurrencies) {
      progress(`${HTTP_PATH_KINDS.join(', ')}: interleaved at ${concurrency} concurrent`);
      const client = new KeepAliveClient(context.stack.baseUrl, concurrency);
      const requests: Record<HttpPathKind, () => Promise<void>> = {
        'GET /me through the front': async () => {
          const answer = await client.get('/me', { Authorization: authorization });
          if (answer.status !== 200) throw new Error(`GET /me answered ${answer.status}: ${answer.body}`);
        },
        'GET /me in process': async () => {
          const event = proxyEvent({ method: 'GET', path: '/me', headers: { Authorization: authorization }, requestId: randomUUID() });
          // A fresh context per invocation, as Lambda gives (the pipeline keeps its state on it).
          const answer = await identity(event, lambdaContext('partner-api-bench-identity'));
          if (answer.statusCode !== 200) throw new Error(`GET /me in process answered ${answer.statusCode}: ${answer.body}`);
        },
        'admission in process': async () => {
          const key = await authenticateKey(authorization, { reader: platform.admissionStore, cache: platform.keyCache, now: platform.clock() });
          const admission = await admitRequest(key, {}, { ...decisionDepsOf(platform), rateLog: platform.rateLog });
          await admission.release();
        },
        'GET /health through the front': async () => {
          const answer = await client.get('/health', {});
          if (answer.status !== 200) throw new Error(`GET /health answered ${answer.status}: ${answer.body}`);
        },
      };
      let issued = 0;
      try {
        const phase = await runLoad({
          concurrency,
          warmup: plan.warmupRequests,
          requests: plan.measuredRequests * HTTP_PATH_KINDS.length,
          operation: async () => {
            const kind = HTTP_PATH_KINDS[issued++ % HTTP_PATH_KINDS.length];
            await requests[kind]();
            return kind;
          },
        });
        context.accessLog.clear();
        for (const kind of HTTP_PATH_KINDS) {
          const durations = phase.durationsMs.filter((_, i) => phase.values[i] === kind);
          rows.push({ kind: 'latency', scenario: HTTP_PATH_SCENARIO, label: kind, variant: kind, concurrency, ...summarizeLatency(durations, phase.elapsedMs) });
        }
      } finally {
        client.close();
      }
    }
    return rows;
  },
});
