/**
 * What a benchmark scenario is: a name, an untimed setup, a run that returns
 * rows, and a teardown. Scenarios are listed in scenarios/index.ts; adding
 * one is a new file there. Rows name the baseline they are compared with, and
 * the runner computes every ratio against the baseline measured in the same
 * run, never against a fixed threshold.
 */
import type { DemoData } from '../local/seed';
import type { LocalStack } from '../local/local-stack';
import type { Platform } from '../lambdas/shared/platform';
import type { AccessLogCapture, DynamoFigures } from './access-log';
import type { LatencySummary } from './stats';

export interface LoadPlan {
  /** Concurrent clients each latency scenario is measured at. */
  readonly concurrencies: readonly number[];
  readonly warmupRequests: number;
  readonly measuredRequests: number;
  /** Requests of a key the container has not seen (each one timed alone). */
  readonly coldRequests: number;
  /** Fresh `node` processes per bundle for the import time. */
  readonly importRuns: number;
  /** Records of the organization the record list runs page through. */
  readonly listRecords: number;
  /** The hot-organization quota run (scenarios/hot-organization.ts). */
  readonly hotOrganization: HotOrganizationPlan;
  /**
   * Claims per run of scenarios/invitation-claim.ts (its views use the counts above): each claim takes an
   * invitation of its own, created beforehand, and costs about ten GetItems, so fewer are measured.
   */
  readonly claims: { readonly warmupRequests: number; readonly measuredRequests: number };
  /** The webhook delivery runs (scenarios/webhook-delivery.ts). */
  readonly webhooks: WebhookPlan;
  /** The rate-limiter-flexible peer of the key quotas (scenarios/quota-peers.ts). */
  readonly quotaPeers: QuotaPeersPlan;
  /** Calls of each operation, one at a time, for the cost model (scenarios/endpoint-costs.ts). */
  readonly endpointCosts: { readonly calls: number };
  /** Password verifications timed one at a time (scenarios/password-hash.ts), after one untimed. */
  readonly passwordHashes: number;
}

export interface QuotaPeersPlan {
  /** In-process admissions per latency phase (service, peer with its key read, peer on cached key facts), at each of `concurrencies`. */
  readonly warmupRequests: number;
  readonly measuredRequests: number;
  /**
   * The second burst: one key sends `overLimitRequests` against a lowered key-minute quota, then `otherKeys`
   * other keys of its organization send `otherKeyRequests` each, which fit exactly in what an exact
   * organization quota has left (organization-minute − key-minute).
   */
  readonly keyOverLimit: {
    readonly limits: Readonly<Record<string, number>>;
    readonly overLimitRequests: number;
    readonly otherKeys: number;
    readonly otherKeyRequests: number;
    readonly clients: number;
  };
}

export interface WebhookPlan {
  /** Business events of the throughput run over 10 organizations of one callback each (one delivery per event). */
  readonly events: number;
  /** Business events of the fan-out run: one organization with 10 callbacks (10 deliveries per event). */
  readonly fanOutEvents: number;
  /** Events of the burst on the deployed limits: 10 organizations of one callback each, events / 10 per callback (the starts-minute limit is 10). */
  readonly deployedLimitEvents: number;
  /** Concurrent back-office writers of the throughput runs (closed loop). */
  readonly writers: number;
  /** Deliveries of each cost run: first-time success and one retry (one at a time), retry through the state machine (all at once). */
  readonly costDeliveries: { readonly success: number; readonly oneRetry: number; readonly stateMachine: number };
  /** The local pipeline's retry waits are multiplied by this (the carrier still follows the real wait). */
  readonly waitScale: number;
  /** Events of the run with faults injected into the worker (10 organizations of one callback each, raised limits). */
  readonly faultEvents: number;
}

export interface HotOrganizationPlan {
  readonly managers: number;
  readonly keysPerManager: number;
  /** Requests sent, all in one minute window. */
  readonly requests: number;
  readonly clients: number;
  /** The lowered limits the run's own platform applies, by policy. */
  readonly limits: Readonly<Record<string, number>>;
}

export interface BenchContext {
  readonly projectRoot: string;
  readonly stack: LocalStack;
  /**
   * The platform behind the stack's authenticated handlers: the deployed one
   * with every quota raised out of reach (same policies, same writes), so the
   * load is admitted. Its key cache is what the cold runs empty.
   */
  readonly platform: Platform;
  readonly demo: DemoData;
  readonly accessLog: AccessLogCapture;
  readonly plan: LoadPlan;
  /** Progress for the person watching (stderr, so stdout stays the report). */
  progress(message: string): void;
}

/** A row's baseline: the row of that scenario and variant at the same concurrency. */
export interface BaselineRef {
  readonly scenario: string;
  readonly variant: string;
}

/** Per-request DynamoDB work, averaged over the measured requests' access-log lines. */
export interface DynamoPerRequest extends DynamoFigures {
  /**
   * `access-log`: each measured request's own line; `probe`: one untimed call of the raw command with ReturnConsumedCapacity;
   * `client`: in-process calls, each counted by its instrumented client in a request scope of its own (scenarios/invitation-peers.ts).
   */
  readonly source: 'access-log' | 'probe' | 'client';
  /** Measured requests whose access-log line carried the figures. */
  readonly logged: number;
  readonly calls_max: number;
  readonly round_trips_min: number;
  readonly round_trips_max: number;
  /** Requests by their number of sequential round trips, e.g. `{ "1": 2997, "2": 3 }`. */
  readonly round_trips_histogram: Readonly<Record<string, number>>;
  /** Requests by their number of DynamoDB calls. */
  readonly calls_histogram: Readonly<Record<string, number>>;
  readonly rcu_max: number;
  readonly wcu_max: number;
  /**
   * Requests that made more calls than a first-try admission does (one write per
   * principal item, plus the key read when cold): a write was retried after a
   * condition failure (a wrong guess about a window, e.g. at a minute rollover),
   * so the request had at least one more sequential call than planned, even where
   * `round_trips` (rises of the in-flight count from zero) does not show it
   * because the retry overlapped the other items' writes. Undefined where the
   * first-try count is not known.
   */
  readonly retried?: number;
}

export interface LatencyRow extends LatencySummary {
  readonly kind: 'latency';
  readonly scenario: string;
  /** What was measured, for the table, e.g. `GET /me`. */
  readonly label: string;
  readonly variant: string;
  readonly concurrency: number;
  readonly dynamo?: DynamoPerRequest;
  readonly baseline?: BaselineRef;
  /** A second reference, shown beside the baseline's ratio: raw writes as wide as the request's own (bare `ADD`s). */
  readonly floor?: BaselineRef;
  /** The request's own DynamoDB requests, captured and replayed raw (scenarios/get-me-replay.ts): its floor. */
  readonly replay?: BaselineRef;
  /** Admission-only requests (GET /me): the kind of key and the principal items admission writes (key, account[, organization]). */
  readonly key?: { readonly kind: 'organization' | 'personal'; readonly items: number };
  /** Record list rows: the filter, which page, and what the page returned and read (scenarios/record-list.ts). */
  readonly list?: { readonly filter: string; readonly page: 'first' | 'deep'; readonly records: number; readonly returned: number; readonly read: number };
  /** Invitation creation rows (scenarios/invitation-create.ts, invitation-peers.ts): see InvitationFigures. */
  readonly invitation?: InvitationFigures;
  /** The player's claim and the link's preview (scenarios/invitation-claim.ts): see ClaimFigures. */
  readonly claim?: ClaimFigures;
  /** The key quotas in process, the service's admission against rate-limiter-flexible (scenarios/quota-peers.ts): see QuotaPeerFigures. */
  readonly quota_peer?: QuotaPeerFigures;
}

/** Which side of the quota comparison a row measured, and what DynamoDB Local leaves out of its WCU. */
export interface QuotaPeerFigures {
  /**
   * `service`: authenticateKey (cached facts) + admitRequest, the pipeline's two steps; `peer-read`: a consistent
   * GetItem of the key item + the RateLimiterUnion; `peer-cached`: the union after the service's cached key lookup.
   */
  readonly path: 'service' | 'peer-read' | 'peer-cached';
  /** The DynamoDB calls of a request, in order (round trips separated by `→`, parallel calls by `+`). */
  readonly planned: string;
  /** Mean per request of the writes that failed their condition (AWS bills at least 1 WCU each; DynamoDB Local reports none). */
  readonly failed_conditional_writes: number;
  /** The least AWS bills per request for the writes: the reported WCU plus one per failed conditional write (items under 1 KB). */
  readonly aws_wcu_floor: number;
  /** The operations of the first measured request, in call order. */
  readonly operations: readonly string[];
}

/** What a claim-scenario row measured, and the part of its DynamoDB work that is the player admission's. */
export interface ClaimFigures {
  /** `service`: through the local front (player admission included); `domain`: `claimInvitation` in process, no HTTP. */
  readonly path: 'service' | 'domain';
  /** `claim`: POST /join/{id}/claim of a fresh invitation (201 joined); `view`: GET /join/{id}/view with the link's token (200, changes nothing). */
  readonly operation: 'claim' | 'view';
  /** Distinct invitations the requests went to (claims: one each, warmup included; views: a cycle). */
  readonly invitations: number;
  /** Organizations those invitations belong to (at most 50 active each; concurrent claims on different ones). */
  readonly organizations: number;
  /** DynamoDB calls (and round trips) of the player admission in the service rows (the IP and link counters, in parallel); 0 in process. */
  readonly admission_calls: number;
  readonly admission_round_trips: number;
  /** DynamoDB calls of a claim or view that retried nothing, in order (round trips separated by `→`, parallel calls by `+`). */
  readonly planned: string;
  /** Mean per request of the writes that failed their condition; undefined where not counted (service rows). */
  readonly failed_conditional_writes?: number;
  /** The operations one request made, in call order, as its instrumented client saw them (in-process rows; the first measured request). */
  readonly operations?: readonly string[];
  /** Mean per request of the items written in TransactWriteItems calls (in-process rows). */
  readonly transaction_items?: number;
  /**
   * The least AWS would bill per request for the writes (in-process rows): 2 WCU per item of a transaction and 1 per
   * single write (failed conditional writes included), each item counted as at most 1 KB, GSI writes left out.
   * DynamoDB Local reports less for transactions (see bench/README.md), so this can exceed the `wcu` column.
   */
  readonly aws_wcu_floor?: number;
}

/**
 * Which way an invitation was created, and what the row's DynamoDB columns
 * leave out: a write whose condition failed (a replay in Powertools is one)
 * consumes write capacity in AWS, but DynamoDB Local reports none for it.
 */
export interface InvitationFigures {
  /** `service`: POST …/invitations through the local front; `store`: InvitationStore.create in process; `powertools`: @aws-lambda-powertools/idempotency around a plain PutItem, in process. */
  readonly path: 'service' | 'store' | 'powertools';
  /** `new`: a fresh Idempotency-Key each time; `replay`: a key already used, same body. */
  readonly outcome: 'new' | 'replay';
  /** Organizations (partner ids) the requests were spread over, at most 50 creations each. */
  readonly organizations: number;
  /** Mean per request of the writes that failed their condition (ConditionalCheckFailedException or a cancelled transaction); undefined where not counted (service rows). */
  readonly failed_conditional_writes?: number;
  /** DynamoDB calls (and round trips) of admission and lease release in the service rows; 0 in process. */
  readonly admission_calls: number;
  readonly admission_round_trips: number;
}

export interface ImportTime {
  readonly median_ms: number;
  readonly runs_ms: readonly number[];
}

export interface BundleRow {
  readonly kind: 'bundle';
  readonly scenario: string;
  /** Endpoint group, `bare` for the baseline (a document client reading one item) or `empty` (a handler importing nothing). */
  readonly name: string;
  readonly entry: string;
  /** What a cold start loads: the handler's file and the chunks it imports statically. */
  readonly bytes: number;
  readonly kib: number;
  readonly init_files: readonly string[];
  /** Every chunk of the asset, those imported on first use (`import()`) included. */
  readonly total_kib: number;
  readonly source_map_kib: number;
  /** `import()` of the bundle in a fresh node with NODE_OPTIONS=--enable-source-maps, as the construct deploys it. */
  readonly import_deployed: ImportTime;
  /** The same without source-map support, to show what the source map costs at cold start. */
  readonly import_plain: ImportTime;
  /** Name of the bundle row this one is compared with. */
  readonly baseline?: string;
  /**
   * Against `baseline` and the cold-start target (bench/bundles.ts coldStartTarget): bytes loaded, and the median of
   * the import() ratios each timed beside the baseline's in one loop (timeImports); met when both are within it.
   */
  readonly cold_start?: { readonly target: number; readonly kib_ratio: number; readonly import_ratio: number; readonly import_plain_ratio: number; readonly met: boolean };
}

/** The hot-organization run: every quota decision of one burst, and the counters DynamoDB holds afterwards. */
export interface QuotaRow {
  readonly kind: 'quota';
  readonly scenario: string;
  readonly policy: string;
  readonly limit: number;
  readonly limits: Readonly<Record<string, number>>;
  readonly requests: number;
  readonly clients: number;
  readonly keys: number;
  readonly accounts: number;
  readonly admitted: number;
  /** min(requests, limit): what an exact quota admits. */
  readonly expected_admitted: number;
  /** 429s by X-RateLimit-Policy. */
  readonly rejected: Readonly<Record<string, number>>;
  /** Any other answer, by status (should be none). */
  readonly other: Readonly<Record<string, number>>;
  /** `q_organization_minute` of the organization item after the run: `{w, n}`. */
  readonly organization_counter: { readonly w: number | null; readonly n: number | null };
  /** Sums of the key items' `q_key_minute.n` and the account items' `q_account_minute.n` (rejections are compensated). */
  readonly key_counters_sum: number;
  readonly account_counters_sum: number;
  /** The window the run was in, and whether it started and ended in it. */
  readonly window_id: number;
  readonly same_window: boolean;
  /** Seconds waited for a fresh minute before the burst. */
  readonly waited_s: number;
  readonly elapsed_ms: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  /** DynamoDB work of the admitted requests (the rejected ones leave no access-log line). */
  readonly admitted_dynamo?: DynamoPerRequest;
  readonly exact: boolean;
}

/** DynamoDB work of one stage of the webhook pipeline (fan-out or delivery worker), per delivery unless named otherwise. */
export interface WebhookStageCost {
  /** Handler invocations (stream batches, queue batches) per delivery. */
  readonly invocations: number;
  readonly calls: number;
  readonly rcu: number;
  readonly wcu: number;
  /** Writes that failed their condition (AWS bills at least 1 WCU each; DynamoDB Local reports none). */
  readonly failed_conditional_writes: number;
  /** Sequential round trips per invocation (meaningful where each invocation handled one message: the one-at-a-time runs). */
  readonly round_trips_per_invocation: number;
  /**
   * Wall time of the stage's invocations per delivery. The local stream has one shard, read by one fan-out invocation
   * at a time, each handling its records in order: 1000 / the fan-out's figure bounds the deliveries per second of one
   * callback per event. Worker invocations overlap (up to 5 batches of up to 10 messages at once), so theirs is work, not a bound.
   */
  readonly busy_ms: number;
  /** The DynamoDB operations of the run's first invocation of this stage, in call order. */
  readonly operations: readonly string[];
}

/**
 * A webhook delivery run (scenarios/webhook-delivery.ts): business events written through the back office, delivered
 * by the local pipeline (stream reader, queue, state machine) running the deployed fan-out and worker, to a local
 * HTTPS receiver. `throughput` runs time a burst end to end; `cost` runs count what each delivery costs.
 */
export interface WebhookRow {
  readonly kind: 'webhook';
  readonly scenario: string;
  readonly measure: 'throughput' | 'cost';
  /** e.g. `10 orgs × 1 callback` or `first-time success`. */
  readonly variant: string;
  /** `raised`: the two per-callback delivery rows (webhook-delivery-starts-minute, webhook-delivery-concurrency) out of reach, same writes; `deployed`: as deployed. */
  readonly limits: 'raised' | 'deployed';
  readonly organizations: number;
  readonly callbacks_per_organization: number;
  /** What the receiver answers: `200`, `500 once then 200`, `500 four times then 200`. */
  readonly receiver: string;
  readonly events: number;
  readonly deliveries: number;
  /** Deliveries the run's events asked for (events × the organization's callbacks): each ends delivered, failed or missing. */
  readonly expected: number;
  /** Reached the receiver, answered 2xx. */
  readonly delivered: number;
  /** Ended `failed` after its 8 attempts (none expected: the receivers end by answering 200). */
  readonly failed: number;
  /** Neither by the run's deadline (60 s + 100 ms per delivery): lost, or stuck. 0 expected. */
  readonly missing: number;
  /** Stream records the local reader gave up on (deployed: the fan-out's on-failure destination), and messages dead-lettered. */
  readonly stream_records_skipped: number;
  readonly dead_lettered: number;
  /** Faults injected into the pipeline during the run (local/fault-injection.ts), and 2xx-answered requests beyond one per delivery. */
  readonly faults_injected: number;
  readonly duplicates: number;
  /** Concurrent back-office writers (1: one event at a time, the next after its delivery). */
  readonly writers: number;
  /** From the first write's start to the last delivery's arrival at the receiver. */
  readonly elapsed_ms: number;
  readonly deliveries_per_second: number;
  /** The events' write phase alone: how fast the back office put them. */
  readonly write_elapsed_ms: number;
  readonly events_written_per_second: number;
  /** Event write acknowledged → the delivering request at the receiver, per delivery. */
  readonly latency: LatencySummary;
  /** Its first part: write acknowledged → a fan-out invocation starts on the event's stream record (the local reader polls every 200 ms when idle). */
  readonly stream_latency: LatencySummary;
  /** Its second part: that fan-out start → the delivering request at the receiver (fan-out, queue, worker, retries, HTTPS). */
  readonly after_stream_latency: LatencySummary;
  /** Where the latency is compared: the raw GetItem row at this concurrency. */
  readonly baseline?: BaselineRef & { readonly concurrency: number };
  /** Per delivery: requests the receiver got, queue messages sent and received, Step Functions executions and transitions. */
  readonly attempts: number;
  readonly queue_messages: number;
  readonly queue_receives: number;
  readonly sfn_executions: number;
  readonly sfn_transitions: number;
  /** Queue messages beyond one per attempt: attempts the worker put back because the callback was busy (its limits). */
  readonly deferred: number;
  readonly fan_out: WebhookStageCost;
  readonly worker: WebhookStageCost;
  /** Both stages, per delivery. */
  readonly total: { readonly calls: number; readonly rcu: number; readonly wcu: number; readonly failed_conditional_writes: number };
  /** Error lines the service logged during the run (none expected). */
  readonly errors: number;
}

/** One phase of a quota burst: requests of some keys of the organization, all at once (`clients` at a time). */
export interface QuotaBurstPhase {
  readonly what: string;
  readonly keys: number;
  readonly requests: number;
  readonly admitted: number;
  /** What exact quotas that refund a refused request's other counts admit. */
  readonly expected_admitted: number;
  /** Refusals by policy (the service's X-RateLimit-Policy; the peer's refusing limiters, joined by `+` when several refused). */
  readonly rejected: Readonly<Record<string, number>>;
  /** Anything else (a store error), by name: none expected. */
  readonly other: Readonly<Record<string, number>>;
}

/**
 * A quota burst in process (scenarios/quota-peers.ts), by the service's admission or by the
 * rate-limiter-flexible peer, on lowered quotas; the minute counters read back afterwards.
 */
export interface QuotaPeerBurstRow {
  readonly kind: 'quota-peer-burst';
  readonly scenario: string;
  /** `hot organization`: many keys of one organization over its minute quota; `key over its limit`: one key over its own, then other keys of its organization. */
  readonly burst: string;
  readonly path: 'service' | 'peer';
  readonly limits: Readonly<Record<string, number>>;
  readonly clients: number;
  readonly keys: number;
  readonly accounts: number;
  readonly phases: readonly QuotaBurstPhase[];
  readonly requests: number;
  readonly admitted: number;
  readonly expected_admitted: number;
  /** The minute counters afterwards: the organization's, and the sums over the keys' and the accounts' items (the service's in its window, the peer's live items). */
  readonly counters: { readonly organization: number; readonly keys: number; readonly accounts: number };
  /** Counts the counters hold beyond the admitted requests: points consumed by refused requests. */
  readonly consumed_by_rejected: { readonly organization: number; readonly keys: number; readonly accounts: number };
  /** Service: the UTC minute window the burst ran in, and whether it stayed in it (the peer's windows start at a principal's first request). */
  readonly window_id?: number;
  readonly same_window?: boolean;
  readonly waited_s: number;
  readonly elapsed_ms: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  /** Every request of the burst, counted by the instrumented client. */
  readonly dynamo?: DynamoPerRequest;
  readonly failed_conditional_writes: number;
  /** Every phase admitted what exact quotas admit. */
  readonly exact_admission: boolean;
  /** The counters equal the admitted requests (nothing left on them by refused requests). */
  readonly counters_exact: boolean;
}

/** One operation's cost per call (scenarios/endpoint-costs.ts): the cost model's input (bench/cost). */
export interface EndpointCostRow {
  readonly kind: 'endpoint-cost';
  readonly scenario: 'endpoint-costs';
  /** The route id. */
  readonly route: string;
  readonly label: string;
  readonly calls: number;
  /** Means per call, from the calls' access-log lines. */
  readonly dynamo: {
    readonly calls: number;
    readonly round_trips: number;
    readonly rcu: number;
    readonly wcu: number;
    readonly tx_items: number;
    readonly tx_wcu: number;
    readonly failed_conditions: number;
    readonly cancelled_tx_items: number;
  };
  /**
   * Sequential round trips per call after the route's first: on a container that served the route and key before (its
   * key facts cached, its page count seen), the steady state the floors are stated for (bench/floors.ts). The first
   * call pays the cold half: authentication's read, a page count not seen yet.
   */
  readonly warm_round_trips?: number;
  /** The handler's own time per call (the pipeline's `duration_ms`). */
  readonly handler_ms: { readonly mean: number; readonly max: number };
  /** The answer's body. */
  readonly response_bytes: number;
  /** The service's own log lines per call (the call log line and any other). */
  readonly log_bytes: number;
}

/**
 * One password hash on this machine (scenarios/password-hash.ts) against the figure the stage configuration checks the
 * sign-in function's reservation with (PASSWORD_HASH_SECONDS_PER_VCPU, lambdas/back-office/passwords.ts).
 */
export interface PasswordHashRow {
  readonly kind: 'password-hash';
  readonly scenario: 'password-hash';
  /** The scrypt cost verified (the production one). */
  readonly cost: { readonly logN: number; readonly r: number; readonly p: number };
  readonly hashes: number;
  /** Seconds per verification, one at a time in this process: median and extremes, and every run. */
  readonly median_s: number;
  readonly min_s: number;
  readonly max_s: number;
  readonly runs_s: readonly number[];
  /** PASSWORD_HASH_SECONDS_PER_VCPU. */
  readonly declared_s: number;
  /** median_s / declared_s: above 1 on a quiet machine, the declared figure is too low for this core. */
  readonly ratio: number;
}

/** One way of running one admin CLI command (scenarios/admin-cli.ts): wall time per command, process start to exit. */
export interface AdminCliRow {
  readonly kind: 'admin-cli';
  readonly scenario: 'admin-cli';
  readonly command: '--help' | 'org create';
  /** `tsx`: tsx scripts/admin.ts (the path before the bundle); `bundle`: node dist/admin.mjs; `npm run`: npm run -s admin; `batch`: one line of a --batch run. */
  readonly path: 'tsx' | 'bundle' | 'npm run' | 'batch';
  readonly runs: number;
  /** Commands per timed run (a batch's lines): each figure is a run's time over it. */
  readonly commands_per_run: number;
  readonly median_ms: number;
  readonly p90_ms: number;
  readonly min_ms: number;
  readonly max_ms: number;
  readonly runs_ms: readonly number[];
  /** The tsx row of the same command in the same run, and this row's median over its median. */
  readonly baseline?: 'tsx';
  readonly ratio?: number;
}

/** Latencies of a settings-load run: median, p95 and the largest (ms). */
export interface LoadLatency {
  readonly p50_ms: number;
  readonly p95_ms: number;
  readonly max_ms: number;
}

/**
 * Key creations in web settings at once, each retried after a declared refusal's Retry-After until created, as the
 * page does (scenarios/settings-load.ts).
 */
export interface SettingsLoadRow {
  readonly kind: 'settings-load';
  readonly scenario: 'settings-load';
  readonly accounts: number;
  /** Creations sent at once, one per session. */
  readonly requests: number;
  /** The local stack's password gate: its slots, and the hashes it refused during the run. */
  readonly gate_capacity: number;
  readonly gate_refusals: number;
  /** Every creation's first answer, by status (and code for a refusal). */
  readonly first_answers: Readonly<Record<string, number>>;
  /** Every answer, retries included, by status (and code). */
  readonly answers: Readonly<Record<string, number>>;
  /** 5xx answers other than a declared refusal with Retry-After (503 PASSWORD_CHECK_BUSY, RATE_LIMIT_UNAVAILABLE): 0 expected. */
  readonly unexpected_5xx: number;
  /** Creations that ended with their key (201, or 200 for an attempt that had created it). */
  readonly created: number;
  /** Every answer's latency; the first answer's; from the first send to the key created (the Retry-After waits included). */
  readonly answer_latency: LoadLatency;
  readonly first_answer_latency: LoadLatency;
  readonly time_to_created: LoadLatency;
  readonly elapsed_ms: number;
}

export type Row = LatencyRow | BundleRow | QuotaRow | WebhookRow | QuotaPeerBurstRow | EndpointCostRow | PasswordHashRow | AdminCliRow | SettingsLoadRow;

export interface Scenario<State> {
  readonly name: string;
  readonly description: string;
  /** Prepare what the runs need (clients, items, bundles); not timed. */
  setup?(context: BenchContext): Promise<State>;
  run(context: BenchContext, state: State): Promise<Row[]>;
  teardown?(context: BenchContext, state: State): Promise<void>;
}

/** A scenario with its state type erased, as the registry holds it. */
export interface RegisteredScenario {
  readonly name: string;
  readonly description: string;
  execute(context: BenchContext): Promise<Row[]>;
}

export function defineScenario<State = void>(scenario: Scenario<State>): RegisteredScenario {
  return {
    name: scenario.name,
    description: scenario.description,
    execute: async (context) => {
      const state = (await scenario.setup?.(context)) as State;
      try {
        return await scenario.run(context, state);
      } finally {
        await scenario.teardown?.(context, state);
      }
    },
  };
}
