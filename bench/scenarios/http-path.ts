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
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { KeepAliveClient } from '../http-client';
import { runLoad } from '../load';
import { benchHandlers } from '../platform';
import { defineScenario, type LatencyRow } from '../scenario';
import { summarizeLatency } from '../stats';

export const HTTP_PATH_SCENARIO = 'http-path';
export const HEALTH_VARIANT = 'GET /health through the front';
export const ME_IN_PROCESS_VARIANT = 'GET /me in process, org key';

/** The event API Gateway (and the local front) hands the identity function for GET /me. */
function meEvent(authorization: string): APIGatewayProxyEvent {
  const requestId = randomUUID();
  return {
    httpMethod: 'GET',
    path: '/me',
    resource: '/me',
    headers: { Authorization: authorization, Host: '127.0.0.1' },
    multiValueHeaders: { Authorization: [authorization], Host: ['127.0.0.1'] },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      stage: 'v1',
      path: '/v1/me',
      resourcePath: '/me',
      httpMethod: 'GET',
      requestTimeEpoch: Date.now(),
      identity: { sourceIp: '127.0.0.1' },
    } as APIGatewayProxyEvent['requestContext'],
  };
}

/** A fresh context per invocation, as Lambda gives (the pipeline keeps its state on it). */
const lambdaContext = (): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'partner-api-bench-identity',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:partner-api-bench-identity',
  memoryLimitInMB: '512',
  awsRequestId: 'bench',
  logGroupName: '/aws/lambda/partner-api-bench-identity',
  logStreamName: 'bench',
  getRemainingTimeInMillis: () => 10_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

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
          const answer = await identity(meEvent(authorization), lambdaContext());
          if (answer.statusCode !== 200) throw new Error(`GET /me in process answered ${answer.statusCode}: ${answer.body}`);
        },
      });
      context.accessLog.clear();
      rows.push({ kind: 'latency', scenario: HTTP_PATH_SCENARIO, label: 'GET /me in process', variant: ME_IN_PROCESS_VARIANT, concurrency, ...summarizeLatency(me.durationsMs, me.elapsedMs) });
    }
    return rows;
  },
});
