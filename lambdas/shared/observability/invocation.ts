/**
 * What every invocation of every function gets, the API pipeline
 * (http/pipeline.ts) and the jobs (`observedJob`) alike, as the first middy
 * middleware (its after and onError hooks run last):
 *
 * - the Lambda invocation's facts in the request scope, for every log line;
 * - debug sampling re-decided for the invocation (Powertools Logger);
 * - on a container's first invocation, Powertools' ColdStart metric;
 * - the X-Ray handler subsegment (Powertools' captureLambdaHandler, in
 *   Lambda only: tracer.ts). An error the pipeline answered below 500 is an
 *   answer, not a fault: the trace closes as for any response;
 * - one metrics flush when the invocation ends, whatever happened, and the
 *   invocation's lines and documents written before it returns: Powertools
 *   starts loading at its start (beside the request's first round trip) and
 *   is awaited last (output.ts).
 *
 * Powertools' own injectLambdaContext and logMetrics middlewares are not
 * used: they keep the invocation's context and metrics on the shared
 * instances, which the local stack's and the tests' concurrent requests
 * would mix, and logMetrics flushes one dimension set only (metrics.ts).
 */
import { randomUUID } from 'node:crypto';
import type { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from './logger';
import { publishColdStart, publishScopeMetrics } from './metrics';
import { serviceOutput } from './output';
import { currentRequestScope, runInRequestScope } from './request-scope';
import { activeTracer, loadTracer, tracingWanted } from './tracer';

/** The container's first invocation, unless provisioned concurrency started it ahead of time (as Powertools counts cold starts). */
let coldStart = process.env.AWS_LAMBDA_INITIALIZATION_TYPE !== 'provisioned-concurrency';

type Tracing = ReturnType<typeof captureLambdaHandler>;
let handlerTracing: Tracing | undefined;

async function startTracing(request: Request): Promise<void> {
  const tracer = await loadTracer();
  if (!tracer) return;
  // The middleware with the tracer: only where there is one to load (tracer.ts).
  const { captureLambdaHandler: capture } = await import('@aws-lambda-powertools/tracer/middleware');
  handlerTracing ??= capture(tracer, { captureResponse: false });
  await handlerTracing.before?.(request);
}

/** The status of an answered request, if the response is an HTTP one. */
const answeredStatus = (response: unknown): number | undefined =>
  typeof response === 'object' && response !== null && 'statusCode' in response && typeof response.statusCode === 'number' ? response.statusCode : undefined;

async function finish(): Promise<void> {
  try {
    publishScopeMetrics();
  } catch (error) {
    // Metrics never fail a request that was answered.
    logger.error('metrics not published', { error });
  }
  // Every line and document of the invocation is written before it returns.
  await serviceOutput.written();
}

/** The middleware (see the module header). Attach it first. */
export function observability<TEvent, TResult, TContext extends Context = Context>(): MiddlewareObj<TEvent, TResult, Error, TContext> {
  return {
    before: (request) => {
      const context: Partial<Context> = request.context ?? {};
      const cold = coldStart;
      coldStart = false;
      // Powertools loads while the request's first round trip is in flight (output.ts).
      serviceOutput.start();
      const scope = currentRequestScope();
      if (scope) scope.invocation = { functionName: context.functionName, functionRequestId: context.awsRequestId, coldStart: cold };
      logger.refreshSampleRateCalculation();
      if (cold) publishColdStart(context.functionName);
      // Outside Lambda nothing is awaited: the hot path stays synchronous.
      return tracingWanted() ? startTracing(request) : undefined;
    },
    after: async (request) => {
      if (activeTracer()) await handlerTracing?.after?.(request);
      await finish();
    },
    onError: async (request) => {
      if (activeTracer()) {
        const status = answeredStatus(request.response);
        await (status !== undefined && status < 500 ? handlerTracing?.after?.(request) : handlerTracing?.onError?.(request));
      }
      await finish();
    },
  };
}

/** Lambda's longest timeout: a local job's time never runs out sooner. */
const LOCAL_REMAINING_MS = 900_000;

/**
 * The context a job gets when the local stack calls it directly (no Lambda runtime): it names the job and
 * has Lambda's longest time left (finite: middy times the handler out from it).
 */
function localContext(job: string): Context {
  const name = `partner-api-local-${job}`;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: '0',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => LOCAL_REMAINING_MS,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * A scheduled or event-driven job's handler with the same observability as the API (its own request
 * scope, keyed by the Lambda request id). The local stack may call it without a context.
 */
export function observedJob<TEvent, TResult>(job: string, run: (event: TEvent, context: Context) => Promise<TResult>): (event: TEvent, context?: Context) => Promise<TResult> {
  const handler = middy<TEvent, TResult, Error, Context>().use(observability<TEvent, TResult>()).handler(run);
  return (event, context) => {
    const invocation = context ?? localContext(job);
    return runInRequestScope(invocation.awsRequestId, () => handler(event, invocation));
  };
}
