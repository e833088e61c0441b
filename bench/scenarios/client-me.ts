/**
 * `GET /me` through the typed client (client/, `@partner-api/client`) as an integration calls it: openapi-fetch over
 * Node's fetch, the client's transport (retry rules, per-key and per-organization slots, the deadline), the envelope
 * parsed into a typed answer. Its baseline is the same request through the bench's bare keep-alive HTTP client
 * (get-me, warm, same concurrency): the ratio is what the client adds on the caller's side. The client's slots are
 * opened to the run's concurrency (the default 2 per key is the spec's guidance for production callers).
 */
import { createPartnerClient } from '../../client/src';
import { dynamoPerRequest } from '../dynamo-per-request';
import { runLoad } from '../load';
import { defineScenario, type LatencyRow, type RegisteredScenario } from '../scenario';
import { summarizeLatency } from '../stats';

export const CLIENT_ME_SCENARIO = 'client-get-me';

export const clientGetMe: RegisteredScenario = defineScenario({
  name: CLIENT_ME_SCENARIO,
  description: 'GET /me with the demo organization key through the typed client (@partner-api/client), against the bare HTTP client',
  run: async (context) => {
    const { plan, progress } = context;
    const rows: LatencyRow[] = [];
    for (const concurrency of plan.concurrencies) {
      progress(`typed client GET /me warm at ${concurrency} concurrent`);
      const client = createPartnerClient({ baseUrl: context.stack.baseUrl, apiKey: context.demo.organization_key, maxInFlight: concurrency, organizationConcurrency: concurrency });
      context.accessLog.clear();
      const phase = await runLoad({
        concurrency,
        warmup: plan.warmupRequests,
        requests: plan.measuredRequests,
        operation: async () => {
          const answer = await client.me();
          if (!answer.requestId) throw new Error('GET /me through the client answered without a request id');
          return answer.requestId;
        },
      });
      const dynamo = dynamoPerRequest(context.accessLog, phase.values, 3);
      context.accessLog.clear();
      rows.push({
        kind: 'latency',
        scenario: CLIENT_ME_SCENARIO,
        label: 'GET /me, typed client',
        variant: 'warm',
        concurrency,
        ...summarizeLatency(phase.durationsMs, phase.elapsedMs),
        dynamo,
        baseline: { scenario: 'get-me', variant: 'warm' },
      });
    }
    return rows;
  },
});
