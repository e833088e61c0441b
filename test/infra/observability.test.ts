/**
 * The alarms of every stage and their topic (lib/constructs/observability.ts,
 * docs/alarms.md): which exist where, what each watches, the threshold it
 * takes from the stage config, and where it notifies.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, it, expect } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { ENDPOINT_GROUPS } from '../../lambdas/shared/http/routes';
import { SURFACE_PROFILES, SURFACES } from '../../lib/config/surfaces';
import { TABLES, TABLE_IDS } from '../../lambdas/shared/storage/table-definitions';
import { CLAIMING_RECONCILIATION_BOUND_SECONDS } from '../../lambdas/shared/observability/metric-catalog';
import { resolveStageConfig, type StageConfig } from '../../lib/config/stage-config';
import { edgeLimits } from '../../lambdas/shared/limits/limits-table';
import { PROJECT_ROOT } from '../../lib/constructs/api-function';
import { Observability } from '../../lib/constructs/observability';
import { logicalIdByPath, resources, stage, stageLogicalId, synthStage } from './support';

const ALARM = 'AWS::CloudWatch::Alarm';
/** Edge rows WAF enforces over the Region's malformed credentials (CONSTANT aggregate). */
const REGION_WIDE_RULES = edgeLimits().filter((l) => l.enforcedBy === 'waf' && l.aggregate === 'location');
/** Functions that are not an endpoint group's: the two scheduled jobs and the webhook fan-out and worker. */
const OTHER_FUNCTIONS = ['entitlement-periods', 'claim-reconciler', 'webhook-fanout', 'webhook-delivery', 'webhook-sweeper'];
/** The webhook pipeline's four (dead letters, failed retries, oldest message, final failure rate) and the claiming one. */
const PIPELINE_ALARMS = ['webhook-deliveries-dlq-messages', 'webhook-retry-executions-failed', 'webhook-deliveries-oldest-message-age', 'webhook-deliveries-swept', 'webhook-final-failure-rate', 'claiming-oldest-age'];
/** Global secondary indexes of every table: each has a throttle alarm of its own. */
const INDEX_COUNT = TABLE_IDS.reduce((sum, id) => sum + TABLES[id].globalIndexes.length, 0);
/** 5XX rate and p99 per front door, errors and throttles per function, throttles per table and per index, Region-wide WAF blocks, the pipeline's. */
const EXPECTED_ALARMS =
  2 * SURFACES.length + 2 * (ENDPOINT_GROUPS.length + OTHER_FUNCTIONS.length) + TABLE_IDS.length + INDEX_COUNT + REGION_WIDE_RULES.length + PIPELINE_ALARMS.length;

type AlarmProps = { AlarmName: string; Threshold: number; Metrics?: { Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: { Name: string; Value: unknown }[] }; Period: number; Stat: string } }[] };

function alarmNamed(template: Template, name: string): AlarmProps {
  const found = Object.values(resources(template, ALARM)).filter((a) => a.Properties.AlarmName === name);
  expect(found, name).toHaveLength(1);
  return found[0].Properties as unknown as AlarmProps;
}

/** Synthesizing a stage takes seconds, more on a busy machine: done once per file, before the tests' own timeouts run. */
const SYNTH_TIMEOUT_MS = 180_000;

beforeAll(() => {
  for (const name of ['dev', 'pr123', 'staging', 'prod']) stage(name);
}, 4 * SYNTH_TIMEOUT_MS);

describe('alarms', () => {
  it.each(['dev', 'pr123'])('creates no alarm, topic or key on %s (alarms disabled)', (name) => {
    const { statelessTemplate } = stage(name);

    statelessTemplate.resourceCountIs(ALARM, 0);
    statelessTemplate.resourceCountIs('AWS::SNS::Topic', 0);
    statelessTemplate.resourceCountIs('AWS::KMS::Key', 0);
  });

  describe.each(['staging', 'prod'])('on %s', (name) => {
    const config = () => resolveStageConfig(name);

    it('creates exactly the expected alarms, each notifying the stage’s topic on ALARM and OK, missing data not breaching', () => {
      const { statelessTemplate } = stage(name);
      const topic = logicalIdByPath(statelessTemplate, 'AWS::SNS::Topic', '/Observability/AlarmTopic/Resource');

      statelessTemplate.resourceCountIs(ALARM, EXPECTED_ALARMS);
      statelessTemplate.allResourcesProperties(ALARM, {
        AlarmActions: [{ Ref: topic }],
        OKActions: [{ Ref: topic }],
        TreatMissingData: 'notBreaching',
      });
      for (const alarm of Object.values(resources(statelessTemplate, ALARM))) {
        expect(String(alarm.Properties.AlarmName)).toMatch(new RegExp(`^partner-api-${name}-`));
      }
    });

    it('alarms on the 5XX rate of each REST API (5XXError / Count, only from the minimum of requests) and its p99 latency', () => {
      const { statelessTemplate } = stage(name);
      const { alarms } = config();

      for (const surface of SURFACES) {
        const prefix = `partner-api-${name}-${SURFACE_PROFILES[surface].alarmPrefix}`;
        const dimensions = [
          { Name: 'ApiName', Value: surface === 'partner' ? `partner-api-${name}` : `partner-api-${name}-web` },
          { Name: 'Stage', Value: { Ref: stageLogicalId(statelessTemplate, surface) } },
        ];
        const rate = alarmNamed(statelessTemplate, `${prefix}-5xx-rate`);
        expect(rate).toMatchObject({ Threshold: alarms.api5xxRatePercent, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1 });
        expect(rate.Metrics).toEqual([
          { Id: 'expr_1', Expression: `IF(FILL(requests, 0) >= ${alarms.api5xxMinRequests}, 100 * FILL(errors, 0) / FILL(requests, 0), 0)`, Label: expect.any(String), ReturnData: true },
          { Id: 'errors', MetricStat: { Metric: { MetricName: '5XXError', Namespace: 'AWS/ApiGateway', Dimensions: dimensions }, Period: 300, Stat: 'Sum' }, ReturnData: false },
          { Id: 'requests', MetricStat: { Metric: { MetricName: 'Count', Namespace: 'AWS/ApiGateway', Dimensions: dimensions }, Period: 300, Stat: 'Sum' }, ReturnData: false },
        ]);
        statelessTemplate.hasResourceProperties(ALARM, {
          AlarmName: `${prefix}-p99-latency`,
          MetricName: 'Latency',
          Dimensions: dimensions,
          ExtendedStatistic: 'p99',
          Threshold: alarms.p99LatencyMs,
          EvaluationPeriods: 3,
          DatapointsToAlarm: 2,
        });
      }
    });

    it('alarms on errors and throttles of every function: endpoint groups (settings included), jobs and webhook functions', () => {
      const { statelessTemplate } = stage(name);
      const { alarms } = config();

      expect(ENDPOINT_GROUPS).toContain('settings');
      for (const fn of [...ENDPOINT_GROUPS, ...OTHER_FUNCTIONS]) {
        statelessTemplate.hasResourceProperties(ALARM, {
          AlarmName: `partner-api-${name}-${fn}-errors`,
          MetricName: 'Errors',
          Namespace: 'AWS/Lambda',
          Statistic: 'Sum',
          Threshold: alarms.lambdaErrorsThreshold,
        });
        statelessTemplate.hasResourceProperties(ALARM, {
          AlarmName: `partner-api-${name}-${fn}-throttles`,
          MetricName: 'Throttles',
          Namespace: 'AWS/Lambda',
          Threshold: alarms.lambdaThrottlesThreshold,
        });
      }
      // The reconciler's alarm watches the reconciler's function.
      statelessTemplate.hasResourceProperties(ALARM, {
        AlarmName: `partner-api-${name}-claim-reconciler-errors`,
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalIdByPath(statelessTemplate, 'AWS::Lambda::Function', '/Jobs/ClaimReconciler/Resource') } }],
      });
    });

    it('alarms on the read and write throttle events of every table and of each of its indexes, every term filled, within the 10 metrics an alarm’s math may use', () => {
      const { statelessTemplate } = stage(name);

      for (const id of TABLE_IDS) {
        const tableName = `partner-api-${name}-${id}`;
        const sources: [string, string | undefined][] = [
          [`${id}-table-throttles`, undefined],
          ...TABLES[id].globalIndexes.map((index): [string, string] => [`${id}-${index.indexName}-index-throttles`, index.indexName]),
        ];
        for (const [alarmName, indexName] of sources) {
          const alarm = alarmNamed(statelessTemplate, `partner-api-${name}-${alarmName}`);
          expect(alarm.Threshold).toBe(config().alarms.tableThrottlesThreshold);
          const metrics = (alarm.Metrics ?? []).filter((m) => m.MetricStat);
          const dimensions = [{ Name: 'TableName', Value: tableName }, ...(indexName ? [{ Name: 'GlobalSecondaryIndexName', Value: indexName }] : [])];
          expect(metrics.map((m) => m.MetricStat?.Metric)).toEqual([
            { MetricName: 'ReadThrottleEvents', Namespace: 'AWS/DynamoDB', Dimensions: expect.arrayContaining(dimensions) },
            { MetricName: 'WriteThrottleEvents', Namespace: 'AWS/DynamoDB', Dimensions: expect.arrayContaining(dimensions) },
          ]);
          for (const m of metrics) expect(m.MetricStat?.Metric.Dimensions).toHaveLength(dimensions.length);
          // A period with reads throttled and no write metric at all still alarms: both terms are filled.
          const expression = (alarm.Metrics ?? []).find((m) => m.Expression)!.Expression!;
          for (const m of metrics) expect(expression).toContain(`FILL(${m.Id}, 0)`);
        }
      }
      for (const alarm of Object.values(resources(statelessTemplate, ALARM))) {
        const metrics = (alarm.Properties.Metrics as AlarmProps['Metrics']) ?? [];
        expect(metrics.filter((m) => m.MetricStat).length).toBeLessThanOrEqual(10);
      }
    });

    it('alarms on the webhook pipeline: dead letters, failed retries, the delivery queue’s oldest message, the final failure rate', () => {
      const { statelessTemplate } = stage(name);
      const { alarms } = config();
      const queue = logicalIdByPath(statelessTemplate, 'AWS::SQS::Queue', '/Webhooks/Queue/Resource');
      const dlq = logicalIdByPath(statelessTemplate, 'AWS::SQS::Queue', '/Webhooks/DeadLetterQueue/Resource');

      statelessTemplate.hasResourceProperties(ALARM, {
        AlarmName: `partner-api-${name}-webhook-deliveries-dlq-messages`,
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
        Threshold: alarms.deadLetterMessagesThreshold,
      });
      statelessTemplate.hasResourceProperties(ALARM, {
        AlarmName: `partner-api-${name}-webhook-retry-executions-failed`,
        Namespace: 'AWS/States',
        MetricName: 'ExecutionsFailed',
        Threshold: alarms.stateMachineFailuresThreshold,
      });
      statelessTemplate.hasResourceProperties(ALARM, {
        AlarmName: `partner-api-${name}-webhook-deliveries-oldest-message-age`,
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }],
        Statistic: 'Maximum',
        Threshold: alarms.deliveryQueueOldestAgeSeconds,
        ComparisonOperator: 'GreaterThanThreshold',
      });

      const rate = alarmNamed(statelessTemplate, `partner-api-${name}-webhook-final-failure-rate`);
      expect(rate.Threshold).toBe(alarms.webhookFailureRatePercent);
      const ended = 'FILL(delivered, 0) + FILL(failed, 0) + FILL(cancelled, 0)';
      expect(rate.Metrics?.[0].Expression).toBe(`IF(${ended} >= ${alarms.webhookFailureMinDeliveries}, 100 * FILL(failed, 0) / (${ended}), 0)`);
      for (const outcome of ['delivered', 'failed', 'cancelled']) {
        expect(rate.Metrics?.find((m) => m.Id === outcome)?.MetricStat).toEqual({
          Metric: { Namespace: 'PartnerApi', MetricName: 'WebhookDeliveries', Dimensions: [{ Name: 'outcome', Value: outcome }, { Name: 'service', Value: 'partner-api' }, { Name: 'stage', Value: name }] },
          Period: 3600,
          Stat: 'Sum',
        });
      }
    });

    it('alarms when a claim stays claiming longer than its reconciliation bound', () => {
      const { statelessTemplate } = stage(name);

      expect(config().alarms.claimingOldestAgeSeconds).toBe(CLAIMING_RECONCILIATION_BOUND_SECONDS);
      statelessTemplate.hasResourceProperties(ALARM, {
        AlarmName: `partner-api-${name}-claiming-oldest-age`,
        Namespace: 'PartnerApi',
        MetricName: 'ClaimingOldestAgeSeconds',
        Dimensions: [{ Name: 'service', Value: 'partner-api' }, { Name: 'stage', Value: name }],
        Statistic: 'Maximum',
        Threshold: CLAIMING_RECONCILIATION_BOUND_SECONDS,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    });

    it('alarms when a Region-wide rule of either web ACL blocks requests, on that ACL’s metric', () => {
      const { statelessTemplate } = stage(name);

      expect(REGION_WIDE_RULES.length).toBeGreaterThan(0);
      for (const rule of REGION_WIDE_RULES) {
        const prefix = `partner-api-${name}${SURFACE_PROFILES[rule.surface].nameSuffix}`;
        statelessTemplate.hasResourceProperties(ALARM, {
          Namespace: 'AWS/WAFV2',
          MetricName: 'BlockedRequests',
          Dimensions: Match.arrayWith([
            { Name: 'Rule', Value: `${prefix}-${rule.policy}` },
            { Name: 'WebACL', Value: `${prefix}-edge` },
          ]),
          Statistic: 'Sum',
          Threshold: config().alarms.wafRegionWideBlocksThreshold,
        });
      }
      const wafAlarms = Object.values(resources(statelessTemplate, ALARM)).filter((a) => a.Properties.Namespace === 'AWS/WAFV2');
      expect(wafAlarms).toHaveLength(REGION_WIDE_RULES.length);
    });
  });

  it('takes every threshold from the stage config', () => {
    // Prepare: a config whose every threshold differs from the defaults, on a bare stack.
    const base = resolveStageConfig('prod');
    const config: StageConfig = {
      ...base,
      dashboard: false,
      alarms: {
        ...base.alarms,
        api5xxRatePercent: 7,
        api5xxMinRequests: 123,
        p99LatencyMs: 1234,
        lambdaErrorsThreshold: 11,
        lambdaThrottlesThreshold: 12,
        tableThrottlesThreshold: 13,
        wafRegionWideBlocksThreshold: 14,
        deadLetterMessagesThreshold: 15,
        stateMachineFailuresThreshold: 16,
        deliveryQueueOldestAgeSeconds: 7200,
        webhookFailureRatePercent: 17,
        webhookFailureMinDeliveries: 18,
        claimingOldestAgeSeconds: 900,
      },
    };
    const stack = new Stack(new App(), 'ThresholdsOnly');
    const api = new apigateway.RestApi(stack, 'Api', { deployOptions: { stageName: 'v1' } });
    api.root.addMethod('GET', new apigateway.MockIntegration());
    const queue = new sqs.Queue(stack, 'Queue');
    const deadLetterQueue = new sqs.Queue(stack, 'DeadLetterQueue');
    const retryStateMachine = new sfn.StateMachine(stack, 'Retry', { definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, 'Pass')) });
    const fn = new lambda.Function(stack, 'Fn', { runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => {}') });
    const table = new dynamodb.TableV2(stack, 'Table', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } });

    // Act
    new Observability(stack, 'Observability', {
      config,
      apis: [{ alarmPrefix: 'api', stage: api.deploymentStage }],
      functions: { probe: fn },
      tables: { probe: table },
      edges: [{ webAclName: 'partner-api-prod-edge', alarmingRuleMetricNames: ['partner-api-prod-edge-authentication-minute'] }],
      webhooks: { queue, deadLetterQueue, retryStateMachine },
      claimReconciler: true,
    });

    // Assess
    const template = Template.fromStack(stack);
    const threshold = (name: string) => alarmNamed(template, `partner-api-prod-${name}`).Threshold;
    expect(threshold('api-5xx-rate')).toBe(7);
    expect(alarmNamed(template, 'partner-api-prod-api-5xx-rate').Metrics?.[0].Expression).toContain('FILL(requests, 0) >= 123');
    expect(threshold('api-p99-latency')).toBe(1234);
    expect(threshold('probe-errors')).toBe(11);
    expect(threshold('probe-throttles')).toBe(12);
    expect(threshold('probe-table-throttles')).toBe(13);
    expect(threshold('waf-edge-authentication-minute-blocks')).toBe(14);
    expect(threshold('webhook-deliveries-dlq-messages')).toBe(15);
    expect(threshold('webhook-retry-executions-failed')).toBe(16);
    expect(threshold('webhook-deliveries-oldest-message-age')).toBe(7200);
    expect(threshold('webhook-final-failure-rate')).toBe(17);
    expect(alarmNamed(template, 'partner-api-prod-webhook-final-failure-rate').Metrics?.[0].Expression).toContain('>= 18,');
    expect(threshold('claiming-oldest-age')).toBe(900);
  });

  it('alarms on the Region-wide rules of every web ACL it is given, each on its own ACL’s metric (the web side’s too)', () => {
    // Prepare: no web row is Region-wide today, so the construct is given one directly.
    const stack = new Stack(new App(), 'ObservabilityOnly');
    const api = new apigateway.RestApi(stack, 'Api', { deployOptions: { stageName: 'v1' } });
    api.root.addMethod('GET', new apigateway.MockIntegration());

    // Act
    new Observability(stack, 'Observability', {
      config: resolveStageConfig('prod'),
      apis: [{ alarmPrefix: 'api', stage: api.deploymentStage }],
      functions: {},
      tables: {},
      edges: [
        { webAclName: 'partner-api-prod-edge', alarmingRuleMetricNames: ['partner-api-prod-edge-authentication-minute'] },
        { webAclName: 'partner-api-prod-web-edge', alarmingRuleMetricNames: ['partner-api-prod-web-web-flood-minute'] },
      ],
    });

    // Assess
    const template = Template.fromStack(stack);
    template.hasResourceProperties(ALARM, {
      AlarmName: 'partner-api-prod-waf-edge-authentication-minute-blocks',
      Dimensions: Match.arrayWith([
        { Name: 'Rule', Value: 'partner-api-prod-edge-authentication-minute' },
        { Name: 'WebACL', Value: 'partner-api-prod-edge' },
      ]),
    });
    template.hasResourceProperties(ALARM, {
      AlarmName: 'partner-api-prod-waf-web-web-flood-minute-blocks',
      Dimensions: Match.arrayWith([
        { Name: 'Rule', Value: 'partner-api-prod-web-web-flood-minute' },
        { Name: 'WebACL', Value: 'partner-api-prod-web-edge' },
      ]),
    });
  });

  it('hands both web ACLs to the alarms: the partner ACL with its Region-wide rules, the web ACL with none today', () => {
    const { stateless } = stage('prod');

    expect(stateless.edges.web.webAclName).toBe('partner-api-prod-web-edge');
    expect(stateless.edges.web.regionWideRuleMetricNames).toEqual(REGION_WIDE_RULES.filter((r) => r.surface === 'web').map((r) => `partner-api-prod-web-${r.policy}`));
    expect(stateless.edges.partner.regionWideRuleMetricNames).toEqual(REGION_WIDE_RULES.filter((r) => r.surface === 'partner').map((r) => `partner-api-prod-${r.policy}`));
  });
});

describe('docs/alarms.md', () => {
  it('documents every alarm of the stage by its name pattern, and every threshold setting', () => {
    const doc = readFileSync(join(PROJECT_ROOT, 'docs', 'alarms.md'), 'utf8');
    const functions = [...ENDPOINT_GROUPS, ...OTHER_FUNCTIONS];
    const names = Object.values(resources(stage('prod').statelessTemplate, ALARM)).map((a) => String(a.Properties.AlarmName).replace('partner-api-prod-', ''));

    for (const name of names) {
      const pattern = name
        .replace(/^(api|web-api)-/, '<api>-')
        .replace(new RegExp(`^(${functions.join('|')})-(errors|throttles)$`), '<function>-$2')
        .replace(new RegExp(`^(${TABLE_IDS.join('|')})-table-throttles$`), '<table>-table-throttles')
        .replace(new RegExp(`^(${TABLE_IDS.join('|')})-.+-index-throttles$`), '<table>-<index>-index-throttles')
        .replace(/^waf-.+-blocks$/, 'waf-<rule>-blocks');
      expect(doc, name).toContain(`### \`${pattern}\``);
    }
    for (const fn of functions) expect(doc).toContain(`\`${fn}\``);
    const settings = Object.keys(resolveStageConfig('prod').alarms).filter((key) => key !== 'enabled' && key !== 'notifyEmail');
    for (const key of settings) expect(doc, key).toContain(`| \`${key}\` |`);
  });
});

describe('alarm topic', () => {
  it('is encrypted with a rotating key of its own that CloudWatch may use (alarms cannot publish under the AWS-managed SNS key)', () => {
    const { statelessTemplate } = stage('prod');
    const key = logicalIdByPath(statelessTemplate, 'AWS::KMS::Key', '/Observability/AlarmTopicKey/Resource');

    statelessTemplate.resourceCountIs('AWS::SNS::Topic', 1);
    statelessTemplate.hasResourceProperties('AWS::SNS::Topic', { TopicName: 'partner-api-prod-alarms', KmsMasterKeyId: { 'Fn::GetAtt': [key, 'Arn'] } });
    statelessTemplate.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Allow', Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] }),
        ]),
      },
    });
  });

  it('accepts HTTPS only and lets this stage’s alarms publish', () => {
    const { statelessTemplate } = stage('prod');
    const topic = logicalIdByPath(statelessTemplate, 'AWS::SNS::Topic', '/Observability/AlarmTopic/Resource');

    statelessTemplate.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topic }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 'sns:Publish', Principal: '*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Action: 'sns:Publish',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Condition: Match.objectLike({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } }),
          }),
        ]),
      },
    });
  });

  it('subscribes the notifyEmail address, and nobody without one', () => {
    const withEmail = synthStage({ stage: 'prod', notifyEmail: 'ops@example.com' }).statelessTemplate;
    const without = stage('prod').statelessTemplate;

    withEmail.resourceCountIs('AWS::SNS::Subscription', 1);
    withEmail.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    without.resourceCountIs('AWS::SNS::Subscription', 0);
    without.resourceCountIs('AWS::SNS::Topic', 1);
  }, SYNTH_TIMEOUT_MS);

  it('is an output of the stack, for other subscribers (a pager, a chat)', () => {
    const { statelessTemplate } = stage('staging');

    const outputs = statelessTemplate.findOutputs('*', { Value: { Ref: logicalIdByPath(statelessTemplate, 'AWS::SNS::Topic', '/Observability/AlarmTopic/Resource') } });
    expect(Object.keys(outputs)).toHaveLength(1);
  });
});
