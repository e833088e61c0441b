/**
 * The metrics as CloudWatch reads them: embedded metric format documents of
 * the catalog's namespace, each metric with exactly `service`, `stage` and
 * its own dimensions, one document per set of dimension values, published
 * once when the invocation ends (also when it fails), the ColdStart metric
 * once per container, and nothing written outside Lambda.
 */
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recordReconcilerMetrics } from '../../../lambdas/jobs/claim-reconciler/handler';
import { observedJob } from '../../../lambdas/shared/observability/invocation';
import { logger } from '../../../lambdas/shared/observability/logger';
import { METRIC_NAMESPACE, METRICS, SERVICE_NAME, type MetricSpec } from '../../../lambdas/shared/observability/metric-catalog';
import { publishScopeMetrics, recordMetric } from '../../../lambdas/shared/observability/metrics';
import { currentRequestScope, runInRequestScope } from '../../../lambdas/shared/observability/request-scope';
import { captureLogs, type EmfDocument } from '../../support/log-capture';

// Read when the metrics module loads: the stage dimension, and whether this container's start is a cold start.
const saved = vi.hoisted(() => {
  const before = { STAGE: process.env.STAGE, AWS_LAMBDA_INITIALIZATION_TYPE: process.env.AWS_LAMBDA_INITIALIZATION_TYPE };
  process.env.STAGE = 'unit';
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
  return before;
});
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** In Lambda: the runtime sets the function's name. */
const asInLambda = () => vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'partner-api-unit-fn');

beforeEach(() => {
  vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', undefined);
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const context = (awsRequestId: string): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'partner-api-unit-fn',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:partner-api-unit-fn',
  memoryLimitInMB: '512',
  awsRequestId,
  logGroupName: '/aws/lambda/partner-api-unit-fn',
  logStreamName: 'unit',
  getRemainingTimeInMillis: () => 30_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

/** The one directive of a document (Powertools writes one per document). */
const directive = (document: EmfDocument) => {
  expect(document._aws.CloudWatchMetrics).toHaveLength(1);
  return document._aws.CloudWatchMetrics[0];
};

/** The document carrying `metric`. */
const documentOf = (documents: EmfDocument[], metric: MetricSpec) => {
  const found = documents.filter((document) => directive(document).Metrics.some((m) => m.Name === metric.name));
  expect(found, metric.name).toHaveLength(1);
  return found[0];
};

const inScope = (fn: () => void) =>
  runInRequestScope('req-metrics', async () => {
    fn();
    publishScopeMetrics();
  });

describe('embedded metric format', () => {
  it('writes one document per set of dimension values, values of one set together', async () => {
    // Prepare
    asInLambda();
    const logs = captureLogs();

    // Act
    await inScope(() => {
      recordMetric(METRICS.requests, { route: 'me', status_class: '2xx' });
      recordMetric(METRICS.requestLatency, { route: 'me' }, 12);
      recordMetric(METRICS.requests, { route: 'me', status_class: '2xx' });
      recordMetric(METRICS.requests, { route: 'me', status_class: '4xx' });
    });

    // Assess
    const documents = logs.metrics();
    expect(documents).toHaveLength(3);
    expect(documents.map((d) => ({ dimensions: directive(d).Dimensions, metrics: directive(d).Metrics, namespace: directive(d).Namespace }))).toEqual([
      { namespace: METRIC_NAMESPACE, dimensions: [['service', 'stage', 'route', 'status_class']], metrics: [{ Name: 'Requests', Unit: 'Count' }] },
      { namespace: METRIC_NAMESPACE, dimensions: [['service', 'stage', 'route']], metrics: [{ Name: 'RequestLatency', Unit: 'Milliseconds' }] },
      { namespace: METRIC_NAMESPACE, dimensions: [['service', 'stage', 'route', 'status_class']], metrics: [{ Name: 'Requests', Unit: 'Count' }] },
    ]);
    expect(documents[0]).toMatchObject({ service: SERVICE_NAME, stage: 'unit', route: 'me', status_class: '2xx', Requests: [1, 1], request_id: 'req-metrics' });
    expect(documents[1]).toMatchObject({ route: 'me', RequestLatency: 12 });
    expect(documents[1]).not.toHaveProperty('status_class');
    expect(documents[2]).toMatchObject({ status_class: '4xx', Requests: 1 });
    expect(Math.abs(documents[0]._aws.Timestamp - Date.now())).toBeLessThan(60_000);
  });

  it('writes every metric of the catalog with exactly service, stage and its own dimensions, in the catalog order and unit', async () => {
    // Prepare
    asInLambda();
    const logs = captureLogs();
    const recorded: MetricSpec[] = Object.values(METRICS).filter((metric) => metric !== METRICS.coldStarts);

    // Act
    await inScope(() => {
      for (const metric of recorded) recordMetric(metric, Object.fromEntries(metric.dimensions.map((d) => [d, `${d}-value`])), 3);
    });

    // Assess
    const documents = logs.metrics();
    for (const metric of recorded) {
      const document = documentOf(documents, metric);
      expect(directive(document).Dimensions, metric.name).toEqual([['service', 'stage', ...metric.dimensions]]);
      expect(directive(document).Metrics.find((m) => m.Name === metric.name)).toEqual({ Name: metric.name, Unit: metric.unit });
      expect(document[metric.name]).toBe(3);
      for (const d of metric.dimensions) expect(document[d]).toBe(`${d}-value`);
    }
  });

  it('never writes an empty dimension value (EMF would drop the dimension)', async () => {
    asInLambda();
    const logs = captureLogs();
    await inScope(() => recordMetric(METRICS.quotaRejections, { policy: '' }));
    expect(logs.metrics()[0]).toMatchObject({ policy: 'none', QuotaRejections: 1 });
    expect(directive(logs.metrics()[0]).Dimensions).toEqual([['service', 'stage', 'policy']]);
  });

  it('writes nothing outside Lambda (the local stack, the tests), and drops the points all the same', async () => {
    const logs = captureLogs();
    let left = -1;
    await runInRequestScope('req-local', async () => {
      recordMetric(METRICS.requests, { route: 'me', status_class: '2xx' });
      publishScopeMetrics();
      left = (currentRequestScope() as NonNullable<ReturnType<typeof currentRequestScope>>).metrics.length;
    });
    expect(logs.text()).toBe('');
    expect(left).toBe(0);
  });

  it('records nothing outside an invocation', () => {
    asInLambda();
    const logs = captureLogs();
    recordMetric(METRICS.requests, { route: 'me', status_class: '2xx' });
    publishScopeMetrics();
    expect(logs.text()).toBe('');
  });
});

describe('a job invocation (observedJob)', () => {
  it('publishes once at the end, ColdStart on the container first invocation only, and a failed run all the same', async () => {
    // Prepare
    asInLambda();
    const logs = captureLogs();
    let publishedBeforeReturn = -1;
    const job = observedJob('unit-job', async (event: { fail: boolean }) => {
      recordMetric(METRICS.claimingBacklog, {}, 1);
      recordMetric(METRICS.claimingBacklog, {}, 2);
      logger.info('job ran');
      publishedBeforeReturn = logs.metrics().filter((d) => 'ClaimingBacklog' in d).length;
      if (event.fail) throw new Error('job failed');
      return 'done';
    });

    // Act
    const first = await job({ fail: false }, context('aws-req-1'));
    const second = job({ fail: true }, context('aws-req-2'));

    // Assess
    expect(first).toBe('done');
    await expect(second).rejects.toThrow('job failed');
    expect(publishedBeforeReturn).toBe(1);
    const documents = logs.metrics();
    const coldStarts = documents.filter((d) => 'ColdStart' in d);
    expect(coldStarts).toHaveLength(1);
    expect(directive(coldStarts[0])).toMatchObject({ Namespace: METRIC_NAMESPACE, Dimensions: [['service', 'stage', ...METRICS.coldStarts.dimensions]], Metrics: [{ Name: METRICS.coldStarts.name, Unit: 'Count' }] });
    expect(coldStarts[0]).toMatchObject({ service: SERVICE_NAME, stage: 'unit', function_name: 'partner-api-unit-fn', ColdStart: 1 });
    expect(documents.filter((d) => 'ClaimingBacklog' in d).map((d) => [d.request_id, d.ClaimingBacklog])).toEqual([
      ['aws-req-1', [1, 2]],
      ['aws-req-2', [1, 2]],
    ]);
    expect(logs.lines().find((line) => line.message === 'job ran')).toMatchObject({
      request_id: 'aws-req-1',
      function_name: 'partner-api-unit-fn',
      function_request_id: 'aws-req-1',
      cold_start: true,
    });
  });

  it('runs without a Lambda context (the local stack calls jobs directly)', async () => {
    const logs = captureLogs();
    const job = observedJob('unit-local-job', async (_event: unknown, ctx: Context) => {
      logger.info('local run', { remaining_ms: ctx.getRemainingTimeInMillis() });
      return ctx.functionName;
    });
    expect(await job({})).toBe('partner-api-local-unit-local-job');
    expect(logs.lines()).toEqual([expect.objectContaining({ message: 'local run', remaining_ms: 900_000, function_name: 'partner-api-local-unit-local-job' })]);
  });
});

describe('the claim reconciler run', () => {
  it('counts its outcomes, the claims still claiming and the oldest one age, zeros included', async () => {
    // Prepare
    asInLambda();
    const logs = captureLogs();

    // Act
    await inScope(() => recordReconcilerMetrics({ found: 6, joined: 2, deferred: 1, cleared: 0, claiming: 3, oldestClaimingAgeSeconds: 75 }));

    // Assess
    const documents = logs.metrics();
    expect(documents.filter((d) => 'ReconcilerOutcomes' in d).map((d) => [d.outcome, d.ReconcilerOutcomes])).toEqual([
      ['joined', 2],
      ['deferred', 1],
      ['cleared', 0],
    ]);
    const backlog = documentOf(documents, METRICS.claimingBacklog);
    expect(directive(backlog).Dimensions).toEqual([['service', 'stage']]);
    expect(backlog).toMatchObject({ ClaimingBacklog: 3, ClaimingOldestAgeSeconds: 75 });
    expect(directive(backlog).Metrics).toEqual([
      { Name: 'ClaimingBacklog', Unit: 'Count' },
      { Name: 'ClaimingOldestAgeSeconds', Unit: 'Seconds' },
    ]);
  });
});
