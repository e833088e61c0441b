/**
 * Webhook delivery through the local pipeline to a local HTTPS receiver:
 * business events written through the back office (a record put: the record
 * and its outbox event in one transaction), carried by the domain table's
 * stream on DynamoDB Local to the fan-out, queued, attempted by the delivery
 * worker, retried through delayed messages or the retry state machine
 * (aws-local-stepfunctions running the deployed definition).
 *
 * The scenario starts the pipeline the local stack runs (`startLocalWebhookPipeline`:
 * stream reader, queue, state machine, sealer) with loopback receivers
 * allowed and the retry waits scaled (plan.webhooks.waitScale; the carrier
 * still follows the real wait). It runs the deployed fan-out and worker
 * (`fanOutStreamEvent`, `deliverBatch`: what lambdas/jobs/webhook-* call)
 * on platforms of the bench's own, as benchHandlers does for the API, so
 * that
 * - each invocation runs in a request scope of its own and its DynamoDB
 *   calls, round trips, RCU, WCU and failed conditional writes are counted
 *   by the service's instrumented client, exactly as the access log counts a
 *   request's (the deployed entries log no such line);
 * - the limits can be chosen per run: `raised` sets the two per-callback
 *   delivery rows (webhook-delivery-starts-minute 10, webhook-delivery-
 *   concurrency 3) out of reach (same admission writes, only `n < limit`
 *   differs); `deployed` keeps them.
 * The local stack is started without its own pipeline (run.ts): one stream
 * reader per table, or two fan-outs would race for every event.
 *
 * Runs, each after the pipeline is idle:
 * - cost: one callback, the receiver answering 200 (first-time success),
 *   500 once then 200 (one retry: the 1-minute wait is a delayed message),
 *   500 four times then 200 (attempt 5 waits "1 h": the state machine); per
 *   delivery, the DynamoDB work of each stage, queue messages, Step
 *   Functions executions and transitions. Success and one retry go one
 *   event at a time (each invocation handles one message, so its round trips
 *   mean something); the state-machine run writes its events at once.
 * - throughput: events written by concurrent back-office writers, from the
 *   first write to the last delivery received: deliveries/s, and each
 *   delivery's latency from the write's acknowledgement to its arrival at the
 *   receiver. 10 organizations of one callback each, and one organization
 *   with 10 callbacks (the most an organization may have), on raised limits;
 *   and a burst of 10 events per callback on the deployed limits.
 */
import { performance } from 'node:perf_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import { LIMITS, type Limit } from '../../lambdas/shared/limits/limits-table';
import type { Platform } from '../../lambdas/shared/platform';
import { createDocumentClient, DYNAMO_CLIENT_CONFIG } from '../../lambdas/shared/storage/dynamo-client';
import { controlEvent, post, verificationResult } from '../../lambdas/webhooks/attempt';
import { deliverBatch } from '../../lambdas/webhooks/delivery-worker';
import { checkWebhookUrl } from '../../lambdas/webhooks/destination/url-rules';
import { fanOutStreamEvent } from '../../lambdas/webhooks/fan-out';
import { webhookServicesOf, type WebhookServices } from '../../lambdas/webhooks/services';
import { newWebhookSecret } from '../../lambdas/webhooks/signing';
import { deliveryIdOf, newWebhookId } from '../../lambdas/webhooks/webhook-items';
import { localDocumentClient } from '../../local/local-stack';
import { FaultPlan, type FaultRule } from '../../local/fault-injection';
import { startLocalWebhookPipeline, type LocalWebhookPipeline, type LocalWebhookPipelineStats } from '../../local/webhook-pipeline';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest, type ReceiverAnswer } from '../../test/support/https-receiver';
import { benchPlatform, OUT_OF_REACH } from '../platform';
import { defineScenario, type BenchContext, type WebhookRow, type WebhookStageCost } from '../scenario';
import { round, summarizeLatency } from '../stats';
import { GET_ITEM_SCENARIO } from './dynamo-get-item';
import { countFailedConditions, inScope, type Measured } from './invitation-peers';
import { recordInput } from '../../test/support/record-input';
import { DELIVERY_QUEUE_VISIBILITY_SECONDS } from '../../lambdas/webhooks/pipeline-settings';

export const WEBHOOK_DELIVERY_SCENARIO = 'webhook-delivery';

/** The limits rows of the delivery worker's admission (on the callback item). */
export const DELIVERY_LIMIT_ROWS = ['webhook-delivery-starts-minute', 'webhook-delivery-concurrency'] as const;

/** The raw GetItem at one client: what each delivery's latency is set against. */
const BASELINE = { scenario: GET_ITEM_SCENARIO, variant: 'raw', concurrency: 1 } as const;

/** The creator's source in the audit trail of the callbacks made in setup. */
const SOURCE = { via: 'settings' as const, sourceIp: '127.0.0.1' };

/** What a callback's receiver path answers business events with: 500 for the first n requests of an event, then 200. */
const MODES = { ok: 0, 'fail-once': 1, 'fail-4': 4 } as const;
type Mode = keyof typeof MODES;
const RECEIVER_ANSWERS: Readonly<Record<Mode, string>> = { ok: '200', 'fail-once': '500 once, then 200', 'fail-4': '500 four times, then 200' };

/** The local stream reader's pause between polls that found nothing (local/webhook-stream.ts, pollIntervalMs). */
const STREAM_IDLE_POLL_MS = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Longest wait for a run's deliveries: a minute, plus 100 ms per delivery. */
/**
 * How long a run waits for its deliveries before it counts the rest missing. Beyond the time the deliveries take, the
 * pipeline's own slowest recovery: an attempt whose worker gave up on a call (a DynamoDB Local answer later than the
 * client's 1 s on a busy machine) comes back with its message, at the latest after the queue's visibility timeout,
 * as in a deployed stage. A run that delivers everything returns as soon as it has.
 */
const deliveryDeadlineMs = (deliveries: number) => DELIVERY_QUEUE_VISIBILITY_SECONDS * 1000 + 60_000 + 100 * deliveries;

/** The limits table with the two per-callback delivery rows out of reach (the writes are the same: one conditional UpdateItem of the callback item). */
export function raisedDeliveryLimits(): Limit[] {
  for (const policy of DELIVERY_LIMIT_ROWS) if (!LIMITS.some((l) => l.kind !== 'edge' && l.policy === policy)) throw new Error(`No limit ${policy} in the limits table`);
  return LIMITS.map((l) => (l.kind !== 'edge' && (DELIVERY_LIMIT_ROWS as readonly string[]).includes(l.policy) ? { ...l, limit: OUT_OF_REACH } : l));
}

/** Business requests per callback path and event id, and when each was delivered (the receiver's arrival time of the 2xx-answered request). */
class Receipts {
  /** Business-event requests received (verifications not included). */
  requests = 0;
  /** Requests answered 2xx for a delivery already answered 2xx. */
  duplicates = 0;
  private readonly attempts = new Map<string, number>();
  private readonly delivered = new Map<string, number>();

  answer(request: ReceivedRequest): ReceiverAnswer {
    const envelope = JSON.parse(request.rawBody.toString('utf8')) as { type?: string; data?: { challenge?: string } };
    if (envelope.type === 'webhook.verification') {
      return { status: 200, body: JSON.stringify({ challenge: envelope.data?.challenge }), headers: { 'content-type': 'application/json' } };
    }
    this.requests += 1;
    const key = deliveryKeyOf(request.path, String(request.headers['x-service-event-id']));
    const n = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, n);
    const mode = request.path.split('/')[2] as Mode;
    if (n <= (MODES[mode] ?? 0)) return { status: 500, body: 'bench: failing on purpose' };
    if (!this.delivered.has(key)) this.delivered.set(key, request.receivedAt);
    else this.duplicates += 1;
    return { status: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } };
  }

  deliveredAt(key: string): number | undefined {
    return this.delivered.get(key);
  }

  /** Resolves when every key was delivered, or at the deadline: the keys not delivered by then. */
  async waitFor(keys: readonly string[], deadlineMs: number): Promise<string[]> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const missing = keys.filter((key) => !this.delivered.has(key));
      if (missing.length === 0 || Date.now() > deadline) return missing;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

const deliveryKeyOf = (path: string, eventId: string) => `${path} ${eventId}`;

/** DynamoDB work of one pipeline stage over a run, summed over its invocations. */
interface Tally {
  invocations: number;
  calls: number;
  roundTrips: number;
  rcu: number;
  wcu: number;
  failedConditions: number;
  /** Wall time of the invocations, summed. */
  busyMs: number;
  firstOperations?: readonly string[];
}

const newTally = (): Tally => ({ invocations: 0, calls: 0, roundTrips: 0, rcu: 0, wcu: 0, failedConditions: 0, busyMs: 0 });

function add(tally: Tally, measured: Measured, wallMs: number): void {
  tally.invocations += 1;
  tally.busyMs += wallMs;
  tally.calls += measured.figures.calls;
  tally.roundTrips += measured.figures.round_trips;
  tally.rcu += measured.figures.rcu;
  tally.wcu += measured.figures.wcu;
  tally.failedConditions += measured.failedConditions;
  tally.firstOperations ??= measured.operations;
}

function stageCost(tally: Tally, deliveries: number): WebhookStageCost {
  return {
    invocations: round(tally.invocations / deliveries, 3),
    calls: round(tally.calls / deliveries, 2),
    rcu: round(tally.rcu / deliveries, 2),
    wcu: round(tally.wcu / deliveries, 2),
    failed_conditional_writes: round(tally.failedConditions / deliveries, 2),
    round_trips_per_invocation: tally.invocations > 0 ? round(tally.roundTrips / tally.invocations, 2) : 0,
    busy_ms: round(tally.busyMs / deliveries, 1),
    operations: tally.firstOperations ?? [],
  };
}

/** An organization and the receiver paths of its callbacks (and each path's callback). */
interface Target {
  readonly partnerId: string;
  readonly paths: readonly string[];
  readonly webhookIds: ReadonlyMap<string, string>;
}

interface State {
  readonly receiver: HttpsReceiver;
  readonly receipts: Receipts;
  /** When a fan-out invocation started on each event's stream record (first time), by event id. */
  readonly fannedOutAt: Map<string, number>;
  readonly pipeline: LocalWebhookPipeline;
  /** Armed only for the faulted run; the pipeline and the platforms' clients go through it throughout. */
  readonly faults: FaultPlan;
  readonly platforms: Readonly<Record<WebhookRow['limits'], Platform>>;
  /** Which platform the fan-out and the worker run on. */
  use(limits: WebhookRow['limits']): void;
  readonly tallies: { fanOut: Tally; worker: Tally };
  readonly documentClient: DynamoDBDocumentClient;
  readonly office: BackOffice;
  readonly targets: {
    readonly success: Target;
    readonly oneRetry: Target;
    readonly stateMachine: Target;
    readonly spread: readonly Target[];
    readonly fanOut: Target;
    readonly deployed: readonly Target[];
    readonly faulted: readonly Target[];
  };
}

/** The deployed client configuration (timeouts, attempts), instrumented as the service's, counting failed conditions per scope. */
const benchDocumentClient = () => createDocumentClient(countFailedConditions(new DynamoDBClient({ ...DYNAMO_CLIENT_CONFIG })));

/** A manager account and its organization with one active callback per path, created and verified as web settings does (in process, no HTTP). */
async function organizationWithCallbacks(office: BackOffice, services: WebhookServices, receiver: HttpsReceiver, name: string, paths: readonly string[]): Promise<Target> {
  const { account_id: accountId } = await office.accounts.create(`${name} manager`);
  const { partner_id: partnerId } = await office.organizations.create(name);
  await office.memberships.set(partnerId, accountId, 'manager');
  const webhookIds = new Map<string, string>();
  for (const path of paths) {
    const checked = checkWebhookUrl(`https://127.0.0.1:${receiver.port}${path}`, services.runtime.policy);
    if (!checked.ok) throw new Error(`webhook-delivery: the callback address was refused: ${checked.detail}`);
    const webhookId = newWebhookId();
    const secret = newWebhookSecret();
    const sealedSecret = await services.runtime.sealer.seal(secret, { webhookId, partnerId });
    await services.callbacks.create({ webhookId, accountId, partnerId, url: checked.url.toString(), host: checked.host, sealedSecret, source: SOURCE });
    const { found } = await services.callbacks.withStanding(partnerId, webhookId, accountId);
    if (!found) throw new Error(`webhook-delivery: callback ${webhookId} not found after its creation`);
    // The verification web settings sends (POST …/verify): the receiver echoes the challenge.
    const now = new Date();
    const { envelope, challenge } = controlEvent(partnerId, now, 'webhook.verification');
    const outcome = await post(services.runtime, { url: found.item.url, secret }, String(envelope.id), JSON.stringify(envelope), now);
    const verified = verificationResult(outcome, challenge as string);
    if (!verified.passed) throw new Error(`webhook-delivery: verification of ${found.item.url} failed: ${verified.reason}`);
    await services.callbacks.activate(found.item, { at: now.toISOString(), result: 'verified', http_status: verified.httpStatus }, SOURCE);
    webhookIds.set(path, webhookId);
  }
  return { partnerId, paths, webhookIds };
}

interface RunSpec {
  readonly measure: WebhookRow['measure'];
  readonly variant: string;
  readonly limits: WebhookRow['limits'];
  readonly mode: Mode;
  readonly targets: readonly Target[];
  readonly events: number;
  readonly writers: number;
  /** Write the next event only after the previous one's delivery and the pipeline's return to idle. */
  readonly oneAtATime: boolean;
  /** Faults to inject during the run. */
  readonly faults?: readonly FaultRule[];
}

const statsDelta = (after: LocalWebhookPipelineStats, before: LocalWebhookPipelineStats) => ({
  queued: after.queued - before.queued,
  received: after.received - before.received,
  executionsStarted: after.executionsStarted - before.executionsStarted,
  transitions: after.transitions - before.transitions,
  deadLettered: after.deadLettered - before.deadLettered,
  streamRecordsSkipped: after.streamRecordsSkipped - before.streamRecordsSkipped,
});

/**
 * The deliveries the receiver did not get: `failed` when the record ended so (8 failed attempts), else missing, each
 * described by what its record says (absent: the fan-out never made it; open: its status, attempts and due time).
 */
async function accountFor(state: State, undelivered: readonly { eventId: string; webhookId: string }[]): Promise<{ failed: number; missing: string[] }> {
  const deliveries = webhookServicesOf(state.platforms.raised).deliveries;
  let failed = 0;
  const missing: string[] = [];
  for (const { eventId, webhookId } of undelivered) {
    const item = await deliveries.get(webhookId, deliveryIdOf(eventId, webhookId));
    if (item?.status === 'failed') failed += 1;
    else missing.push(item ? `${item.delivery_id} ${item.status} after ${item.attempts} attempts (due ${item.due_at ?? '–'})` : `${eventId} → ${webhookId}: no delivery record`);
  }
  return { failed, missing };
}

async function deliveryRun(context: BenchContext, state: State, spec: RunSpec): Promise<WebhookRow> {
  const { pipeline, receipts, tallies } = state;
  await pipeline.idle();
  state.use(spec.limits);
  tallies.fanOut = newTally();
  tallies.worker = newTally();
  context.accessLog.drainFailures();
  const before = pipeline.stats();
  const requestsBefore = receipts.requests;
  const duplicatesBefore = receipts.duplicates;
  state.faults.reset();
  const armed = (spec.faults ?? []).map((rule) => state.faults.arm(rule));
  state.receiver.requests.length = 0; // the receiver keeps every request's bytes; Receipts keeps what the bench needs

  const expected: { key: string; eventId: string; webhookId: string; ack: number }[] = [];
  let next = 0;
  let writeEnded = 0;
  const started = Date.now();
  const writer = async () => {
    while (next < spec.events) {
      const index = next++;
      const target = spec.targets[index % spec.targets.length];
      const { event_id: eventId } = await state.office.records!.put(target.partnerId, recordInput('WhBench'));
      const ack = Date.now();
      writeEnded = Math.max(writeEnded, ack);
      const keys = target.paths.map((path) => deliveryKeyOf(path, eventId));
      for (const path of target.paths) expected.push({ key: deliveryKeyOf(path, eventId), eventId, webhookId: target.webhookIds.get(path) as string, ack });
      if (spec.oneAtATime) {
        await receipts.waitFor(keys, deliveryDeadlineMs(keys.length));
        await pipeline.idle();
        // idle() ends on a poll that found nothing, so the reader has just begun its pause: start the next event at a random point of it.
        await sleep(Math.random() * STREAM_IDLE_POLL_MS);
      }
    }
  };
  await Promise.all(Array.from({ length: spec.writers }, writer));
  const notDelivered = new Set(
    await receipts.waitFor(
      expected.map((e) => e.key),
      deliveryDeadlineMs(expected.length),
    ),
  );
  // Every delivery accounted for: at the receiver, or ended `failed` in its record; the rest are missing.
  const accounts = await accountFor(state, expected.filter((e) => notDelivered.has(e.key)));
  if (accounts.missing.length > 0) {
    context.progress(`warning: ${accounts.missing.length} of ${expected.length} deliveries missing after ${deliveryDeadlineMs(expected.length) / 1000} s in "${spec.variant}": ${accounts.missing.slice(0, 5).join('; ')}`);
  }
  const arrived = expected.filter((e) => !notDelivered.has(e.key));
  const deliveredAt = arrived.map((e) => receipts.deliveredAt(e.key) as number);
  const lastDelivered = Math.max(...deliveredAt);
  // The worker records the outcome and frees the slot after the receiver answered: count those writes too (a missing delivery: what is left).
  if (accounts.missing.length === 0) await pipeline.idle();
  const delta = statsDelta(pipeline.stats(), before);
  const errors = context.accessLog.drainFailures();
  if (errors.length > 0) context.progress(`warning: ${errors.length} error lines during "${spec.variant}", e.g. ${errors[0].slice(0, 400)}`);
  if (delta.deadLettered > 0) context.progress(`warning: ${delta.deadLettered} messages dead-lettered during "${spec.variant}"`);

  const fannedOut = (eventId: string) => {
    const at = state.fannedOutAt.get(eventId);
    if (at === undefined) throw new Error(`webhook-delivery: event ${eventId} was delivered but never seen by the fan-out`);
    return at;
  };
  const deliveries = expected.length;
  const attempts = receipts.requests - requestsBefore;
  const elapsedMs = lastDelivered - started;
  const writeElapsedMs = Math.max(1, writeEnded - started);
  const fanOut = stageCost(tallies.fanOut, deliveries);
  const worker = stageCost(tallies.worker, deliveries);
  const per = (n: number) => round(n / deliveries, 3);
  return {
    kind: 'webhook',
    scenario: WEBHOOK_DELIVERY_SCENARIO,
    measure: spec.measure,
    variant: spec.variant,
    limits: spec.limits,
    organizations: spec.targets.length,
    callbacks_per_organization: spec.targets[0].paths.length,
    receiver: RECEIVER_ANSWERS[spec.mode],
    events: spec.events,
    deliveries,
    writers: spec.writers,
    elapsed_ms: Math.round(elapsedMs),
    deliveries_per_second: round((deliveries / elapsedMs) * 1000, 1),
    write_elapsed_ms: Math.round(writeElapsedMs),
    events_written_per_second: round((spec.events / writeElapsedMs) * 1000, 1),
    expected: expected.length,
    delivered: arrived.length,
    failed: accounts.failed,
    missing: accounts.missing.length,
    stream_records_skipped: delta.streamRecordsSkipped,
    dead_lettered: delta.deadLettered,
    faults_injected: armed.filter((rule) => rule.fired()).length,
    duplicates: receipts.duplicates - duplicatesBefore,
    latency: summarizeLatency(
      arrived.map((e, i) => deliveredAt[i] - e.ack),
      elapsedMs,
    ),
    stream_latency: summarizeLatency(
      arrived.map((e) => fannedOut(e.eventId) - e.ack),
      elapsedMs,
    ),
    after_stream_latency: summarizeLatency(
      arrived.map((e, i) => deliveredAt[i] - fannedOut(e.eventId)),
      elapsedMs,
    ),
    baseline: BASELINE,
    attempts: per(attempts),
    queue_messages: per(delta.queued),
    queue_receives: per(delta.received),
    sfn_executions: per(delta.executionsStarted),
    sfn_transitions: per(delta.transitions),
    deferred: per(delta.queued - attempts),
    fan_out: fanOut,
    worker,
    total: {
      calls: round(fanOut.calls + worker.calls, 2),
      rcu: round(fanOut.rcu + worker.rcu, 2),
      wcu: round(fanOut.wcu + worker.wcu, 2),
      failed_conditional_writes: round(fanOut.failed_conditional_writes + worker.failed_conditional_writes, 2),
    },
    errors: errors.length,
  };
}

/**
 * Faults spread over a run of `events` first attempts (local/fault-injection.ts), each one the worker survives and
 * reports (its message comes back when its lease ends plus a backoff, ChangeMessageVisibility): one in 20 of its reads
 * fails, one in 30 claims is made but its answer lost (the attempt waits out its 45 s lease), one in 40 HTTPS sends
 * throws before a byte leaves, one in 50 outcome writes fails after the receiver's 2xx (sent again: a duplicate). A
 * worker that dies instead returns its whole batch after the queue's 182 s visibility timeout (test/integration/
 * webhook-faults.test.ts covers those).
 */
function workerFaults(events: number): FaultRule[] {
  const every = (n: number, rule: Omit<FaultRule, 'nth'>) => Array.from({ length: Math.floor(events / n) }, (_, i) => ({ ...rule, nth: (i + 1) * n }));
  const isClaim = (input: Readonly<Record<string, unknown>>) => String(input.UpdateExpression).includes('attempt_deadline = :deadline');
  const isOutcome = (input: Readonly<Record<string, unknown>>) => input.ConditionExpression === '#status = :attempting AND attempts = :attempt AND generation = :generation';
  return [
    ...every(20, { component: 'worker', call: 'BatchGetItem', effect: 'fail' }),
    ...every(30, { component: 'worker', call: 'UpdateItem', effect: 'fail-after', matches: isClaim }),
    ...every(40, { component: 'worker', call: 'https', effect: 'fail' }),
    ...every(50, { component: 'worker', call: 'UpdateItem', effect: 'fail', matches: isOutcome }),
  ];
}

const paths = (mode: Mode, tag: string, n: number) => Array.from({ length: n }, (_, i) => `/hook/${mode}/${tag}-${i + 1}`);

export const webhookDelivery = defineScenario<State>({
  name: WEBHOOK_DELIVERY_SCENARIO,
  description: 'webhook delivery: business events through the local pipeline (stream, fan-out, queue, worker, state machine) to a local HTTPS receiver',
  setup: async ({ stack, plan, progress }) => {
    const receipts = new Receipts();
    const receiver = await startHttpsReceiver((request) => receipts.answer(request));
    const tallies = { fanOut: newTally(), worker: newTally() };
    const fannedOutAt = new Map<string, number>();
    let inUse: Platform | undefined;
    let serial = 0;
    const measured = async <R>(tally: () => Tally, name: string, call: () => Promise<R>): Promise<R> => {
      let response: R | undefined;
      const started = performance.now();
      const figures = await inScope(`${name}-${++serial}`, async () => void (response = await call()));
      add(tally(), figures, performance.now() - started);
      return response as R;
    };
    const platform = () => {
      if (!inUse) throw new Error('webhook-delivery: no platform chosen for the pipeline');
      return inUse;
    };
    const faults = new FaultPlan();
    const pipeline = await startLocalWebhookPipeline({
      dynamoEndpoint: stack.dynamoEndpoint,
      tables: stack.tables,
      allowLocalWebhooks: true,
      waitScale: plan.webhooks.waitScale,
      faults,
      // The deployed fan-out and worker, on the run's platform, each invocation in a request scope of its own.
      consumers: {
        fanOut: (event) => {
          const now = Date.now();
          for (const record of event.Records) {
            const eventId = record.dynamodb?.NewImage?.event?.M?.id?.S;
            if (eventId && !fannedOutAt.has(eventId)) fannedOutAt.set(eventId, now);
          }
          return measured(() => tallies.fanOut, 'webhook-fanout', () => fanOutStreamEvent(event, platform()));
        },
        deliver: (event) => measured(() => tallies.worker, 'webhook-delivery', () => deliverBatch(event, platform())),
      },
    });
    const localSwitches = { ticketBridgeDown: () => false, webhooks: pipeline.switches };
    const platforms = {
      raised: benchPlatform(raisedDeliveryLimits(), { tables: stack.tables, documentClient: faults.instrument(benchDocumentClient()), localSwitches }),
      deployed: benchPlatform(LIMITS, { tables: stack.tables, documentClient: faults.instrument(benchDocumentClient()), localSwitches }),
    };
    const documentClient = localDocumentClient(stack.dynamoEndpoint);
    const office = createBackOffice(documentClient, stack.tables.access, undefined, stack.tables.domain);
    const services = webhookServicesOf(platforms.raised);
    let organizations = 0;
    let callbacks = 0;
    const target = async (name: string, callbackPaths: readonly string[]) => {
      const made = await organizationWithCallbacks(office, services, receiver, name, callbackPaths);
      organizations += 1;
      callbacks += callbackPaths.length;
      return made;
    };
    const targets = {
      success: await target('Hooks success', paths('ok', 'success', 1)),
      oneRetry: await target('Hooks one retry', paths('fail-once', 'retry', 1)),
      stateMachine: await target('Hooks state machine', paths('fail-4', 'sfn', 1)),
      spread: await Promise.all(Array.from({ length: 10 }, (_, i) => target(`Hooks spread ${i + 1}`, paths('ok', `spread${i + 1}`, 1)))),
      fanOut: await target('Hooks fan-out', paths('ok', 'fanout', 10)),
      deployed: await Promise.all(Array.from({ length: 10 }, (_, i) => target(`Hooks deployed ${i + 1}`, paths('ok', `deployed${i + 1}`, 1)))),
      faulted: await Promise.all(Array.from({ length: 10 }, (_, i) => target(`Hooks faulted ${i + 1}`, paths('ok', `faulted${i + 1}`, 1)))),
    };
    progress(`${organizations} organizations with ${callbacks} active callbacks to the local receiver ${receiver.url.replace(/\/hook$/, '')}`);
    return {
      receiver,
      receipts,
      fannedOutAt,
      pipeline,
      faults,
      platforms,
      use: (limits) => void (inUse = platforms[limits]),
      tallies,
      documentClient,
      office,
      targets,
    };
  },
  run: async (context, state) => {
    const { plan, progress } = context;
    const w = plan.webhooks;
    const { targets } = state;
    const rows: WebhookRow[] = [];

    // Untimed: the first delivery pays for the first TLS handshake, the worker's first secret opening and admission's first sight of the callback item.
    progress('one untimed delivery to warm the pipeline');
    await deliveryRun(context, state, { measure: 'cost', variant: 'warmup', limits: 'raised', mode: 'ok', targets: [targets.success], events: 1, writers: 1, oneAtATime: true });

    const costRuns: readonly [string, Mode, Target, number, boolean][] = [
      ['first-time success', 'ok', targets.success, w.costDeliveries.success, true],
      ['one retry (1 min wait: a delayed message)', 'fail-once', targets.oneRetry, w.costDeliveries.oneRetry, true],
      ['4 retries (the 1 h wait: the state machine)', 'fail-4', targets.stateMachine, w.costDeliveries.stateMachine, false],
    ];
    for (const [variant, mode, target, events, oneAtATime] of costRuns) {
      progress(`cost: ${variant}, ${events} deliveries${oneAtATime ? ' one at a time' : ' at once'}, receiver answers ${RECEIVER_ANSWERS[mode]}`);
      rows.push(await deliveryRun(context, state, { measure: 'cost', variant, limits: 'raised', mode, targets: [target], events, writers: 1, oneAtATime }));
    }

    const throughputRuns: readonly [string, WebhookRow['limits'], readonly Target[], number][] = [
      ['10 orgs × 1 callback', 'raised', targets.spread, w.events],
      ['1 org × 10 callbacks', 'raised', [targets.fanOut], w.fanOutEvents],
      ['10 orgs × 1 callback, 10 events each', 'deployed', targets.deployed, w.deployedLimitEvents],
    ];
    for (const [variant, limits, runTargets, events] of throughputRuns) {
      progress(`throughput: ${variant}, ${events} events by ${w.writers} writers, ${limits} delivery limits`);
      rows.push(await deliveryRun(context, state, { measure: 'throughput', variant, limits, mode: 'ok', targets: runTargets, events, writers: w.writers, oneAtATime: false }));
    }
    const faults = workerFaults(w.faultEvents);
    progress(`throughput with ${faults.length} faults injected into the worker: 10 orgs × 1 callback, ${w.faultEvents} events by ${w.writers} writers`);
    rows.push(
      await deliveryRun(context, state, { measure: 'throughput', variant: `10 orgs × 1 callback, ${faults.length} worker faults`, limits: 'raised', mode: 'ok', targets: targets.faulted, events: w.faultEvents, writers: w.writers, oneAtATime: false, faults }),
    );
    return rows;
  },
  teardown: async (_context, state) => {
    if (!state) return;
    await state.pipeline.stop();
    await state.receiver.close();
    state.platforms.raised.documentClient.destroy();
    state.platforms.deployed.documentClient.destroy();
    state.documentClient.destroy();
  },
});
