/**
 * Alarms of a stage, from the stage config: API 5XX count and p99 latency on
 * the `v1` stage of each REST API (the partner API and the web side), errors
 * and throttles of the function of every endpoint group of both, throttled
 * requests of every table, and blocks by the Region-wide WAF rules of each
 * web ACL (today only the partner ACL has one: it counts only malformed
 * credentials, so a block means a junk-credential flood is being shed, never
 * that valid keys are refused), messages in a dead-letter queue (work given
 * up on: webhook deliveries the worker could not handle, stream batches the
 * fan-out could not process) and failed executions of a state machine (a
 * webhook retry that could not be queued). With `notifyEmail`, an SNS topic with an
 * e-mail subscription receives ALARM and OK transitions. Nothing is created
 * when alarms are disabled (dev and ephemeral stages).
 *
 * Missing data is "not breaching": a quiet API is not an incident.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { StageConfig } from '../config/stage-config';

/** A REST API stage to watch; `alarmPrefix` names its alarms (`<prefix>-5xx`, `<prefix>-p99-latency`). */
export interface ObservedApi {
  readonly alarmPrefix: string;
  readonly stage: apigateway.Stage;
}

/** A web ACL and the WAF rules whose blocks an operator must hear about (by their metric names). */
export interface ObservedEdge {
  readonly webAclName: string;
  readonly alarmingRuleMetricNames: readonly string[];
}

export interface ObservabilityProps {
  readonly config: StageConfig;
  /** Every REST API of the stage. */
  readonly apis: readonly ObservedApi[];
  /** Functions by a short name used in alarm names (e.g. the endpoint group). */
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  /** Tables by id. */
  readonly tables: Readonly<Record<string, dynamodb.ITableV2>>;
  /** Every web ACL of the stage. */
  readonly edges?: readonly ObservedEdge[];
  /** Dead-letter queues by a short name (`<name>-dlq-messages`): one visible message is an incident. */
  readonly deadLetterQueues?: Readonly<Record<string, sqs.IQueue>>;
  /** State machines by a short name (`<name>-executions-failed`): one failed execution is an incident. */
  readonly stateMachines?: Readonly<Record<string, sfn.IStateMachine>>;
}

const PERIOD = Duration.minutes(5);

/**
 * Operations the service issues. An alarm's metric math may use at most 10
 * metrics, so the sum covers these rather than every DynamoDB operation.
 */
const TABLE_OPERATIONS = [
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

export class Observability extends Construct {
  public readonly alarms: readonly cloudwatch.Alarm[];
  public readonly topic?: sns.Topic;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const { config, apis, functions, tables, edges = [], deadLetterQueues = {}, stateMachines = {} } = props;
    const { alarms: settings } = config;
    if (!settings.enabled) {
      this.alarms = [];
      return;
    }
    const prefix = `partner-api-${config.stage}`;
    const alarms: cloudwatch.Alarm[] = [];
    const alarm = (name: string, options: Omit<cloudwatch.AlarmProps, 'alarmName' | 'treatMissingData'>) => {
      const created = new cloudwatch.Alarm(this, pascal(name), {
        alarmName: `${prefix}-${name}`,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        ...options,
      });
      alarms.push(created);
      return created;
    };

    for (const { alarmPrefix, stage } of apis) {
      const apiName = `${stage.restApi.restApiName} v1`;
      alarm(`${alarmPrefix}-5xx`, {
        alarmDescription: `API Gateway 5XX responses on ${apiName} (5 min sum)`,
        metric: stage.metricServerError({ period: PERIOD, statistic: cloudwatch.Stats.SUM }),
        threshold: settings.api5xxThreshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      });
      alarm(`${alarmPrefix}-p99-latency`, {
        alarmDescription: `API Gateway p99 latency on ${apiName} above ${settings.p99LatencyMs} ms in 2 of 3 periods of 5 min`,
        metric: stage.metricLatency({ period: PERIOD, statistic: cloudwatch.Stats.p(99) }),
        threshold: settings.p99LatencyMs,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
      });
    }

    for (const [name, fn] of Object.entries(functions)) {
      alarm(`${name}-errors`, {
        alarmDescription: `Lambda errors of the ${name} function (5 min sum)`,
        metric: fn.metricErrors({ period: PERIOD, statistic: cloudwatch.Stats.SUM }),
        threshold: settings.lambdaErrorsThreshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      });
      alarm(`${name}-throttles`, {
        alarmDescription: `Lambda throttles of the ${name} function (5 min sum): requests failed without running`,
        metric: fn.metricThrottles({ period: PERIOD, statistic: cloudwatch.Stats.SUM }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      });
    }

    for (const [name, table] of Object.entries(tables)) {
      alarm(`${name}-table-throttles`, {
        alarmDescription: `DynamoDB throttled requests on the ${name} table (5 min sum)`,
        metric: table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: PERIOD }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      });
    }

    for (const edge of edges) {
      for (const rule of edge.alarmingRuleMetricNames) {
        // A Region-wide rule counts only malformed credentials (it never blocks a well-formed key): blocks mean a junk-credential flood.
        alarm(`waf-${rule.replace(`${prefix}-`, '')}-blocks`, {
          alarmDescription: `WAF rule ${rule} of ${edge.webAclName} blocked requests (5 min sum): a flood of malformed credentials is being shed Region-wide`,
          metric: new cloudwatch.Metric({
            namespace: 'AWS/WAFV2',
            metricName: 'BlockedRequests',
            dimensionsMap: { WebACL: edge.webAclName, Rule: rule, Region: Stack.of(this).region },
            period: PERIOD,
            statistic: cloudwatch.Stats.SUM,
          }),
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 1,
        });
      }
    }

    for (const [name, queue] of Object.entries(deadLetterQueues)) {
      // Messages stay until someone redrives or purges them, so the alarm holds as long as work is waiting.
      alarm(`${name}-dlq-messages`, {
        alarmDescription: `Messages in the dead-letter queue ${name} (5 min maximum): work given up on after its retries`,
        metric: queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: cloudwatch.Stats.MAXIMUM }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      });
    }

    for (const [name, stateMachine] of Object.entries(stateMachines)) {
      alarm(`${name}-executions-failed`, {
        alarmDescription: `Failed executions of the ${name} state machine (5 min sum)`,
        metric: stateMachine.metricFailed({ period: PERIOD, statistic: cloudwatch.Stats.SUM }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      });
    }

    if (settings.notifyEmail) {
      this.topic = new sns.Topic(this, 'AlarmTopic', { displayName: `${prefix} alarms` });
      this.topic.addSubscription(new subscriptions.EmailSubscription(settings.notifyEmail));
      const action = new actions.SnsAction(this.topic);
      for (const a of alarms) {
        a.addAlarmAction(action);
        a.addOkAction(action);
      }
    }
    this.alarms = alarms;
  }
}

function pascal(value: string): string {
  return value.replace(/(^|[-_])([a-z])/g, (_, __, c: string) => c.toUpperCase());
}
