/**
 * The webhook delivery pipeline (docs/webhooks.md), everything but the web settings' `webhooks`
 * function, which SurfaceApi builds and this construct only connects:
 *
 *   domain table stream ─(INSERT of `kind = event` items only)─▶ λ webhook-fanout
 *       one delivery per active callback, its first attempt ─▶ delivery queue (SQS)
 *   delivery queue ─▶ λ webhook-delivery (one attempt per message)
 *       a failed attempt's next one: a delayed message (waits up to SQS's 15 minutes)
 *       or an execution of the retry state machine (longer waits: Wait, then the message)
 *   the queue's dead-letter queue: messages the worker could not handle 5 times, and the stream
 *   batches the fan-out gave up on (its on-failure destination)
 *
 * The retry state machine's definition is lambdas/webhooks/delivery-schedule.ts
 * `retryStateMachineDefinition`, deployed verbatim (the local stack runs the same definition).
 *
 * Least privilege: each role gets its actions on its resources, written out here (no `grant*`
 * helpers that add read actions nobody calls); KMS only under the `purpose` encryption context of
 * sealed callback secrets. The queues use SSE-SQS, so nobody needs a KMS permission for them.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { join } from 'node:path';
import { DUE_DELIVERIES_INDEX, tableEnvName } from '../../lambdas/shared/storage/table-definitions';
import { retryStateMachineDefinition } from '../../lambdas/webhooks/delivery-schedule';
import { WEBHOOK_ENV, WEBHOOK_SECRET_PURPOSE } from '../../lambdas/webhooks/webhook-env';
import { DELIVERY_QUEUE_VISIBILITY_SECONDS, FAN_OUT_FILTER_PATTERN, WEBHOOK_PIPELINE } from '../../lambdas/webhooks/pipeline-settings';
import type { StageConfig } from '../config/stage-config';
import { keyUseStatements, serviceRoleName } from '../config/service-roles';
import { PROJECT_ROOT, ServiceFunction, serviceEnvironment, serviceFunctionProps, serviceFunctionRole, serviceLogGroup, type ApiFunction } from './api-function';
import type { TableMap } from './data-tables';
import { InvokeFunctionOnly } from './scheduled-jobs';
import { stageRemovalPolicy } from './removal-policy';

/** KMS permissions hold only under this encryption-context `purpose` (lambdas/webhooks/webhook-env.ts). */
export { WEBHOOK_SECRET_PURPOSE };

/** The pipeline's settings (lambdas/webhooks/pipeline-settings.ts, shared with the local stack). */
export { DELIVERY_QUEUE_VISIBILITY_SECONDS, WEBHOOK_PIPELINE };

/** The stream records the fan-out is invoked for: new outbox event items. */
export const FAN_OUT_FILTER = FAN_OUT_FILTER_PATTERN;

export interface WebhookDeliveryProps {
  readonly config: StageConfig;
  readonly tables: TableMap;
  /** The stateful stack's key that seals callback secrets. */
  readonly secretsKey: kms.IKey;
  /**
   * The service's own host names (each REST API's execute-api host): no callback may point at
   * them. Given to the worker and to the `webhooks` API function (WEBHOOK_FORBIDDEN_HOSTS).
   */
  readonly forbiddenHosts: readonly string[];
  /** The web API's `webhooks` function (callbacks in web settings): sealing secrets, verify/test, manual resends. */
  readonly apiFunction: ApiFunction;
}

export class WebhookDelivery extends Construct {
  /** One message per delivery attempt. */
  public readonly queue: sqs.Queue;
  /** What the worker could not handle and the stream batches the fan-out gave up on. */
  public readonly deadLetterQueue: sqs.Queue;
  /** Holds a retry longer than SQS can delay a message. */
  public readonly retryStateMachine: sfn.StateMachine;
  public readonly retryLogGroup: logs.LogGroup;
  /** The domain stream's consumer: new events → deliveries. */
  public readonly fanOut: ServiceFunction;
  /** The queue's consumer: one attempt per message. */
  public readonly worker: ServiceFunction;
  /** Every minute: queues again the deliveries whose next attempt is overdue (lambdas/webhooks/delivery-sweeper.ts). */
  public readonly sweeper: ServiceFunction;
  public readonly sweeperSchedule: scheduler.Schedule;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    const { config, tables, secretsKey, apiFunction } = props;
    const access = tables.access;
    const domain = tables.domain;
    const streamArn = domain.tableStreamArn;
    if (!streamArn) throw new Error('WebhookDelivery: the domain table has no stream (table-definitions.ts `stream`)');
    if (props.forbiddenHosts.length === 0) throw new Error('WebhookDelivery: forbiddenHosts must name the service’s own hosts');
    const prefix = `partner-api-${config.stage}`;
    const removalPolicy = stageRemovalPolicy(config);
    const forbiddenHosts = props.forbiddenHosts.join(',');
    const { worker: workerSettings, queue: queueSettings, fanOut: fanOutSettings } = WEBHOOK_PIPELINE;

    // Queues: SSE-SQS (no key policy or KMS permission for senders), HTTPS only.
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      queueName: `${prefix}-webhook-deliveries-dlq`,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(queueSettings.deadLetterRetentionDays),
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      queueName: `${prefix}-webhook-deliveries`,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(queueSettings.retentionDays),
      visibilityTimeout: Duration.seconds(DELIVERY_QUEUE_VISIBILITY_SECONDS),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: queueSettings.maxReceiveCount },
    });
    const sendToQueue = () => new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] });

    // Retry state machine: STANDARD (a wait lasts up to 12 hours; EXPRESS stops at 5 minutes).
    this.retryLogGroup = new logs.LogGroup(this, 'RetryLogGroup', {
      // Vended logs: Step Functions needs no growing CloudWatch Logs resource policy under this prefix.
      logGroupName: `/aws/vendedlogs/states/${prefix}-webhook-retry`,
      retention: config.logRetentionDays as number as logs.RetentionDays,
      removalPolicy,
    });
    this.retryStateMachine = new sfn.StateMachine(this, 'RetryStateMachine', {
      stateMachineName: `${prefix}-webhook-retry`,
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromString(Stack.of(this).toJsonString(retryStateMachineDefinition(this.queue.queueUrl))),
      // Every state transition (when a retry waited, when it sent), never the execution's input or output.
      logs: { destination: this.retryLogGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: config.tracing,
    });
    // Its only task: the optimized SQS integration's SendMessage to the delivery queue.
    this.retryStateMachine.addToRolePolicy(sendToQueue());

    // Fan-out: the domain table's stream, filtered to new outbox events before Lambda is invoked.
    const fanOutLogs = serviceLogGroup(this, 'FanOutLogGroup', config);
    this.fanOut = new ServiceFunction(this, 'FanOut', {
      ...serviceFunctionProps(config, fanOutLogs, serviceFunctionRole(this, 'FanOutRole', fanOutLogs)),
      description: `partner-api ${config.stage}: webhook fan-out (new events → deliveries)`,
      entry: join(PROJECT_ROOT, 'lambdas', 'jobs', 'webhook-fanout', 'handler.ts'),
      timeout: Duration.seconds(fanOutSettings.timeoutSeconds),
      environment: {
        ...serviceEnvironment(config),
        [tableEnvName('access')]: access.tableName,
        [WEBHOOK_ENV.queueUrl]: this.queue.queueUrl,
      },
    });
    this.fanOut.addEventSourceMapping('DomainStream', {
      eventSourceArn: streamArn,
      // From the oldest record the stream keeps (24 hours), not LATEST: a mapping created anew (first deploy, or a
      // stream whose ARN changed with its view type, lib/constructs/stage-references.ts) reads the events written
      // before it existed instead of losing them. Reading a record again makes nothing twice (fan-out.ts).
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: fanOutSettings.batchSize,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      retryAttempts: fanOutSettings.retryAttempts,
      maxRecordAge: Duration.hours(fanOutSettings.maxRecordAgeHours),
      onFailure: new SendOnlySqsDestination(this.deadLetterQueue),
      filters: [lambda.FilterCriteria.filter(FAN_OUT_FILTER)],
    });
    // What Lambda's poller reads the stream with (DynamoEventSource's grantStreamRead on a TableV2 puts ListStreams on
    // the stream's ARN, where it grants nothing: ListStreams has no resource-level permission, so it gets `*`).
    this.fanOut.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        resources: [streamArn],
      }),
    );
    this.fanOut.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: ['*'] }));
    // The organization's callbacks (Query), one delivery record per callback (a conditional PutItem; GetItem reads the
    // existing one when the failed condition did not return it), then the first attempts.
    this.fanOut.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query'], resources: [access.tableArn] }),
    );
    this.fanOut.addToRolePolicy(sendToQueue());

    // Delivery worker: one attempt per message; a message it could not handle is reported alone.
    const workerLogs = serviceLogGroup(this, 'WorkerLogGroup', config);
    this.worker = new ServiceFunction(this, 'Worker', {
      ...serviceFunctionProps(config, workerLogs, serviceFunctionRole(this, 'WorkerRole', workerLogs, serviceRoleName(config.stage, 'webhook-delivery'))),
      description: `partner-api ${config.stage}: webhook delivery worker (one attempt per message)`,
      entry: join(PROJECT_ROOT, 'lambdas', 'jobs', 'webhook-delivery', 'handler.ts'),
      timeout: Duration.seconds(workerSettings.timeoutSeconds),
      environment: {
        ...serviceEnvironment(config),
        [tableEnvName('access')]: access.tableName,
        [WEBHOOK_ENV.queueUrl]: this.queue.queueUrl,
        [WEBHOOK_ENV.retryStateMachineArn]: this.retryStateMachine.stateMachineArn,
        [WEBHOOK_ENV.secretKeyArn]: secretsKey.keyArn,
        [WEBHOOK_ENV.forbiddenHosts]: forbiddenHosts,
      },
    });
    this.worker.addEventSourceMapping('Queue', {
      eventSourceArn: this.queue.queueArn,
      batchSize: workerSettings.batchSize,
      maxBatchingWindow: Duration.seconds(workerSettings.maxBatchingWindowSeconds),
      reportBatchItemFailures: true,
      maxConcurrency: workerSettings.maxConcurrency,
    });
    // What Lambda's poller does with the queue (SqsEventSource's grantConsumeMessages adds GetQueueUrl), and the worker's
    // own ChangeMessageVisibility: a message it failed on comes back after the attempt's lease and a backoff.
    this.worker.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'],
        resources: [this.queue.queueArn],
      }),
    );
    // The delivery, its callback and the authority re-checks (GetItem, BatchGetItem, Query), the attempt's outcome,
    // slots and counters (UpdateItem).
    this.worker.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
        resources: [access.tableArn],
      }),
    );
    for (const statement of keyUseStatements('webhook-delivery', secretsKey.keyArn)) this.worker.addToRolePolicy(statement);
    // Short waits: a delayed message; long waits: an execution of the retry state machine.
    this.worker.addToRolePolicy(sendToQueue());
    this.worker.addToRolePolicy(new iam.PolicyStatement({ actions: ['states:StartExecution'], resources: [this.retryStateMachine.stateMachineArn] }));

    // Sweeper: the overdue entries of the due-deliveries index (Query on that index only), the delivery itself (GetItem),
    // its due time moved under a condition (UpdateItem), the attempt queued again.
    const sweeperLogs = serviceLogGroup(this, 'SweeperLogGroup', config);
    this.sweeper = new ServiceFunction(this, 'Sweeper', {
      ...serviceFunctionProps(config, sweeperLogs, serviceFunctionRole(this, 'SweeperRole', sweeperLogs)),
      description: `partner-api ${config.stage}: webhook sweeper (overdue deliveries queued again)`,
      entry: join(PROJECT_ROOT, 'lambdas', 'jobs', 'webhook-sweeper', 'handler.ts'),
      // A failed run is not retried: the next minute's run finds the same overdue deliveries.
      retryAttempts: 0,
      environment: { ...serviceEnvironment(config), [tableEnvName('access')]: access.tableName, [WEBHOOK_ENV.queueUrl]: this.queue.queueUrl },
    });
    this.sweeper.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: [`${access.tableArn}/index/${DUE_DELIVERIES_INDEX.indexName}`] }));
    this.sweeper.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], resources: [access.tableArn] }));
    this.sweeper.addToRolePolicy(sendToQueue());
    this.sweeperSchedule = new scheduler.Schedule(this, 'SweeperSchedule', {
      description: `partner-api ${config.stage}: run the webhook sweeper every minute`,
      schedule: scheduler.ScheduleExpression.rate(Duration.seconds(WEBHOOK_PIPELINE.sweeper.intervalSeconds)),
      timeWindow: scheduler.TimeWindow.off(),
      target: new InvokeFunctionOnly(this.sweeper, { retryAttempts: 0, maxEventAge: Duration.minutes(1) }),
    });

    // The web settings' function: seals new secrets and opens them for verification and test events, queues manual resends.
    // Its key uses (SECRETS_KEY_USERS `webhooks`) are granted by the stateless stack, with every API function's.
    apiFunction.addEnvironment(WEBHOOK_ENV.secretKeyArn, secretsKey.keyArn);
    apiFunction.addEnvironment(WEBHOOK_ENV.queueUrl, this.queue.queueUrl);
    apiFunction.addEnvironment(WEBHOOK_ENV.forbiddenHosts, forbiddenHosts);
    apiFunction.function.addToRolePolicy(sendToQueue());
  }
}

/**
 * An event source mapping's on-failure destination on an SQS queue, granting the function
 * `sqs:SendMessage` only (what Lambda uses to deliver the failure record). CDK's SqsDlq grants
 * `grantSendMessages`, which adds GetQueueAttributes and GetQueueUrl.
 */
class SendOnlySqsDestination implements lambda.IEventSourceDlq {
  constructor(private readonly queue: sqs.IQueue) {}

  bind(_target: lambda.IEventSourceMapping, targetHandler: lambda.IFunction): lambda.DlqDestinationConfig {
    targetHandler.addToRolePolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
    return { destination: this.queue.queueArn };
  }
}
