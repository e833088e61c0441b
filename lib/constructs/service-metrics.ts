/**
 * The service's own metrics (lambdas/shared/observability/metric-catalog.ts)
 * as CloudWatch metric objects for the alarms and the dashboard. CloudWatch
 * matches a metric only by its full set of dimensions, so a query names
 * exactly the catalog's set (the stage plus the metric's own), checked here
 * when the stack is built rather than discovered as an empty graph.
 */
import type { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { commonDimensions, METRICS, METRIC_NAMESPACE, SERVICE_DIMENSION, SERVICE_NAME, STAGE_DIMENSION, type MetricId } from '../../lambdas/shared/observability/metric-catalog';

/** The dimensions a metric of the catalog carries besides `stage`, each with its value. */
export type ServiceDimensions<Id extends MetricId> = { readonly [K in (typeof METRICS)[Id]['dimensions'][number]]: string };

export interface ServiceMetricOptions {
  readonly statistic: string;
  readonly period: Duration;
  readonly label?: string;
}

/** One metric of the catalog for one stage and one combination of its dimensions. */
export function serviceMetric<Id extends MetricId>(stage: string, id: Id, dimensions: ServiceDimensions<Id>, options: ServiceMetricOptions): cloudwatch.Metric {
  const spec = METRICS[id];
  const given = Object.keys(dimensions).sort();
  const expected = [...spec.dimensions].sort();
  if (given.join(',') !== expected.join(',')) {
    throw new Error(`serviceMetric ${spec.name}: dimensions ${given.join(', ') || '(none)'} given, the catalog has ${expected.join(', ') || '(none)'}`);
  }
  return new cloudwatch.Metric({
    namespace: METRIC_NAMESPACE,
    metricName: spec.name,
    dimensionsMap: { ...commonDimensions(stage), ...(dimensions as Record<string, string>) },
    statistic: options.statistic,
    period: options.period,
    ...(options.label ? { label: options.label } : {}),
  });
}

/**
 * Every series of one catalog metric of a stage, whatever its dimension values (a SEARCH
 * expression: dashboards only, alarms cannot use one). For outcomes whose values the code may
 * extend, so a new outcome appears on the graph without a change here.
 */
export function serviceMetricSearch(stage: string, id: MetricId, options: ServiceMetricOptions): cloudwatch.SearchExpression {
  const spec = METRICS[id];
  const schema = [METRIC_NAMESPACE, SERVICE_DIMENSION, STAGE_DIMENSION, ...spec.dimensions].join(',');
  return new cloudwatch.SearchExpression({
    expression: `SEARCH('{${schema}} MetricName="${spec.name}" ${SERVICE_DIMENSION}="${SERVICE_NAME}" ${STAGE_DIMENSION}="${stage}"', '${options.statistic}', ${options.period.toSeconds()})`,
    period: options.period,
    // A dynamic label per series: its dimension values (`failed 8`), not the expression.
    label: options.label ?? spec.dimensions.map((dimension) => `\${PROP('Dim.${dimension}')}`).join(' '),
  });
}
