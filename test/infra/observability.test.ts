import { describe, it, expect } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { ENDPOINT_GROUPS } from '../../lambdas/shared/http/routes';
import { SURFACE_PROFILES, SURFACES } from '../../lib/config/surfaces';
import { TABLE_IDS } from '../../lambdas/shared/storage/table-definitions';
import { resolveStageConfig } from '../../lib/config/stage-config';
import { edgeLimits } from '../../lambdas/shared/limits/limits-table';
import { Observability } from '../../lib/constructs/observability';
import { resources, stage, stageLogicalId, synthStage } from './support';

const ALARM = 'AWS::CloudWatch::Alarm';
/** Edge rows WAF enforces over the Region's malformed credentials (CONSTANT aggregate). */
const REGION_WIDE_RULES = edgeLimits().filter((l) => l.enforcedBy === 'waf' && l.aggregate === 'location');
/**
 * API 5XX and p99 per front door, errors and throttles per function (the endpoint groups' and the webhook fan-out's and
 * delivery worker's), throttled requests per table, Region-wide WAF blocks, the webhook dead-letter queue and retry
 * state machine (test/infra/webhook-delivery.test.ts).
 */
const EXPECTED_ALARMS = 2 * SURFACES.length + 2 * (ENDPOINT_GROUPS.length + 2) + TABLE_IDS.length + REGION_WIDE_RULES.length + 2;

describe('observability', () => {
  it.each(['dev', 'pr-123'])('creates no alarms and no topic on %s (alarms disabled)', (name) => {
    const { statelessTemplate } = stage(name);

    statelessTemplate.resourceCountIs(ALARM, 0);
    statelessTemplate.resourceCountIs('AWS::SNS::Topic', 0);
  });

  it.each(['staging', 'prod'])('alarms on API 5XX, p99 latency of both APIs, every function (settings included) and every table on %s', (name) => {
    const { statelessTemplate } = stage(name);
    const { alarms } = resolveStageConfig(name);

    statelessTemplate.resourceCountIs(ALARM, EXPECTED_ALARMS);
    for (const surface of SURFACES) {
      const prefix = `partner-api-${name}-${SURFACE_PROFILES[surface].alarmPrefix}`;
      // The alarm watches this API's stage: its Stage dimension references the surface's stage resource.
      const stageDimension = { Name: 'Stage', Value: { Ref: stageLogicalId(statelessTemplate, surface) } };
      statelessTemplate.hasResourceProperties(ALARM, {
        AlarmName: `${prefix}-5xx`,
        MetricName: '5XXError',
        Namespace: 'AWS/ApiGateway',
        Dimensions: Match.arrayWith([{ Name: 'ApiName', Value: surface === 'partner' ? `partner-api-${name}` : `partner-api-${name}-web` }, stageDimension]),
        Statistic: 'Sum',
        Threshold: alarms.api5xxThreshold,
      });
      statelessTemplate.hasResourceProperties(ALARM, {
        AlarmName: `${prefix}-p99-latency`,
        MetricName: 'Latency',
        Dimensions: Match.arrayWith([stageDimension]),
        ExtendedStatistic: 'p99',
        Threshold: alarms.p99LatencyMs,
      });
    }
    expect(ENDPOINT_GROUPS).toContain('settings');
    for (const group of ENDPOINT_GROUPS) {
      statelessTemplate.hasResourceProperties(ALARM, {
        AlarmName: `partner-api-${name}-${group}-errors`,
        MetricName: 'Errors',
        Namespace: 'AWS/Lambda',
        Threshold: alarms.lambdaErrorsThreshold,
      });
      statelessTemplate.hasResourceProperties(ALARM, {
        AlarmName: `partner-api-${name}-${group}-throttles`,
        MetricName: 'Throttles',
        Namespace: 'AWS/Lambda',
      });
    }
    for (const id of TABLE_IDS) {
      statelessTemplate.hasResourceProperties(ALARM, {
        AlarmName: `partner-api-${name}-${id}-table-throttles`,
        Metrics: Match.arrayWith([
          Match.objectLike({ MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: 'ThrottledRequests', Namespace: 'AWS/DynamoDB' }) }) }),
        ]),
      });
    }
    // CloudWatch allows at most 10 metrics in an alarm's metric math.
    for (const alarm of Object.values(resources(statelessTemplate, ALARM))) {
      const metrics = (alarm.Properties.Metrics as unknown[] | undefined) ?? [];
      expect(metrics.filter((m) => (m as { MetricStat?: unknown }).MetricStat).length).toBeLessThanOrEqual(10);
    }
    statelessTemplate.allResourcesProperties(ALARM, { TreatMissingData: 'notBreaching' });
  });

  it.each(['staging', 'prod'])('alarms when a Region-wide rule of either web ACL blocks requests on %s, on that ACL’s metric', (name) => {
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
        Threshold: 1,
      });
    }
    const wafAlarms = Object.values(resources(statelessTemplate, ALARM)).filter((a) => a.Properties.Namespace === 'AWS/WAFV2');
    expect(wafAlarms).toHaveLength(REGION_WIDE_RULES.length);
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

  it('notifies an e-mail address through SNS on alarm and recovery when notifyEmail is set', () => {
    const { statelessTemplate } = synthStage({ stage: 'prod', notifyEmail: 'ops@example.com' });

    statelessTemplate.resourceCountIs('AWS::SNS::Topic', 1);
    statelessTemplate.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    statelessTemplate.allResourcesProperties(ALARM, {
      AlarmActions: [{ Ref: Match.stringLikeRegexp('AlarmTopic') }],
      OKActions: [{ Ref: Match.stringLikeRegexp('AlarmTopic') }],
    });
  });

  it('creates no topic when alarms are enabled but no e-mail is configured', () => {
    const { statelessTemplate } = stage('prod');

    statelessTemplate.resourceCountIs('AWS::SNS::Topic', 0);
  });
});
