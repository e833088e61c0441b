/**
 * The cost model: what a call, a webhook delivery, a scheduled job's run and an idle stage cost, from what the
 * benchmark measured (bench/results.json) and the price table (prices.ts). Pure arithmetic, no I/O: run.ts gathers
 * the inputs, test/unit/bench/cost-model.test.ts checks the sums on fixed inputs.
 *
 * DynamoDB: AWS bills on-demand units as it counts them, which is not always what DynamoDB Local reports
 * (test/integration/dynamo-local-capacity.test.ts pins Local's side):
 * - single writes: Local reports what AWS bills (1 unit per KB of the item, plus each global secondary index the
 *   write touches: 1 per KB projected, 2 when the index key changes);
 * - write transactions: AWS bills 2 units per KB of every item, ConditionCheck items included; Local reports 2 per
 *   distinct item size and nothing for a ConditionCheck, so a transaction is billed at least 2 × its items (each of
 *   this service's items is under 1 KB), or what Local reported when that is more (index writes, larger items);
 * - a refused conditional write: AWS bills 1 unit (the item is under 1 KB); Local reports nothing;
 * - a cancelled transaction: billed here as 2 units per item (what the attempt costs when it succeeds: AWS does not
 *   document it, so this errs on the high side); Local reports nothing.
 * Reads are billed as reported (0.5 unit per 4 KB eventually consistent, 1 strongly consistent).
 */
import type { DynamoFigures } from '../access-log';
import { PRICES, type Prices } from './prices';

/** A call's DynamoDB work as the access log reports it (means per call). */
export type DynamoWork = Omit<DynamoFigures, 'calls' | 'round_trips'>;

/** Read and write request units as AWS bills `work`. */
export function billedUnits(work: DynamoWork): { read: number; write: number } {
  const transactionItems = work.tx_items ?? 0;
  const transactionUnits = work.tx_wcu ?? 0;
  const singleWrites = work.wcu - transactionUnits;
  const transactions = Math.max(transactionUnits, 2 * transactionItems);
  const write = singleWrites + transactions + (work.failed_conditions ?? 0) * 1 + (work.cancelled_tx_items ?? 0) * 2;
  return { read: work.rcu, write: round(write, 3) };
}

/** Log bytes besides the service's own lines, per request (estimates from each line's shape, stated in the README). */
export const LOG_ASSUMPTIONS = {
  /** Lambda's JSON platform lines at system level INFO: platform.start and platform.report. */
  lambdaPlatformBytes: 700,
  /** One API Gateway access-log line (lib/constructs/surface-api.ts ACCESS_LOG_FORMAT, filled). */
  apiGatewayAccessLogBytes: 650,
  /** The invocation's EMF documents (Powertools Metrics): about two of 450 bytes per request. */
  metricsBytes: 900,
} as const;

/** X-Ray's default sampling rule: the first request each second, then 5 %; at volume, 5 % of requests. */
export const XRAY_SAMPLED_SHARE = 0.05;

/** Everything one unit of work (a call, a delivery, a job run) makes AWS bill. */
export interface WorkProfile {
  /** Requests through API Gateway and its web ACL (1 for an HTTP call; 0 for a delivery or a job). */
  readonly frontRequests: number;
  readonly lambda: { readonly invocations: number; readonly msPerInvocation: number; readonly memoryMb: number };
  readonly dynamo: { readonly readUnits: number; readonly writeUnits: number };
  readonly stepFunctionsTransitions?: number;
  readonly sqsRequests?: number;
  readonly kmsRequests?: number;
  readonly secretsRequests?: number;
  readonly schedulerInvocations?: number;
  /** Bytes ingested into CloudWatch Logs. */
  readonly logBytes: number;
  /** Bytes sent out to the internet (answers; webhook request bodies). */
  readonly bytesOut?: number;
  /** Requests that start an X-Ray trace. */
  readonly tracedRequests?: number;
}

export const COST_LINES = ['apiGateway', 'waf', 'lambda', 'dynamodb', 'stepFunctions', 'sqs', 'kmsAndSecrets', 'logs', 'xray', 'dataTransfer'] as const;
export type CostLine = (typeof COST_LINES)[number];
export type CostBreakdown = Readonly<Record<CostLine | 'total', number>>;

const GB = 1024 ** 3;

/** The Lambda duration AWS bills: rounded up to the millisecond. */
export const billedMs = (ms: number): number => Math.max(1, Math.ceil(ms));

/** What one unit of `profile` costs, in USD, by line. */
export function workCost(profile: WorkProfile, prices: Prices = PRICES): CostBreakdown {
  const { lambda } = profile;
  const lines: Record<CostLine, number> = {
    apiGateway: profile.frontRequests * prices.apiGatewayRestRequest.usd,
    waf: profile.frontRequests * prices.wafRequest.usd,
    lambda: lambda.invocations * (prices.lambdaRequest.usd + (lambda.memoryMb / 1024) * (billedMs(lambda.msPerInvocation) / 1000) * prices.lambdaArmGbSecond.usd),
    dynamodb: profile.dynamo.readUnits * prices.dynamoReadRequestUnit.usd + profile.dynamo.writeUnits * prices.dynamoWriteRequestUnit.usd,
    stepFunctions: (profile.stepFunctionsTransitions ?? 0) * prices.stepFunctionsTransition.usd,
    sqs: (profile.sqsRequests ?? 0) * prices.sqsRequest.usd,
    kmsAndSecrets: (profile.kmsRequests ?? 0) * prices.kmsRequest.usd + (profile.secretsRequests ?? 0) * prices.secretsApiCall.usd + (profile.schedulerInvocations ?? 0) * prices.schedulerInvocation.usd,
    logs: (profile.logBytes / GB) * prices.logsIngestGb.usd,
    xray: (profile.tracedRequests ?? 0) * prices.xrayTraceRecorded.usd,
    dataTransfer: ((profile.bytesOut ?? 0) / GB) * prices.dataTransferOutGb.usd,
  };
  return { ...lines, total: COST_LINES.reduce((sum, line) => sum + lines[line], 0) };
}

/** `cost` times `factor` (per million calls: 1e6; per month: the calls of a month). */
export function scaled(cost: CostBreakdown, factor: number): CostBreakdown {
  return Object.fromEntries(Object.entries(cost).map(([line, usd]) => [line, usd * factor])) as CostBreakdown;
}

/** The sum of several costs. */
export function summed(costs: readonly CostBreakdown[]): CostBreakdown {
  const total = Object.fromEntries([...COST_LINES, 'total'].map((line) => [line, 0])) as Record<CostLine | 'total', number>;
  for (const cost of costs) for (const line of [...COST_LINES, 'total'] as const) total[line] += cost[line];
  return total;
}

/** What a stage holds that costs money every month with no traffic (counted in its synthesized templates). */
export interface StageFacts {
  readonly webAcls: readonly { readonly name: string; readonly rules: number }[];
  readonly kmsKeys: number;
  readonly secrets: number;
  /** Alarm metrics (a metric-math alarm counts each metric it reads). */
  readonly alarmMetrics: number;
  readonly dashboards: number;
  /** Schedules and their runs a month. */
  readonly schedules: readonly { readonly name: string; readonly runsPerMonth: number }[];
  /** Lambda's pollers of SQS queues: each long-polls (20 s) on 5 connections while the queue is empty. */
  readonly sqsEventSources: number;
  readonly tablesWithPitr: number;
}

export const HOURS_PER_MONTH = 730;
const SQS_POLLERS = 5;
const LONG_POLL_SECONDS = 20;

export interface IdleLine {
  readonly item: string;
  readonly quantity: number;
  readonly usdPerMonth: number;
  readonly note: string;
}

/** The monthly cost of a stage with no calls: the fixed prices, and what the schedules and pollers do on their own. */
export function idleStageCost(facts: StageFacts, jobRun: (schedule: string) => CostBreakdown, prices: Prices = PRICES): IdleLine[] {
  const wafRules = facts.webAcls.reduce((n, acl) => n + acl.rules, 0);
  const pollRequests = facts.sqsEventSources * SQS_POLLERS * ((HOURS_PER_MONTH * 3600) / LONG_POLL_SECONDS);
  return [
    { item: 'WAF web ACLs', quantity: facts.webAcls.length, usdPerMonth: facts.webAcls.length * prices.wafWebAclMonth.usd, note: facts.webAcls.map((a) => a.name).join(', ') },
    { item: 'WAF rules', quantity: wafRules, usdPerMonth: wafRules * prices.wafRuleMonth.usd, note: facts.webAcls.map((a) => `${a.name}: ${a.rules}`).join(', ') },
    { item: 'KMS keys', quantity: facts.kmsKeys, usdPerMonth: facts.kmsKeys * prices.kmsKeyMonth.usd, note: 'customer managed' },
    { item: 'Secrets Manager secrets', quantity: facts.secrets, usdPerMonth: facts.secrets * prices.secretMonth.usd, note: '' },
    { item: 'CloudWatch alarm metrics', quantity: facts.alarmMetrics, usdPerMonth: facts.alarmMetrics * prices.alarmMetricMonth.usd, note: 'standard resolution' },
    { item: 'CloudWatch dashboards', quantity: facts.dashboards, usdPerMonth: facts.dashboards * prices.dashboardMonth.usd, note: 'beyond the account\'s 3 free' },
    ...facts.schedules.map((schedule) => ({
      item: `schedule ${schedule.name}`,
      quantity: schedule.runsPerMonth,
      usdPerMonth: schedule.runsPerMonth * jobRun(schedule.name).total,
      note: 'runs a month × one idle run (invocation, its queries, its log lines)',
    })),
    { item: 'SQS long polls by Lambda', quantity: Math.round(pollRequests), usdPerMonth: pollRequests * prices.sqsRequest.usd, note: `${facts.sqsEventSources} queue(s) × ${SQS_POLLERS} pollers × one ${LONG_POLL_SECONDS} s receive` },
    { item: 'PITR and storage', quantity: facts.tablesWithPitr, usdPerMonth: 0, note: `per GB stored: $${prices.dynamoStorageGbMonth.usd} storage + $${prices.dynamoPitrGbMonth.usd} backup (tables with PITR: ${facts.tablesWithPitr}); an empty stage stores ~0 GB` },
    { item: 'Log retention', quantity: 0, usdPerMonth: 0, note: `$${prices.logsStorageGbMonth.usd} per GB-month kept (30 days); ~0 with no traffic` },
  ];
}

/** A documented mix of calls per active organization per month, and what it costs. */
export interface MixEntry {
  readonly work: string;
  readonly perOrganizationPerMonth: number;
  readonly why: string;
}

export function mixCost(mix: readonly MixEntry[], costOf: (work: string) => CostBreakdown): { perOrganization: CostBreakdown; lines: { work: string; count: number; usd: number }[] } {
  const lines = mix.map((entry) => ({ work: entry.work, count: entry.perOrganizationPerMonth, usd: costOf(entry.work).total * entry.perOrganizationPerMonth }));
  return { perOrganization: summed(mix.map((entry) => scaled(costOf(entry.work), entry.perOrganizationPerMonth))), lines };
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
