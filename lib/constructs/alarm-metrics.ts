/**
 * The metrics the stage's alarms watch (observability.ts), built once so the
 * dashboard (dashboard.ts) graphs exactly what an alarm evaluates: the 5XX
 * rate of a REST API, the rate of webhook deliveries that finally failed,
 * WAF blocks of a rule, the throttle events of a table and of each index.
 *
 * Every term of a sum is filled (`FILL(m, 0)`): metric math has no value for a
 * period where any operand has none, so an unfilled sum is empty exactly when
 * only some of its metrics have data, and a "not breaching" alarm stays OK.
 * lib/compliance/deploy-readiness (`alarm-metric-math`) refuses an unfilled term
 * and more than CloudWatch's 10 metrics per alarm on every synthesis.
 */
import { Duration } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { DeliveryStatus } from '../../lambdas/webhooks/webhook-items';
import { serviceMetric } from './service-metrics';

/** The period of every alarm but the webhook failure rate. */
export const ALARM_PERIOD = Duration.minutes(5);
/** Deliveries end slowly (the last of 8 attempts comes about 22 hours after the first): their failure rate is taken per hour. */
export const DELIVERY_FAILURE_PERIOD = Duration.hours(1);
/** Delivery outcomes that end a delivery (WebhookDeliveries `outcome`), as webhook-items.ts names them. */
export const ENDED_DELIVERY_OUTCOMES = ['delivered', 'failed', 'cancelled'] as const satisfies readonly DeliveryStatus[];

/**
 * Read and write throttle events of a table (no index) or of one of its global secondary indexes,
 * summed (the alarm's math, also graphed). DynamoDB publishes them per table (dimension TableName)
 * and per index (TableName and GlobalSecondaryIndexName, which the table's series leaves out), over
 * every operation, in two metrics where ThrottledRequests takes one per operation: hence an alarm
 * for the table and one per index.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/metrics-dimensions.html
 */
export function throttleEvents(tableName: string, indexName?: string, period: Duration = ALARM_PERIOD): cloudwatch.MathExpression {
  const dimensionsMap: Record<string, string> = { TableName: tableName, ...(indexName ? { GlobalSecondaryIndexName: indexName } : {}) };
  const metric = (metricName: string) => new cloudwatch.Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap, statistic: cloudwatch.Stats.SUM, period });
  // Ids unique per table or index: a graph holds the table's and every index's sum, and ids may not repeat in one widget.
  const id = (indexName ?? 'table').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^([^a-z])/, 'i_$1');
  return new cloudwatch.MathExpression({
    expression: `FILL(${id}_reads, 0) + FILL(${id}_writes, 0)`,
    usingMetrics: { [`${id}_reads`]: metric('ReadThrottleEvents'), [`${id}_writes`]: metric('WriteThrottleEvents') },
    period,
    label: indexName ?? 'table',
  });
}

/** The 5XX rate of one REST API stage in percent, 0 while it answered fewer than `minRequests` (the alarm's math, also graphed). */
export function api5xxRate(stage: apigateway.Stage, minRequests: number, period: Duration = ALARM_PERIOD): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    // Both filled: with no request at all the rate is 0, not missing.
    expression: `IF(FILL(requests, 0) >= ${minRequests}, 100 * FILL(errors, 0) / FILL(requests, 0), 0)`,
    usingMetrics: {
      errors: stage.metricServerError({ period, statistic: cloudwatch.Stats.SUM }),
      requests: stage.metricCount({ period, statistic: cloudwatch.Stats.SUM }),
    },
    period,
    label: `5XX % (from ${minRequests} requests)`,
  });
}

/** Deliveries that ended `failed` in percent of all that ended, 0 below `minDeliveries` (the alarm's math, also graphed). */
export function webhookFailureRate(stage: string, minDeliveries: number): cloudwatch.MathExpression {
  const period = DELIVERY_FAILURE_PERIOD;
  const ended = ENDED_DELIVERY_OUTCOMES.map((outcome) => `FILL(${outcome}, 0)`).join(' + ');
  return new cloudwatch.MathExpression({
    expression: `IF(${ended} >= ${minDeliveries}, 100 * FILL(failed, 0) / (${ended}), 0)`,
    usingMetrics: Object.fromEntries(
      ENDED_DELIVERY_OUTCOMES.map((outcome) => [outcome, serviceMetric(stage, 'webhookDeliveries', { outcome }, { statistic: cloudwatch.Stats.SUM, period })]),
    ),
    period,
    label: `finally failed % (from ${minDeliveries} ended deliveries an hour)`,
  });
}

/** WAF's blocked requests of one rule (or `ALL`) of a regional web ACL. */
export function wafBlockedRequests(region: string, webAclName: string, rule: string, period: Duration = ALARM_PERIOD): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: 'AWS/WAFV2',
    metricName: 'BlockedRequests',
    dimensionsMap: { WebACL: webAclName, Rule: rule, Region: region },
    period,
    statistic: cloudwatch.Stats.SUM,
  });
}
