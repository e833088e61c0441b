import { describe, it, expect } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { ENDPOINT_GROUPS } from '../../lambdas/shared/http/routes';
import { TABLE_IDS } from '../../lambdas/shared/storage/table-definitions';
import { resolveStageConfig } from '../../lib/config/stage-config';
import { edgeLimits } from '../../lambdas/shared/limits/limits-table';
import { resources, stage, synthStage } from './support';

const ALARM = 'AWS::CloudWatch::Alarm';
/** Edge rows WAF enforces over the Region's malformed credentials (CONSTANT aggregate). */
const REGION_WIDE_RULES = edgeLimits().filter((l) => l.enforcedBy === 'waf' && l.aggregate === 'location');
/** API 5XX and p99, errors and throttles per function, throttled requests per table, Region-wide WAF blocks. */
const EXPECTED_ALARMS = 2 + 2 * ENDPOINT_GROUPS.length + TABLE_IDS.length + REGION_WIDE_RULES.length;

describe('observability', () => {
  it.each(['dev', 'pr-123'])('creates no alarms and no topic on %s (alarms disabled)', (name) => {
    const { statelessTemplate } = stage(name);

    statelessTemplate.resourceCountIs(ALARM, 0);
    statelessTemplate.resourceCountIs('AWS::SNS::Topic', 0);
  });

  it.each(['staging', 'prod'])('alarms on API 5XX, p99 latency, every function and every table on %s', (name) => {
    const { statelessTemplate } = stage(name);
    const { alarms } = resolveStageConfig(name);

    statelessTemplate.resourceCountIs(ALARM, EXPECTED_ALARMS);
    statelessTemplate.hasResourceProperties(ALARM, {
      AlarmName: `partner-api-${name}-api-5xx`,
      MetricName: '5XXError',
      Namespace: 'AWS/ApiGateway',
      Dimensions: Match.arrayWith([{ Name: 'Stage', Value: Match.anyValue() }]),
      Statistic: 'Sum',
      Threshold: alarms.api5xxThreshold,
    });
    statelessTemplate.hasResourceProperties(ALARM, {
      AlarmName: `partner-api-${name}-api-p99-latency`,
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Threshold: alarms.p99LatencyMs,
    });
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

  it.each(['staging', 'prod'])('alarms when the Region-wide authentication rule of WAF blocks requests on %s', (name) => {
    const { statelessTemplate } = stage(name);

    expect(REGION_WIDE_RULES.length).toBeGreaterThan(0);
    for (const rule of REGION_WIDE_RULES) {
      statelessTemplate.hasResourceProperties(ALARM, {
        Namespace: 'AWS/WAFV2',
        MetricName: 'BlockedRequests',
        Dimensions: Match.arrayWith([
          { Name: 'Rule', Value: `partner-api-${name}-${rule.policy}` },
          { Name: 'WebACL', Value: `partner-api-${name}-edge` },
        ]),
        Statistic: 'Sum',
        Threshold: 1,
      });
    }
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
