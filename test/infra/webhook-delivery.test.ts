/**
 * The webhook delivery pipeline (lib/constructs/webhook-delivery.ts) and the webhook secrets key
 * of the stateful stack: the delivery queue and its dead-letter queue, the retry state machine
 * deployed from `retryStateMachineDefinition` verbatim, the stream and queue event source
 * mappings, the alarms, and exactly what each role of the pipeline may do.
 */
import { describe, expect, it } from 'vitest';
import { TWO_FACTOR_PURPOSE } from '../../lambdas/back-office/two-factor-seeds';
import { dataAccessOf } from '../../lambdas/service/data-access';
import { retryStateMachineDefinition, RETRY_STATES } from '../../lambdas/webhooks/delivery-schedule';
import { ATTEMPT_LEASE_MS } from '../../lambdas/webhooks/deliveries';
import { WEBHOOK_ENV } from '../../lambdas/webhooks/webhook-env';
import { DELIVERY_QUEUE_VISIBILITY_SECONDS, WEBHOOK_PIPELINE, WEBHOOK_SECRET_PURPOSE } from '../../lib/constructs/webhook-delivery';
import { webhookSecretsKeyAlias } from '../../lib/stateful-stack';
import { DUE_DELIVERIES_INDEX, TABLES, TABLE_IDS } from '../../lambdas/shared/storage/table-definitions';
import {
  functionLogicalId,
  logicalIdByPath,
  resources,
  restApiLogicalId,
  ssmParameterRef,
  stage,
  stageReferenceNames,
  statelessIndexArn,
  statelessTableArn,
  synthStage,
} from './support';
import { Match, type Template } from 'aws-cdk-lib/assertions';

const FUNCTION = 'AWS::Lambda::Function';
const MAPPING = 'AWS::Lambda::EventSourceMapping';
const QUEUE = 'AWS::SQS::Queue';
const ALARM = 'AWS::CloudWatch::Alarm';
const LOG_GROUP = 'AWS::Logs::LogGroup';

type Statement = { Action: string | string[]; Resource: unknown; Effect: string; Condition?: unknown };
type Json = Record<string, unknown>;

/** The logical ids of the pipeline's resources in a stateless template. */
function pipelineIds(template: Template) {
  return {
    queue: logicalIdByPath(template, QUEUE, '/Webhooks/Queue/Resource'),
    dlq: logicalIdByPath(template, QUEUE, '/Webhooks/DeadLetterQueue/Resource'),
    stateMachine: logicalIdByPath(template, 'AWS::StepFunctions::StateMachine', '/Webhooks/RetryStateMachine/Resource'),
    fanOut: logicalIdByPath(template, FUNCTION, '/Webhooks/FanOut/Resource'),
    fanOutLogs: logicalIdByPath(template, LOG_GROUP, '/Webhooks/FanOutLogGroup/Resource'),
    worker: logicalIdByPath(template, FUNCTION, '/Webhooks/Worker/Resource'),
    sweeper: logicalIdByPath(template, FUNCTION, '/Webhooks/Sweeper/Resource'),
    sweeperLogs: logicalIdByPath(template, LOG_GROUP, '/Webhooks/SweeperLogGroup/Resource'),
    workerLogs: logicalIdByPath(template, LOG_GROUP, '/Webhooks/WorkerLogGroup/Resource'),
    apiFunction: functionLogicalId(template, 'webhooks'),
    apiFunctionLogs: logicalIdByPath(template, LOG_GROUP, '/WebApi/WebhooksFunction/LogGroup/Resource'),
    partnerApi: restApiLogicalId(template, 'partner'),
    webApi: restApiLogicalId(template, 'web'),
    // What the stateful stack publishes, as the stateless template reads it (SSM-typed parameters, no export).
    streamArn: ssmParameterRef(template, stageReferenceNames(stageOf(template)).streamArn('domain')),
    secretsKeyArn: ssmParameterRef(template, stageReferenceNames(stageOf(template)).webhookSecretsKeyArn),
  };
}

/** The stage a stateless template belongs to: its REST API is named `partner-api-<stage>`. */
function stageOf(template: Template): string {
  const names = Object.values(resources(template, 'AWS::ApiGateway::RestApi')).map((api) => String(api.Properties.Name));
  const stageName = names.map((name) => /^partner-api-([a-z][a-z0-9]*)$/.exec(name)?.[1]).find(Boolean);
  if (!stageName) throw new Error(`no partner API among ${names.join(', ')}`);
  return stageName;
}

/**
 * A CloudFormation value as text: `Fn::Join` resolved, references replaced by the names given
 * (logical id or pseudo parameter → name). Anything else fails the test.
 */
function resolveText(value: unknown, names: Readonly<Record<string, string>>): string {
  if (typeof value === 'string') return value;
  const v = value as Json;
  if (v && 'Fn::Join' in v) {
    const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => resolveText(part, names)).join(separator);
  }
  if (v && 'Ref' in v && String(v.Ref) in names) return names[String(v.Ref)];
  throw new Error(`unexpected value ${JSON.stringify(value)}`);
}

/** Every statement of the policies attached to a role. */
function statementsOfRole(template: Template, roleId: string): Statement[] {
  const role = resources(template, 'AWS::IAM::Role')[roleId];
  expect(role.Properties.Policies, 'no inline policies on the role').toBeUndefined();
  return Object.values(resources(template, 'AWS::IAM::Policy'))
    .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

const roleOfFunction = (template: Template, functionId: string) =>
  ((resources(template, FUNCTION)[functionId].Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]);

/**
 * A role's permissions as `action on resource[ if condition]` lines, resources named: `*`, `queue`,
 * `dlq`, `state-machine`, `access-table`, `domain-stream`, `secrets-key` (imports from the stateful
 * stack), `access-table/index/<name>`, and the functions' log groups `fan-out-logs`, `worker-logs`,
 * `webhooks-logs`. An unknown resource shows as its JSON, so it cannot match.
 */
function grantsOf(template: Template, roleId: string): string[] {
  const ids = pipelineIds(template);
  const nameOf = (resource: unknown): string => {
    if (resource === '*') return '*';
    const json = JSON.stringify(resource);
    if (json === JSON.stringify({ 'Fn::GetAtt': [ids.queue, 'Arn'] })) return 'queue';
    if (json === JSON.stringify({ 'Fn::GetAtt': [ids.dlq, 'Arn'] })) return 'dlq';
    if (json === JSON.stringify({ Ref: ids.stateMachine })) return 'state-machine';
    if (json === JSON.stringify({ 'Fn::GetAtt': [ids.fanOutLogs, 'Arn'] })) return 'fan-out-logs';
    if (json === JSON.stringify({ 'Fn::GetAtt': [ids.workerLogs, 'Arn'] })) return 'worker-logs';
    if (json === JSON.stringify({ 'Fn::GetAtt': [ids.sweeperLogs, 'Arn'] })) return 'sweeper-logs';
    if (json === JSON.stringify({ 'Fn::GetAtt': [ids.apiFunctionLogs, 'Arn'] })) return 'webhooks-logs';
    if (json === JSON.stringify(ids.streamArn)) return 'domain-stream';
    if (json === JSON.stringify(ids.secretsKeyArn)) return 'secrets-key';
    for (const table of TABLE_IDS) {
      if (json === JSON.stringify(statelessTableArn('dev', table))) return `${table}-table`;
      const index = TABLES[table].globalIndexes.find((i) => json === JSON.stringify(statelessIndexArn('dev', table, i.indexName)));
      if (index) return `${table}-table/index/${index.indexName}`;
    }
    const join = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    if (join && join[1].length === 2 && typeof join[1][1] === 'string') return `${nameOf(join[1][0])}${join[1][1]}`;
    return json;
  };
  const lines: string[] = [];
  for (const statement of statementsOfRole(template, roleId)) {
    expect(statement.Effect).toBe('Allow');
    const condition = statement.Condition ? ` if ${JSON.stringify(statement.Condition)}` : '';
    for (const action of [statement.Action].flat()) {
      for (const resource of [statement.Resource].flat()) lines.push(`${action} on ${nameOf(resource)}${condition}`);
    }
  }
  return lines.sort();
}

const SECRET_CONDITION = ` if ${JSON.stringify({ StringEquals: { 'kms:EncryptionContext:purpose': WEBHOOK_SECRET_PURPOSE } })}`;
const TWO_FACTOR_CONDITION = ` if ${JSON.stringify({ StringEquals: { 'kms:EncryptionContext:purpose': TWO_FACTOR_PURPOSE } })}`;
/** Active tracing (X-Ray) of every function: AWS offers these actions on `*` only. */
const FUNCTION_TRACING = ['xray:PutTelemetryRecords on *', 'xray:PutTraceSegments on *'];
/** A function's own log group (api-function.ts serviceFunctionRole), and no other. */
const logsTo = (logGroup: string) => [`logs:CreateLogStream on ${logGroup}`, `logs:PutLogEvents on ${logGroup}`];

describe('webhook secrets key (stateful stack)', () => {
  it.each([
    ['dev', 'Delete'],
    ['prod', 'RetainExceptOnCreate'],
  ])('on %s: a customer managed key with rotation, its alias and description (%s with the stage’s data)', (name, policy) => {
    const { statefulTemplate } = stage(name);

    const keys = Object.entries(resources(statefulTemplate, 'AWS::KMS::Key'));
    expect(keys).toHaveLength(1);
    const [keyId, key] = keys[0];
    // A symmetric key (no KeySpec, KeyUsage: the defaults) that KMS rotates every year.
    expect(key.Properties).toMatchObject({ EnableKeyRotation: true, Description: expect.stringContaining(WEBHOOK_SECRET_PURPOSE) });
    expect(key.Properties.KeySpec).toBeUndefined();
    expect(key.DeletionPolicy).toBe(policy);
    expect(key.Properties.PendingWindowInDays).toBe(policy === 'Delete' ? 7 : undefined);
    statefulTemplate.hasResourceProperties('AWS::KMS::Alias', {
      AliasName: `alias/partner-api-${name}-webhook-secrets`,
      TargetKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
    expect(webhookSecretsKeyAlias(name)).toBe(`alias/partner-api-${name}-webhook-secrets`);
  });

  it('hands the key to the stateless stack by ARN through an SSM parameter (no export), never by alias', () => {
    const { stateful, stateless, statelessTemplate, statefulTemplate } = stage('dev');

    expect(stateless.webhooks).toBeDefined();
    expect(stateful.webhookSecretsKey).toBeDefined();
    const [keyId] = Object.keys(resources(statefulTemplate, 'AWS::KMS::Key'));
    statefulTemplate.hasResourceProperties('AWS::SSM::Parameter', { Name: stageReferenceNames('dev').webhookSecretsKeyArn, Value: { 'Fn::GetAtt': [keyId, 'Arn'] } });
    expect(JSON.stringify(statelessTemplate.toJSON())).toContain(JSON.stringify(ssmParameterRef(statelessTemplate, stageReferenceNames('dev').webhookSecretsKeyArn)));
    expect(JSON.stringify(statelessTemplate.toJSON())).not.toContain('alias/');
    expect(JSON.stringify(statelessTemplate.toJSON())).not.toContain('Fn::ImportValue');
  });
});

describe('webhook delivery queue', () => {
  const { statelessTemplate: template } = stage('dev');
  const ids = pipelineIds(template);
  const queues = resources(template, QUEUE);

  it('encrypts both queues at rest (SSE-SQS) and refuses requests without TLS', () => {
    for (const id of [ids.queue, ids.dlq]) {
      expect(queues[id].Properties.SqsManagedSseEnabled, id).toBe(true);
      const policies = Object.values(resources(template, 'AWS::SQS::QueuePolicy')).filter((p) => JSON.stringify(p.Properties.Queues).includes(`"${id}"`));
      expect(policies).toHaveLength(1);
      expect((policies[0].Properties.PolicyDocument as { Statement: Statement[] }).Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('moves a message the worker failed to handle 5 times to the dead-letter queue, kept 14 days (the queue keeps 4)', () => {
    expect(queues[ids.queue].Properties).toMatchObject({
      MessageRetentionPeriod: 4 * 86_400,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [ids.dlq, 'Arn'] }, maxReceiveCount: 5 },
    });
    expect(queues[ids.dlq].Properties.MessageRetentionPeriod).toBe(14 * 86_400);
    expect(queues[ids.dlq].Properties.RedrivePolicy).toBeUndefined();
  });

  it('hides a received message for at least six times the worker’s timeout', () => {
    const workerTimeout = resources(template, FUNCTION)[ids.worker].Properties.Timeout as number;

    expect(workerTimeout).toBe(WEBHOOK_PIPELINE.worker.timeoutSeconds);
    expect(queues[ids.queue].Properties.VisibilityTimeout).toBe(DELIVERY_QUEUE_VISIBILITY_SECONDS);
    expect(DELIVERY_QUEUE_VISIBILITY_SECONDS).toBeGreaterThanOrEqual(6 * workerTimeout);
  });
});

describe('webhook retry state machine', () => {
  it.each(['dev', 'prod'])('deploys retryStateMachineDefinition verbatim, with the delivery queue’s URL, as a STANDARD state machine on %s', (name) => {
    const { statelessTemplate: template, config } = stage(name);
    const ids = pipelineIds(template);
    const machine = resources(template, 'AWS::StepFunctions::StateMachine')[ids.stateMachine];

    expect(machine.Properties.StateMachineType).toBe('STANDARD');
    const definition = JSON.parse(resolveText(machine.Properties.DefinitionString, { [ids.queue]: '<queue-url>' })) as unknown;
    expect(definition).toEqual(retryStateMachineDefinition('<queue-url>'));
    // The queue URL is the queue's Ref (its URL), and it is the task's QueueUrl.
    expect((definition as { States: Record<string, { Parameters?: { QueueUrl?: string } }> }).States[RETRY_STATES.queue].Parameters?.QueueUrl).toBe('<queue-url>');
    expect(machine.Properties.TracingConfiguration).toEqual({ Enabled: config.tracing });
  });

  it.each([
    ['dev', 'Delete'],
    ['prod', 'RetainExceptOnCreate'],
  ])('logs every state transition (no execution data) to its own log group on %s, kept the stage’s retention, %s on stack deletion', (name, policy) => {
    const { statelessTemplate: template, config } = stage(name);
    const ids = pipelineIds(template);
    const machine = resources(template, 'AWS::StepFunctions::StateMachine')[ids.stateMachine];
    const logGroupId = logicalIdByPath(template, 'AWS::Logs::LogGroup', '/Webhooks/RetryLogGroup/Resource');

    expect(machine.Properties.LoggingConfiguration).toEqual({
      Level: 'ALL',
      IncludeExecutionData: false,
      Destinations: [{ CloudWatchLogsLogGroup: { LogGroupArn: { 'Fn::GetAtt': [logGroupId, 'Arn'] } } }],
    });
    const logGroup = resources(template, 'AWS::Logs::LogGroup')[logGroupId];
    expect(logGroup.Properties).toMatchObject({ LogGroupName: `/aws/vendedlogs/states/partner-api-${name}-webhook-retry`, RetentionInDays: config.logRetentionDays });
    expect(logGroup.DeletionPolicy).toBe(policy);
  });
});

describe('webhook fan-out: the domain table’s stream', () => {
  const { statelessTemplate: template } = stage('dev');
  const ids = pipelineIds(template);
  const mappings = Object.values(resources(template, MAPPING)).filter((m) => (m.Properties.FunctionName as { Ref?: string }).Ref === ids.fanOut);

  it('reads the stream from its oldest record (a new mapping loses no event written before it), 100 at a time, reporting failed records alone and splitting failing batches', () => {
    expect(mappings).toHaveLength(1);
    expect(mappings[0].Properties).toMatchObject({
      // The stream's ARN as the stateful stack published it, re-read at every deploy (it changes with the view type).
      EventSourceArn: ids.streamArn,
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 86_400,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [ids.dlq, 'Arn'] } } },
    });
  });

  it('is invoked only for INSERTs of outbox event items (kind = event): no updates, removals or other items', () => {
    const filters = (mappings[0].Properties.FilterCriteria as { Filters: { Pattern: string }[] }).Filters;

    expect(filters).toHaveLength(1);
    expect(JSON.parse(filters[0].Pattern)).toEqual({ eventName: ['INSERT'], dynamodb: { NewImage: { kind: { S: ['event'] } } } });
  });

  it('knows the access table and the queue, nothing else', () => {
    const variables = (resources(template, FUNCTION)[ids.fanOut].Properties.Environment as { Variables: Json }).Variables;

    expect(Object.keys(variables).sort()).toEqual(['LOG_LEVEL', 'NODE_OPTIONS', 'POWERTOOLS_TRACE_ENABLED', 'STAGE', 'TABLE_ACCESS', WEBHOOK_ENV.queueUrl]);
    expect(variables[WEBHOOK_ENV.queueUrl]).toEqual({ Ref: ids.queue });
    expect(variables.TABLE_ACCESS).toBe('partner-api-dev-access');
  });
});

describe('webhook delivery worker: the queue', () => {
  const { statelessTemplate: template } = stage('dev');
  const ids = pipelineIds(template);

  it('takes up to 10 messages per invocation after a short batching window, reports failed messages alone, at most 5 invocations at once', () => {
    const mappings = Object.values(resources(template, MAPPING)).filter((m) => (m.Properties.FunctionName as { Ref?: string }).Ref === ids.worker);

    expect(mappings).toHaveLength(1);
    expect(mappings[0].Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 5 },
    });
    const window = mappings[0].Properties.MaximumBatchingWindowInSeconds as number;
    expect(window).toBeGreaterThanOrEqual(1);
    expect(window).toBeLessThanOrEqual(5);
  });

  it('stops before another worker may take its attempt over (deliveries.ts ATTEMPT_LEASE_MS): no attempt runs twice at once', () => {
    expect(WEBHOOK_PIPELINE.worker.timeoutSeconds * 1000).toBeLessThan(ATTEMPT_LEASE_MS);
  });

  it('runs 30 seconds at most, on the service’s function defaults', () => {
    expect(resources(template, FUNCTION)[ids.worker].Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: { LogFormat: 'JSON', ApplicationLogLevel: 'DEBUG' },
      Timeout: 30,
    });
  });

  it('knows the table, queue, state machine, key and the service’s own hosts (both APIs)', () => {
    const variables = (resources(template, FUNCTION)[ids.worker].Properties.Environment as { Variables: Json }).Variables;

    expect(Object.keys(variables).sort()).toEqual(
      ['LOG_LEVEL', 'NODE_OPTIONS', 'POWERTOOLS_TRACE_ENABLED', 'STAGE', 'TABLE_ACCESS', WEBHOOK_ENV.forbiddenHosts, WEBHOOK_ENV.queueUrl, WEBHOOK_ENV.retryStateMachineArn, WEBHOOK_ENV.secretKeyArn].sort(),
    );
    expect(variables[WEBHOOK_ENV.queueUrl]).toEqual({ Ref: ids.queue });
    expect(variables[WEBHOOK_ENV.retryStateMachineArn]).toEqual({ Ref: ids.stateMachine });
    expect(variables[WEBHOOK_ENV.secretKeyArn]).toEqual(ids.secretsKeyArn);
  });
});

describe('webhook functions: the service’s own hosts', () => {
  const { statelessTemplate: template } = stage('dev');
  const ids = pipelineIds(template);
  const names = { [ids.partnerApi]: 'PARTNER', [ids.webApi]: 'WEB', 'AWS::Region': 'REGION', 'AWS::URLSuffix': 'SUFFIX' };
  const hostsOf = (functionId: string) =>
    resolveText((resources(template, FUNCTION)[functionId].Properties.Environment as { Variables: Json }).Variables[WEBHOOK_ENV.forbiddenHosts], names);

  it.each(['worker', 'apiFunction'] as const)('gives the %s both REST APIs’ execute-api hosts, comma-separated', (fn) => {
    expect(hostsOf(ids[fn])).toBe('PARTNER.execute-api.REGION.SUFFIX,WEB.execute-api.REGION.SUFFIX');
  });

  it('finds a dependency cycle when there is one (the check below can fail)', () => {
    const cyclic = { Resources: { A: { Properties: { Name: { Ref: 'B' } } }, B: { Properties: { Arn: { 'Fn::GetAtt': ['C', 'Arn'] } } }, C: { Properties: {}, DependsOn: ['A'] } } };

    expect(dependencyCycle(cyclic)).toEqual(['A', 'B', 'C', 'A']);
    expect(dependencyCycle({ Resources: { A: { Properties: { Name: { Ref: 'B' } } }, B: { Properties: {} } } })).toEqual([]);
  });

  it.each(['dev', 'prod', 'pr123'])('leaves no dependency cycle in the %s stateless template (a web API function names its own API’s host)', (name) => {
    const { statelessTemplate } = stage(name);

    expect(dependencyCycle(statelessTemplate.toJSON() as { Resources: Record<string, Json> })).toEqual([]);
  });
});

describe('webhooks API function (web settings)', () => {
  const { statelessTemplate: template } = stage('dev');
  const ids = pipelineIds(template);
  const variables = (resources(template, FUNCTION)[ids.apiFunction].Properties.Environment as { Variables: Json }).Variables;

  it('knows the key, the queue and the service’s own hosts, but not the state machine', () => {
    expect(variables[WEBHOOK_ENV.secretKeyArn]).toEqual(ids.secretsKeyArn);
    expect(variables[WEBHOOK_ENV.queueUrl]).toEqual({ Ref: ids.queue });
    expect(variables).toHaveProperty(WEBHOOK_ENV.forbiddenHosts);
    expect(variables).not.toHaveProperty(WEBHOOK_ENV.retryStateMachineArn);
    expect(variables.API_SURFACE).toBe('web');
  });

  it('gives WEBHOOK_* variables to the four webhook functions only', () => {
    const others = Object.entries(resources(template, FUNCTION)).filter(
      ([id, fn]) => ![ids.apiFunction, ids.worker, ids.fanOut, ids.sweeper].includes(id) && JSON.stringify(fn.Properties.Environment ?? {}).includes('WEBHOOK_'),
    );
    expect(others.map(([id]) => id)).toEqual([]);
  });
});

describe('webhook pipeline: least privilege, per role', () => {
  const { statelessTemplate: template } = stage('dev');
  const ids = pipelineIds(template);

  it('fan-out: reads the stream, Query, PutItem and GetItem on the access table, sends to the queue and (its failures) to the dead-letter queue', () => {
    expect(grantsOf(template, roleOfFunction(template, ids.fanOut))).toEqual(
      [
        ...FUNCTION_TRACING,
        ...logsTo('fan-out-logs'),
        'dynamodb:DescribeStream on domain-stream',
        'dynamodb:GetRecords on domain-stream',
        'dynamodb:GetShardIterator on domain-stream',
        // ListStreams has no resource-level permission.
        'dynamodb:ListStreams on *',
        'dynamodb:GetItem on access-table',
        'dynamodb:PutItem on access-table',
        'dynamodb:Query on access-table',
        'sqs:SendMessage on dlq',
        'sqs:SendMessage on queue',
      ].sort(),
    );
  });

  it('sweeper: queries the due-deliveries index only, reads and updates deliveries, sends to the queue; nothing else', () => {
    expect(grantsOf(template, roleOfFunction(template, ids.sweeper))).toEqual(
      [
        ...FUNCTION_TRACING,
        ...logsTo('sweeper-logs'),
        `dynamodb:Query on access-table/index/${DUE_DELIVERIES_INDEX.indexName}`,
        'dynamodb:GetItem on access-table',
        'dynamodb:UpdateItem on access-table',
        'sqs:SendMessage on queue',
      ].sort(),
    );
  });

  it('sweeper: runs every minute through a schedule allowed to invoke it alone, no retry of a failed run', () => {
    const schedule = Object.values(resources(template, 'AWS::Scheduler::Schedule')).find(
      (s) => JSON.stringify((s.Properties.Target as { Arn: unknown }).Arn) === JSON.stringify({ 'Fn::GetAtt': [ids.sweeper, 'Arn'] }),
    );
    expect(schedule?.Properties).toMatchObject({ ScheduleExpression: 'rate(1 minute)', FlexibleTimeWindow: { Mode: 'OFF' } });
    expect((schedule?.Properties.Target as { RetryPolicy: { MaximumRetryAttempts: number } }).RetryPolicy.MaximumRetryAttempts).toBe(0);
    const variables = (resources(template, FUNCTION)[ids.sweeper].Properties.Environment as { Variables: Json }).Variables;
    expect(Object.keys(variables).sort()).toEqual(['LOG_LEVEL', 'NODE_OPTIONS', 'POWERTOOLS_TRACE_ENABLED', 'STAGE', 'TABLE_ACCESS', WEBHOOK_ENV.queueUrl]);
  });

  it('worker: consumes the queue (and sets when a failed message comes back), reads and updates the access table, opens secrets only, sends to the queue, starts retries', () => {
    expect(grantsOf(template, roleOfFunction(template, ids.worker))).toEqual(
      [
        ...FUNCTION_TRACING,
        ...logsTo('worker-logs'),
        'dynamodb:BatchGetItem on access-table',
        'dynamodb:GetItem on access-table',
        'dynamodb:Query on access-table',
        'dynamodb:UpdateItem on access-table',
        `kms:Decrypt on secrets-key${SECRET_CONDITION}`,
        'sqs:ChangeMessageVisibility on queue',
        'sqs:DeleteMessage on queue',
        'sqs:GetQueueAttributes on queue',
        'sqs:ReceiveMessage on queue',
        'sqs:SendMessage on queue',
        'states:StartExecution on state-machine',
      ].sort(),
    );
  });

  it('webhooks API function: its routes’ table access (dataAccessOf), seals and opens secrets, opens two-factor seeds (a creation’s re-check), queues resends; no state machine, no queue reads', () => {
    const tableGrants = dataAccessOf('webhooks').flatMap((access) => {
      expect(access.table).toBe('access');
      const targets = access.indexes ? access.indexes.map((index) => `access-table/index/${index}`) : ['access-table'];
      return access.actions.flatMap((action) => targets.map((target) => `${action} on ${target}`));
    });

    expect(grantsOf(template, roleOfFunction(template, ids.apiFunction))).toEqual(
      [
        ...FUNCTION_TRACING,
        ...logsTo('webhooks-logs'),
        ...tableGrants,
        `kms:Decrypt on secrets-key${SECRET_CONDITION}`,
        `kms:Encrypt on secrets-key${SECRET_CONDITION}`,
        `kms:Decrypt on secrets-key${TWO_FACTOR_CONDITION}`,
        'sqs:SendMessage on queue',
      ].sort(),
    );
  });

  it('retry state machine: sends to the delivery queue, and only what its logs and traces need', () => {
    const machine = resources(template, 'AWS::StepFunctions::StateMachine')[ids.stateMachine];
    const roleId = (machine.Properties.RoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const role = resources(template, 'AWS::IAM::Role')[roleId];

    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect((role.Properties.AssumeRolePolicyDocument as { Statement: Statement[] & { Principal?: unknown }[] }).Statement).toEqual([
      expect.objectContaining({ Action: 'sts:AssumeRole', Principal: { Service: 'states.amazonaws.com' } }),
    ]);
    expect(grantsOf(template, roleId)).toEqual(
      [
        // Vended log delivery and X-Ray: AWS offers these actions on `*` only.
        'logs:CreateLogDelivery on *',
        'logs:DeleteLogDelivery on *',
        'logs:DescribeLogGroups on *',
        'logs:DescribeResourcePolicies on *',
        'logs:GetLogDelivery on *',
        'logs:ListLogDeliveries on *',
        'logs:PutResourcePolicy on *',
        'logs:UpdateLogDelivery on *',
        'xray:GetSamplingRules on *',
        'xray:GetSamplingTargets on *',
        'xray:PutTelemetryRecords on *',
        'xray:PutTraceSegments on *',
        'sqs:SendMessage on queue',
      ].sort(),
    );
  });

  it('gives no function a managed policy: each writes its logs to its own log group only (listed above), never AWSLambdaBasicExecutionRole’s every group', () => {
    for (const fn of [ids.fanOut, ids.worker, ids.apiFunction]) {
      const role = resources(template, 'AWS::IAM::Role')[roleOfFunction(template, fn)];
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('grants kms:Encrypt of webhook secrets to the API function alone, and states:StartExecution to the worker alone', () => {
    // Statements by role; the KMS ones of webhook secrets only (web settings' function seals two-factor seeds, another purpose).
    const all = Object.values(resources(template, 'AWS::IAM::Policy')).flatMap((p) =>
      (p.Properties.PolicyDocument as { Statement: { Condition?: unknown }[] }).Statement.map((statement) => ({
        roles: (p.Properties.Roles as { Ref: string }[]).map((r) => r.Ref),
        text: JSON.stringify(statement),
      })),
    );
    const holders = (action: string) =>
      all.filter((p) => p.text.includes(`"${action}"`) && (!action.startsWith('kms:') || p.text.includes('"webhook-secret"'))).flatMap((p) => [...new Set(p.roles)]);

    expect(holders('kms:Encrypt')).toEqual([roleOfFunction(template, ids.apiFunction)]);
    expect(holders('states:StartExecution')).toEqual([roleOfFunction(template, ids.worker)]);
    expect(holders('kms:Decrypt').sort()).toEqual([roleOfFunction(template, ids.apiFunction), roleOfFunction(template, ids.worker)].sort());
  });
});

describe('webhook pipeline alarms', () => {
  it('alarms on prod when a message waits in the dead-letter queue, and when a retry execution fails', () => {
    const { statelessTemplate: template } = stage('prod');
    const ids = pipelineIds(template);

    template.hasResourceProperties(ALARM, {
      AlarmName: 'partner-api-prod-webhook-deliveries-dlq-messages',
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.dlq, 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    template.hasResourceProperties(ALARM, {
      AlarmName: 'partner-api-prod-webhook-retry-executions-failed',
      Namespace: 'AWS/States',
      MetricName: 'ExecutionsFailed',
      Dimensions: [{ Name: 'StateMachineArn', Value: { Ref: ids.stateMachine } }],
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    for (const fn of ['webhook-fanout', 'webhook-delivery']) {
      template.hasResourceProperties(ALARM, { AlarmName: `partner-api-prod-${fn}-errors`, MetricName: 'Errors' });
      template.hasResourceProperties(ALARM, { AlarmName: `partner-api-prod-${fn}-throttles`, MetricName: 'Throttles' });
    }
  });

  it('sends both to the alarm topic when notifyEmail is set', () => {
    const { statelessTemplate: template } = synthStage({ stage: 'prod', notifyEmail: 'ops@example.com' });

    for (const name of ['webhook-deliveries-dlq-messages', 'webhook-retry-executions-failed']) {
      template.hasResourceProperties(ALARM, {
        AlarmName: `partner-api-prod-${name}`,
        AlarmActions: [{ Ref: Match.stringLikeRegexp('AlarmTopic') }],
        OKActions: [{ Ref: Match.stringLikeRegexp('AlarmTopic') }],
      });
    }
  });

  it('creates none on dev (alarms disabled)', () => {
    stage('dev').statelessTemplate.resourceCountIs(ALARM, 0);
  });
});

/**
 * A dependency cycle among a template's resources (Ref, Fn::GetAtt, Fn::Sub, DependsOn), as the
 * logical ids along it; [] when there is none. CloudFormation refuses a cyclic template only at
 * deploy time; synthesis does not notice.
 */
function dependencyCycle(template: { Resources: Record<string, Json> }): string[] {
  const ids = new Set(Object.keys(template.Resources));
  const edges = new Map<string, Set<string>>();
  const collect = (value: unknown, into: Set<string>): void => {
    if (Array.isArray(value)) return value.forEach((item) => collect(item, into));
    if (!value || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value as Json)) {
      if (key === 'Ref' && typeof inner === 'string' && ids.has(inner)) into.add(inner);
      else if (key === 'Fn::GetAtt') {
        const target = Array.isArray(inner) ? inner[0] : String(inner).split('.')[0];
        if (ids.has(target as string)) into.add(target as string);
      } else if (key === 'Fn::Sub') {
        const text = Array.isArray(inner) ? String(inner[0]) : String(inner);
        for (const match of text.matchAll(/\$\{([^}.!]+)/g)) if (ids.has(match[1])) into.add(match[1]);
        if (Array.isArray(inner)) collect(inner[1], into);
      } else collect(inner, into);
    }
  };
  for (const [id, resource] of Object.entries(template.Resources)) {
    const into = new Set<string>();
    collect(resource.Properties, into);
    for (const dependency of [resource.DependsOn ?? []].flat() as string[]) into.add(dependency);
    edges.set(id, into);
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] => {
    if (state.get(id) === 'done') return [];
    if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'visiting');
    path.push(id);
    for (const next of edges.get(id) ?? []) {
      const cycle = visit(next);
      if (cycle.length > 0) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return [];
  };
  for (const id of ids) {
    const cycle = visit(id);
    if (cycle.length > 0) return cycle;
  }
  return [];
}
