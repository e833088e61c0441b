/**
 * The account-level stack (lib/baseline-stack.ts) holds what exists once per account and Region,
 * and the stages assume it: API Gateway's CloudWatch Logs role, the resource policy that lets WAF
 * deliver to every stage's log groups (so enabling WAF logging adds nothing to an account-level
 * policy), and the version parameter a stage refuses to deploy without.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildBaseline } from '../../lib/app-stacks';
import { BASELINE_STACK_NAME, BASELINE_VERSION, BASELINE_VERSION_PARAMETER, BASELINE_VERSIONS_ACCEPTED, WAF_LOG_GROUP_PREFIX } from '../../lib/baseline-stack';
import { cdkJsonContext, resources, ssmParameterRef, stage } from './support';

const baseline = (() => {
  const app = new App({ context: cdkJsonContext() });
  const stack = buildBaseline(app);
  return { stack, template: Template.fromStack(stack) };
})();

for (const name of ['dev', 'prod', 'pr1']) stage(name);

describe('the account baseline', () => {
  it('is one stack, PartnerApi-Baseline, with termination protection (every stage of the account relies on it)', () => {
    expect(baseline.stack.stackName).toBe(BASELINE_STACK_NAME);
    expect(baseline.stack.terminationProtection).toBe(true);
  });

  it('sets API Gateway’s CloudWatch Logs role for the account, kept when the stack goes but not after a failed create', () => {
    const [accountId, account] = Object.entries(resources(baseline.template, 'AWS::ApiGateway::Account'))[0];
    const roleId = (account.Properties.CloudWatchRoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const role = resources(baseline.template, 'AWS::IAM::Role')[roleId];

    expect(accountId).toBeDefined();
    expect(JSON.stringify(role.Properties.AssumeRolePolicyDocument)).toContain('apigateway.amazonaws.com');
    expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toContain('service-role/AmazonAPIGatewayPushToCloudWatchLogs');
    for (const resource of [account, role]) expect(resource.DeletionPolicy).toBe('RetainExceptOnCreate');
  });

  it('lets WAF’s log delivery write to every stage’s blocked-request log group, and only those, of this account', () => {
    const policies = Object.values(resources(baseline.template, 'AWS::Logs::ResourcePolicy'));
    expect(policies).toHaveLength(1);
    const text = JSON.stringify(policies[0].Properties.PolicyDocument);

    expect(policies[0].Properties.PolicyName).toBe('partner-api-baseline-waf-log-delivery');
    expect(text).toContain('delivery.logs.amazonaws.com');
    expect(text).toContain(`:log-group:${WAF_LOG_GROUP_PREFIX}*:log-stream:*`);
    expect(text).toContain('aws:SourceAccount');
    // Every stage's WAF log groups fall under the policy's prefix.
    for (const name of ['dev', 'prod', 'pr1']) {
      const wafGroups = Object.values(resources(stage(name).statelessTemplate, 'AWS::Logs::LogGroup'))
        .map((group) => String(group.Properties.LogGroupName ?? ''))
        .filter((groupName) => groupName.startsWith('aws-waf-logs-'));
      expect(wafGroups).toHaveLength(2);
      for (const groupName of wafGroups) expect(groupName.startsWith(WAF_LOG_GROUP_PREFIX), groupName).toBe(true);
    }
  });

  it('publishes its version where the stages read it', () => {
    baseline.template.hasResourceProperties('AWS::SSM::Parameter', { Name: BASELINE_VERSION_PARAMETER, Value: BASELINE_VERSION });
    expect(BASELINE_VERSIONS_ACCEPTED).toContain(BASELINE_VERSION);
  });

  it.each(['dev', 'prod', 'pr1'])('is assumed by %s: no account-level resource in the stage, and a deploy without the baseline stops at its change set', (name) => {
    const { statefulTemplate, statelessTemplate } = stage(name);
    for (const template of [statefulTemplate, statelessTemplate]) {
      template.resourceCountIs('AWS::ApiGateway::Account', 0);
      template.resourceCountIs('AWS::Logs::ResourcePolicy', 0);
    }
    const version = ssmParameterRef(statelessTemplate, BASELINE_VERSION_PARAMETER);
    const rules = statelessTemplate.toJSON().Rules as Record<string, { Assertions: { Assert: unknown; AssertDescription: string }[] }>;

    expect(rules.BaselineDeployed.Assertions).toEqual([
      { Assert: { 'Fn::Contains': [[...BASELINE_VERSIONS_ACCEPTED], version] }, AssertDescription: expect.stringContaining(`npx cdk deploy ${BASELINE_STACK_NAME}`) },
    ]);
  });
});
