/**
 * Tracing: nothing at all outside Lambda (the X-Ray SDK is not even loaded,
 * so its process-wide async hook costs the local stack, the tests and the
 * benchmark nothing), and in Lambda Powertools Tracer capturing the AWS
 * clients the functions build on first use.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { activeTracer, loadTracer, traceAwsClient, tracingWanted } from '../../../lambdas/shared/observability/tracer';
import { createDocumentClient } from '../../../lambdas/shared/storage/dynamo-client';

/** cls-hooked registers the X-Ray SDK's namespace here when the SDK loads. */
const xraySdkLoaded = () => 'AWSXRay' in ((process as { namespaces?: Record<string, unknown> }).namespaces ?? {});
const middlewareNames = (client: DynamoDBClient) => client.middlewareStack.identify().join('\n');

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('tracing', () => {
  it('is wanted only in Lambda, unless switched off', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x' })).toBe(true);
    expect(tracingWanted({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x', POWERTOOLS_TRACE_ENABLED: 'false' })).toBe(false);
    expect(tracingWanted({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x', AWS_SAM_LOCAL: 'true' })).toBe(false);
  });

  // The two cases share the module's one tracer: outside Lambda first, then as in Lambda.
  it('outside Lambda loads nothing and leaves clients as they are', async () => {
    vi.stubEnv('AWS_EXECUTION_ENV', undefined);
    expect(await loadTracer()).toBeUndefined();
    const client = new DynamoDBClient({ region: 'eu-west-1' });
    const before = middlewareNames(client);
    expect(traceAwsClient(client)).toBe(client);
    expect(middlewareNames(client)).toBe(before);
    expect(xraySdkLoaded()).toBe(false);
  });

  it('in Lambda loads Powertools Tracer once and captures the DynamoDB client the platform builds', async () => {
    vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs24.x');
    const [first, second] = await Promise.all([loadTracer(), loadTracer()]);
    expect(first).toBeDefined();
    expect(second).toBe(first);
    expect(activeTracer()).toBe(first);
    expect(first?.isTracingEnabled()).toBe(true);
    expect(xraySdkLoaded()).toBe(true);

    const client = new DynamoDBClient({ region: 'eu-west-1' });
    createDocumentClient(client);
    expect(middlewareNames(client)).toContain('XRaySDKInstrumentation');
    // The per-request accounting stays next to it.
    expect(middlewareNames(client)).toContain('partnerApiDynamoAccounting');
  });
});
