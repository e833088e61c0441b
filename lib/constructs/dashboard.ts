/**
 * The stage's CloudWatch dashboard `partner-api-<stage>` (docs/alarms.md
 * lists its rows), generated from what the stack declares once: the route
 * table (a line per route), the limits table (a line per policy), the
 * tables, web ACLs, functions and the webhook pipeline the stack hands over,
 * and the service's own metrics (metric-catalog.ts). A route, a policy or a
 * table added there appears here without an edit.
 *
 * Rows, top to bottom: the alarms (where enabled); each front door (API
 * Gateway latency, requests and errors, 5XX rate); per endpoint group, its
 * routes' p50 and p99 latency and 4xx and 5xx answers; rejections by policy
 * (quota, concurrency, in-function edge) and WAF blocks by rule; functions;
 * tables; the webhook pipeline; claims.
 *
 * CloudWatch limits a dashboard to 500 widgets and 2,500 metrics, a graph to
 * 500 metrics; a graph here carries at most MAX_LINES_PER_GRAPH lines (more
 * are split over several graphs) and the build fails before CloudWatch would.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { EndpointGroup, RouteDefinition } from '../../lambdas/shared/http/routes';
import { LIMITS, concurrencyLimits, edgeLimits, quotaLimits, type QuotaHolder } from '../../lambdas/shared/limits/limits-table';
import { CLAIMING_RECONCILIATION_BOUND_SECONDS } from '../../lambdas/shared/observability/metric-catalog';
import type { StageConfig } from '../config/stage-config';
import { ENDED_DELIVERY_OUTCOMES, api5xxRate, throttleEvents, wafBlockedRequests, webhookFailureRate } from './alarm-metrics';
import type { ObservedApi, ObservedResources } from './observability';
import { serviceMetric, serviceMetricSearch } from './service-metrics';

/** CloudWatch's own limits on one dashboard. */
export const CLOUDWATCH_DASHBOARD_LIMITS = { widgets: 500, metricsPerWidget: 500, metricsPerDashboard: 2500 } as const;
/** Lines one graph may carry here: CloudWatch allows 500, a reader far fewer. */
export const MAX_LINES_PER_GRAPH = 20;
/** Alarms one alarm status widget may list (CloudWatch's limit). */
export const MAX_ALARMS_PER_WIDGET = 100;

/**
 * Which graph a quota's rejections go to, by who holds the quota: one graph per audience. A
 * Record over every holder, so a new kind of holder does not compile until it has a graph.
 */
export const QUOTA_GRAPH_OF_HOLDER: Readonly<Record<QuotaHolder, string>> = {
  key: 'partner API',
  account: 'partner API',
  organization: 'partner API',
  'player-ip': 'player site',
  'join-link': 'player site',
  'settings-account': 'web settings',
  'settings-session': 'web settings',
  'sign-in-ip': 'web settings sign-in',
  'sign-in-email': 'web settings sign-in',
  'sign-in-device': 'web settings sign-in',
  webhook: 'webhooks',
  'webhook-organization': 'webhooks',
  'webhook-delivery-record': 'webhooks',
  'webhook-delivery': 'webhooks',
};

const PERIOD = Duration.minutes(5);
const GRAPH_HEIGHT = 6;
const FULL_WIDTH = 24;

export interface ServiceDashboardProps {
  readonly config: StageConfig;
  readonly resources: ObservedResources;
  /** The stage's alarms, listed at the top (none where alarms are disabled). */
  readonly alarms: readonly cloudwatch.IAlarm[];
}

export class ServiceDashboard extends Construct {
  public readonly dashboard: cloudwatch.Dashboard;
  public readonly dashboardName: string;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { config, resources, alarms } = props;
    this.dashboardName = `partner-api-${config.stage}`;
    const rows: cloudwatch.IWidget[][] = [
      headerRow(config, alarms),
      ...resources.apis.map((api) => frontDoorRow(config, api)),
      ...resources.apis.flatMap((api) => routeRows(config.stage, api)),
      limitsRow(config.stage, resources, Stack.of(this).region),
      functionsRow(resources),
      tablesRow(resources),
      ...(resources.webhooks ? [webhooksRow(config, resources.webhooks)] : []),
      ...(resources.claimReconciler ? [claimsRow(config)] : []),
    ].filter((row) => row.length > 0);
    checkLimits(rows.flat());
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: this.dashboardName,
      defaultInterval: Duration.hours(6),
      widgets: rows,
    });
  }
}

function headerRow(config: StageConfig, alarms: readonly cloudwatch.IAlarm[]): cloudwatch.IWidget[] {
  const text = new cloudwatch.TextWidget({
    markdown:
      `# partner-api ${config.stage}\n` +
      'What each alarm means and what to do first: `docs/alarms.md`. The service\'s own metrics are in the ' +
      `\`PartnerApi\` namespace with \`stage=${config.stage}\` (\`lambdas/shared/observability/metric-catalog.ts\`).`,
    width: FULL_WIDTH,
    height: 2,
  });
  const statuses = chunk(alarms, MAX_ALARMS_PER_WIDGET).map(
    (part, i, all) =>
      new cloudwatch.AlarmStatusWidget({
        title: `Alarms${suffix(i, all.length)}`,
        alarms: [...part],
        width: FULL_WIDTH,
        height: Math.min(12, 2 + Math.ceil(part.length / 4)),
        sortBy: cloudwatch.AlarmStatusWidgetSortBy.STATE_UPDATED_TIMESTAMP,
      }),
  );
  return [text, ...statuses];
}

function frontDoorRow(config: StageConfig, api: ObservedApi): cloudwatch.IWidget[] {
  const { stage } = api;
  const title = apiTitle(api);
  const { alarms } = config;
  return [
    heading(`${title}: front door (API Gateway, stage v1)`),
    graph(`${title}: latency (ms)`, [
      stage.metricLatency({ period: PERIOD, statistic: cloudwatch.Stats.p(50), label: 'p50' }),
      stage.metricLatency({ period: PERIOD, statistic: cloudwatch.Stats.p(99), label: 'p99' }),
    ], { width: 8, ...(alarms.enabled ? { annotation: { value: alarms.p99LatencyMs, label: 'p99 alarm' } } : {}) })[0],
    graph(`${title}: requests, 4XX, 5XX`, [
      stage.metricCount({ period: PERIOD, statistic: cloudwatch.Stats.SUM, label: 'requests' }),
      stage.metricClientError({ period: PERIOD, statistic: cloudwatch.Stats.SUM, label: '4XX' }),
      stage.metricServerError({ period: PERIOD, statistic: cloudwatch.Stats.SUM, label: '5XX' }),
    ], { width: 8 })[0],
    graph(`${title}: 5XX rate (%)`, [api5xxRate(stage, alarms.api5xxMinRequests)], {
      width: 8,
      ...(alarms.enabled ? { annotation: { value: alarms.api5xxRatePercent, label: 'alarm' } } : {}),
    })[0],
  ];
}

/** Per endpoint group of an API, its routes' latency and 4xx/5xx answers (RequestLatency and Requests by route). */
function routeRows(stage: string, api: ObservedApi): cloudwatch.IWidget[][] {
  const byGroup = new Map<EndpointGroup, RouteDefinition[]>();
  for (const route of api.routes ?? []) byGroup.set(route.group, [...(byGroup.get(route.group) ?? []), route]);
  return [...byGroup].map(([group, routes]) => {
    const latency = (percentile: number) =>
      routes.map((route) => serviceMetric(stage, 'requestLatency', { route: route.id }, { statistic: cloudwatch.Stats.p(percentile), period: PERIOD, label: route.id }));
    const answers = (statusClass: '4xx' | '5xx') =>
      routes.map((route) => serviceMetric(stage, 'requests', { route: route.id, status_class: statusClass }, { statistic: cloudwatch.Stats.SUM, period: PERIOD, label: route.id }));
    return [
      heading(`${apiTitle(api)}: ${group} routes`),
      ...graph(`${group}: p50 latency by route (ms)`, latency(50)),
      ...graph(`${group}: p99 latency by route (ms)`, latency(99)),
      ...graph(`${group}: 4xx by route`, answers('4xx')),
      ...graph(`${group}: 5xx by route`, answers('5xx')),
    ];
  });
}

/** Rejections by policy of the limits table, and WAF's blocks by rule of every web ACL. */
function limitsRow(stage: string, resources: ObservedResources, region: string): cloudwatch.IWidget[] {
  const limits = resources.limits ?? LIMITS;
  const sum = { statistic: cloudwatch.Stats.SUM, period: PERIOD };
  const quotaGraphs = new Map<string, string[]>();
  for (const quota of quotaLimits(limits)) {
    const graphName = QUOTA_GRAPH_OF_HOLDER[quota.holder];
    quotaGraphs.set(graphName, unique([...(quotaGraphs.get(graphName) ?? []), quota.policy]));
  }
  const concurrency = unique(concurrencyLimits(limits).map((limit) => limit.policy));
  // WAF enforces its edge rows itself (its blocks are below); the function's edge guard reports the others.
  const applicationEdge = unique(edgeLimits(limits).filter((limit) => limit.enforcedBy === 'application').map((limit) => limit.policy));
  return [
    heading('Limits: rejections by policy (limits table) and WAF blocks by rule'),
    ...[...quotaGraphs].flatMap(([name, policies]) =>
      graph(`Quota rejections: ${name}`, policies.map((policy) => serviceMetric(stage, 'quotaRejections', { policy }, { ...sum, label: policy }))),
    ),
    ...graph('Concurrency rejections', concurrency.map((policy) => serviceMetric(stage, 'concurrencyRejections', { policy }, { ...sum, label: policy }))),
    ...graph('Edge rejections (in the function)', applicationEdge.map((policy) => serviceMetric(stage, 'edgeRejections', { policy }, { ...sum, label: policy }))),
    ...(resources.edges ?? []).flatMap((edge) =>
      graph(`WAF blocks: ${edge.webAclName}`, [
        wafBlockedRequests(region, edge.webAclName, 'ALL').with({ label: 'all rules' }),
        ...(edge.ruleMetricNames ?? edge.alarmingRuleMetricNames).map((rule) => wafBlockedRequests(region, edge.webAclName, rule).with({ label: rule })),
      ]),
    ),
  ];
}

function functionsRow(resources: ObservedResources): cloudwatch.IWidget[] {
  const functions = Object.entries(resources.functions);
  if (functions.length === 0) return [];
  const sum = { statistic: cloudwatch.Stats.SUM, period: PERIOD };
  return [
    heading('Functions'),
    ...graph('Lambda errors by function', functions.map(([name, fn]) => fn.metricErrors({ ...sum, label: name }))),
    ...graph('Lambda throttles by function', functions.map(([name, fn]) => fn.metricThrottles({ ...sum, label: name }))),
    ...graph('Lambda duration p99 by function (ms)', functions.map(([name, fn]) => fn.metricDuration({ statistic: cloudwatch.Stats.p(99), period: PERIOD, label: name }))),
    ...graph(
      'Lambda concurrent executions by function (max)',
      functions.map(([name, fn]) => fn.metric('ConcurrentExecutions', { statistic: cloudwatch.Stats.MAXIMUM, period: PERIOD, label: name })),
    ),
  ];
}

/** Per table: throttle events of the table and each index (the alarms' sums), then consumed read and write capacity of the table and each index. */
function tablesRow(resources: ObservedResources): cloudwatch.IWidget[] {
  const tables = Object.entries(resources.tables);
  if (tables.length === 0) return [];
  return [
    heading('DynamoDB tables'),
    ...tables.flatMap(([id, table]) => {
      const indexes = resources.tableIndexes?.[id] ?? [];
      const consumed = (metricName: string) => [
        table.metric(metricName, { statistic: cloudwatch.Stats.SUM, period: PERIOD, label: 'table' }),
        ...indexes.map(
          (indexName) =>
            new cloudwatch.Metric({
              namespace: 'AWS/DynamoDB',
              metricName,
              dimensionsMap: { TableName: table.tableName, GlobalSecondaryIndexName: indexName },
              statistic: cloudwatch.Stats.SUM,
              period: PERIOD,
              label: indexName,
            }),
        ),
      ];
      return [
        ...graph(`${id}: throttle events (reads + writes)`, [throttleEvents(table.tableName, undefined, PERIOD), ...indexes.map((indexName) => throttleEvents(table.tableName, indexName, PERIOD))], {
          width: 8,
        }),
        ...graph(`${id}: consumed read capacity (RCU per 5 min)`, consumed('ConsumedReadCapacityUnits'), { width: 8 }),
        ...graph(`${id}: consumed write capacity (WCU per 5 min)`, consumed('ConsumedWriteCapacityUnits'), { width: 8 }),
      ];
    }),
  ];
}

function webhooksRow(config: StageConfig, webhooks: NonNullable<ObservedResources['webhooks']>): cloudwatch.IWidget[] {
  const { stage, alarms } = config;
  const sum = { statistic: cloudwatch.Stats.SUM, period: PERIOD };
  const maximum = { statistic: cloudwatch.Stats.MAXIMUM, period: PERIOD };
  const { queue, deadLetterQueue, retryStateMachine: machine } = webhooks;
  return [
    heading('Webhook delivery pipeline'),
    ...graph('Webhook deliveries ended, by outcome', ENDED_DELIVERY_OUTCOMES.map((outcome) => serviceMetric(stage, 'webhookDeliveries', { outcome }, { ...sum, label: outcome })), { width: 8 }),
    ...graph('Webhook deliveries finally failed, hourly (%)', [webhookFailureRate(stage, alarms.webhookFailureMinDeliveries)], {
      width: 8,
      ...(alarms.enabled ? { annotation: { value: alarms.webhookFailureRatePercent, label: 'alarm' } } : {}),
    }),
    ...graph('Webhook attempts by outcome and attempt', [serviceMetricSearch(stage, 'webhookAttempts', sum)], { width: 8 }),
    ...graph('Delivery queue: messages', [
      queue.metricApproximateNumberOfMessagesVisible({ ...maximum, label: 'visible' }),
      queue.metricApproximateNumberOfMessagesNotVisible({ ...maximum, label: 'in flight' }),
      queue.metricApproximateNumberOfMessagesDelayed({ ...maximum, label: 'delayed (retries)' }),
    ], { width: 8 }),
    ...graph('Delivery queue: oldest message (s)', [queue.metricApproximateAgeOfOldestMessage({ ...maximum, label: 'oldest message age' })], {
      width: 8,
      ...(alarms.enabled ? { annotation: { value: alarms.deliveryQueueOldestAgeSeconds, label: 'alarm' } } : {}),
    }),
    ...graph('Dead-letter queue: messages', [deadLetterQueue.metricApproximateNumberOfMessagesVisible({ ...maximum, label: 'visible' })], { width: 8 }),
    ...graph('Retry state machine: executions', [
      machine.metricStarted({ ...sum, label: 'started' }),
      machine.metricSucceeded({ ...sum, label: 'succeeded' }),
      machine.metricFailed({ ...sum, label: 'failed' }),
      machine.metricTimedOut({ ...sum, label: 'timed out' }),
      machine.metricAborted({ ...sum, label: 'aborted' }),
    ], { width: 8 }),
  ];
}

function claimsRow(config: StageConfig): cloudwatch.IWidget[] {
  const { stage, alarms } = config;
  const sum = { statistic: cloudwatch.Stats.SUM, period: PERIOD };
  const maximum = { statistic: cloudwatch.Stats.MAXIMUM, period: PERIOD };
  return [
    heading('Invitation claims'),
    ...graph('Claims by outcome', [serviceMetricSearch(stage, 'claims', sum)], { width: 8 }),
    ...graph('Claims left claiming (reconciler runs, max)', [serviceMetric(stage, 'claimingBacklog', {}, { ...maximum, label: 'claiming' })], {
      width: 8,
      right: [serviceMetric(stage, 'claimingOldestAge', {}, { ...maximum, label: 'oldest (s)' })],
      rightAnnotation: {
        value: alarms.enabled ? alarms.claimingOldestAgeSeconds : CLAIMING_RECONCILIATION_BOUND_SECONDS,
        label: alarms.enabled ? 'alarm' : 'reconciliation bound',
      },
    }),
    ...graph('Reconciler outcomes', [serviceMetricSearch(stage, 'reconcilerOutcomes', sum)], { width: 8 }),
  ];
}

interface GraphOptions {
  readonly width?: number;
  readonly right?: cloudwatch.IMetric[];
  readonly annotation?: cloudwatch.HorizontalAnnotation;
  readonly rightAnnotation?: cloudwatch.HorizontalAnnotation;
}

/** One graph, or several `(1/n)` when the lines exceed MAX_LINES_PER_GRAPH; none for no lines. */
function graph(title: string, left: readonly cloudwatch.IMetric[], options: GraphOptions = {}): cloudwatch.GraphWidget[] {
  const right = options.right ?? [];
  if (left.length + right.length === 0) return [];
  const parts = chunk(left, MAX_LINES_PER_GRAPH - right.length);
  return parts.map(
    (part, i) =>
      new cloudwatch.GraphWidget({
        title: `${title}${suffix(i, parts.length)}`,
        left: [...part],
        right,
        width: options.width ?? 6,
        height: GRAPH_HEIGHT,
        period: PERIOD,
        ...(options.annotation ? { leftAnnotations: [options.annotation] } : {}),
        ...(options.rightAnnotation ? { rightAnnotations: [options.rightAnnotation] } : {}),
      }),
  );
}

function heading(text: string): cloudwatch.TextWidget {
  return new cloudwatch.TextWidget({ markdown: `## ${text}`, width: FULL_WIDTH, height: 1 });
}

function apiTitle(api: ObservedApi): string {
  return api.title ?? api.stage.restApi.restApiName;
}

/** Fails the build where CloudWatch would refuse the dashboard. */
function checkLimits(widgets: readonly cloudwatch.IWidget[]): void {
  const rendered = widgets.flatMap((widget) => widget.toJson() as { properties?: { title?: string; metrics?: unknown[] } }[]);
  if (rendered.length > CLOUDWATCH_DASHBOARD_LIMITS.widgets) {
    throw new Error(`ServiceDashboard: ${rendered.length} widgets, CloudWatch allows ${CLOUDWATCH_DASHBOARD_LIMITS.widgets}`);
  }
  let total = 0;
  for (const widget of rendered) {
    const metrics = widget.properties?.metrics?.length ?? 0;
    if (metrics > CLOUDWATCH_DASHBOARD_LIMITS.metricsPerWidget) {
      throw new Error(`ServiceDashboard: widget ${widget.properties?.title} has ${metrics} metrics, CloudWatch allows ${CLOUDWATCH_DASHBOARD_LIMITS.metricsPerWidget}`);
    }
    total += metrics;
  }
  if (total > CLOUDWATCH_DASHBOARD_LIMITS.metricsPerDashboard) {
    throw new Error(`ServiceDashboard: ${total} metrics, CloudWatch allows ${CLOUDWATCH_DASHBOARD_LIMITS.metricsPerDashboard} per dashboard`);
  }
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < items.length; i += size) parts.push(items.slice(i, i + size));
  return parts;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function suffix(index: number, count: number): string {
  return count > 1 ? ` (${index + 1}/${count})` : '';
}
