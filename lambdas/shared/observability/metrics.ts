/**
 * The service's CloudWatch metrics, exactly the catalog (metric-catalog.ts),
 * written as embedded metric format by Powertools Metrics.
 *
 * Code records a point where the fact happens (`recordMetric`): the point
 * waits in the request scope, and the invocation's end publishes all of them
 * at once (`publishScopeMetrics`, from invocation.ts): one EMF document per
 * set of dimension values, since a document's dimensions apply to all its
 * metrics and each metric has only its own. The documents are written in
 * one synchronous run on the shared Powertools instance, so the concurrent
 * requests of the local stack and the tests cannot mix their values.
 *
 * Every document carries `service` (Powertools), `stage` (the function's
 * STAGE) and the metric's own dimensions in the catalog's order, and the
 * request id as metadata (not a dimension: it finds the call log line).
 *
 * Written only inside Lambda (AWS_LAMBDA_FUNCTION_NAME, which the runtime
 * sets in every function whatever the stack says, so no setting can turn
 * metrics off in a deployed stage): the local stack and the tests record
 * the same points and print nothing, unless a test sets the variable to read
 * the documents.
 *
 * Powertools Metrics is not in a cold start's modules: the documents go
 * through the process's output (output.ts) with the log lines, in the order
 * asked, once it has loaded; a document that waited carries the time it was
 * asked.
 */
import { stageOfFunction } from './log-settings';
import { LOGGER_SETTINGS, logger } from './logger';
import type { MetricSpec } from './metric-catalog';
import { serviceOutput } from './output';
import { currentRequestScope, type MetricPoint, type RequestScope } from './request-scope';

/** A dimension value no point may leave empty (EMF drops empty values, and with them the metric's dimension set). */
const MISSING = 'none';

export { stageOfFunction } from './log-settings';

/** Read when this module loads, as Powertools' Metrics read it when it was built here. */
const STAGE = stageOfFunction();

/** Whether this process writes EMF: only a Lambda function's (see the module header). */
export const writesMetrics = (env: NodeJS.ProcessEnv = process.env) => env.AWS_LAMBDA_FUNCTION_NAME !== undefined;

/** The values of a metric's own dimensions, by name. */
export type DimensionValues<M extends MetricSpec> = { readonly [D in M['dimensions'][number]]: string };

/** Count `value` of `metric` for the current invocation (nothing outside one). */
export function recordMetric<M extends MetricSpec>(metric: M, dimensions: DimensionValues<M>, value = 1): void {
  currentRequestScope()?.metrics.push({ metric, dimensions, value });
}

/** The points grouped by their full set of dimension values, each group one EMF document, in the order first recorded. */
export function metricDocuments(points: readonly MetricPoint[]): { dimensions: [string, string][]; points: MetricPoint[] }[] {
  const groups = new Map<string, { dimensions: [string, string][]; points: MetricPoint[] }>();
  for (const point of points) {
    const dimensions = point.metric.dimensions.map((name): [string, string] => [name, point.dimensions[name] || MISSING]);
    const key = JSON.stringify(dimensions);
    const group = groups.get(key);
    if (group) group.points.push(point);
    else groups.set(key, { dimensions, points: [point] });
  }
  return [...groups.values()];
}

/** Publish the scope's points (once per invocation), emptying them. */
export function publishScopeMetrics(scope: RequestScope | undefined = currentRequestScope()): void {
  if (!scope || scope.metrics.length === 0) return;
  const points = scope.metrics.splice(0);
  if (!writesMetrics()) return;
  serviceOutput.write(({ serviceMetrics }, askedAt) => {
    try {
      const metrics = serviceMetrics(STAGE, LOGGER_SETTINGS);
      for (const document of metricDocuments(points)) {
        if (document.dimensions.length > 0) metrics.addDimensions(Object.fromEntries(document.dimensions));
        metrics.addMetadata('request_id', scope.requestId);
        for (const point of document.points) metrics.addMetric(point.metric.name, point.metric.unit, point.value);
        // Published documents clear it: set for each (Powertools' own default is the time of publishing).
        if (askedAt) metrics.setTimestamp(askedAt);
        metrics.publishStoredMetrics();
      }
    } catch (error) {
      // Metrics never fail a request that was answered, also when written after it (invocation.ts).
      logger.error('metrics not published', { error });
    }
  });
}

/** The container's first invocation: Powertools' ColdStart metric, by function (METRICS.coldStarts). */
export function publishColdStart(functionName: string | undefined): void {
  if (writesMetrics() && functionName) serviceOutput.write(({ serviceMetrics }) => serviceMetrics(STAGE, LOGGER_SETTINGS).captureColdStartMetric(functionName));
}

