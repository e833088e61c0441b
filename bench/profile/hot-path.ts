/**
 * Where GET /me's time goes (organization key, warm), on the bench's own
 * DynamoDB Local and local stack: its p50 next to the floor the bench uses
 * (three raw conditional UpdateItems in parallel), the span of the handler's
 * own DynamoDB calls (first call sent → last answered, timed by a middleware
 * on the platform's client), and the CPU per request of this process (front,
 * handler, SDK) and of DynamoDB Local's JVM. CPU figures move little on a
 * busy machine; wall-clock ones do. Not part of `npm run bench`:
 *
 *   npx tsx bench/profile/hot-path.ts            (N=1500 requests per phase)
 */
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { localDynamoClient, startDynamoLocal } from '../../local/dynamo-local';
import { localDocumentClient, startLocalStack } from '../../local/local-stack';
import { seedDemo } from '../../local/seed';
import type { Platform } from '../../lambdas/shared/platform';
import { KeepAliveClient } from '../http-client';
import { runLoad } from '../load';
import { benchHandlers, benchPlatform, latencyLimits } from '../platform';
import { lambdaContext, proxyEvent } from '../../test/unit/support/api-gateway-event';

const N = Number(process.env.N ?? 1500);
const WARMUP = 300;
const p50 = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** User + system CPU ticks (10 ms) of a process, from /proc. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function main(): Promise<void> {
  const dynamo = await startDynamoLocal();
  let platform: Platform | undefined;
  const getPlatform = () => (platform ??= benchPlatform(latencyLimits()));
  const handlers = benchHandlers(getPlatform);
  const stack = await startLocalStack({ dynamoEndpoint: dynamo.endpoint, tablePrefix: 'profile', handlers, edgeProtection: false, scheduledJobs: false, webhooks: false });
  try {
    const javaPid = Number(execSync(`pgrep -f '^java .*DynamoDBLocal.jar -port ${dynamo.port}'`).toString().trim().split('\n')[0]);
    const seedClient = localDocumentClient(stack.dynamoEndpoint);
    const demo = await seedDemo(seedClient, stack.tables.access);
    seedClient.destroy();

    // The span of the handler's DynamoDB calls in the current request (one client: requests do not overlap).
    const span = { start: 0, end: 0, open: false };
    getPlatform().documentClient.middlewareStack.add(
      (next) => async (args) => {
        if (!span.open) Object.assign(span, { start: performance.now(), open: true });
        try {
          return await next(args);
        } finally {
          span.end = performance.now();
        }
      },
      { step: 'initialize', name: 'profileSpan' },
    );

    const raw = localDynamoClient(stack.dynamoEndpoint);
    const floor: UpdateItemCommand[] = [];
    for (let i = 0; i < 3; i += 1) {
      const Key = { pk: { S: `PROFILE#${i}` }, sk: { S: 'COUNTER' } };
      await raw.send(new PutItemCommand({ TableName: stack.tables.access, Item: { ...Key, n: { N: '0' } } }));
      floor.push(
        new UpdateItemCommand({
          TableName: stack.tables.access,
          Key,
          UpdateExpression: 'ADD n :one',
          ConditionExpression: 'n < :limit',
          ExpressionAttributeValues: { ':one': { N: '1' }, ':limit': { N: '1000000000' } },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
    }
    const headers = { Authorization: `Bearer ${demo.organization_key}` };

    for (const concurrency of [1, 8]) {
      const client = new KeepAliveClient(stack.baseUrl, concurrency);
      const spans: number[] = [];
      const phase = async (operation: () => Promise<unknown>) => {
        await runLoad({ concurrency, warmup: WARMUP, requests: 1, operation });
        const cpu0 = process.cpuUsage();
        const java0 = cpuTicks(javaPid);
        const result = await runLoad({ concurrency, warmup: 0, requests: N, operation });
        const cpu = process.cpuUsage(cpu0);
        return {
          p50_ms: Number(p50(result.durationsMs).toFixed(2)),
          node_cpu_us: Math.round((cpu.user + cpu.system) / N),
          dynamodb_local_cpu_us: Math.round(((cpuTicks(javaPid) - java0) * 10_000) / N),
        };
      };
      const rawWrites = await phase(() => Promise.all(floor.map((command) => raw.send(command))));
      // The identity handler called in this process with the event the front would build: GET /me without HTTP and the front.
      const inProcess = await phase(async () => {
        const answer = await handlers.identity(proxyEvent({ method: 'GET', path: '/me', resource: '/me', headers }), lambdaContext('partner-api-identity'));
        if (answer.statusCode !== 200) throw new Error(`GET /me in process answered ${answer.statusCode}`);
      });
      const health = await phase(async () => {
        const answer = await client.get('/health', {});
        if (answer.status !== 200) throw new Error(`GET /health answered ${answer.status}`);
      });
      const me = await phase(async () => {
        span.open = false;
        const answer = await client.get('/me', headers);
        if (answer.status !== 200) throw new Error(`GET /me answered ${answer.status}`);
        if (concurrency === 1) spans.push(span.end - span.start);
      });
      client.close();
      console.log(
        JSON.stringify({
          concurrency,
          raw_parallel_writes: rawWrites,
          get_me: me,
          get_me_in_process: inProcess,
          health,
          ratio: Number((me.p50_ms / rawWrites.p50_ms).toFixed(2)),
          ...(spans.length ? { handler_dynamodb_span_p50_ms: Number(p50(spans).toFixed(2)) } : {}),
        }),
      );
    }
    raw.destroy();
  } finally {
    await stack.stop();
    platform?.documentClient.destroy();
    await dynamo.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
