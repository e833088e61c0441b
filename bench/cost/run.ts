/**
 * `npm run cost`: what the service costs, from the latest benchmark (bench/results.json) and a stage's synthesized
 * templates, priced by bench/cost/prices.ts. Prints, and writes bench/cost.json:
 *   1. per operation and per million calls, by AWS service (every operation scenarios/endpoint-costs.ts measures);
 *   2. a webhook delivery (first time, one retry, four retries through the state machine) per million;
 *   3. the peers: the admission against rate-limiter-flexible, invitation creation's idempotency against Powertools';
 *   4. the stage per month with no traffic;
 *   5. a typical partner's month (MIX below) for 1,000 active organizations.
 *
 *   npm run cost [-- --stage prod] [--results bench/results.json] [--templates cdk.out/prod] [--region us-east-1] [--out bench/cost.json] [--markdown]
 *
 * Without results, run `npm run bench -- --quick` first (a few minutes). Without templates in cdk.out/<stage>, the stage
 * is synthesized there first (offline). Lambda time is the handler's time measured in process on the bench machine
 * (DynamoDB Local's latency included): an estimate of Lambda's, marked as such.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { functionMemoryMb, resolveStageConfig } from '../../lib/config/stage-config';
import { ROUTES } from '../../lambdas/service/routes';
import type { EndpointCostRow } from '../scenario';
import {
  billedUnits,
  COST_LINES,
  HOURS_PER_MONTH,
  idleStageCost,
  LOG_ASSUMPTIONS,
  mixCost,
  round,
  scaled,
  workCost,
  XRAY_SAMPLED_SHARE,
  type CostBreakdown,
  type MixEntry,
  type StageFacts,
  type WorkProfile,
} from './model';
import { PRICE_REGION, PRICES, PRICES_READ_ON } from './prices';

const ROOT = join(import.meta.dirname, '..', '..');
type Json = Record<string, any>;

/** HTTP answer headers (status line, the service's headers) on top of the body. */
const ANSWER_HEADER_BYTES = 400;

/**
 * A typical partner's month (per active organization), the assumptions behind the README's figure: a server that
 * syncs records every 15 minutes and reads entitlements hourly, looks records up as players register, invites ~100
 * players (80 claim, each viewing the invitation about 3 times and writing 2 messages), follows tickets, and receives
 * a webhook per event; its manager opens web settings a few times.
 */
export const MIX: readonly MixEntry[] = [
  { work: 'me', perOrganizationPerMonth: 30, why: 'start-up check, daily' },
  { work: 'org-records', perOrganizationPerMonth: 2_880, why: 'sync every 15 minutes (one page)' },
  { work: 'record-lookup', perOrganizationPerMonth: 600, why: '20 lookups a day' },
  { work: 'org-record', perOrganizationPerMonth: 150, why: 're-read after record.updated' },
  { work: 'org-entitlements', perOrganizationPerMonth: 720, why: 'hourly' },
  { work: 'invitation-create', perOrganizationPerMonth: 100, why: '100 players invited' },
  { work: 'invitation', perOrganizationPerMonth: 300, why: '3 status reads per invitation' },
  { work: 'invitation-link', perOrganizationPerMonth: 100, why: 'the link sent to the player' },
  { work: 'invitation-revoke', perOrganizationPerMonth: 10, why: '' },
  { work: 'invitations', perOrganizationPerMonth: 720, why: 'hourly list' },
  { work: 'player-page', perOrganizationPerMonth: 160, why: '2 page loads per claim' },
  { work: 'player-view', perOrganizationPerMonth: 240, why: '3 views per claim' },
  { work: 'player-claim', perOrganizationPerMonth: 80, why: '80 % of invitations claimed' },
  { work: 'player-message', perOrganizationPerMonth: 160, why: '2 messages per ticket' },
  { work: 'tickets', perOrganizationPerMonth: 720, why: 'hourly list' },
  { work: 'ticket', perOrganizationPerMonth: 400, why: '5 reads per ticket (after its events)' },
  { work: 'webhook:first-time success', perOrganizationPerMonth: 400, why: 'an event per record change, join, message and entitlement change' },
  { work: 'webhook:one retry (1 min wait: a delayed message)', perOrganizationPerMonth: 20, why: '5 % of deliveries retried once' },
  { work: 'settings-sign-in', perOrganizationPerMonth: 4, why: 'the manager signs in weekly' },
  { work: 'settings-keys', perOrganizationPerMonth: 8, why: '' },
  { work: 'settings-audit', perOrganizationPerMonth: 4, why: '' },
];

function main(): void {
  const { values } = parseArgs({
    options: { stage: { type: 'string', default: 'prod' }, results: { type: 'string' }, templates: { type: 'string' }, region: { type: 'string' }, out: { type: 'string' }, markdown: { type: 'boolean', default: false } },
  });
  const stage = values.stage!;
  markdown = values.markdown === true;
  if (values.region && values.region !== PRICE_REGION) {
    console.error(`The price table (bench/cost/prices.ts) holds ${PRICE_REGION}'s prices: copy ${values.region}'s from the pages it names and set PRICE_REGION.`);
    process.exit(2);
  }
  const resultsFile = values.results ?? latestResults();
  if (!existsSync(resultsFile)) fail(`${resultsFile} is missing: run \`npm run bench -- --quick\` first.`);
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as Json;
  const endpoints = (results.endpoint_costs ?? []) as EndpointCostRow[];
  if (endpoints.length === 0) fail(`${resultsFile} has no endpoint_costs: run \`npm run bench -- --quick\` (or the full bench) first.`);
  const config = resolveStageConfig(stage);
  const memoryMb = config.lambda.memoryMb;
  // An operation's function may run with its own memory (sign-in: a full vCPU, lambda.groupMemoryMb).
  const memoryOfRoute = (route: string): number => {
    const group = ROUTES.find((r) => r.id === route)?.group;
    return group ? functionMemoryMb(config, group) : memoryMb;
  };

  // 1. Operations.
  const operations = Object.fromEntries(endpoints.map((row) => [row.route, { row, profile: callProfile(row, memoryOfRoute(row.route)) }]));
  const perCall = (work: string): CostBreakdown => {
    if (operations[work]) return workCost(operations[work].profile);
    if (deliveries[work]) return workCost(deliveries[work]);
    throw new Error(`no measured cost for ${work}`);
  };
  // 2. Webhook deliveries.
  const deliveries = Object.fromEntries(
    ((results.webhook_delivery ?? []) as Json[]).filter((r) => r.measure === 'cost').map((r) => [`webhook:${r.variant}`, deliveryProfile(r, memoryMb)]),
  );
  // 3. Peers.
  const peers = peerComparison(results);
  // 4. Idle stage.
  const templates = values.templates ?? synthesized(stage);
  const facts = stageFacts(templates, `PartnerApi-${stage}-`);
  const idle = idleStageCost(facts, () => workCost(jobRunProfile(memoryMb)));
  const idleTotal = idle.reduce((sum, line) => sum + line.usdPerMonth, 0);
  // 5. The mix.
  const mix = mixCost(MIX, perCall);
  const organizations = 1000;

  const print = (line = '') => console.log(line);
  print(`Cost model (${PRICE_REGION} list prices read ${PRICES_READ_ON}; bench ${results.timestamp} from ${resultsFile}; stage ${stage}: ${memoryMb} MB arm64${groupMemory(config.lambda.groupMemoryMb)}; templates ${templates})`);
  print('Lambda time: the handler\'s own time measured in process on the bench machine (estimate). DynamoDB: units as AWS bills them (bench/cost/model.ts).');
  print();
  print('Per million calls, USD');
  const head = ['operation', 'RT', 'RRU', 'WRU billed', 'ms', ...COST_LINES.map(short), 'total'];
  const rows = Object.values(operations).map(({ row, profile }) => {
    const cost = scaled(workCost(profile), 1e6);
    return [row.label, fmt(row.dynamo.round_trips), fmt(profile.dynamo.readUnits), fmt(profile.dynamo.writeUnits), fmt(profile.lambda.msPerInvocation), ...COST_LINES.map((l) => usd(cost[l])), usd(cost.total)];
  });
  for (const [name, profile] of Object.entries(deliveries)) {
    const cost = scaled(workCost(profile), 1e6);
    rows.push([name, '', fmt(profile.dynamo.readUnits), fmt(profile.dynamo.writeUnits), fmt(profile.lambda.msPerInvocation), ...COST_LINES.map((l) => usd(cost[l])), usd(cost.total)]);
  }
  table(head, rows);
  print();
  print('Peers, per million (DynamoDB units as AWS bills them; the same Lambda either way)');
  table(['work', 'service WRU', 'service RRU', 'service $', 'peer', 'peer WRU', 'peer RRU', 'peer $', 'saved $'], peers.map((p) => [p.work, fmt(p.service.write), fmt(p.service.read), usd(p.serviceUsd), p.peer, fmt(p.peerUnits.write), fmt(p.peerUnits.read), usd(p.peerUsd), usd(p.peerUsd - p.serviceUsd)]));
  print();
  print(`The ${stage} stage per month with no traffic: $${idleTotal.toFixed(2)}`);
  table(['item', 'quantity', 'USD/month', 'note'], idle.map((line) => [line.item, String(line.quantity), usd(line.usdPerMonth), line.note]));
  print();
  const monthly = mix.perOrganization.total * organizations;
  print(`A typical partner's month (MIX in bench/cost/run.ts): $${mix.perOrganization.total.toFixed(4)} per active organization; ${organizations} organizations: $${monthly.toFixed(2)} + the stage's $${idleTotal.toFixed(2)}`);
  table(['work', 'per org/month', 'USD per org'], mix.lines.map((line) => [line.work, String(line.count), usd(line.usd)]));

  const out = {
    generated_from: { results: results.timestamp, stage, memory_mb: memoryMb, group_memory_mb: config.lambda.groupMemoryMb, templates, region: PRICE_REGION, prices_read_on: PRICES_READ_ON },
    assumptions: { log: LOG_ASSUMPTIONS, xray_sampled_share: XRAY_SAMPLED_SHARE, answer_header_bytes: ANSWER_HEADER_BYTES, hours_per_month: HOURS_PER_MONTH },
    prices: PRICES,
    per_million: Object.fromEntries([...Object.entries(operations).map(([route, { profile }]) => [route, rounded(scaled(workCost(profile), 1e6))]), ...Object.entries(deliveries).map(([name, profile]) => [name, rounded(scaled(workCost(profile), 1e6))])]),
    profiles: { ...Object.fromEntries(Object.entries(operations).map(([route, { profile }]) => [route, profile])), ...deliveries },
    peers,
    idle: { usd_per_month: round(idleTotal, 2), lines: idle.map((l) => ({ ...l, usdPerMonth: round(l.usdPerMonth, 2) })) },
    mix: { organizations, usd_per_organization: round(mix.perOrganization.total, 4), usd_per_month: round(monthly, 2), entries: MIX, by_line: rounded(scaled(mix.perOrganization, organizations)) },
  };
  const file = values.out ?? join(ROOT, 'bench', 'cost.json');
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  print();
  print(`Wrote ${file}.`);
}

/** The functions that run with their own memory, for the header (`, sign-in 1769 MB`). */
function groupMemory(memory: Readonly<Record<string, number | undefined>>): string {
  return Object.entries(memory)
    .map(([group, mb]) => `, ${group} ${mb} MB`)
    .join('');
}

/**
 * The newest of the committed runs that measured every operation: bench/results.json (a full run) or
 * bench/results-quick.json (`npm run bench -- --quick --out bench/results-quick.json`): units do not depend on the
 * request counts, only the latencies' precision does.
 */
function latestResults(): string {
  const candidates = ['results.json', 'results-quick.json']
    .map((name) => join(ROOT, 'bench', name))
    .filter((file) => existsSync(file))
    .map((file) => ({ file, results: JSON.parse(readFileSync(file, 'utf8')) as Json }))
    .filter(({ results }) => (results.endpoint_costs ?? []).length > 0)
    .sort((a, b) => String(b.results.timestamp).localeCompare(String(a.results.timestamp)));
  return candidates[0]?.file ?? join(ROOT, 'bench', 'results.json');
}

/** One call of an operation, from its endpoint-costs row. */
export function callProfile(row: EndpointCostRow, memoryMb: number): WorkProfile {
  const units = billedUnits(row.dynamo);
  return {
    frontRequests: 1,
    lambda: { invocations: 1, msPerInvocation: row.handler_ms.mean, memoryMb },
    dynamo: { readUnits: units.read, writeUnits: units.write },
    // Web settings' sign-in with two-factor and webhook creation seal or open a secret with KMS; measured rows have neither.
    kmsRequests: 0,
    logBytes: row.log_bytes + LOG_ASSUMPTIONS.lambdaPlatformBytes + LOG_ASSUMPTIONS.apiGatewayAccessLogBytes + LOG_ASSUMPTIONS.metricsBytes,
    bytesOut: row.response_bytes + ANSWER_HEADER_BYTES,
    tracedRequests: XRAY_SAMPLED_SHARE,
  };
}

/** One delivery, from a webhook-delivery cost row (its figures are per delivery). */
export function deliveryProfile(row: Json, memoryMb: number): WorkProfile {
  const fanOut = row.fan_out as Json;
  const worker = row.worker as Json;
  const invocations = (fanOut.invocations ?? 0) + (worker.invocations ?? 0);
  const busy = (fanOut.busy_ms ?? 0) * (fanOut.invocations ?? 0) + (worker.busy_ms ?? 0) * (worker.invocations ?? 0);
  const total = row.total as Json;
  const units = billedUnits({ rcu: total.rcu, wcu: total.wcu, failed_conditions: total.failed_conditional_writes });
  const attempts = row.attempts as number;
  return {
    frontRequests: 0,
    lambda: { invocations, msPerInvocation: invocations > 0 ? busy / invocations : 0, memoryMb },
    dynamo: { readUnits: units.read, writeUnits: units.write },
    stepFunctionsTransitions: row.sfn_transitions,
    // Each message is sent once, received and deleted once by Lambda's poller.
    sqsRequests: (row.queue_messages ?? 0) * 2 + (row.queue_receives ?? 0),
    // The callback's secret is opened with KMS Decrypt on every attempt.
    kmsRequests: attempts,
    logBytes: invocations * (LOG_ASSUMPTIONS.lambdaPlatformBytes + LOG_ASSUMPTIONS.metricsBytes) + attempts * 400,
    // The event (about 300 bytes) and its headers, per attempt.
    bytesOut: attempts * 700,
    tracedRequests: invocations * XRAY_SAMPLED_SHARE,
  };
}

/**
 * One run of a scheduled job on an empty stage (an estimate, not measured): an invocation of ~20 ms, one Query of an
 * index answering nothing (0.5 read unit), Scheduler's invocation, the platform's log lines and one summary line.
 */
export function jobRunProfile(memoryMb: number): WorkProfile {
  return {
    frontRequests: 0,
    lambda: { invocations: 1, msPerInvocation: 20, memoryMb },
    dynamo: { readUnits: 0.5, writeUnits: 0 },
    schedulerInvocations: 1,
    logBytes: LOG_ASSUMPTIONS.lambdaPlatformBytes + 300,
    tracedRequests: XRAY_SAMPLED_SHARE,
  };
}

interface PeerLine {
  readonly work: string;
  readonly service: { read: number; write: number };
  readonly serviceUsd: number;
  readonly peer: string;
  readonly peerUnits: { read: number; write: number };
  readonly peerUsd: number;
}

/** Per million admissions and creations, the DynamoDB work of the service and of the library it would otherwise use. */
function peerComparison(results: Json): PeerLine[] {
  const dollars = (units: { read: number; write: number }) => (units.read * PRICES.dynamoReadRequestUnit.usd + units.write * PRICES.dynamoWriteRequestUnit.usd) * 1e6;
  const lines: PeerLine[] = [];
  const quota = ((results.quota_peers?.latency ?? []) as Json[]).find((r) => r.concurrency === 1);
  if (quota) {
    const service = billedUnits({ rcu: quota.service.rcu, wcu: quota.service.wcu, failed_conditions: quota.service.failed_conditional_writes });
    for (const [name, peer] of [['rate-limiter-flexible (key read)', quota.peer_read], ['rate-limiter-flexible (key cached)', quota.peer_cached]] as const) {
      const units = billedUnits({ rcu: peer.rcu, wcu: peer.wcu, failed_conditions: peer.failed_conditional_writes });
      lines.push({ work: 'admission (3 quotas)', service, serviceUsd: dollars(service), peer: name, peerUnits: units, peerUsd: dollars(units) });
    }
  }
  for (const outcome of ['new', 'replay']) {
    const row = ((results.invitation_creation ?? []) as Json[]).find((r) => r.outcome === outcome && r.concurrency === 1);
    if (!row) continue;
    const service = billedUnits({ rcu: row.store.rcu, wcu: row.store.wcu, failed_conditions: row.store.failed_conditional_writes });
    const peer = billedUnits({ rcu: row.powertools.rcu, wcu: row.powertools.wcu, failed_conditions: row.powertools.failed_conditional_writes });
    lines.push({ work: `invitation creation, ${outcome} (idempotency + write)`, service, serviceUsd: dollars(service), peer: '@aws-lambda-powertools/idempotency', peerUnits: peer, peerUsd: dollars(peer) });
  }
  return lines;
}

/** cdk.out/<stage>, synthesized there first when absent (offline, no credentials). */
function synthesized(stage: string): string {
  const dir = join(ROOT, 'cdk.out', stage);
  if (existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.template.json'))) return dir;
  console.error(`cost: synthesizing the ${stage} stage into ${dir} (once)…`);
  const synth = spawnSync('npx', ['cdk', 'synth', '-c', `stage=${stage}`, '-q', '-o', dir], { cwd: ROOT, stdio: 'inherit' });
  if (synth.status !== 0) fail(`cdk synth of ${stage} failed`);
  return dir;
}

/** What costs money monthly in a stage's templates (its two stacks; the account baseline is counted apart: once per account). */
export function stageFacts(dir: string, stagePrefix?: string): StageFacts {
  const resources: Json[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.template.json') && (stagePrefix === undefined || f.startsWith(stagePrefix)))) {
    const template = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Json;
    for (const [id, resource] of Object.entries((template.Resources ?? {}) as Record<string, Json>)) resources.push({ id, ...resource });
  }
  const of = (type: string) => resources.filter((r) => r.Type === type);
  const queues = new Set(of('AWS::SQS::Queue').map((q) => q.id));
  return {
    webAcls: of('AWS::WAFv2::WebACL').map((acl) => ({ name: String(acl.Properties?.Name ?? acl.id), rules: (acl.Properties?.Rules ?? []).length })),
    kmsKeys: of('AWS::KMS::Key').length,
    secrets: of('AWS::SecretsManager::Secret').length,
    alarmMetrics: of('AWS::CloudWatch::Alarm').reduce((n, alarm) => n + Math.max(1, ((alarm.Properties?.Metrics ?? []) as Json[]).filter((m) => m.MetricStat).length), 0),
    dashboards: of('AWS::CloudWatch::Dashboard').length,
    schedules: of('AWS::Scheduler::Schedule').map((s) => ({ name: s.id.replace(/[0-9A-F]{8}$/, ''), runsPerMonth: runsPerMonth(String(s.Properties?.ScheduleExpression ?? '')) })),
    sqsEventSources: of('AWS::Lambda::EventSourceMapping').filter((m) => queues.has(m.Properties?.EventSourceArn?.['Fn::GetAtt']?.[0])).length,
    tablesWithPitr: resources.filter((r) => (r.Type === 'AWS::DynamoDB::Table' || r.Type === 'AWS::DynamoDB::GlobalTable') && JSON.stringify(r.Properties ?? {}).includes('"PointInTimeRecoveryEnabled":true')).length,
  };
}

/** Runs a month of a `rate(n unit)` expression. */
export function runsPerMonth(expression: string): number {
  const match = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!match) throw new Error(`schedule expression ${expression}: not a rate() this model knows`);
  const minutes = Number(match[1]) * (match[2].startsWith('minute') ? 1 : match[2].startsWith('hour') ? 60 : 1440);
  return Math.round((HOURS_PER_MONTH * 60) / minutes);
}

function rounded(cost: CostBreakdown): Record<string, number> {
  return Object.fromEntries(Object.entries(cost).map(([line, value]) => [line, round(value, 4)]));
}

const short = (line: string) => ({ apiGateway: 'APIGW', waf: 'WAF', lambda: 'Lambda', dynamodb: 'DynamoDB', stepFunctions: 'SFN', sqs: 'SQS', kmsAndSecrets: 'KMS/SM', logs: 'Logs', xray: 'X-Ray', dataTransfer: 'Out' })[line] ?? line;
const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
const usd = (n: number) => (n === 0 ? '0' : n < 0.01 ? n.toFixed(4) : n.toFixed(2));

/** `--markdown`: every table as Markdown (docs/cost.md's tables are pasted from this run). */
let markdown = false;

function table(head: string[], rows: string[][]): void {
  if (markdown) {
    const cells = (row: readonly string[]) => `| ${row.join(' | ')} |`;
    console.log([cells(head), cells(head.map(() => '---')), ...rows.map(cells)].join('\n'));
    return;
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === cells.length - 1 && head[i] === 'note' ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(head));
  for (const row of rows) console.log(line(row));
}

function fail(message: string): never {
  console.error(`cost: ${message}`);
  process.exit(1);
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) main();
