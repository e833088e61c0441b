/**
 * Ratios against the same run's baselines, the printed tables and the
 * machine-readable results.
 */
import type { AdminCliRow, BundleRow, DynamoPerRequest, EndpointCostRow, LatencyRow, PasswordHashRow, QuotaPeerBurstRow, QuotaPeerFigures, QuotaRow, Row, SettingsLoadRow, WebhookRow } from './scenario';
import { LAMBDA_MB_PER_VCPU } from '../lib/config/stage-config';
import { round } from './stats';
import { HTTP_PATH_KINDS, HTTP_PATH_SCENARIO, type HttpPathKind } from './scenarios/http-path-kinds';

export interface LatencyResult extends LatencyRow {
  /** This row's figures divided by its baseline row's (same concurrency, same run). */
  readonly ratio?: { readonly p50: number; readonly p99: number; readonly baseline_p50_ms: number; readonly baseline_p99_ms: number };
  /** The same over the row's floor (its own raw DynamoDB work), where it names one. */
  readonly floor_ratio?: { readonly variant: string; readonly p50: number; readonly p99: number; readonly floor_p50_ms: number; readonly floor_p99_ms: number };
  /** The same over the row's own DynamoDB requests replayed raw, where it names them. */
  readonly replay_ratio?: { readonly variant: string; readonly p50: number; readonly p99: number; readonly floor_p50_ms: number; readonly floor_p99_ms: number };
}

export interface BundleResult extends BundleRow {
  readonly ratio?: {
    readonly kib: number;
    readonly import_deployed: number;
    readonly import_plain: number;
    /** Milliseconds the bundle's require() adds over the baseline bundle's (deployed NODE_OPTIONS). */
    readonly import_deployed_over_baseline_ms: number;
  };
}

/** A webhook delivery run with its latency set against the raw GetItem of the same run (`baseline`: one client). */
export interface WebhookResult extends WebhookRow {
  readonly ratio?: { readonly p50: number; readonly p99: number; readonly baseline_p50_ms: number; readonly baseline_p99_ms: number };
}

/** A row's p50 and p99 over a floor row's (its own raw DynamoDB work) at the same clients. */
const overFloor = (row: LatencyRow, floor: LatencyRow) => ({
  variant: floor.variant,
  p50: round(row.p50_ms / floor.p50_ms, 2),
  p99: round(row.p99_ms / floor.p99_ms, 2),
  floor_p50_ms: floor.p50_ms,
  floor_p99_ms: floor.p99_ms,
});

export function withRatios(rows: readonly Row[]): {
  latency: LatencyResult[];
  bundles: BundleResult[];
  quotas: QuotaRow[];
  webhooks: WebhookResult[];
  quotaPeerBursts: QuotaPeerBurstRow[];
  endpointCosts: EndpointCostRow[];
  passwordHashes: PasswordHashRow[];
  adminCli: AdminCliRow[];
  settingsLoad: SettingsLoadRow[];
} {
  const latencyRows = rows.filter((r): r is LatencyRow => r.kind === 'latency');
  const quotaPeerBursts = rows.filter((r): r is QuotaPeerBurstRow => r.kind === 'quota-peer-burst');
  const bundleRows = rows.filter((r): r is BundleRow => r.kind === 'bundle');
  const quotas = rows.filter((r): r is QuotaRow => r.kind === 'quota');
  const webhookRows = rows.filter((r): r is WebhookRow => r.kind === 'webhook');
  const endpointCosts = rows.filter((r): r is EndpointCostRow => r.kind === 'endpoint-cost');
  const passwordHashes = rows.filter((r): r is PasswordHashRow => r.kind === 'password-hash');
  const adminCli = rows.filter((r): r is AdminCliRow => r.kind === 'admin-cli');
  const settingsLoad = rows.filter((r): r is SettingsLoadRow => r.kind === 'settings-load');

  const find = (ref: LatencyRow['baseline'], concurrency: number) =>
    ref && latencyRows.find((b) => b.scenario === ref.scenario && b.variant === ref.variant && b.concurrency === concurrency);
  const latency = latencyRows.map((row): LatencyResult => {
    const base = find(row.baseline, row.concurrency);
    const floor = find(row.floor, row.concurrency);
    const replay = find(row.replay, row.concurrency);
    return {
      ...row,
      ...(base && {
        ratio: { p50: round(row.p50_ms / base.p50_ms, 2), p99: round(row.p99_ms / base.p99_ms, 2), baseline_p50_ms: base.p50_ms, baseline_p99_ms: base.p99_ms },
      }),
      ...(floor && { floor_ratio: overFloor(row, floor) }),
      ...(replay && { replay_ratio: overFloor(row, replay) }),
    };
  });

  const bundles = bundleRows.map((row): BundleResult => {
    const base = row.baseline && bundleRows.find((b) => b.name === row.baseline);
    if (!base) return row;
    return {
      ...row,
      ratio: {
        kib: round(row.bytes / base.bytes, 2),
        import_deployed: round(row.import_deployed.median_ms / base.import_deployed.median_ms, 2),
        import_plain: round(row.import_plain.median_ms / base.import_plain.median_ms, 2),
        import_deployed_over_baseline_ms: round(row.import_deployed.median_ms - base.import_deployed.median_ms, 1),
      },
    };
  });
  const webhooks = webhookRows.map((row): WebhookResult => {
    const base = find(row.baseline, row.baseline?.concurrency ?? 1);
    if (!base) return row;
    return {
      ...row,
      ratio: { p50: round(row.latency.p50_ms / base.p50_ms, 1), p99: round(row.latency.p99_ms / base.p99_ms, 1), baseline_p50_ms: base.p50_ms, baseline_p99_ms: base.p99_ms },
    };
  });
  return { latency, bundles, quotas, webhooks, quotaPeerBursts, endpointCosts, passwordHashes, adminCli, settingsLoad };
}

type Cell = string | number | undefined;

function table(headers: readonly string[], rows: readonly Cell[][], rightAligned: ReadonlySet<number>): string {
  const text = rows.map((row) => row.map((cell) => (cell === undefined ? '–' : String(cell))));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((row) => row[i].length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n');
}

const fixed = (value: number | undefined, digits: number) => (value === undefined ? undefined : value.toFixed(digits));
const times = (value: number | undefined) => (value === undefined ? undefined : `${value.toFixed(value >= 10 ? 1 : 2)}×`);
const figure = (value: number | undefined) => (value === undefined ? undefined : String(round(value, 2)));
/** A mean, with the largest value when requests differed. */
const withMax = (value: number | undefined, max: number | undefined) =>
  value === undefined ? undefined : max === undefined || max === value ? figure(value) : `${figure(value)} (max ${figure(max)})`;

export function latencyTable(rows: readonly LatencyResult[]): string {
  const headers = ['scenario', 'variant', 'clients', 'n', 'p50 ms', 'p99 ms', 'mean ms', 'req/s', 'p50 ×base', 'p99 ×base', 'calls', 'round trips', 'RCU', 'WCU'];
  const body = rows.map((r) => [
    r.label,
    r.variant,
    r.concurrency,
    r.samples,
    fixed(r.p50_ms, 2),
    fixed(r.p99_ms, 2),
    fixed(r.mean_ms, 2),
    fixed(r.throughput_rps, 0),
    times(r.ratio?.p50),
    times(r.ratio?.p99),
    figure(r.dynamo?.calls),
    r.dynamo && (r.dynamo.round_trips_min === r.dynamo.round_trips_max ? String(r.dynamo.round_trips) : `${r.dynamo.round_trips} (${r.dynamo.round_trips_min}–${r.dynamo.round_trips_max})`),
    withMax(r.dynamo?.rcu, r.dynamo?.rcu_max),
    withMax(r.dynamo?.wcu, r.dynamo?.wcu_max),
  ]);
  return table(headers, body, new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]));
}

/** Record list pages: each filter's deep page against its first (latency and read units), and items read per record returned. */
export function listTable(rows: readonly LatencyResult[]): string {
  const pages = rows.filter((r) => r.list);
  const headers = ['filter', 'page', 'n', 'p50 ms', '×first', 'p50 ×GetItem', 'RCU', 'RCU ×first', 'returned', 'read', 'read/returned'];
  const body = pages.map((r) => {
    const first = pages.find((f) => f.list!.filter === r.list!.filter && f.list!.page === 'first');
    return [
      r.list!.filter,
      r.list!.page,
      r.samples,
      fixed(r.p50_ms, 2),
      first && times(r.p50_ms / first.p50_ms),
      times(r.ratio?.p50),
      figure(r.dynamo?.rcu),
      first?.dynamo?.rcu ? times((r.dynamo?.rcu ?? 0) / first.dynamo.rcu) : undefined,
      r.list!.returned,
      r.list!.read,
      r.list!.returned > 0 ? (r.list!.read / r.list!.returned).toFixed(2) : undefined,
    ];
  });
  return table(headers, body, new Set([2, 3, 4, 5, 6, 7, 8, 9, 10]));
}

const INVITATION_PATHS = { service: 'service, HTTP', store: 'store, in process', powertools: 'Powertools, in process' } as const;

/** The in-process store row of the same outcome and concurrency: what the other invitation rows are set against. */
function storeRowOf(rows: readonly LatencyResult[], row: LatencyResult): LatencyResult | undefined {
  return rows.find((r) => r.invitation?.path === 'store' && r.invitation.outcome === row.invitation?.outcome && r.concurrency === row.concurrency);
}

/**
 * Invitation creation, new and replayed: through the service (admission included), our store in
 * process, and Powertools idempotency around a PutItem in process, each against the in-process store.
 */
export function invitationTable(rows: readonly LatencyResult[]): string {
  const creations = rows.filter((r) => r.invitation);
  const headers = ['path', 'outcome', 'clients', 'n', 'p50 ms', 'p99 ms', 'p50 ×GetItem', 'p50 ×store', 'p99 ×store', 'calls', 'round trips', 'excl. admission', 'RCU', 'WCU', 'failed cond. writes'];
  const body = creations.map((r) => {
    const store = storeRowOf(creations, r);
    const inv = r.invitation!;
    const trips = r.dynamo && (r.dynamo.round_trips_min === r.dynamo.round_trips_max ? String(r.dynamo.round_trips) : `${r.dynamo.round_trips} (${r.dynamo.round_trips_min}–${r.dynamo.round_trips_max})`);
    return [
      INVITATION_PATHS[inv.path],
      inv.outcome,
      r.concurrency,
      r.samples,
      fixed(r.p50_ms, 2),
      fixed(r.p99_ms, 2),
      times(r.ratio?.p50),
      store && store !== r ? times(r.p50_ms / store.p50_ms) : undefined,
      store && store !== r ? times(r.p99_ms / store.p99_ms) : undefined,
      withMax(r.dynamo?.calls, r.dynamo?.calls_max),
      trips,
      r.dynamo && figure(r.dynamo.round_trips - inv.admission_round_trips),
      withMax(r.dynamo?.rcu, r.dynamo?.rcu_max),
      withMax(r.dynamo?.wcu, r.dynamo?.wcu_max),
      figure(inv.failed_conditional_writes),
    ];
  });
  return table(headers, body, new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]));
}

export interface InvitationComparison {
  readonly outcome: 'new' | 'replay';
  readonly concurrency: number;
  /** Powertools over our store, both in process: p50 and p99 ratios. */
  readonly powertools_over_store: { readonly p50: number; readonly p99: number };
  /** The service through HTTP (admission included) over its store in process. */
  readonly service_over_store?: { readonly p50: number; readonly p99: number };
  /** Mean per call: DynamoDB calls, round trips, WCU (as DynamoDB Local reports them) and writes that failed their condition. */
  readonly store: { readonly calls: number; readonly round_trips: number; readonly rcu: number; readonly wcu: number; readonly failed_conditional_writes: number };
  readonly powertools: { readonly calls: number; readonly round_trips: number; readonly rcu: number; readonly wcu: number; readonly failed_conditional_writes: number };
}

/** Per outcome and concurrency, Powertools and the service against our store in process (results.json). */
export function invitationComparison(rows: readonly LatencyResult[]): InvitationComparison[] {
  const results: InvitationComparison[] = [];
  const figuresOf = (r: LatencyResult) => ({
    calls: r.dynamo?.calls ?? 0,
    round_trips: r.dynamo?.round_trips ?? 0,
    rcu: r.dynamo?.rcu ?? 0,
    wcu: r.dynamo?.wcu ?? 0,
    failed_conditional_writes: r.invitation?.failed_conditional_writes ?? 0,
  });
  const over = (a: LatencyResult, b: LatencyResult) => ({ p50: round(a.p50_ms / b.p50_ms, 2), p99: round(a.p99_ms / b.p99_ms, 2) });
  for (const store of rows.filter((r) => r.invitation?.path === 'store')) {
    const same = (path: 'service' | 'powertools') =>
      rows.find((r) => r.invitation?.path === path && r.invitation.outcome === store.invitation!.outcome && r.concurrency === store.concurrency);
    const powertools = same('powertools');
    const service = same('service');
    if (!powertools) continue;
    results.push({
      outcome: store.invitation!.outcome,
      concurrency: store.concurrency,
      powertools_over_store: over(powertools, store),
      ...(service ? { service_over_store: over(service, store) } : {}),
      store: figuresOf(store),
      powertools: figuresOf(powertools),
    });
  }
  return results;
}

// ── the player's claim ─────────────────────────────────────────────────────

const CLAIM_ROWS: Readonly<Record<string, string>> = {
  'service claim': 'claim, service (HTTP)',
  'service view': 'view, service (HTTP)',
  'domain claim': 'claim, claimInvitation in process',
};
const claimRowName = (c: NonNullable<LatencyResult['claim']>) => CLAIM_ROWS[`${c.path} ${c.operation}`] ?? `${c.operation}, ${c.path}`;

/** The raw UpdateItem row (one conditional write) at the same concurrency, if the run measured it. */
const updateItemRowOf = (rows: readonly LatencyResult[], concurrency: number) =>
  rows.find((r) => r.scenario === 'dynamodb-update-item' && r.variant === 'raw' && r.concurrency === concurrency);

/** The in-process claimInvitation row at the same concurrency. */
const domainClaimOf = (rows: readonly LatencyResult[], concurrency: number) =>
  rows.find((r) => r.claim?.path === 'domain' && r.claim.operation === 'claim' && r.concurrency === concurrency);

/** Reads the service's claim makes beyond claimInvitation's: the operation's find (the token check), and its answer's GetItem + Query of the new ticket. */
const SERVICE_CLAIM_EXTRA_READS = 3;

/**
 * The least AWS bills per request for the writes (2 WCU per transaction item, 1 per single write, failed
 * conditional writes included, GSI writes left out): counted in process; for the service's claim, the
 * in-process floor plus its other writes (its calls beyond claimInvitation's, less the extra reads: the
 * player admission's writes, a retried one included).
 */
function awsWcuFloor(rows: readonly LatencyResult[], r: LatencyResult): number | undefined {
  if (r.claim?.aws_wcu_floor !== undefined) return r.claim.aws_wcu_floor;
  if (r.claim?.path !== 'service' || r.claim.operation !== 'claim' || !r.dynamo) return undefined;
  const domain = domainClaimOf(rows, r.concurrency);
  if (domain?.claim?.aws_wcu_floor === undefined || !domain.dynamo) return undefined;
  return round(domain.claim.aws_wcu_floor + r.dynamo.calls - domain.dynamo.calls - SERVICE_CLAIM_EXTRA_READS, 2);
}

/**
 * The player's claim and the link's preview: through the service (player admission included) and the
 * domain's claimInvitation in process, against GetItem and UpdateItem of the same run and clients.
 */
export function claimTable(rows: readonly LatencyResult[]): string {
  const claims = rows.filter((r) => r.claim);
  const headers = [
    'what',
    'clients',
    'n',
    'p50 ms',
    'p99 ms',
    'p50 ×GetItem',
    'p99 ×GetItem',
    'p50 ×UpdateItem',
    'p50 ×in process',
    'calls',
    'round trips',
    'excl. admission',
    'p50 ×GetItem per round trip',
    'RCU',
    'WCU',
    'AWS WCU ≥',
    'failed cond. writes',
  ];
  const body = claims.map((r) => {
    const c = r.claim!;
    const update = updateItemRowOf(rows, r.concurrency);
    const domain = c.path === 'service' && c.operation === 'claim' ? domainClaimOf(rows, r.concurrency) : undefined;
    const trips = r.dynamo && (r.dynamo.round_trips_min === r.dynamo.round_trips_max ? String(r.dynamo.round_trips) : `${r.dynamo.round_trips} (${r.dynamo.round_trips_min}–${r.dynamo.round_trips_max})`);
    return [
      claimRowName(c),
      r.concurrency,
      r.samples,
      fixed(r.p50_ms, 2),
      fixed(r.p99_ms, 2),
      times(r.ratio?.p50),
      times(r.ratio?.p99),
      update && times(r.p50_ms / update.p50_ms),
      domain && times(r.p50_ms / domain.p50_ms),
      withMax(r.dynamo?.calls, r.dynamo?.calls_max),
      trips,
      r.dynamo && figure(r.dynamo.round_trips - c.admission_round_trips),
      r.ratio && r.dynamo?.round_trips ? times(r.ratio.p50 / r.dynamo.round_trips) : undefined,
      withMax(r.dynamo?.rcu, r.dynamo?.rcu_max),
      withMax(r.dynamo?.wcu, r.dynamo?.wcu_max),
      figure(awsWcuFloor(rows, r)),
      figure(c.failed_conditional_writes),
    ];
  });
  return table(headers, body, new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]));
}

/** What each kind of claim row does when nothing is retried, the requests that retried a write, and what AWS would bill (printed under the table). */
export function claimNotes(rows: readonly LatencyResult[]): string[] {
  const claims = rows.filter((row) => row.claim);
  const seen = new Set<string>();
  const notes: string[] = [];
  for (const r of claims) {
    const c = r.claim!;
    const name = claimRowName(c);
    if (seen.has(name)) continue;
    seen.add(name);
    notes.push(`${name}: ${c.planned}${c.admission_calls ? ' (the first round trip is the player admission: the IP and link counters)' : ''}.`);
  }
  for (const r of claims) {
    const retried = r.dynamo?.retried ?? 0;
    if (retried === 0) continue;
    notes.push(
      `${claimRowName(r.claim!)}, ${clients(r.concurrency)}: ${retried} of ${r.dynamo!.logged} requests made more calls than planned` +
        (r.claim!.path === 'service'
          ? ' (a join link\'s first player call: the container does not know the link item, plans an increment, the write fails its condition and is sent again as a reset: one call, one round trip and one failed conditional write more).'
          : '.'),
    );
  }
  const domain = claims.find((r) => r.claim!.path === 'domain' && r.claim!.transaction_items !== undefined);
  if (domain?.claim?.transaction_items !== undefined && domain.dynamo) {
    notes.push(
      `DynamoDB Local reports a TransactWriteItems as 2 WCU per distinct item size (items of the same size counted once), AWS bills 2 WCU per KB of every item: ` +
        `claimInvitation's transactions write ${figure(domain.claim.transaction_items)} items, so AWS bills it at least ${figure(domain.claim.aws_wcu_floor)} WCU (GSI writes not included) where DynamoDB Local reports ${figure(domain.dynamo.wcu)} ("AWS WCU ≥").`,
    );
  }
  return notes;
}

export interface ClaimFiguresResult {
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly p50_over_get_item?: number;
  readonly p99_over_get_item?: number;
  readonly p50_over_update_item?: number;
  readonly calls: number;
  readonly round_trips: number;
  readonly round_trips_excl_admission: number;
  readonly rcu: number;
  readonly wcu: number;
  /** The least AWS bills for the writes (see awsWcuFloor); DynamoDB Local under-reports transactions. */
  readonly aws_wcu_floor?: number;
  readonly transaction_items?: number;
  readonly retried?: number;
  readonly failed_conditional_writes?: number;
  readonly planned: string;
  readonly operations?: readonly string[];
}

export interface ClaimComparison {
  readonly concurrency: number;
  readonly baseline_get_item_p50_ms?: number;
  readonly baseline_update_item_p50_ms?: number;
  /** POST /join/{id}/claim through the local front, player admission included. */
  readonly service_claim?: ClaimFiguresResult;
  /** GET /join/{id}/view with the link's token, player admission included. */
  readonly service_view?: ClaimFiguresResult;
  /** claimInvitation in process (no HTTP, no admission, no token check, no answer). */
  readonly domain_claim?: ClaimFiguresResult;
  /** The service's claim over the domain's in process: what HTTP, the pipeline, the admission, the token check and the answer add. */
  readonly service_over_domain?: { readonly p50: number; readonly p99: number };
}

/** Per concurrency, the claim and the view through the service and the claim in process (results.json `invitation_claim`). */
export function claimComparison(rows: readonly LatencyResult[]): ClaimComparison[] {
  const claims = rows.filter((r) => r.claim);
  const results: ClaimComparison[] = [];
  for (const concurrency of [...new Set(claims.map((r) => r.concurrency))].sort((a, b) => a - b)) {
    const update = updateItemRowOf(rows, concurrency);
    const of = (path: 'service' | 'domain', operation: 'claim' | 'view') => claims.find((r) => r.concurrency === concurrency && r.claim!.path === path && r.claim!.operation === operation);
    const figures = (r: LatencyResult | undefined): ClaimFiguresResult | undefined =>
      r && {
        p50_ms: r.p50_ms,
        p99_ms: r.p99_ms,
        p50_over_get_item: r.ratio?.p50,
        p99_over_get_item: r.ratio?.p99,
        p50_over_update_item: update && round(r.p50_ms / update.p50_ms, 2),
        calls: r.dynamo?.calls ?? 0,
        round_trips: r.dynamo?.round_trips ?? 0,
        round_trips_excl_admission: round((r.dynamo?.round_trips ?? 0) - r.claim!.admission_round_trips, 2),
        rcu: r.dynamo?.rcu ?? 0,
        wcu: r.dynamo?.wcu ?? 0,
        aws_wcu_floor: awsWcuFloor(rows, r),
        transaction_items: r.claim!.transaction_items,
        retried: r.dynamo?.retried,
        failed_conditional_writes: r.claim!.failed_conditional_writes,
        planned: r.claim!.planned,
        operations: r.claim!.operations,
      };
    const service = of('service', 'claim');
    const domain = of('domain', 'claim');
    results.push({
      concurrency,
      baseline_get_item_p50_ms: (service ?? domain)?.ratio?.baseline_p50_ms,
      baseline_update_item_p50_ms: update?.p50_ms,
      service_claim: figures(service),
      service_view: figures(of('service', 'view')),
      domain_claim: figures(domain),
      ...(service && domain ? { service_over_domain: { p50: round(service.p50_ms / domain.p50_ms, 2), p99: round(service.p99_ms / domain.p99_ms, 2) } } : {}),
    });
  }
  return results;
}

/**
 * The HTTP path's own time (scenarios/http-path.ts: four kinds interleaved in one run), per concurrency: GET /me
 * through the front against GET /me in process (the front's share) and against the admission alone (the pipeline's),
 * with GET /health through the front beside them. Target: GET /me through the front within 1 ms of the admission.
 */
export function httpPathNotes(rows: readonly LatencyRow[]): string[] {
  const path = rows.filter((r) => r.scenario === HTTP_PATH_SCENARIO);
  const p50 = (variant: HttpPathKind, concurrency: number) => path.find((r) => r.variant === variant && r.concurrency === concurrency)?.p50_ms;
  const notes: string[] = [];
  for (const concurrency of [...new Set(path.map((r) => r.concurrency))]) {
    const [front, inProcess, admission, health] = HTTP_PATH_KINDS.map((kind) => p50(kind, concurrency));
    if (front === undefined || inProcess === undefined || admission === undefined || health === undefined) continue;
    const ms = (value: number) => `${value.toFixed(2)} ms`;
    const over = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(2)} ms`;
    notes.push(
      `HTTP path at ${concurrency} client${concurrency === 1 ? '' : 's'} (p50, interleaved): admission in process ${ms(admission)}, GET /me in process ${ms(inProcess)} ` +
        `(pipeline ${over(inProcess - admission)}), through the front ${ms(front)} (front ${over(front - inProcess)}; over the admission ${over(front - admission)}, ` +
        `target ≤ +1 ms: ${front - admission <= 1 ? 'met' : 'not met'}); GET /health through the front ${ms(health)}.`,
    );
  }
  return notes;
}

/** Lambda gives a function one vCPU at 1,769 MB and a share in proportion below it (the memory page of the Lambda guide). */
export { LAMBDA_MB_PER_VCPU };

/**
 * An estimate of a function's Lambda init (the module loading the runtime does before the first invocation): the
 * measured import() time scaled by the CPU share the configured memory buys, as if one core of this machine were one
 * Lambda vCPU. An estimate, not a measurement: the runtime's own start and the code's download are not in it.
 */
export function lambdaInitEstimateMs(importMs: number, memoryMb: number): number {
  return round(importMs * Math.max(1, LAMBDA_MB_PER_VCPU / memoryMb), 0);
}

/** `groupMemoryMb`: the bundles whose function runs with its own memory (StageConfig.lambda.groupMemoryMb: sign-in's full vCPU). */
export function bundleTable(rows: readonly BundleResult[], memoryMb: number, groupMemoryMb: Readonly<Record<string, number | undefined>> = {}): string {
  const own = Object.entries(groupMemoryMb).map(([name, mb]) => `; ${name} ${mb} MB`).join('');
  const headers = ['bundle', 'init KiB', '×bare', 'all chunks KiB', 'import ms', '×bare (paired)', 'target', 'met', '+ms over bare', 'no source maps: ms', `Lambda init est. ms (${memoryMb} MB${own})`];
  const body = rows.map((r) => [
    r.name,
    fixed(r.kib, 1),
    times(r.ratio?.kib),
    fixed(r.total_kib, 1),
    fixed(r.import_deployed.median_ms, 1),
    // The median of the ratios each timed beside the bare handler's (bench/bundles.ts timeImports), not of the medians.
    times(r.cold_start?.import_ratio ?? r.ratio?.import_deployed),
    r.cold_start && `≤${r.cold_start.target}×`,
    r.cold_start && (r.cold_start.met ? 'yes' : 'no'),
    r.ratio && `${r.ratio.import_deployed_over_baseline_ms >= 0 ? "+" : ""}${r.ratio.import_deployed_over_baseline_ms.toFixed(1)}`,
    fixed(r.import_plain.median_ms, 1),
    String(lambdaInitEstimateMs(r.import_deployed.median_ms, groupMemoryMb[r.name] ?? memoryMb)),
  ]);
  return table(headers, body, new Set([1, 2, 3, 4, 5, 6, 8, 9, 10]));
}

/** The password hash on this machine against the declared figure (scenarios/password-hash.ts). */
export function passwordHashTable(rows: readonly PasswordHashRow[]): string {
  const headers = ['scrypt cost', 'hashes', 's per hash (median)', 'min s', 'max s', 'declared s (PASSWORD_HASH_SECONDS_PER_VCPU)', '×declared'];
  const body = rows.map((r) => [`N=2^${r.cost.logN} r=${r.cost.r} p=${r.cost.p}`, String(r.hashes), fixed(r.median_s, 3), fixed(r.min_s, 3), fixed(r.max_s, 3), fixed(r.declared_s, 3), times(r.ratio)]);
  return table(headers, body, new Set([1, 2, 3, 4, 5, 6]));
}

/** The admin CLI's wall time per command (scenarios/admin-cli.ts); ×tsx: over the tsx row of the same command. */
export function adminCliTable(rows: readonly AdminCliRow[]): string {
  const how = { tsx: 'tsx scripts/admin.ts (before)', bundle: 'node dist/admin.mjs', 'npm run': 'npm run -s admin', batch: 'one line of --batch' } as const;
  const headers = ['command', 'run as', 'runs', 'median ms', 'p90 ms', 'min ms', 'max ms', '×tsx'];
  const body = rows.map((r) => [r.command, r.commands_per_run > 1 ? `${how[r.path]} (${r.commands_per_run} lines a run)` : how[r.path], String(r.runs), fixed(r.median_ms, 1), fixed(r.p90_ms, 1), fixed(r.min_ms, 1), fixed(r.max_ms, 1), times(r.ratio)]);
  return table(headers, body, new Set([2, 3, 4, 5, 6, 7]));
}

/** Answers by status, e.g. `201 ×24, 503 PASSWORD_CHECK_BUSY ×17`. */
const byStatus = (counts: Readonly<Record<string, number>>) =>
  Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status} ×${count}`)
    .join(', ');

/** Key creations at once in web settings (scenarios/settings-load.ts). */
export function settingsLoadTable(rows: readonly SettingsLoadRow[]): string {
  const headers = ['requests', 'gate slots', 'first answers', 'all answers', 'other 5xx', 'created', 'answer p50 / p95 ms', 'created after p50 / p95 ms'];
  const body = rows.map((r) => [
    `${r.requests} (${r.accounts} accounts)`,
    String(r.gate_capacity),
    byStatus(r.first_answers),
    byStatus(r.answers),
    String(r.unexpected_5xx),
    String(r.created),
    `${fixed(r.answer_latency.p50_ms, 0)} / ${fixed(r.answer_latency.p95_ms, 0)}`,
    `${fixed(r.time_to_created.p50_ms, 0)} / ${fixed(r.time_to_created.p95_ms, 0)}`,
  ]);
  return table(headers, body, new Set([1, 4, 5, 6, 7]));
}

// ── admission targets ──────────────────────────────────────────────────────

/** What we hold the authenticated request path to (informational: the run never fails on them). */
export const TARGETS = { warmRoundTrips: 1, coldRoundTrips: 2, wcu: 3, p50Ratio: 1.5, floorRatio: 1.3 } as const;
export const TARGETS_LINE = `targets: round trips warm ≤${TARGETS.warmRoundTrips}, cold ≤${TARGETS.coldRoundTrips}, WCU ≤${TARGETS.wcu}, p50 ≤${TARGETS.p50Ratio}× GetItem, hot path: p50 ≤${TARGETS.floorRatio}× its own writes replayed raw`;

export interface TargetResult {
  readonly figure: string;
  /** Undefined for figures reported without a target (DynamoDB calls). */
  readonly target?: number;
  readonly key: 'organization' | 'personal';
  readonly items: number;
  /** Mean over the requests (or the ratio, for latency). */
  readonly value: number;
  /** Largest per-request value, where it differs from the mean's meaning. */
  readonly max?: number;
  /** Requests over the target, of those measured. */
  readonly over?: number;
  /** Requests that retried a write (round trips only): at least one sequential call more than planned. */
  readonly retried?: number;
  readonly of?: number;
  readonly met?: boolean;
}

type Measure = 'calls' | 'round_trips' | 'wcu';

const clients = (n: number) => `${n} client${n === 1 ? '' : 's'}`;

function perRequestTarget(figure: string, measure: Measure, target: number | undefined, rows: readonly LatencyResult[]): Omit<TargetResult, 'key' | 'items'> | undefined {
  const measured = rows.map((r) => r.dynamo).filter((d): d is DynamoPerRequest => d !== undefined && d.logged > 0);
  if (measured.length === 0) return undefined;
  const of = measured.reduce((sum, d) => sum + d.logged, 0);
  const value = round(measured.reduce((sum, d) => sum + d[measure] * d.logged, 0) / of, 2);
  const max = Math.max(...measured.map((d) => (measure === 'calls' ? d.calls_max : measure === 'round_trips' ? d.round_trips_max : d.wcu_max)));
  if (target === undefined) return { figure, value, max, of };
  if (measure !== 'round_trips') return { figure, target, value, max, of, met: max <= target };
  // Round trips are known per request: count those over the target, and those that retried a write
  // (one more sequential call than planned, which the logged round trips can miss).
  const over = measured.reduce((sum, d) => sum + Object.entries(d.round_trips_histogram).reduce((s, [trips, n]) => s + (Number(trips) > target ? n : 0), 0), 0);
  const retried = measured.reduce((sum, d) => sum + (d.retried ?? 0), 0);
  return { figure, target, value, max, over, retried, of, met: max <= target && retried === 0 };
}

/** The admission figures and targets of every authenticated-read row (rows that carry a `key`). */
export function admissionTargets(rows: readonly LatencyResult[]): TargetResult[] {
  const results: TargetResult[] = [];
  for (const kind of ['organization', 'personal'] as const) {
    const keyRows = rows.filter((r) => r.key?.kind === kind);
    if (keyRows.length === 0) continue;
    const items = keyRows[0].key?.items ?? 0;
    const warm = keyRows.filter((r) => r.variant === 'warm');
    const cold = keyRows.filter((r) => r.variant === 'cold');
    const figures = [
      perRequestTarget('DynamoDB calls, warm', 'calls', undefined, warm),
      perRequestTarget('DynamoDB calls, cold', 'calls', undefined, cold),
      perRequestTarget('round trips, warm', 'round_trips', TARGETS.warmRoundTrips, warm),
      perRequestTarget('round trips, cold', 'round_trips', TARGETS.coldRoundTrips, cold),
      perRequestTarget('WCU per request, warm', 'wcu', TARGETS.wcu, warm),
      perRequestTarget('WCU per request, cold', 'wcu', TARGETS.wcu, cold),
      ...warm.map((r) =>
        r.ratio
          ? { figure: `p50 ×GetItem, ${clients(r.concurrency)}`, target: TARGETS.p50Ratio, value: r.ratio.p50, met: r.ratio.p50 <= TARGETS.p50Ratio }
          : undefined,
      ),
      // The hot path: what the service adds over its own DynamoDB requests replayed raw (the target), and over bare
      // `ADD` writes of the same width (the earlier floor, reported beside it: DynamoDB Local's cost of the service's
      // conditions and windows is in the gap between the two).
      ...warm.map((r) =>
        r.replay_ratio
          ? { figure: `p50 ×its own writes replayed, ${clients(r.concurrency)}`, target: TARGETS.floorRatio, value: r.replay_ratio.p50, met: r.replay_ratio.p50 <= TARGETS.floorRatio }
          : undefined,
      ),
      ...warm.map((r) => (r.floor_ratio ? { figure: `p50 ×bare parallel ADDs, ${clients(r.concurrency)}`, value: r.floor_ratio.p50 } : undefined)),
    ];
    for (const f of figures) if (f) results.push({ ...f, key: kind, items });
  }
  return results;
}

function targetCell(t: TargetResult | undefined): string | undefined {
  if (!t) return undefined;
  const ratio = t.figure.startsWith('p50');
  const value = ratio ? `${t.value.toFixed(2)}×` : figure(t.value);
  const notes: string[] = [];
  if (!ratio && t.max !== undefined && t.max !== t.value) notes.push(`max ${figure(t.max)}${t.over ? ` in ${t.over} of ${t.of}` : ''}`);
  if (t.retried) notes.push(`${t.retried} of ${t.of} retried a write`);
  const verdict = t.met === undefined ? '' : t.met ? '  met' : '  NOT MET';
  return `${value}${notes.length ? ` (${notes.join('; ')})` : ''}${verdict}`;
}

export function targetsTable(targets: readonly TargetResult[]): string {
  const kinds = (['organization', 'personal'] as const).filter((k) => targets.some((t) => t.key === k));
  const figures = [...new Set(targets.map((t) => t.figure))];
  const headers = ['figure', 'target', ...kinds.map((k) => `${k === 'organization' ? 'org' : 'personal'} key (${targets.find((t) => t.key === k)?.items} items)`)];
  const body = figures.map((name) => {
    const first = targets.find((t) => t.figure === name);
    const target = first?.target === undefined ? undefined : name.startsWith('p50') ? `≤${first.target}×` : `≤${first.target}`;
    return [name, target, ...kinds.map((k) => targetCell(targets.find((t) => t.figure === name && t.key === k)))];
  });
  return table(headers, body, new Set());
}

// ── hot organization ──────────────────────────────────────────────────────

export function quotaTable(rows: readonly QuotaRow[]): string {
  const headers = ['policy', 'limit', 'requests', 'clients', 'keys', 'admitted', 'expected', 'rejected (429) by policy', 'other', 'org counter', 'Σ key', 'Σ account', 'p50 ms', 'p99 ms', 'exact'];
  const body = rows.map((r) => [
    r.policy,
    r.limit,
    r.requests,
    r.clients,
    `${r.keys} of ${r.accounts} accounts`,
    r.admitted,
    r.expected_admitted,
    Object.entries(r.rejected).map(([policy, n]) => `${policy}: ${n}`).join(', ') || '0',
    Object.entries(r.other).map(([status, n]) => `${status}: ${n}`).join(', ') || '0',
    r.organization_counter.n ?? 'none',
    r.key_counters_sum,
    r.account_counters_sum,
    fixed(r.p50_ms, 2),
    fixed(r.p99_ms, 2),
    r.exact ? 'yes' : r.same_window ? 'NO' : 'NO (window changed mid-run)',
  ]);
  return table(headers, body, new Set([1, 2, 3, 5, 6, 9, 10, 11, 12, 13]));
}

/** A line per hot-organization row on what its admitted requests cost (rejected ones leave no access-log line). */
export function quotaNotes(rows: readonly QuotaRow[]): string[] {
  return rows.map((r) => {
    const d = r.admitted_dynamo;
    const cost = d
      ? `admitted requests: ${figure(d.calls)} calls (max ${d.calls_max}), ${figure(d.round_trips)} round trips (max ${d.round_trips_max}), ${figure(d.wcu)} WCU (max ${figure(d.wcu_max)}) each, first requests of each key cold and racing on fresh windows`
      : 'admitted requests: no access-log figures';
    return `${r.policy}: ${r.admitted} admitted of ${r.requests} (limit ${r.limit}), counter ${r.organization_counter.n ?? 'none'} in window ${r.window_id}${r.same_window ? '' : ' (WINDOW CHANGED MID-RUN)'}; ${cost}; burst ${r.elapsed_ms} ms${r.waited_s ? `, after waiting ${r.waited_s} s for a fresh minute` : ''}.`;
  });
}

// ── the rate-limiter-flexible peer ─────────────────────────────────────────

const QUOTA_PEER_PATHS: Readonly<Record<QuotaPeerFigures['path'], string>> = {
  service: 'service admission',
  'peer-read': 'rate-limiter-flexible, key read',
  'peer-cached': 'rate-limiter-flexible, cached key',
};

/** The service's in-process admission row at the same concurrency: what the peer rows are set against. */
const serviceAdmissionOf = (rows: readonly LatencyResult[], concurrency: number) =>
  rows.find((r) => r.quota_peer?.path === 'service' && r.concurrency === concurrency);

const roundTrips = (d: DynamoPerRequest | undefined) =>
  d && (d.round_trips_min === d.round_trips_max ? String(d.round_trips) : `${d.round_trips} (${d.round_trips_min}–${d.round_trips_max})`);

/** The key quotas in process: the service's admission and the peer's two lookups, against GetItem and the service. */
export function quotaPeerLatencyTable(rows: readonly LatencyResult[]): string {
  const peers = rows.filter((r) => r.quota_peer);
  const headers = ['path', 'clients', 'n', 'p50 ms', 'p99 ms', 'p50 ×GetItem', 'p50 ×service', 'p99 ×service', 'calls', 'round trips', 'RCU', 'WCU', 'failed cond. writes', 'AWS WCU ≥'];
  const body = peers.map((r) => {
    const q = r.quota_peer!;
    const service = serviceAdmissionOf(peers, r.concurrency);
    return [
      QUOTA_PEER_PATHS[q.path],
      r.concurrency,
      r.samples,
      fixed(r.p50_ms, 2),
      fixed(r.p99_ms, 2),
      times(r.ratio?.p50),
      service && service !== r ? times(r.p50_ms / service.p50_ms) : undefined,
      service && service !== r ? times(r.p99_ms / service.p99_ms) : undefined,
      withMax(r.dynamo?.calls, r.dynamo?.calls_max),
      roundTrips(r.dynamo),
      withMax(r.dynamo?.rcu, r.dynamo?.rcu_max),
      withMax(r.dynamo?.wcu, r.dynamo?.wcu_max),
      figure(q.failed_conditional_writes),
      figure(q.aws_wcu_floor),
    ];
  });
  return table(headers, body, new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]));
}

const byPolicy = (counts: Readonly<Record<string, number>>) => Object.entries(counts).map(([policy, n]) => `${policy}: ${n}`).join(', ');

/** Per burst and side: admitted against exact per phase, refusals, the minute counters afterwards and what refused requests left on them. */
export function quotaPeerBurstTable(rows: readonly QuotaPeerBurstRow[]): string {
  const headers = ['burst', 'path', 'requests', 'clients', 'admitted', 'expected', 'rejected by policy', 'other', 'org counter', 'Σ key', 'Σ account', 'left by refused (org / key / acct)', 'p50 ms', 'exact admission', 'counters exact'];
  const body = rows.map((r) => [
    r.burst,
    r.path === 'service' ? 'service' : 'rate-limiter-flexible',
    r.phases.map((p) => p.requests).join(' + '),
    r.clients,
    r.phases.map((p) => p.admitted).join(' + '),
    r.phases.map((p) => p.expected_admitted).join(' + '),
    r.phases.map((p) => byPolicy(p.rejected) || '0').join(' | '),
    r.phases.map((p) => byPolicy(p.other) || '0').join(' | '),
    r.counters.organization,
    r.counters.keys,
    r.counters.accounts,
    `${r.consumed_by_rejected.organization} / ${r.consumed_by_rejected.keys} / ${r.consumed_by_rejected.accounts}`,
    fixed(r.p50_ms, 2),
    r.exact_admission ? 'yes' : 'NO',
    r.counters_exact ? 'yes' : 'no',
  ]);
  return table(headers, body, new Set([3, 8, 9, 10, 12]));
}

/** A line per burst on its phases, limits, window and DynamoDB work. */
export function quotaPeerNotes(rows: readonly QuotaPeerBurstRow[]): string[] {
  return rows.map((r) => {
    const d = r.dynamo;
    const window = r.same_window === undefined ? '' : r.same_window ? `, in UTC minute ${r.window_id}` : ', WINDOW CHANGED MID-RUN';
    const waited = r.waited_s ? `, after waiting ${r.waited_s} s for a fresh minute` : '';
    const cost = d ? `; per request ${figure(d.calls)} calls, ${figure(d.round_trips)} round trips, ${figure(d.wcu)} WCU, ${figure(r.failed_conditional_writes)} failed cond. writes` : '';
    return `${r.burst}, ${r.path === 'service' ? 'service' : 'rate-limiter-flexible'}: ${r.phases.map((p) => `${p.what} ${p.requests}`).join(', then ')} (${byPolicy(r.limits)}), ${r.keys} keys of ${r.accounts} accounts${window}${waited}; ${r.elapsed_ms} ms${cost}.`;
  });
}

export interface QuotaPeerPathFigures {
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly p50_over_get_item?: number;
  readonly p99_over_get_item?: number;
  readonly calls: number;
  readonly round_trips: number;
  readonly rcu: number;
  readonly wcu: number;
  readonly failed_conditional_writes: number;
  readonly aws_wcu_floor: number;
  readonly planned: string;
  readonly operations: readonly string[];
}

export interface QuotaPeerComparison {
  readonly concurrency: number;
  readonly baseline_get_item_p50_ms?: number;
  readonly service?: QuotaPeerPathFigures;
  readonly peer_read?: QuotaPeerPathFigures;
  readonly peer_cached?: QuotaPeerPathFigures;
  /** Each peer row over the service's, same clients. */
  readonly peer_read_over_service?: { readonly p50: number; readonly p99: number };
  readonly peer_cached_over_service?: { readonly p50: number; readonly p99: number };
}

/** results.json `quota_peers`: per concurrency the three in-process paths and their ratios, then the bursts. */
export function quotaPeerComparison(rows: readonly LatencyResult[], bursts: readonly QuotaPeerBurstRow[]): { latency: QuotaPeerComparison[]; bursts: readonly QuotaPeerBurstRow[] } {
  const peers = rows.filter((r) => r.quota_peer);
  const latency: QuotaPeerComparison[] = [];
  for (const concurrency of [...new Set(peers.map((r) => r.concurrency))].sort((a, b) => a - b)) {
    const of = (path: QuotaPeerFigures['path']) => peers.find((r) => r.concurrency === concurrency && r.quota_peer!.path === path);
    const figures = (r: LatencyResult | undefined): QuotaPeerPathFigures | undefined =>
      r && {
        p50_ms: r.p50_ms,
        p99_ms: r.p99_ms,
        p50_over_get_item: r.ratio?.p50,
        p99_over_get_item: r.ratio?.p99,
        calls: r.dynamo?.calls ?? 0,
        round_trips: r.dynamo?.round_trips ?? 0,
        rcu: r.dynamo?.rcu ?? 0,
        wcu: r.dynamo?.wcu ?? 0,
        failed_conditional_writes: r.quota_peer!.failed_conditional_writes,
        aws_wcu_floor: r.quota_peer!.aws_wcu_floor,
        planned: r.quota_peer!.planned,
        operations: r.quota_peer!.operations,
      };
    const over = (a: LatencyResult | undefined, b: LatencyResult | undefined) => (a && b ? { p50: round(a.p50_ms / b.p50_ms, 2), p99: round(a.p99_ms / b.p99_ms, 2) } : undefined);
    const service = of('service');
    const read = of('peer-read');
    const cached = of('peer-cached');
    latency.push({
      concurrency,
      baseline_get_item_p50_ms: (service ?? read)?.ratio?.baseline_p50_ms,
      service: figures(service),
      peer_read: figures(read),
      peer_cached: figures(cached),
      peer_read_over_service: over(read, service),
      peer_cached_over_service: over(cached, service),
    });
  }
  return { latency, bursts };
}

// ── webhook delivery ──────────────────────────────────────────────────────

const LIMIT_NAMES: Readonly<Record<WebhookRow['limits'], string>> = { raised: 'raised', deployed: 'deployed (10/min, 3 in flight)' };
const stage = (c: WebhookRow['fan_out']) => `${figure(c.calls)} / ${figure(c.rcu)} / ${figure(c.wcu)}`;

/** Deliveries per second end to end, and each delivery's latency from the event write to the receiver. */
export function webhookThroughputTable(rows: readonly WebhookResult[]): string {
  const headers = [
    'run',
    'delivery limits',
    'events',
    'expected',
    'delivered',
    'failed',
    'missing',
    'writers',
    'seconds',
    'deliveries/s',
    'events written/s',
    'p50 ms',
    'p99 ms',
    'p50 ×GetItem',
    'p99 ×GetItem',
    'p50 stream + after, ms',
    'fan-out ms per delivery',
    'worker ms per delivery',
    'deferred',
    'calls',
    'RCU',
    'WCU',
  ];
  const body = rows
    .filter((r) => r.measure === 'throughput')
    .map((r) => [
      r.variant,
      LIMIT_NAMES[r.limits],
      r.events,
      r.expected,
      r.delivered,
      r.failed,
      r.missing,
      r.writers,
      fixed(r.elapsed_ms / 1000, 1),
      fixed(r.deliveries_per_second, 1),
      fixed(r.events_written_per_second, 0),
      fixed(r.latency.p50_ms, 0),
      fixed(r.latency.p99_ms, 0),
      times(r.ratio?.p50),
      times(r.ratio?.p99),
      `${fixed(r.stream_latency.p50_ms, 0)} + ${fixed(r.after_stream_latency.p50_ms, 0)}`,
      fixed(r.fan_out.busy_ms, 1),
      fixed(r.worker.busy_ms, 1),
      Math.round(r.deferred * r.deliveries),
      figure(r.total.calls),
      figure(r.total.rcu),
      figure(r.total.wcu),
    ]);
  return table(headers, body, new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]));
}

/** Per delivery: attempts, queue messages, Step Functions, and each stage's DynamoDB work. */
export function webhookCostTable(rows: readonly WebhookResult[]): string {
  const headers = [
    'delivery',
    'n',
    'attempts',
    'queue msgs',
    'SFN executions',
    'SFN transitions',
    'fan-out calls / RCU / WCU',
    'worker calls / RCU / WCU',
    'calls',
    'RCU',
    'WCU',
    'failed cond. writes',
    'worker round trips per invocation',
    'p50 ms',
    'p50 ×GetItem',
    'p50 stream + after, ms',
  ];
  const body = rows
    .filter((r) => r.measure === 'cost')
    .map((r) => [
      r.variant,
      r.deliveries,
      figure(r.attempts),
      figure(r.queue_messages),
      figure(r.sfn_executions),
      figure(r.sfn_transitions),
      stage(r.fan_out),
      stage(r.worker),
      figure(r.total.calls),
      figure(r.total.rcu),
      figure(r.total.wcu),
      figure(r.total.failed_conditional_writes),
      figure(r.worker.round_trips_per_invocation),
      fixed(r.latency.p50_ms, 0),
      times(r.ratio?.p50),
      `${fixed(r.stream_latency.p50_ms, 0)} + ${fixed(r.after_stream_latency.p50_ms, 0)}`,
    ]);
  return table(headers, body, new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]));
}

/** What one delivery's invocations did, what the Step Functions figures mean, and anything unexpected (printed under the tables). */
export function webhookNotes(rows: readonly WebhookResult[]): string[] {
  const notes: string[] = [];
  const success = rows.find((r) => r.measure === 'cost' && r.attempts === 1);
  if (success) {
    notes.push(
      `A first-time success, in call order: fan-out ${success.fan_out.operations.join(' → ') || '(none)'}; worker ${success.worker.operations.join(' → ') || '(none)'} ` +
        `(${figure(success.worker.round_trips_per_invocation)} sequential round trips; the HTTPS request sits between the claim and the outcome).`,
    );
  }
  const transitions = rows.filter((r) => r.measure === 'cost').map((r) => `${r.variant}: ${figure(r.sfn_transitions)}`);
  if (transitions.length > 0) notes.push(`Step Functions transitions per delivery (expected 0, 0 and 2: only waits over SQS's 15 minutes go through the state machine, Wait + QueueAttempt): ${transitions.join('; ')}.`);
  const accounted = rows.map((r) => `${r.variant}: ${r.delivered} delivered, ${r.failed} failed, ${r.missing} missing of ${r.expected}`);
  notes.push(`Every delivery accounted for (at the receiver, or ended failed in its record; missing: neither by the run's deadline): ${accounted.join('; ')}.`);
  for (const r of rows) {
    if (r.missing > 0) notes.push(`${r.variant}: ${r.missing} deliveries MISSING (the run's stderr names each and what its record says).`);
    if (r.faults_injected > 0) notes.push(`${r.variant}: ${r.faults_injected} faults injected into the worker; ${r.duplicates} deliveries reached the receiver twice (one per fault after a 2xx expected); ${r.missing} missing.`);
    if (r.stream_records_skipped > 0 || r.dead_lettered > 0) notes.push(`${r.variant}: ${r.stream_records_skipped} stream records skipped by the fan-out, ${r.dead_lettered} messages dead-lettered.`);
    if (r.errors > 0) notes.push(`${r.variant}: ${r.errors} error lines logged by the pipeline (see the run's stderr).`);
    if (r.measure === 'throughput' && r.deferred > 0) {
      notes.push(`${r.variant} (${LIMIT_NAMES[r.limits]} limits): ${Math.round(r.deferred * r.deliveries)} attempts deferred by the callback's limits (the worker puts the message back with Retry-After), costing ${figure(r.total.wcu)} WCU per delivery on average.`);
    }
  }
  const failed = rows.filter((r) => r.total.failed_conditional_writes > 0).map((r) => `${r.variant}: ${figure(r.total.failed_conditional_writes)}`);
  if (failed.length > 0) notes.push(`Writes that failed their condition, per delivery (AWS bills ≥ 1 WCU each, DynamoDB Local reports none): ${failed.join('; ')}.`);
  return notes;
}
