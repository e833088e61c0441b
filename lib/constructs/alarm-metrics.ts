/**
 * The metrics the stage's alarms watch (observability.ts), built once so the
 * dashboard (dashboard.ts) graphs exactly what an alarm evaluates: the 5XX
 * rate of a REST API, the rate of webhook deliveries that finally failed,
 * WAF blocks of a rule, a table's throttled requests.
 */
import { Duration } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { DeliveryStatus } from '../../lambdas/webhooks/webhook-items';
import { serviceMetric } from './service-metrics';

/** The period of every alarm but the webhook failure rate. */
export const ALARM_PERIOD = Duration.minutes(5);
/** Deliveries end slowly (the last of 8 attempts comes about 22 hours after the first): their failure rate is taken per hour. */
export const DELIVERY_FAILURE_PERIOD = Duration.hours(1);
/** Delivery outcomes that end a delivery (WebhookDeliveries `outcome`), as webhook-items.ts names them. */
export const ENDED_DELIVERY_OUTCOMES = ['delivered', 'failed', 'cancelled'] as const satisfies readonly DeliveryStatus[];

/**
 * Operations the service issues. An alarm's metric math may use at most 10
 * metrics, so the sum covers these rather than every DynamoDB operation.
 */
export const TABLE_OPERATIONS = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
  dynamodb.Operation.TRANSACT_GET_ITEMS,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
];

/** The 5XX rate of one REST API stage in percent, 0 while it answered fewer than `minRequests` (the alarm's math, also graphed). */
export function api5xxRate(stage: apigateway.Stage, minRequests: number, period: Duration = ALARM_PERIOD): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: `IF(requests >= ${minRequests}, 100 * FILL(errors, 0) / requests, 0)`,
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
