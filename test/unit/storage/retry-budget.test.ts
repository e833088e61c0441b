/**
 * The retry budget (lambdas/shared/storage/retry-budget.ts, docs/faults.md "Retry budget"): a transaction DynamoDB
 * reports in progress is sent again, the same request with the same ClientRequestToken, until a try starts at least
 * 5 s after the first (AWS's guidance for TransactionInProgressException), but only inside an operation and never so
 * late that a try could outlive the operation's deadline; outside one, the SDK's 3 tries.
 *
 * DynamoDB Local never answers TransactionInProgressException (it runs transactions one at a time), so a fake wire
 * stands in for DynamoDB below the real client and its whole middleware stack. Time is simulated: the clock and the
 * timers are vitest's fake ones, so the SDK's own waits (its retry middleware's, its StandardRetryStrategy's) pass in
 * simulated time as the strategy's do; each try takes 20 ms of it, and nothing here waits on the wall clock.
 */
import '../support/handler-environment';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { StandardRetryStrategy } from '@smithy/core/retry';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPartnerApiHandler } from '../../../lambdas/shared/http/partner-api-pipeline';
import { ROUTE_CONTRACTS } from '../../../lambdas/service/contracts';
import { ROUTES } from '../../../lambdas/service/routes';
import { createPlatform } from '../../../lambdas/shared/platform';
import { createDocumentClient, DYNAMO_CLIENT_CONFIG } from '../../../lambdas/shared/storage/dynamo-client';
import { currentDeadline, withinDeadline } from '../../../lambdas/shared/storage/operation-deadline';
import { DynamoRetryStrategy, IN_PROGRESS_WINDOW_MS } from '../../../lambdas/shared/storage/retry-budget';
import { captureLogs } from '../../support/log-capture';
import { documentClient } from '../support/admission-fixtures';
import { lambdaContext, parseBody, proxyEvent } from '../support/api-gateway-event';
import { TABLES } from '../support/handler-environment';

const TRY_MS = 20;
const REQUEST_TIMEOUT_MS = DYNAMO_CLIENT_CONFIG.requestHandler.requestTimeout;

interface Try {
  readonly startedAt: number;
  readonly token: unknown;
}

/** Simulated time: the clock and the timers, the SDK's included. */
const simulateTime = () => vi.useFakeTimers({ now: 1_000_000, toFake: ['Date', 'setTimeout', 'clearTimeout'] });
const elapse = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A client with the deployed retry settings (or `strategy`) on simulated time, over a wire that answers each
 * TransactWriteItems try with `answer(startedAt)`: the name of an error (`TimeoutError`: the answer is lost), or
 * undefined for success.
 */
function simulatedDynamo(
  answer: (startedAt: number) => string | undefined,
  strategy: DynamoRetryStrategy | StandardRetryStrategy = new DynamoRetryStrategy({ maxAttempts: DYNAMO_CLIENT_CONFIG.maxAttempts, tryTimeoutMs: REQUEST_TIMEOUT_MS }),
) {
  const tries: Try[] = [];
  const client = new DynamoDBClient({
    ...DYNAMO_CLIENT_CONFIG,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    retryStrategy: strategy,
    requestHandler: {
      handle: async (request: { body: Uint8Array | string }) => {
        const text = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
        const startedAt = Date.now();
        tries.push({ startedAt, token: (JSON.parse(text) as { ClientRequestToken?: unknown }).ClientRequestToken });
        const error = answer(startedAt);
        // A lost answer: the try takes its whole request timeout and the SDK's handler throws.
        if (error === 'TimeoutError') {
          await elapse(REQUEST_TIMEOUT_MS);
          throw Object.assign(new Error('Request timed out (fake wire)'), { name: 'TimeoutError' });
        }
        await elapse(TRY_MS);
        const body = error ? { __type: `com.amazonaws.dynamodb.v20120810#${error}`, message: `${error} (fake wire)` } : {};
        return {
          response: {
            statusCode: error ? 400 : 200,
            headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `wire-${tries.length}` },
            body: Readable.from([Buffer.from(JSON.stringify(body))]),
          },
        };
      },
    },
  });
  return {
    documentClient: createDocumentClient(client),
    strategy,
    tries,
    now: () => Date.now(),
  };
}

const transaction = () =>
  new TransactWriteCommand({ TransactItems: [{ Update: { TableName: 'domain', Key: { pk: 'P', sk: 'S' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } } }] });

/** The error a call ended with, or undefined when it succeeded: simulated time runs, timer after timer, until it has. */
async function settle(promise: Promise<unknown>): Promise<Error | undefined> {
  let settled = false;
  const outcome = promise.then(
    () => undefined,
    (error: unknown) => error as Error,
  );
  void outcome.finally(() => {
    settled = true;
  });
  while (!settled) await vi.advanceTimersToNextTimerAsync();
  return outcome;
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('retry budget: a transaction in progress, inside an operation', () => {
  beforeEach(simulateTime);

  it('sends the same transaction again past 5 s after its first try, and learns that it applied', async () => {
    // Prepare: DynamoDB reports the transaction in progress to every try that starts less than 5 s (simulated) after the
    // first, and applied to the next; the function has 10 s.
    const dynamo = simulatedDynamo((startedAt) => (startedAt - first < IN_PROGRESS_WINDOW_MS ? 'TransactionInProgressException' : undefined));
    const first = dynamo.now();
    const deadline = first + 10_000 - 2_000;

    // Act
    const error = await settle(withinDeadline(deadline, () => dynamo.documentClient.send(transaction())));

    // Assess
    expect(error).toBeUndefined();
    expect(dynamo.tries.length).toBeGreaterThan(DYNAMO_CLIENT_CONFIG.maxAttempts);
    expect(dynamo.tries.at(-1)!.startedAt - first).toBeGreaterThanOrEqual(IN_PROGRESS_WINDOW_MS);
    // Every try is the same request: one ClientRequestToken, so the retry is the first transaction, never a second.
    expect(new Set(dynamo.tries.map((t) => t.token)).size).toBe(1);
    expect(dynamo.tries[0].token).toEqual(expect.any(String));
  });

  it('stops once a try that started 5 s after the first has answered in progress too, well inside the deadline', async () => {
    // Prepare
    const dynamo = simulatedDynamo(() => 'TransactionInProgressException');
    const first = dynamo.now();
    const deadline = first + 10_000 - 2_000;

    // Act
    const error = await settle(withinDeadline(deadline, () => dynamo.documentClient.send(transaction())));

    // Assess
    expect(error?.name).toBe('TransactionInProgressException');
    const starts = dynamo.tries.map((t) => t.startedAt - first);
    expect(starts.filter((start) => start >= IN_PROGRESS_WINDOW_MS)).toHaveLength(1);
    expect(starts.at(-1)).toBeGreaterThanOrEqual(IN_PROGRESS_WINDOW_MS);
    expect(dynamo.tries.at(-1)!.startedAt + REQUEST_TIMEOUT_MS).toBeLessThanOrEqual(deadline);
  });

  it('uses the time up to the deadline and never starts a try that could outlive it: with 3 s left it stops before the 5 s mark', async () => {
    // Prepare: the admission took most of the function's time.
    const dynamo = simulatedDynamo(() => 'TransactionInProgressException');
    const first = dynamo.now();
    const deadline = first + 3_000;

    // Act
    const error = await settle(withinDeadline(deadline, () => dynamo.documentClient.send(transaction())));

    // Assess
    expect(error?.name).toBe('TransactionInProgressException');
    expect(dynamo.tries.length).toBeGreaterThan(DYNAMO_CLIENT_CONFIG.maxAttempts);
    for (const t of dynamo.tries) expect(t.startedAt + REQUEST_TIMEOUT_MS).toBeLessThanOrEqual(deadline);
    expect(dynamo.tries.at(-1)!.startedAt - first).toBeLessThan(IN_PROGRESS_WINDOW_MS);
  });

  it('keeps a transaction that met one in-progress answer going when a later try times out (its outcome is still unknown)', async () => {
    // Prepare: in progress twice, then two tries whose answers are lost, then done.
    const answers = ['TransactionInProgressException', 'TransactionInProgressException', 'TimeoutError', 'TimeoutError'];
    const dynamo = simulatedDynamo(() => answers.shift());
    const deadline = dynamo.now() + 8_000;

    // Act
    const error = await settle(withinDeadline(deadline, () => dynamo.documentClient.send(transaction())));

    // Assess: five tries, where the standard rule alone stops at three.
    expect(error).toBeUndefined();
    expect(dynamo.tries).toHaveLength(5);
  });
});

describe('retry budget: only a transaction in progress, only inside an operation', () => {
  beforeEach(simulateTime);

  it('gives it the SDK’s 3 tries outside an operation (the admission, the jobs), more inside one, and a refusal no retry', async () => {
    // Prepare
    const outside = simulatedDynamo(() => 'TransactionInProgressException');
    const inside = simulatedDynamo(() => 'TransactionInProgressException');
    const refused = simulatedDynamo(() => 'TransactionCanceledException');

    // Act
    const errors = [
      await settle(outside.documentClient.send(transaction())),
      await settle(withinDeadline(inside.now() + 8_000, () => inside.documentClient.send(transaction()))),
      await settle(withinDeadline(refused.now() + 8_000, () => refused.documentClient.send(transaction()))),
    ];

    // Assess
    expect(errors.map((error) => error?.name)).toEqual(['TransactionInProgressException', 'TransactionInProgressException', 'TransactionCanceledException']);
    expect(outside.tries).toHaveLength(DYNAMO_CLIENT_CONFIG.maxAttempts);
    expect(inside.tries.length).toBeGreaterThan(DYNAMO_CLIENT_CONFIG.maxAttempts);
    expect(refused.tries).toHaveLength(1);
  });
});

describe('retry budget: the standard rule is the SDK’s', () => {
  beforeEach(simulateTime);

  it('takes from the retry quota what the SDK’s StandardRetryStrategy takes and gives back, and nothing for a transaction in progress inside an operation', async () => {
    // Prepare: the deployed strategy and the SDK's own, on wires answering the same: a call in progress to the end, then
    // a call in progress once and then applied.
    const sequence = () => {
      const answers = ['TransactionInProgressException', 'TransactionInProgressException', 'TransactionInProgressException', 'TransactionInProgressException'];
      return () => answers.shift();
    };
    const ours = simulatedDynamo(sequence());
    const sdk = simulatedDynamo(sequence(), new StandardRetryStrategy(DYNAMO_CLIENT_CONFIG.maxAttempts));
    const full = sdk.strategy.getCapacity();

    // Act
    const outside = [await settle(ours.documentClient.send(transaction())), await settle(ours.documentClient.send(transaction()))];
    await settle(sdk.documentClient.send(transaction()));
    await settle(sdk.documentClient.send(transaction()));
    const afterOutside = ours.strategy.getCapacity();
    const inside = simulatedDynamo(() => 'TransactionInProgressException', ours.strategy);
    const insideError = await settle(withinDeadline(inside.now() + 8_000, () => inside.documentClient.send(transaction())));

    // Assess
    expect(outside.map((error) => error?.name)).toEqual(['TransactionInProgressException', undefined]);
    expect(afterOutside).toBe(sdk.strategy.getCapacity());
    expect(afterOutside).toBeLessThan(full);
    expect(insideError?.name).toBe('TransactionInProgressException');
    expect(inside.tries.length).toBeGreaterThan(DYNAMO_CLIENT_CONFIG.maxAttempts);
    expect(ours.strategy.getCapacity()).toBe(afterOutside);
  });
});

describe('retry budget: where it comes from', () => {
  it('gives each client built from DYNAMO_CLIENT_CONFIG a strategy of its own', async () => {
    // Act
    const a = new DynamoDBClient({ ...DYNAMO_CLIENT_CONFIG, region: 'eu-west-1' });
    const b = new DynamoDBClient({ ...DYNAMO_CLIENT_CONFIG, region: 'eu-west-1' });

    // Assess
    const [strategyA, strategyB] = await Promise.all([a.config.retryStrategy(), b.config.retryStrategy()]);
    expect(strategyA).toBeInstanceOf(DynamoRetryStrategy);
    expect(strategyB).toBeInstanceOf(DynamoRetryStrategy);
    expect(strategyA).not.toBe(strategyB);
    a.destroy();
    b.destroy();
  });

  it('gives an operation the function’s deadline less the response reserve, from the Lambda context', async () => {
    // Prepare: the clock held; the context says 10 s remain.
    const ddbMock = mockClient(DynamoDBDocumentClient);
    captureLogs();
    vi.useFakeTimers({ now: 1_700_000_000_000, toFake: ['Date'] });
    let seen: number | undefined;
    const platform = createPlatform({ documentClient, tables: TABLES, edgeGuard: undefined });
    const handler = createPartnerApiHandler({
      contracts: ROUTE_CONTRACTS,
      routes: ROUTES,
      operations: {
        health: async () => {
          seen = currentDeadline();
          return { data: { status: 'ok' } };
        },
      },
      platform: () => platform,
    });

    // Act
    const response = await handler(proxyEvent({ path: '/health' }), lambdaContext());

    // Assess
    expect(parseBody(response)).toMatchObject({ ok: true });
    expect(seen).toBe(1_700_000_000_000 + 10_000 - 2_000);
    expect(currentDeadline()).toBeUndefined();
    ddbMock.restore();
  });
});
