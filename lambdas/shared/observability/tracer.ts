/**
 * X-Ray tracing with Powertools Tracer: the handler (invocation.ts) and the
 * AWS clients (DynamoDB, SQS, Step Functions, KMS) the functions build.
 *
 * The Tracer is loaded only where it can trace, a Lambda function whose
 * tracing is not switched off (POWERTOOLS_TRACE_ENABLED=false). Elsewhere it
 * would be a no-op that still costs: its X-Ray SDK installs an async hook on
 * load that runs on every promise of the process (measured: several times
 * the cost of a request's awaits), which the local stack, the tests and the
 * benchmark must not pay. So it is imported on the first invocation
 * (invocation.ts awaits `loadTracer()` before the handler), and the AWS
 * clients, all built on first use inside an invocation, are captured then.
 *
 * Not captured: outgoing HTTPS (webhook receivers would get our trace
 * header) and handler responses (they hold keys and secrets shown once).
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from './metric-catalog';

let tracer: Tracer | undefined;
let loading: Promise<Tracer | undefined> | undefined;

/** Whether this process traces: inside Lambda, unless Powertools' switch is off or SAM runs it locally. */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.AWS_EXECUTION_ENV !== undefined && env.AWS_SAM_LOCAL === undefined && env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== 'false';
}

/** The container's tracer, loaded on first call where tracing is wanted; undefined elsewhere. */
export function loadTracer(): Promise<Tracer | undefined> {
  if (!tracingWanted()) return Promise.resolve(undefined);
  loading ??= import('@aws-lambda-powertools/tracer').then(({ Tracer: PowertoolsTracer }) => {
    tracer = new PowertoolsTracer({ serviceName: SERVICE_NAME, captureHTTPsRequests: false });
    return tracer;
  });
  return loading;
}

/** The loaded tracer, if any (after the invocation's `loadTracer()`). */
export const activeTracer = (): Tracer | undefined => tracer;

/** An AWS SDK v3 client whose calls are traced, when the tracer is loaded; the client itself otherwise. */
export function traceAwsClient<T>(client: T): T {
  return tracer ? tracer.captureAWSv3Client(client) : client;
}
