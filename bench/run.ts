/**
 * `npm run bench`: the service's own DynamoDB Local and local stack on free
 * ports, the demo data, every scenario of scenarios/index.ts, then a table on
 * stdout and bench/results.json. Every ratio is against a baseline measured
 * in the same run; nothing here passes or fails on an absolute number.
 *
 *   npm run bench                full run (10 to 12 minutes on 2 cores: 100,000 records are loaded)
 *   npm run bench -- --quick     a tenth of the requests, to check the harness
 *   npm run bench -- --only dynamodb-get-item,quota-peers
 *                                only these scenarios, in the run's order, for development (name the
 *                                baselines too for their ratios); bench/results.json is left alone
 *                                unless --out names a file
 */
import { floorResults, floorTable } from './floors';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startDynamoLocal } from '../local/dynamo-local';
import type { Platform } from '../lambdas/shared/platform';
import { localDocumentClient, startLocalStack, type LocalStack } from '../local/local-stack';
import { seedDemo } from '../local/seed';
import { AccessLogCapture } from './access-log';
import { resolveStageConfig } from '../lib/config/stage-config';
import { benchNode, CONSTRUCT_BUNDLING, DEPLOYED_NODE_OPTIONS, nodeVersion } from './bundles';
import { benchHandlers, benchPlatform, latencyLimits } from './platform';
import {
  adminCliTable,
  admissionTargets,
  bundleTable,
  httpPathNotes,
  claimComparison,
  claimNotes,
  claimTable,
  invitationComparison,
  invitationTable,
  latencyTable,
  listTable,
  passwordHashTable,
  quotaNotes,
  quotaPeerBurstTable,
  quotaPeerComparison,
  quotaPeerLatencyTable,
  quotaPeerNotes,
  quotaTable,
  settingsLoadTable,
  TARGETS,
  TARGETS_LINE,
  targetsTable,
  webhookCostTable,
  webhookNotes,
  webhookThroughputTable,
  withRatios,
} from './report';
import type { BenchContext, HotOrganizationPlan, LoadPlan, QuotaPeersPlan, Row, WebhookPlan } from './scenario';
import { SCENARIOS } from './scenarios';
import { round } from './stats';

const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The memory prod's functions get (and those with their own: sign-in's full vCPU): the Lambda init estimate's CPU share. */
const PROD_LAMBDA = resolveStageConfig('prod').lambda;
const PROD_MEMORY_MB = PROD_LAMBDA.memoryMb;
const RESULTS_FILE = join(PROJECT_ROOT, 'bench', 'results.json');

/** 12 keys of 4 manager accounts, 200 requests at 16 clients against an organization limit of 50 a minute. */
const HOT_ORGANIZATION: HotOrganizationPlan = {
  managers: 4,
  keysPerManager: 3,
  requests: 200,
  clients: 16,
  limits: { 'organization-minute': 50, 'account-minute': 1000, 'key-minute': 1000 },
};
/** Webhook delivery runs (scenarios/webhook-delivery.ts); the deployed-limits burst is 10 events per callback in both plans. */
const FULL_WEBHOOKS: WebhookPlan = { events: 300, fanOutEvents: 100, deployedLimitEvents: 100, writers: 4, costDeliveries: { success: 20, oneRetry: 20, stateMachine: 10 }, waitScale: 0.001, faultEvents: 100 };
const QUICK_WEBHOOKS: WebhookPlan = { events: 100, fanOutEvents: 10, deployedLimitEvents: 100, writers: 4, costDeliveries: { success: 5, oneRetry: 5, stateMachine: 3 }, waitScale: 0.001, faultEvents: 60 };
/**
 * The rate-limiter-flexible peer (scenarios/quota-peers.ts): fewer in-process requests than the HTTP rows (three paths at
 * two concurrencies), and a burst of one key at 10× a lowered key-minute quota, then 5 other keys asking for exactly
 * what an exact organization-minute quota has left (50 − 10 = 40).
 */
const KEY_OVER_LIMIT: QuotaPeersPlan['keyOverLimit'] = {
  limits: { 'key-minute': 10, 'account-minute': 1000, 'organization-minute': 50 },
  overLimitRequests: 100,
  otherKeys: 5,
  otherKeyRequests: 8,
  clients: 8,
};
const FULL_QUOTA_PEERS: QuotaPeersPlan = { warmupRequests: 30, measuredRequests: 300, keyOverLimit: KEY_OVER_LIMIT };
const QUICK_QUOTA_PEERS: QuotaPeersPlan = { warmupRequests: 20, measuredRequests: 100, keyOverLimit: KEY_OVER_LIMIT };
/**
 * The full run, sized to finish within 15 minutes on the 2-core machine (issue 34): 500 measured requests a row after
 * 100 of warm-up (a p99 from the 5 slowest: read it as the tail's order of magnitude), and 20,000 records for the list's deep pages (depth, not size, is what a deep page
 * is measured against: 90 % into a traversal of 20,000 or of 100,000 reads the same one page).
 */
const FULL_PLAN: LoadPlan = { concurrencies: [1, 8], warmupRequests: 100, measuredRequests: 500, coldRequests: 200, importRuns: 5, listRecords: 20_000, hotOrganization: HOT_ORGANIZATION, claims: { warmupRequests: 25, measuredRequests: 150 }, webhooks: FULL_WEBHOOKS, quotaPeers: FULL_QUOTA_PEERS, endpointCosts: { calls: 12 }, passwordHashes: 10 };
const QUICK_PLAN: LoadPlan = { concurrencies: [1, 8], warmupRequests: 30, measuredRequests: 200, coldRequests: 50, importRuns: 2, listRecords: 10_000, hotOrganization: HOT_ORGANIZATION, claims: { warmupRequests: 10, measuredRequests: 50 }, webhooks: QUICK_WEBHOOKS, quotaPeers: QUICK_QUOTA_PEERS, endpointCosts: { calls: 5 }, passwordHashes: 3 };

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** The scenarios `--only` names, in the run's order; every scenario without it. */
function selectScenarios(only: string | undefined): typeof SCENARIOS {
  if (only === undefined) return SCENARIOS;
  const names = only.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) throw new Error(`--only: no scenario ${unknown.join(', ')} (scenarios: ${SCENARIOS.map((s) => s.name).join(', ')})`);
  return SCENARIOS.filter((s) => names.includes(s.name));
}

/** Each scenario's wall time in the last run (seconds): where a run's time goes. */
const scenarioSeconds: Record<string, number> = {};

async function runScenarios(stack: LocalStack, platform: Platform, plan: LoadPlan, scenarios: typeof SCENARIOS): Promise<Row[]> {
  const seedClient = localDocumentClient(stack.dynamoEndpoint);
  const demo = await seedDemo(seedClient, stack.tables.access);
  seedClient.destroy();

  const accessLog = new AccessLogCapture();
  const context: BenchContext = { projectRoot: PROJECT_ROOT, stack, platform, demo, accessLog, plan, progress };
  const rows: Row[] = [];
  accessLog.start();
  try {
    for (const scenario of scenarios) {
      progress(`${scenario.name}: ${scenario.description}`);
      const startedAt = Date.now();
      rows.push(...(await scenario.execute(context)));
      scenarioSeconds[scenario.name] = round((Date.now() - startedAt) / 1000, 1);
      progress(`${scenario.name}: ${scenarioSeconds[scenario.name]} s`);
    }
  } finally {
    accessLog.stop();
  }
  return rows;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, out: { type: 'string' } },
    allowPositionals: false,
  });
  const plan = values.quick ? QUICK_PLAN : FULL_PLAN;
  const scenarios = selectScenarios(values.only);
  // A partial run does not replace the full run's results unless asked to write somewhere.
  const resultsFile = values.out ?? (values.only === undefined ? RESULTS_FILE : undefined);
  const started = Date.now();
  // Other work on the machine moves every figure; the load when the run began says how quiet it was.
  const loadAtStart = loadavg().map((l) => round(l, 2));

  progress('starting DynamoDB Local');
  const dynamo = await startDynamoLocal();
  let rows: Row[];
  let stack: LocalStack | undefined;
  // Created on first use, once the stack has set the environment the deployed platform reads.
  let platform: Platform | undefined;
  const latencyPlatform = () => (platform ??= benchPlatform(latencyLimits()));
  try {
    stack = await startLocalStack({
      dynamoEndpoint: dynamo.endpoint,
      tablePrefix: 'bench',
      handlers: benchHandlers(latencyPlatform),
      // The load comes from one IP and one credential: the edge burst limits would reject it.
      edgeProtection: false,
      // The scheduled jobs' queries would load DynamoDB Local beside the measured requests.
      scheduledJobs: false,
      // No webhook pipeline of the stack's: its stream reader would poll DynamoDB Local beside the measured requests, and
      // scenarios/webhook-delivery.ts starts the pipeline it measures (one stream reader per table, or two fan-outs race).
      webhooks: false,
    });
    progress(`local stack on ${stack.baseUrl}, DynamoDB Local on ${dynamo.endpoint}`);
    rows = await runScenarios(stack, latencyPlatform(), plan, scenarios);
  } finally {
    await stack?.stop();
    platform?.documentClient.destroy();
    await dynamo.stop();
  }

  const { latency, bundles, quotas, webhooks, quotaPeerBursts, endpointCosts, passwordHashes, adminCli, settingsLoad } = withRatios(rows);
  const targets = admissionTargets(latency);
  const importNode = await nodeVersion(benchNode(PROJECT_ROOT));
  const cpu = cpus();
  const results = {
    timestamp: new Date(started).toISOString(),
    duration_s: round((Date.now() - started) / 1000, 1),
    scenario_seconds: scenarioSeconds,
    node: process.version,
    import_node: importNode,
    host: { platform: process.platform, arch: process.arch, cpus: cpu.length, cpu_model: cpu[0]?.model ?? 'unknown', load_average_at_start: loadAtStart },
    plan,
    bundling: { ...CONSTRUCT_BUNDLING, node_options: DEPLOYED_NODE_OPTIONS },
    latency,
    targets: { goals: TARGETS, figures: targets },
    invitation_creation: invitationComparison(latency),
    invitation_claim: claimComparison(latency),
    hot_organization: quotas,
    webhook_delivery: webhooks,
    quota_peers: quotaPeerComparison(latency, quotaPeerBursts),
    endpoint_costs: endpointCosts,
    floors: floorResults(endpointCosts),
    password_hash: passwordHashes,
    admin_cli: adminCli,
    settings_load: settingsLoad,
    bundles,
  };
  if (resultsFile) writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);

  const lines = [
    '',
    `Partner API benchmark, ${results.timestamp}: node ${results.node}, ${results.host.cpus} × ${results.host.cpu_model}, load ${loadAtStart[0]}${values.quick ? ' (quick)' : ''}${values.only ? ` (only ${values.only})` : ''}`,
    '',
    'Request latency: closed loop over keep-alive HTTP, in the process of the local front; ×base = over DynamoDB GetItem at the same clients.',
    'DynamoDB columns: mean per request from the handler access log (warm: key facts cached; cold: key cache emptied before each request);',
    'raw rows: one untimed probe. Every authenticated request is admitted: one conditional UpdateItem per principal item, in parallel;',
    'quotas raised out of reach for these rows (same policies, same writes) and edge protection off, so the load is admitted.',
    latencyTable(latency),
    ...httpPathNotes(latency),
    '',
    `Record list on an organization with ${plan.listRecords.toLocaleString('en')} records, limit 20, one client: a deep page (a cursor 90% into the traversal) against the first,`,
    'and the items each page reads (an untimed probe of the same Query) against the records it returns. Targets: deep ≤1.2× first; a single filter reads ≤2× what it returns.',
    listTable(latency),
    '',
    'Invitation creation: the service, its store in process, and Powertools idempotency on the same DynamoDB Local.',
    'Body {"game":"fps"}; new: a fresh Idempotency-Key each time, spread over organizations (≤50 creations each); replay: a key already used.',
    'service: POST …/invitations through the local front, org key; its round trips include admission (3 leases taken in order) and their release (1):',
    '"excl. admission" is what remains. store: InvitationStore.create; Powertools: makeIdempotent (DynamoDB persistence layer) around one PutItem',
    'of the same item, no active limit or organization item; both in process, counted by an instrumented client. ×store: over the in-process store row.',
    'A write that fails its condition (a Powertools replay) consumes WCU in AWS but DynamoDB Local reports none: see "failed cond. writes".',
    invitationTable(latency),
    '',
    "The player's claim: POST /join/{id}/claim of a fresh invitation each (created untimed through POST …/invitations; 201 joined, with the ticket),",
    "and the link's preview GET /join/{id}/view with X-Join-Token (200, nothing written but the admission's counters), through the local front;",
    'claimInvitation (beginClaim, ticket PutItem, completeClaim) in process on the service\'s instrumented client, for comparison.',
    'The player limits (by source IP and join link) are raised out of reach for these rows, as every quota: all requests come from 127.0.0.1.',
    'The service rows include the player admission (2 conditional writes in parallel, 1 round trip): "excl. admission" is what remains.',
    '×UpdateItem: over one raw conditional UpdateItem; ×in process: the service claim over claimInvitation in process, same clients.',
    claimTable(latency),
    ...claimNotes(latency),
    '',
    'Authenticated read (GET /me), per admitted request; informational, the run does not fail on them.',
    `${TARGETS_LINE}`,
    targetsTable(targets),
    '',
    `Webhook delivery: record puts through the back office (the record and its outbox event in one transaction) → the domain table's stream → fan-out → queue → worker → a local HTTPS receiver,`,
    `in this process: the local pipeline (stream reader, queue, retry state machine by aws-local-stepfunctions) running the deployed fan-out and worker on the bench's platforms,`,
    `each invocation in a request scope (DynamoDB figures counted by the service's instrumented client, per delivery). Retry waits ×${plan.webhooks.waitScale}, carried as deployed.`,
    '"raised": the two per-callback delivery rows (webhook-delivery-starts-minute 10, webhook-delivery-concurrency 3) out of reach, same writes; "deployed": as deployed.',
    'Latency: event write acknowledged → the delivering request at the receiver (includes the stream reader\'s 200 ms idle poll); ×GetItem: over a raw GetItem at 1 client;',
    'stream + after: split where a fan-out invocation starts on the event\'s stream record. fan-out ms: its invocations\' wall time per delivery (one shard, one at a time:',
    '1000 / it bounds deliveries/s); worker ms: the same for the worker (up to 5 batches at once: work, not a bound). The writers outrun the pipeline: the latency is mostly backlog.',
    'deferred: attempts the worker put back because the callback was busy; calls / RCU / WCU: both stages, per delivery.',
    webhookThroughputTable(webhooks),
    '',
    'Cost per delivery (raised limits, one callback): one at a time for success and one retry (each invocation one message), the state-machine deliveries at once;',
    'p50 ms: write → delivered, the scaled waits included.',
    webhookCostTable(webhooks),
    ...webhookNotes(webhooks),
    '',
    'Key quotas in process, the service against rate-limiter-flexible on the same DynamoDB Local: the demo organization key (3 principals), every quota',
    'out of reach on both sides (same writes, only the numbers differ). service: authenticateKey (cached facts) + admitRequest, one conditional UpdateItem',
    'per principal item in parallel; peer: a RateLimiterUnion of 6 RateLimiterDynamo (key, account, organization × minute, day, the limits table\'s numbers)',
    'on a table of its own, after a consistent GetItem of the key item ("key read") or the service\'s cached lookup ("cached key"). Each call in a request',
    'scope, counted by the service\'s instrumented client. A write that fails its condition consumes WCU in AWS but DynamoDB Local reports none:',
    '"AWS WCU ≥" adds one per failed conditional write. ×service: over the service row at the same clients. HTTP figures: the GET /me rows above.',
    quotaPeerLatencyTable(latency),
    '',
    'Quota bursts in process on lowered quotas, the service then the peer, on the same keys (each counts in its own table); minute counters read back',
    'afterwards ("left by refused": what they hold beyond the admitted requests, points a refused request spent). expected: what exact quotas that',
    'refund a refused request\'s other counts admit, per phase.',
    quotaPeerBurstTable(quotaPeerBursts),
    ...quotaPeerNotes(quotaPeerBursts),
    '',
    `Hot organization: one burst of keys of one organization, ${Object.entries(plan.hotOrganization.limits).map(([p, l]) => `${p} ${l}`).join(', ')}`,
    'on a platform of its own; counters read from DynamoDB afterwards (Σ: over the keys\' and accounts\' items, compensated rejections included).',
    quotaTable(quotas),
    ...quotaNotes(quotas),
    '',
    `Lambda bundles, built as the stack builds them (lib/config/bundling.ts): init KiB is what a cold start loads (the handler's file and the chunks`,
    `it imports statically; the others load on first use); import() time in a fresh node ${importNode}, median of ${plan.importRuns}, with`,
    `NODE_OPTIONS=${DEPLOYED_NODE_OPTIONS} as deployed unless noted; ×bare and +ms against \`bare\` (a DynamoDB document client reading one item,`,
    `bundled the same way); \`empty\` imports nothing. Targets: init KiB ≤1.3× bare (system ≤1.1×), import ≤1.3× bare. Lambda init: an estimate`,
    `(bench/report.ts lambdaInitEstimateMs: the import time at the CPU share of prod's ${PROD_MEMORY_MB} MB, or of the function's own memory).`,
    bundleTable(bundles, PROD_MEMORY_MB, PROD_LAMBDA.groupMemoryMb),
    '',
    'Password hash: a sign-in\'s verification at the production scrypt cost, in this process one at a time while nothing else of the run is busy (one core:',
    'what Lambda\'s one vCPU at 1,769 MB gives the sign-in function), against PASSWORD_HASH_SECONDS_PER_VCPU (lambdas/back-office/passwords.ts), the figure',
    'the stage configuration checks the sign-in reservation with (lib/config/stage-config.ts signInPeakConcurrency). Above 1× on a quiet machine: raise it.',
    passwordHashTable(passwordHashes),
    '',
    'Web settings under load: key creations sent at once, each from a session of its own, the password hashed at the production cost; a refusal',
    '(503 PASSWORD_CHECK_BUSY from the password gate, lambdas/back-office/password-gate.ts) sent again after its Retry-After with the same Idempotency-Key,',
    'as the page does, until created. other 5xx: answers past the declared refusals (the run fails unless 0); created after: from the first send, the waits included.',
    settingsLoadTable(settingsLoad),
    '',
    'Admin CLI: one command\'s wall time, process start to exit, on the bench\'s DynamoDB Local, in rounds taking each way in turn; the bundle',
    '(scripts/build-admin.ts) against tsx scripts/admin.ts, the path it replaced. npm run: npm\'s own start added (on --help: npm runs in the',
    'project\'s folder, whose state file is the developer\'s). --batch: a run of 20 org create lines over 20. ×tsx: over the tsx row of the same command.',
    adminCliTable(adminCli),
    '',
    'Each operation at its floor (bench/floors.ts): sequential DynamoDB round trips and billed write units per call (AWS: 2 per transaction item,',
    '1 per refused conditional write) from the endpoint-costs rows, one call at a time on a warm container, beside the fewest the operation can cost.',
    floorTable(floorResults(endpointCosts)),
    '',
    resultsFile ? `Wrote ${resultsFile} in ${results.duration_s} s.` : `Ran ${scenarios.map((s) => s.name).join(', ')} in ${results.duration_s} s (--only: no results file; --out <file> writes one).`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  // A 5xx that is no declared refusal, or a creation that never got its key, is a failure of the bounded password check.
  const overloaded = settingsLoad.filter((r) => r.unexpected_5xx > 0 || r.created !== r.requests);
  if (overloaded.length > 0) throw new Error(`settings-load: ${overloaded.map((r) => `${r.unexpected_5xx} other 5xx, ${r.created} of ${r.requests} created`).join('; ')}`);
  // A webhook delivery neither delivered nor ended failed is a loss: the run reports it and fails.
  const lost = webhooks.filter((r) => r.missing > 0);
  if (lost.length > 0) throw new Error(`webhook-delivery: deliveries missing in ${lost.map((r) => `"${r.variant}" (${r.missing} of ${r.expected})`).join(', ')}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
