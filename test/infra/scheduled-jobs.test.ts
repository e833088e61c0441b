/**
 * The scheduled jobs in the stateless stack: the entitlement-periods
 * function, built like the API's, with exactly the DynamoDB access its
 * transactions need, and the EventBridge Scheduler schedule that runs it
 * every minute through a role allowed to invoke that function only.
 */
import { describe, expect, it } from 'vitest';
import { logicalIdByPath, resources, stage, statelessIndexArn, statelessTableArn } from './support';

const FUNCTION = 'AWS::Lambda::Function';
const SCHEDULE = 'AWS::Scheduler::Schedule';

type Statement = { Action: string | string[]; Resource: unknown; Effect: string; Principal?: unknown; Condition?: unknown };

describe('scheduled jobs: entitlement-periods', () => {
  const { statelessTemplate, config } = stage('dev');
  const functionId = logicalIdByPath(statelessTemplate, FUNCTION, '/Jobs/EntitlementPeriods/Resource');
  const fn = resources(statelessTemplate, FUNCTION)[functionId];
  const domainArn = statelessTableArn('dev', 'domain');

  /** Every statement of the policies attached to a role. */
  const statementsOf = (roleId: string): Statement[] =>
    Object.values(resources(statelessTemplate, 'AWS::IAM::Policy'))
      .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  const actionsOf = (statement: Statement) => [statement.Action].flat().sort();

  it('runs on Node.js 24, ARM64, with X-Ray, JSON logs in its own log group, the stage settings and no retries', () => {
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: { LogFormat: 'JSON', ApplicationLogLevel: 'DEBUG', LogGroup: { Ref: logicalIdByPath(statelessTemplate, 'AWS::Logs::LogGroup', '/Jobs/EntitlementPeriodsLogGroup/Resource') } },
      MemorySize: config.lambda.memoryMb,
      Timeout: config.lambda.timeoutSeconds,
    });
    const [invokeConfig] = Object.values(resources(statelessTemplate, 'AWS::Lambda::EventInvokeConfig')).filter(
      (r) => (r.Properties.FunctionName as { Ref?: string }).Ref === functionId,
    );
    expect(invokeConfig.Properties.MaximumRetryAttempts).toBe(0);
  });

  it('knows the domain table only, and no secret', () => {
    const variables = (fn.Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables;
    expect(Object.keys(variables).sort()).toEqual(['LOG_LEVEL', 'NODE_OPTIONS', 'POWERTOOLS_TRACE_ENABLED', 'STAGE', 'TABLE_DOMAIN']);
    expect(variables.TABLE_DOMAIN).toBe('partner-api-dev-domain');
  });

  it('may Query the domain table’s gsi1 index only, and UpdateItem and PutItem on the table: nothing else in DynamoDB', () => {
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const dynamo = statementsOf(roleId).filter((s) => JSON.stringify(s.Action).includes('dynamodb:'));
    expect(dynamo.map((s) => ({ actions: actionsOf(s), resource: s.Resource, effect: s.Effect }))).toEqual([
      { actions: ['dynamodb:Query'], resource: statelessIndexArn('dev', 'domain', 'gsi1'), effect: 'Allow' },
      { actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'], resource: domainArn, effect: 'Allow' },
    ]);
    // Besides DynamoDB: its own log group (no managed policy, so no other log group) and X-Ray.
    const logGroupArn = { 'Fn::GetAtt': [logicalIdByPath(statelessTemplate, 'AWS::Logs::LogGroup', '/Jobs/EntitlementPeriodsLogGroup/Resource'), 'Arn'] };
    const others = statementsOf(roleId).filter((s) => !JSON.stringify(s.Action).includes('dynamodb:'));
    expect(others.map((s) => ({ actions: actionsOf(s), resource: s.Resource }))).toEqual([
      { actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resource: logGroupArn },
      { actions: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], resource: '*' },
    ]);
    expect(resources(statelessTemplate, 'AWS::IAM::Role')[roleId].Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('is run every minute by one EventBridge Scheduler schedule, on time, without retries', () => {
    const schedules = Object.values(resources(statelessTemplate, SCHEDULE)).filter((schedule) => JSON.stringify(schedule.Properties.Target).includes(functionId));
    expect(schedules).toHaveLength(1);
    expect(schedules[0].Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: { 'Fn::GetAtt': [functionId, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 } },
    });
  });

  it('invokes through a role only the scheduler of this account may assume, allowed to invoke this function (no version or alias) and nothing else', () => {
    const [schedule] = Object.values(resources(statelessTemplate, SCHEDULE)).filter((candidate) => JSON.stringify(candidate.Properties.Target).includes(functionId));
    const roleId = (schedule.Properties.Target as { RoleArn: { 'Fn::GetAtt': [string, string] } }).RoleArn['Fn::GetAtt'][0];
    const role = resources(statelessTemplate, 'AWS::IAM::Role')[roleId];
    const trust = (role.Properties.AssumeRolePolicyDocument as { Statement: Statement[] }).Statement;
    expect(trust).toEqual([
      expect.objectContaining({
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: { StringEquals: expect.objectContaining({ 'aws:SourceAccount': { Ref: 'AWS::AccountId' } }) },
      }),
    ]);
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    const statements = statementsOf(roleId);
    expect(statements).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [functionId, 'Arn'] },
      },
    ]);
  });

  it('adds no Lambda resource policy: only the API may appear in one', () => {
    const permissions = Object.values(resources(statelessTemplate, 'AWS::Lambda::Permission'));
    expect(permissions.some((p) => JSON.stringify(p.Properties.FunctionName).includes(functionId))).toBe(false);
  });

  it.each([
    ['dev', 'Delete'],
    ['prod', 'RetainExceptOnCreate'],
  ])('keeps the %s job log for the stage’s retention (%s on stack deletion)', (name, policy) => {
    const { statelessTemplate: template, config: stageConfig } = stage(name);
    const logGroup = resources(template, 'AWS::Logs::LogGroup')[logicalIdByPath(template, 'AWS::Logs::LogGroup', '/Jobs/EntitlementPeriodsLogGroup/Resource')];
    expect(logGroup.Properties.RetentionInDays).toBe(stageConfig.logRetentionDays);
    expect(logGroup.DeletionPolicy).toBe(policy);
  });
});

describe('scheduled jobs: claim-reconciler', () => {
  const { statelessTemplate } = stage('dev');
  const functionId = logicalIdByPath(statelessTemplate, FUNCTION, '/Jobs/ClaimReconciler/Resource');

  it('is run every minute by its own schedule, on time, without retries', () => {
    const schedules = Object.values(resources(statelessTemplate, SCHEDULE)).filter((schedule) => JSON.stringify(schedule.Properties.Target).includes(functionId));
    expect(schedules).toHaveLength(1);
    expect(schedules[0].Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { RetryPolicy: { MaximumRetryAttempts: 0 } },
    });
  });

  it('may do exactly what a reconciliation does on the domain table, and nothing on any index', () => {
    const fn = resources(statelessTemplate, FUNCTION)[functionId];
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const statements = Object.values(resources(statelessTemplate, 'AWS::IAM::Policy'))
      .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement)
      .filter((statement) => JSON.stringify(statement.Action).includes('dynamodb:'));
    expect(statements).toHaveLength(1);
    expect([statements[0].Action].flat().sort()).toEqual(['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    expect(JSON.stringify(statements[0].Resource)).not.toContain('/index/');
    expect(Object.keys((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables).filter((name) => name.startsWith('TABLE_') || name.startsWith('SECRET_'))).toEqual(['TABLE_DOMAIN']);
  });
});
