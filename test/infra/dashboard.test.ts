/**
 * The stage dashboard (lib/constructs/dashboard.ts, docs/alarms.md): where it
 * exists, and that its widgets follow the route table, the limits table, the
 * tables and the pipeline — a line per route, per policy, per table and index
 * — query the service's metrics with exactly the catalog's dimensions, mark
 * the alarms' thresholds and stay within CloudWatch's limits.
 */
import { beforeAll, describe, it, expect } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import { Template } from 'aws-cdk-lib/assertions';
import { SURFACE_OF_GROUP, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { concurrencyLimits, edgeLimits, quotaLimits } from '../../lambdas/shared/limits/limits-table';
import { CLAIMING_RECONCILIATION_BOUND_SECONDS, METRICS, METRIC_NAMESPACE } from '../../lambdas/shared/observability/metric-catalog';
import { TABLES, TABLE_IDS } from '../../lambdas/shared/storage/table-definitions';
import { resolveStageConfig } from '../../lib/config/stage-config';
import { surfaceNamePrefix, SURFACES } from '../../lib/config/surfaces';
import { CLOUDWATCH_DASHBOARD_LIMITS, MAX_LINES_PER_GRAPH } from '../../lib/constructs/dashboard';
import { Observability } from '../../lib/constructs/observability';
import { logicalIdByPath, resources, stage, stageLogicalId } from './support';

const DASHBOARD = 'AWS::CloudWatch::Dashboard';
const SYNTH_TIMEOUT_MS = 180_000;

/** A metric line of a graph: `[namespace, name, dim, value, …, options]`, or an expression `[{expression, …}]`. */
interface Line {
  readonly namespace?: string;
  readonly name?: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly expression?: string;
  readonly options: { readonly stat?: string; readonly visible?: boolean; readonly yAxis?: string; readonly label?: string; readonly id?: string };
}

interface Widget {
  readonly type: string;
  readonly properties: {
    readonly title?: string;
    readonly markdown?: string;
    readonly metrics?: unknown[][];
    readonly alarms?: string[];
    readonly annotations?: { horizontal?: { value: number; label?: string; yAxis?: string }[] };
  };
}

/** A CloudFormation token inside the body, as the text the tests compare with. */
const token = (value: unknown): string => `<${JSON.stringify(value).replace(/"/g, "'")}>`;

function dashboardOf(template: Template): { name: string; widgets: Widget[] } {
  const dashboards = Object.values(resources(template, DASHBOARD));
  expect(dashboards).toHaveLength(1);
  const body = dashboards[0].Properties.DashboardBody as string | { 'Fn::Join': [string, unknown[]] };
  const text = typeof body === 'string' ? body : body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : token(part))).join('');
  return { name: String(dashboards[0].Properties.DashboardName), widgets: (JSON.parse(text) as { widgets: Widget[] }).widgets };
}

function linesOf(widget: Widget): Line[] {
  return (widget.properties.metrics ?? []).map((entry) => {
    const last = entry[entry.length - 1];
    const options = (typeof last === 'object' && last !== null ? last : {}) as Line['options'] & { expression?: string };
    if (options.expression) return { dimensions: {}, expression: options.expression, options };
    const [namespace, name, ...rest] = entry.filter((part) => typeof part === 'string') as string[];
    const dimensions: Record<string, string> = {};
    for (let i = 0; i < rest.length; i += 2) dimensions[rest[i]] = rest[i + 1];
    return { namespace, name, dimensions, options };
  });
}

/** Graphs whose title starts with `title` (a graph split in parts is `title (1/2)`, …). */
function graphs(widgets: readonly Widget[], title: string): Widget[] {
  const found = widgets.filter((w) => w.type === 'metric' && (w.properties.title === title || w.properties.title?.startsWith(`${title} (`)));
  expect(found.length, title).toBeGreaterThan(0);
  return found;
}

const linesIn = (widgets: readonly Widget[], title: string): Line[] => graphs(widgets, title).flatMap(linesOf);

const has = (lines: readonly Line[], expected: { namespace: string; name: string; dimensions: Record<string, string>; stat?: string }): boolean =>
  lines.some(
    (line) =>
      line.namespace === expected.namespace &&
      line.name === expected.name &&
      JSON.stringify(Object.entries(line.dimensions).sort()) === JSON.stringify(Object.entries(expected.dimensions).sort()) &&
      (expected.stat === undefined || line.options.stat === expected.stat),
  );

beforeAll(() => {
  for (const name of ['pr123', 'dev', 'prod']) stage(name);
}, 3 * SYNTH_TIMEOUT_MS);

describe('dashboard', () => {
  it('exists on every long-lived stage, named for it, and not on ephemeral stages', () => {
    expect(dashboardOf(stage('dev').statelessTemplate).name).toBe('partner-api-dev');
    expect(dashboardOf(stage('prod').statelessTemplate).name).toBe('partner-api-prod');
    stage('pr123').statelessTemplate.resourceCountIs(DASHBOARD, 0);
  });

  describe.each(['dev', 'prod'])('on %s', (name) => {
    const widgetsOf = () => dashboardOf(stage(name).statelessTemplate).widgets;

    it('graphs every route of the route table: p50 and p99 latency, 4xx and 5xx answers, under its endpoint group', () => {
      const widgets = widgetsOf();

      for (const route of ROUTES) {
        const byRoute = { route: route.id, service: 'partner-api', stage: name };
        expect(has(linesIn(widgets, `${route.group}: p50 latency by route (ms)`), { namespace: METRIC_NAMESPACE, name: 'RequestLatency', dimensions: byRoute, stat: 'p50' }), route.id).toBe(true);
        expect(has(linesIn(widgets, `${route.group}: p99 latency by route (ms)`), { namespace: METRIC_NAMESPACE, name: 'RequestLatency', dimensions: byRoute, stat: 'p99' }), route.id).toBe(true);
        for (const statusClass of ['4xx', '5xx']) {
          expect(
            has(linesIn(widgets, `${route.group}: ${statusClass} by route`), { namespace: METRIC_NAMESPACE, name: 'Requests', dimensions: { ...byRoute, status_class: statusClass }, stat: 'Sum' }),
            `${route.id} ${statusClass}`,
          ).toBe(true);
        }
      }
      // No route graphed twice, none that is not in the table.
      const routeLines = widgets.filter((w) => / by route/.test(w.properties.title ?? '')).flatMap(linesOf);
      expect(routeLines).toHaveLength(4 * ROUTES.length);
    });

    it('graphs each front door from API Gateway: latency p50 and p99, requests with 4XX and 5XX, the 5XX rate the alarm watches', () => {
      const { statelessTemplate } = stage(name);
      const widgets = widgetsOf();
      const { alarms } = resolveStageConfig(name);

      for (const surface of SURFACES) {
        const dimensions = { ApiName: surfaceNamePrefix(name, surface), Stage: token({ Ref: stageLogicalId(statelessTemplate, surface) }) };
        const [latency] = widgets.filter((w) => w.properties.title?.endsWith(': latency (ms)') && has(linesOf(w), { namespace: 'AWS/ApiGateway', name: 'Latency', dimensions }));
        expect(latency, surface).toBeDefined();
        expect(linesOf(latency).map((l) => l.options.stat)).toEqual(['p50', 'p99']);
        const [counts] = widgets.filter((w) => w.properties.title?.endsWith(': requests, 4XX, 5XX') && has(linesOf(w), { namespace: 'AWS/ApiGateway', name: 'Count', dimensions }));
        expect(linesOf(counts).map((l) => l.name)).toEqual(['Count', '4XXError', '5XXError']);
        const [rate] = widgets.filter((w) => w.properties.title?.endsWith(': 5XX rate (%)') && has(linesOf(w), { namespace: 'AWS/ApiGateway', name: '5XXError', dimensions }));
        expect(linesOf(rate)[0].expression).toBe(`IF(FILL(requests, 0) >= ${alarms.api5xxMinRequests}, 100 * FILL(errors, 0) / FILL(requests, 0), 0)`);
        // The alarm's threshold is drawn where there is an alarm.
        expect(rate.properties.annotations?.horizontal?.map((a) => a.value)).toEqual(alarms.enabled ? [alarms.api5xxRatePercent] : undefined);
      }
    });

    it('graphs rejections by every policy of the limits table, and WAF blocks by every rule of both web ACLs', () => {
      const { stateless } = stage(name);
      const lines = dashboardOf(stage(name).statelessTemplate).widgets.flatMap(linesOf);
      const policiesOf = (metric: string) => lines.filter((l) => l.name === metric).map((l) => l.dimensions.policy);

      expect(policiesOf('QuotaRejections').sort()).toEqual([...new Set(quotaLimits().map((l) => l.policy))].sort());
      expect(policiesOf('ConcurrencyRejections').sort()).toEqual([...new Set(concurrencyLimits().map((l) => l.policy))].sort());
      // The function's edge guard reports its own rows; WAF's rows are its blocks.
      expect(policiesOf('EdgeRejections').sort()).toEqual(edgeLimits().filter((l) => l.enforcedBy === 'application').map((l) => l.policy).sort());
      for (const limit of edgeLimits().filter((l) => l.enforcedBy === 'waf')) {
        const prefix = surfaceNamePrefix(name, limit.surface);
        expect(has(lines, { namespace: 'AWS/WAFV2', name: 'BlockedRequests', dimensions: { WebACL: `${prefix}-edge`, Rule: `${prefix}-${limit.policy}`, Region: token({ Ref: 'AWS::Region' }) } }), limit.policy).toBe(true);
      }
      for (const edge of Object.values(stateless.edges)) {
        const rules = lines.filter((l) => l.name === 'BlockedRequests' && l.dimensions.WebACL === edge.webAclName).map((l) => l.dimensions.Rule);
        expect(rules).toContain('ALL');
        expect(rules).toEqual(expect.arrayContaining([...edge.regionWideRuleMetricNames, `${surfaceNamePrefix(name, edge.surface)}-credentials-in-url`]));
      }
    });

    it('graphs every table: read and write throttle events of the table and each index as the alarms sum them, consumed read and write capacity of both', () => {
      const widgets = widgetsOf();

      for (const id of TABLE_IDS) {
        const throttles = linesIn(widgets, `${id}: throttle events (reads + writes)`);
        const sources = (metric: string) => throttles.filter((l) => l.name === metric).map((l) => l.dimensions.GlobalSecondaryIndexName ?? 'table');
        const expected = ['table', ...TABLES[id].globalIndexes.map((index) => index.indexName)];
        expect(sources('ReadThrottleEvents')).toEqual(expected);
        expect(sources('WriteThrottleEvents')).toEqual(expected);
        // Each sum fills both terms, as the alarms' math does.
        expect(throttles.filter((l) => l.expression).every((l) => /^FILL\(\w+, 0\) \+ FILL\(\w+, 0\)$/.test(String(l.expression)))).toBe(true);
        for (const [title, metric] of [['read capacity (RCU per 5 min)', 'ConsumedReadCapacityUnits'], ['write capacity (WCU per 5 min)', 'ConsumedWriteCapacityUnits']]) {
          const consumed = linesIn(widgets, `${id}: consumed ${title}`);
          expect(consumed.every((l) => l.name === metric)).toBe(true);
          expect(consumed.map((l) => l.dimensions.GlobalSecondaryIndexName ?? 'table')).toEqual(['table', ...TABLES[id].globalIndexes.map((index) => index.indexName)]);
        }
      }
    });

    it('graphs errors, throttles, p99 duration and concurrency of every function, jobs and webhook functions included', () => {
      const { stateless } = stage(name);
      const widgets = widgetsOf();
      const expected = [...Object.keys(stateless.api.functions), ...Object.keys(stateless.webApi.functions), 'entitlement-periods', 'claim-reconciler', 'webhook-fanout', 'webhook-delivery', 'webhook-sweeper'];

      for (const [title, metric] of [['Lambda errors by function', 'Errors'], ['Lambda throttles by function', 'Throttles'], ['Lambda duration p99 by function (ms)', 'Duration'], ['Lambda concurrent executions by function (max)', 'ConcurrentExecutions']]) {
        const lines = linesIn(widgets, title);
        expect(lines.every((l) => l.namespace === 'AWS/Lambda' && l.name === metric)).toBe(true);
        expect(lines.map((l) => l.options.label).sort()).toEqual([...expected].sort());
      }
    });

    it('graphs the webhook pipeline: deliveries by outcome, the final failure rate, attempts, the queue with its oldest message, the dead-letter queue, retry executions', () => {
      const { statelessTemplate } = stage(name);
      const widgets = widgetsOf();
      const { alarms } = resolveStageConfig(name);
      const queueName = (path: string) => token({ 'Fn::GetAtt': [logicalIdByPath(statelessTemplate, 'AWS::SQS::Queue', path), 'QueueName'] });

      expect(linesIn(widgets, 'Webhook deliveries ended, by outcome').map((l) => l.dimensions)).toEqual(
        ['delivered', 'failed', 'cancelled'].map((outcome) => ({ outcome, service: 'partner-api', stage: name })),
      );
      const [rate] = graphs(widgets, 'Webhook deliveries finally failed, hourly (%)');
      expect(linesOf(rate)[0].expression).toContain(`>= ${alarms.webhookFailureMinDeliveries},`);
      expect(rate.properties.annotations?.horizontal?.map((a) => a.value)).toEqual(alarms.enabled ? [alarms.webhookFailureRatePercent] : undefined);
      expect(linesIn(widgets, 'Webhook attempts by outcome and attempt')[0].expression).toBe(
        `SEARCH('{PartnerApi,service,stage,outcome,attempt} MetricName="WebhookAttempts" service="partner-api" stage="${name}"', 'Sum', 300)`,
      );
      const queue = queueName('/Webhooks/Queue/Resource');
      expect(linesIn(widgets, 'Delivery queue: messages').map((l) => [l.name, l.dimensions.QueueName])).toEqual([
        ['ApproximateNumberOfMessagesVisible', queue],
        ['ApproximateNumberOfMessagesNotVisible', queue],
        ['ApproximateNumberOfMessagesDelayed', queue],
      ]);
      const [oldest] = graphs(widgets, 'Delivery queue: oldest message (s)');
      expect(linesOf(oldest)).toEqual([expect.objectContaining({ name: 'ApproximateAgeOfOldestMessage', dimensions: { QueueName: queue } })]);
      expect(oldest.properties.annotations?.horizontal?.map((a) => a.value)).toEqual(alarms.enabled ? [alarms.deliveryQueueOldestAgeSeconds] : undefined);
      expect(linesIn(widgets, 'Dead-letter queue: messages')).toEqual([
        expect.objectContaining({ name: 'ApproximateNumberOfMessagesVisible', dimensions: { QueueName: queueName('/Webhooks/DeadLetterQueue/Resource') } }),
      ]);
      const machine = token({ Ref: logicalIdByPath(statelessTemplate, 'AWS::StepFunctions::StateMachine', '/Webhooks/RetryStateMachine/Resource') });
      const executions = linesIn(widgets, 'Retry state machine: executions');
      expect(executions.map((l) => l.name)).toEqual(['ExecutionsStarted', 'ExecutionsSucceeded', 'ExecutionsFailed', 'ExecutionsTimedOut', 'ExecutionsAborted']);
      expect(executions.every((l) => l.dimensions.StateMachineArn === machine)).toBe(true);
    });

    it('graphs claims: outcomes, the claiming backlog and its oldest claim against the reconciliation bound, reconciler outcomes', () => {
      const widgets = widgetsOf();
      const { alarms } = resolveStageConfig(name);

      const [claiming] = graphs(widgets, 'Claims left claiming (reconciler runs, max)');
      expect(linesOf(claiming).map((l) => [l.name, l.dimensions, l.options.yAxis])).toEqual([
        ['ClaimingBacklog', { service: 'partner-api', stage: name }, undefined],
        ['ClaimingOldestAgeSeconds', { service: 'partner-api', stage: name }, 'right'],
      ]);
      expect(claiming.properties.annotations?.horizontal).toEqual([
        alarms.enabled
          ? { value: alarms.claimingOldestAgeSeconds, label: 'alarm', yAxis: 'right' }
          : { value: CLAIMING_RECONCILIATION_BOUND_SECONDS, label: 'reconciliation bound', yAxis: 'right' },
      ]);
      expect(linesIn(widgets, 'Claims by outcome')[0].expression).toContain(`{PartnerApi,service,stage,outcome} MetricName="Claims" service="partner-api" stage="${name}"`);
      expect(linesIn(widgets, 'Reconciler outcomes')[0].expression).toContain(`MetricName="ReconcilerOutcomes" service="partner-api" stage="${name}"`);
    });

    it('queries the service’s metrics with exactly the catalog’s dimensions (CloudWatch matches only the full set)', () => {
      const lines = widgetsOf().flatMap(linesOf).filter((l) => l.namespace === METRIC_NAMESPACE);
      const byName = new Map<string, readonly string[]>(Object.values(METRICS).map((spec) => [spec.name, spec.dimensions]));

      expect(lines.length).toBeGreaterThan(4 * ROUTES.length);
      for (const line of lines) {
        expect(byName.has(line.name ?? ''), line.name).toBe(true);
        expect(Object.keys(line.dimensions).sort(), line.name).toEqual(['service', 'stage', ...(byName.get(line.name ?? '') ?? [])].sort());
        expect(line.dimensions.stage).toBe(name);
      }
    });

    it('stays within CloudWatch’s limits and keeps each graph readable', () => {
      const widgets = widgetsOf();
      const metricCounts = widgets.map((w) => w.properties.metrics?.length ?? 0);

      expect(widgets.length).toBeLessThanOrEqual(CLOUDWATCH_DASHBOARD_LIMITS.widgets);
      expect(Math.max(...metricCounts)).toBeLessThanOrEqual(CLOUDWATCH_DASHBOARD_LIMITS.metricsPerWidget);
      expect(metricCounts.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(CLOUDWATCH_DASHBOARD_LIMITS.metricsPerDashboard);
      for (const widget of widgets) {
        const visible = linesOf(widget).filter((l) => l.options.visible !== false);
        expect(visible.length, widget.properties.title).toBeLessThanOrEqual(MAX_LINES_PER_GRAPH);
      }
    });
  });

  it('lists every alarm of the stage where alarms are on, and no alarm widget where they are off', () => {
    const prod = stage('prod').statelessTemplate;
    const listed = dashboardOf(prod).widgets.filter((w) => w.type === 'alarm').flatMap((w) => w.properties.alarms ?? []);

    expect(listed.sort()).toEqual(Object.keys(resources(prod, 'AWS::CloudWatch::Alarm')).map((id) => token({ 'Fn::GetAtt': [id, 'Arn'] })).sort());
    expect(dashboardOf(stage('dev').statelessTemplate).widgets.filter((w) => w.type === 'alarm')).toEqual([]);
  });

  describe('built from the route table it is given', () => {
    const build = (routeCount: number) => {
      const stack = new Stack(new App(), 'DashboardOnly');
      const api = new apigateway.RestApi(stack, 'Api', { deployOptions: { stageName: 'v1' } });
      api.root.addMethod('GET', new apigateway.MockIntegration());
      const routes: RouteDefinition[] = Array.from({ length: routeCount }, (_, i) => ({ id: `route-${i}`, method: 'GET', path: `/r${i}`, group: 'records', auth: 'key', query: [], body: 'none' }));
      new Observability(stack, 'Observability', {
        config: resolveStageConfig('dev'),
        apis: [{ alarmPrefix: 'api', title: 'Test API', stage: api.deploymentStage, routes }],
        functions: {},
        tables: {},
      });
      return Template.fromStack(stack);
    };

    it('splits a group with more routes than a graph may carry, every route on exactly one graph of each kind', () => {
      // Prepare
      expect(SURFACE_OF_GROUP.records).toBe('partner');
      const count = 2 * MAX_LINES_PER_GRAPH + 5;

      // Act
      const { widgets } = dashboardOf(build(count));

      // Assess
      const parts = graphs(widgets, 'records: p99 latency by route (ms)');
      expect(parts.map((w) => w.properties.title)).toEqual([1, 2, 3].map((i) => `records: p99 latency by route (ms) (${i}/3)`));
      const routes = parts.flatMap(linesOf).map((l) => l.dimensions.route);
      expect(routes.sort()).toEqual(Array.from({ length: count }, (_, i) => `route-${i}`).sort());
      for (const part of parts) expect(linesOf(part).length).toBeLessThanOrEqual(MAX_LINES_PER_GRAPH);
    });

    it('fails the build rather than deploy a dashboard CloudWatch would refuse (more than 2,500 metrics)', () => {
      expect(() => build(Math.ceil(CLOUDWATCH_DASHBOARD_LIMITS.metricsPerDashboard / 4) + 1)).toThrow(/metrics, CloudWatch allows 2500 per dashboard/);
    });
  });
});
