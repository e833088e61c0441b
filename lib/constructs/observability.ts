/**
 * What an operator of a stage sees and hears (docs/alarms.md): the alarms,
 * their SNS topic, and the stage's dashboard (dashboard.ts), all built from
 * the resources the stack hands over and the stage config's thresholds.
 *
 * Alarms (only where `alarms.enabled`: staging and prod), each named
 * `partner-api-<stage>-<name>`:
 * - per REST API: the 5XX rate (5XXError / Count, counted only above a
 *   minimum of requests) and p99 latency of the `v1` stage;
 * - per function (endpoint groups, jobs, webhook functions): errors, throttles;
 * - per table and per global secondary index: read and write throttle events;
 * - per web ACL: blocks by its Region-wide WAF rules (they count only
 *   malformed credentials, so a block means a junk-credential flood is being
 *   shed, never that valid keys are refused);
 * - the webhook pipeline: dead-letter messages (work given up on), failed
 *   retry executions, the delivery queue's oldest message, deliveries the
 *   sweeper had to queue again, and the rate of deliveries that finally failed;
 * - claims left `claiming` longer than the reconciliation bound.
 *
 * Every alarm notifies the stage's topic on ALARM and OK. The topic is
 * encrypted with a key of its own (CloudWatch cannot publish to a topic under
 * the AWS-managed SNS key) and accepts HTTPS only; `notifyEmail` subscribes an
 * address. Missing data is "not breaching": a quiet stage is not an incident.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { RouteDefinition } from '../../lambdas/shared/http/routes';
import type { Limit } from '../../lambdas/shared/limits/limits-table';
import type { StageConfig } from '../config/stage-config';
import { ALARM_PERIOD, api5xxRate, throttleEvents, wafBlockedRequests, webhookFailureRate } from './alarm-metrics';
import { ServiceDashboard } from './dashboard';
import { serviceMetric } from './service-metrics';

/** A REST API stage to watch; `alarmPrefix` names its alarms (`<prefix>-5xx-rate`, `<prefix>-p99-latency`). */
export interface ObservedApi {
  readonly alarmPrefix: string;
  readonly stage: apigateway.Stage;
  /** Heading of the API's rows on the dashboard; defaults to the REST API's name. */
  readonly title?: string;
  /** The routes the API serves (its rows of the route table): one line per route on the dashboard. */
  readonly routes?: readonly RouteDefinition[];
}

/** A web ACL: every rule's metric name (the dashboard) and the rules whose blocks an operator must hear about. */
export interface ObservedEdge {
  readonly webAclName: string;
  readonly alarmingRuleMetricNames: readonly string[];
  /** Every rule's metric name, in priority order; defaults to the alarming ones. */
  readonly ruleMetricNames?: readonly string[];
}

/** The webhook delivery pipeline (webhook-delivery.ts). */
export interface ObservedWebhookPipeline {
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly retryStateMachine: sfn.IStateMachine;
}

export interface ObservedResources {
  /** Every REST API of the stage. */
  readonly apis: readonly ObservedApi[];
  /** Functions by a short name used in alarm names (the endpoint group, the job). */
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  /** Tables by id. */
  readonly tables: Readonly<Record<string, dynamodb.ITableV2>>;
  /** Global secondary index names per table id (consumed capacity per index on the dashboard). */
  readonly tableIndexes?: Readonly<Record<string, readonly string[]>>;
  /** Every web ACL of the stage. */
  readonly edges?: readonly ObservedEdge[];
  readonly webhooks?: ObservedWebhookPipeline;
  /** Whether the stage runs the claim reconciler, which reports claims left `claiming` (alarm and dashboard row). */
  readonly claimReconciler?: boolean;
  /** The limits table (LIMITS by default): rejections by policy on the dashboard. */
  readonly limits?: readonly Limit[];
}

export interface ObservabilityProps extends ObservedResources {
  readonly config: StageConfig;
}

export class Observability extends Construct {
  public readonly alarms: readonly cloudwatch.Alarm[];
  /** Where every alarm sends ALARM and OK (alarms enabled only). */
  public readonly topic?: sns.Topic;
  public readonly topicKey?: kms.Key;
  public readonly dashboard?: ServiceDashboard;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const { config, ...resources } = props;
    this.alarms = config.alarms.enabled ? this.createAlarms(config, resources) : [];
    if (config.alarms.enabled) {
      const { topic, key } = this.createTopic(config);
      this.topic = topic;
      this.topicKey = key;
      const action = new actions.SnsAction(topic);
      for (const alarm of this.alarms) {
        alarm.addAlarmAction(action);
        alarm.addOkAction(action);
      }
    }
    if (config.dashboard) {
      this.dashboard = new ServiceDashboard(this, 'Dashboard', { config, resources, alarms: this.alarms });
    }
  }

  private createAlarms(config: StageConfig, resources: ObservedResources): cloudwatch.Alarm[] {
    const { alarms: settings } = config;
    const { apis, functions, tables, edges = [], webhooks } = resources;
    const prefix = `partner-api-${config.stage}`;
    const created: cloudwatch.Alarm[] = [];
    const alarm = (name: string, options: Omit<cloudwatch.AlarmProps, 'alarmName' | 'treatMissingData'>) => {
      created.push(
        new cloudwatch.Alarm(this, pascal(name), {
          alarmName: `${prefix}-${name}`,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
          ...options,
        }),
      );
    };
    const atLeast = cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;
    const above = cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD;
    const sum = { period: ALARM_PERIOD, statistic: cloudwatch.Stats.SUM };
    const maximum = { period: ALARM_PERIOD, statistic: cloudwatch.Stats.MAXIMUM };

    for (const { alarmPrefix, stage } of apis) {
      const apiName = `${stage.restApi.restApiName} v1`;
      alarm(`${alarmPrefix}-5xx-rate`, {
        alarmDescription:
          `5XX responses of ${apiName} above ${settings.api5xxRatePercent} % of its requests over 5 min ` +
          `(counted from ${settings.api5xxMinRequests} requests). docs/alarms.md`,
        metric: api5xxRate(stage, settings.api5xxMinRequests),
        threshold: settings.api5xxRatePercent,
        comparisonOperator: above,
        evaluationPeriods: 1,
      });
      alarm(`${alarmPrefix}-p99-latency`, {
        alarmDescription: `API Gateway p99 latency of ${apiName} above ${settings.p99LatencyMs} ms in 2 of 3 periods of 5 min. docs/alarms.md`,
        metric: stage.metricLatency({ period: ALARM_PERIOD, statistic: cloudwatch.Stats.p(99) }),
        threshold: settings.p99LatencyMs,
        comparisonOperator: above,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
      });
    }

    for (const [name, fn] of Object.entries(functions)) {
      alarm(`${name}-errors`, {
        alarmDescription: `Lambda errors of the ${name} function (5 min sum). docs/alarms.md`,
        metric: fn.metricErrors(sum),
        threshold: settings.lambdaErrorsThreshold,
        comparisonOperator: atLeast,
        evaluationPeriods: 1,
      });
      alarm(`${name}-throttles`, {
        alarmDescription: `Lambda throttles of the ${name} function (5 min sum): invocations refused without running. docs/alarms.md`,
        metric: fn.metricThrottles(sum),
        threshold: settings.lambdaThrottlesThreshold,
        comparisonOperator: atLeast,
        evaluationPeriods: 1,
      });
    }

    // One alarm for the table and one per index: each sums two metrics, far from CloudWatch's 10 per alarm however many indexes come.
    for (const [name, table] of Object.entries(tables)) {
      alarm(`${name}-table-throttles`, {
        alarmDescription: `DynamoDB read and write throttle events on the ${name} table itself (5 min sum). docs/alarms.md`,
        metric: throttleEvents(table.tableName),
        threshold: settings.tableThrottlesThreshold,
        comparisonOperator: atLeast,
        evaluationPeriods: 1,
      });
      for (const indexName of resources.tableIndexes?.[name] ?? []) {
        alarm(`${name}-${indexName}-index-throttles`, {
          alarmDescription: `DynamoDB read and write throttle events on the ${indexName} index of the ${name} table (5 min sum). docs/alarms.md`,
          metric: throttleEvents(table.tableName, indexName),
          threshold: settings.tableThrottlesThreshold,
          comparisonOperator: atLeast,
          evaluationPeriods: 1,
        });
      }
    }

    for (const edge of edges) {
      for (const rule of edge.alarmingRuleMetricNames) {
        alarm(`waf-${rule.replace(`${prefix}-`, '')}-blocks`, {
          alarmDescription: `WAF rule ${rule} of ${edge.webAclName} blocked requests (5 min sum): a flood of malformed credentials is being shed Region-wide. docs/alarms.md`,
          metric: wafBlockedRequests(Stack.of(this).region, edge.webAclName, rule),
          threshold: settings.wafRegionWideBlocksThreshold,
          comparisonOperator: atLeast,
          evaluationPeriods: 1,
        });
      }
    }

    if (webhooks) {
      // Messages stay until someone redrives or purges them, so the alarm holds as long as work is waiting.
      alarm('webhook-deliveries-dlq-messages', {
        alarmDescription: 'Messages in the webhook dead-letter queue (5 min maximum): deliveries or stream batches given up on. docs/alarms.md',
        metric: webhooks.deadLetterQueue.metricApproximateNumberOfMessagesVisible(maximum),
        threshold: settings.deadLetterMessagesThreshold,
        comparisonOperator: atLeast,
        evaluationPeriods: 1,
      });
      alarm('webhook-retry-executions-failed', {
        alarmDescription: 'Failed executions of the webhook retry state machine (5 min sum): a retry that could not be queued. docs/alarms.md',
        metric: webhooks.retryStateMachine.metricFailed(sum),
        threshold: settings.stateMachineFailuresThreshold,
        comparisonOperator: atLeast,
        evaluationPeriods: 1,
      });
      alarm('webhook-deliveries-oldest-message-age', {
        alarmDescription: `The oldest message of the webhook delivery queue is older than ${settings.deliveryQueueOldestAgeSeconds} s (5 min maximum): deliveries are late. docs/alarms.md`,
        metric: webhooks.queue.metricApproximateAgeOfOldestMessage(maximum),
        threshold: settings.deliveryQueueOldestAgeSeconds,
        comparisonOperator: above,
        evaluationPeriods: 1,
      });
      alarm('webhook-deliveries-swept', {
        alarmDescription:
          'Webhook deliveries the sweeper found overdue and queued again (5 min sum): something lost their next attempt ' +
          '(a message, a retry execution, a worker). They are on their way again; find what lost them. docs/alarms.md',
        metric: serviceMetric(config.stage, 'webhookDeliveriesSwept', {}, sum),
        threshold: settings.sweptDeliveriesThreshold,
        comparisonOperator: atLeast,
        evaluationPeriods: 1,
      });
      alarm('webhook-final-failure-rate', {
        alarmDescription:
          `Webhook deliveries that finally failed (all attempts spent) above ${settings.webhookFailureRatePercent} % of the deliveries ` +
          `that ended in the hour (counted from ${settings.webhookFailureMinDeliveries}). docs/alarms.md`,
        metric: webhookFailureRate(config.stage, settings.webhookFailureMinDeliveries),
        threshold: settings.webhookFailureRatePercent,
        comparisonOperator: above,
        evaluationPeriods: 1,
      });
    }

    if (resources.claimReconciler) {
      alarm('claiming-oldest-age', {
        alarmDescription: `An invitation has been claiming for more than ${settings.claimingOldestAgeSeconds} s (reconciler runs, 5 min maximum): claims are not being finished. docs/alarms.md`,
        metric: serviceMetric(config.stage, 'claimingOldestAge', {}, maximum),
        threshold: settings.claimingOldestAgeSeconds,
        comparisonOperator: above,
        evaluationPeriods: 1,
      });
    }
    return created;
  }

  /**
   * The alarm topic: HTTPS only (enforceSSL), encrypted with a key of its own whose policy lets
   * CloudWatch use it (alarms cannot publish under the AWS-managed `alias/aws/sns` key). Nothing
   * it encrypts outlives delivery, so the key goes with the stack.
   */
  private createTopic(config: StageConfig): { topic: sns.Topic; key: kms.Key } {
    const prefix = `partner-api-${config.stage}`;
    const { account, region, partition } = Stack.of(this);
    const key = new kms.Key(this, 'AlarmTopicKey', {
      description: `${prefix}: encrypts the alarm topic`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    const cloudwatchService = new iam.ServicePrincipal('cloudwatch.amazonaws.com');
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublishToTheEncryptedTopic',
        principals: [cloudwatchService],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    const topic = new sns.Topic(this, 'AlarmTopic', {
      topicName: `${prefix}-alarms`,
      displayName: `${prefix} alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    // The topic's own policy replaces SNS's default one: let this account's alarms, and only them, publish.
    topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisAccount',
        principals: [cloudwatchService],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:${prefix}-*` },
          StringEquals: { 'aws:SourceAccount': account },
        },
      }),
    );
    if (config.alarms.notifyEmail) topic.addSubscription(new subscriptions.EmailSubscription(config.alarms.notifyEmail));
    new CfnOutput(this, 'AlarmTopicArn', {
      description: 'SNS topic of the stage’s alarms (subscribe a pager or chat here)',
      value: topic.topicArn,
    });
    return { topic, key };
  }
}

/** Construct id of an alarm. Kept as it always was: an alarm with a fixed name cannot be replaced under a new id in one deployment. */
function pascal(value: string): string {
  return value.replace(/(^|[-_])([a-z])/g, (_, __, c: string) => c.toUpperCase());
}
