/**
 * The whole service on this machine: DynamoDB Local, the tables from the
 * stack's definitions, the deployed handlers behind the local front. Used by
 * `npm start`, the integration tests and the benchmark.
 */
import { GrantedSealer, LocalSealer } from './sealing';
import { asFunction } from './function-scope';
import type { KeyUsers } from '../lib/config/secrets-key-users';
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ADMISSION_BUDGET_MS, type ApiHandler } from '../lambdas/shared/http/pipeline';
import type { FaultPlan } from './fault-injection';
import { surfaceOfPath, type EndpointGroup, type Router } from '../lambdas/shared/http/routes';
import { EdgeGuard, edgeRejection } from '../lambdas/shared/limits/edge-guard';
import { LIMITS, type Limit } from '../lambdas/shared/limits/limits-table';
import { SECRET_IDS } from '../lambdas/shared/secret-names';
import { configureSharedPlatform, sharedPlatform, type LocalSwitches } from '../lambdas/shared/platform';
import { provideLocalSecret } from '../lambdas/shared/secrets';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient, DYNAMO_CLIENT_CONFIG } from '../lambdas/shared/storage/dynamo-client';
import type { TableId } from '../lambdas/shared/storage/table-definitions';
import { localDynamoClient, startDynamoLocal } from './dynamo-local';
import { useLocalEnvironment } from './environment';
import { HANDLERS } from './handlers';
import { frontErrorResponse, stagePathOf, startLocalFront, type LocalFront } from './http-front';
import { parseRequestTarget } from './request-target';
import { createTables, localTableNames } from './tables';
import { StopSequence } from './stop-sequence';
import { startLocalWebhookPipeline, type LocalWebhookPipeline, type LocalWebhookPipelineOptions } from './webhook-pipeline';
import { runClaimReconciler } from '../lambdas/jobs/claim-reconciler/handler';
import { runEntitlementPeriods } from '../lambdas/jobs/entitlement-periods/handler';
import { runWebhookSweeper } from '../lambdas/jobs/webhook-sweeper/handler';
import { SWEEP_INTERVAL_MS } from '../lambdas/webhooks/delivery-sweeper';

/**
 * The handlers' DynamoDB client on the local stack: the deployed settings (storage/dynamo-client.ts), except that an
 * attempt may wait up to the admission budget (3 s) instead of 1 s. DynamoDB answers in milliseconds; DynamoDB Local on
 * a busy 2-core machine can take over a second, and the SDK would then send a conditional write again that DynamoDB
 * Local had applied: with another request's write between the two, the retry's stamp check cannot see it and a window
 * counts the request twice (docs/limits.md, "A retried write counts once"). In process only, never through the environment:
 * no deployed function can select it.
 */
export const LOCAL_HANDLER_DYNAMO_CONFIG = {
  ...DYNAMO_CLIENT_CONFIG,
  requestHandler: { ...DYNAMO_CLIENT_CONFIG.requestHandler, requestTimeout: 3000 },
} as const;

export interface LocalStackOptions {
  readonly port?: number;
  readonly dynamoPort?: number;
  /** Keep DynamoDB data in this folder instead of memory. */
  readonly dataPath?: string;
  /** Use an already running DynamoDB (e.g. the test suite's). */
  readonly dynamoEndpoint?: string;
  readonly tablePrefix?: string;
  readonly handlers?: Readonly<Record<string, ApiHandler>>;
  readonly router?: Router;
  /** Apply the edge rules of the limits table in the front, as WAF does in AWS (default: on). */
  readonly edgeProtection?: boolean;
  readonly limits?: readonly Limit[];
  /**
   * Run the scheduled jobs, as EventBridge Scheduler does in AWS (lib/constructs/scheduled-jobs.ts):
   * the entitlement-periods job once at start, then every `intervalMs` (default: every 60 s). `false`: never.
   */
  readonly scheduledJobs?: false | { readonly intervalMs: number };
  /** Switches of this local stack (`npm start`: the `ticket bridge --fail` file, local/ticket-bridge-switch.ts). */
  readonly switches?: Omit<LocalSwitches, 'webhooks'>;
  /**
   * The local webhook pipeline (local/webhook-pipeline.ts): the stream reader, delivery queue, retry state machine and
   * secret sealer the webhook code uses here (default: on, loopback receivers refused, waits as deployed). `false`: off.
   */
  readonly webhooks?: false | LocalWebhookOptions;
  /**
   * Tests only: the front's function timeout (default: the deployed functions', as the stage config sets it). For a test
   * about something else that runs many slow requests at once on a loaded machine, where the emulated Lambda timeout
   * would answer 502 for what is only a slow machine; the function-timeout tests keep the default.
   */
  readonly functionTimeoutMs?: number;
  /**
   * Tests only: how long one DynamoDB call of the handlers may wait (the attempt timeout of their client), and with it
   * admission's budget and the bound of its compensations and lease releases (default: 3 s, LOCAL_HANDLER_DYNAMO_CONFIG).
   * For a test that counts admissions under concurrency rather than timing them: on a loaded machine DynamoDB Local can
   * take longer than 3 s, and admission then answers 503 after its write may have landed, or the SDK sends a write
   * again that was applied, so a window of L admits fewer than L. Give such a test a `functionTimeoutMs` above it.
   */
  readonly storageWaitMs?: number;
  /**
   * Tests only: fault injection on the request path (local/fault-injection.ts). Each invocation of an API function is an
   * `api` invocation of the plan, and the handlers' DynamoDB calls go through it. The same plan serves the webhook
   * pipeline when `webhooks.faults` names it too (or is absent).
   */
  readonly faults?: FaultPlan;
  /**
   * Tests only: who may use the stack's sealing key for what (default SECRETS_KEY_USERS, as the stacks grant it), to take
   * a grant away and see the route that needs it fail as it would deployed.
   */
  readonly keyUsers?: KeyUsers;
}

/** What a local stack may change in its webhook pipeline (the rest comes from the stack). */
export type LocalWebhookOptions = Partial<
  Pick<LocalWebhookPipelineOptions, 'allowLocalWebhooks' | 'waitScale' | 'resolve' | 'timeoutMs' | 'visibilityTimeoutSeconds' | 'attemptLeaseMs' | 'sweepGraceMs' | 'faults'>
>;

export interface LocalStack {
  readonly baseUrl: string;
  readonly dynamoEndpoint: string;
  readonly tables: Record<TableId, string>;
  readonly front: LocalFront;
  /** The local webhook pipeline (undefined with `webhooks: false`): its stats, and idle() for tests and the benchmark. */
  readonly webhooks?: LocalWebhookPipeline;
  /** Stop everything it started, last started first (DynamoDB Local last); idempotent. */
  stop(): Promise<void>;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  // Whatever started is stopped again if a later step fails (a port taken, a table not created): no Java left behind.
  const parts = new StopSequence();
  try {
    return await startParts(options, parts);
  } catch (error) {
    await parts.stop().catch(() => undefined); // Reported by the sequence; the start's own error is the one to throw.
    throw error;
  }
}

async function startParts(options: LocalStackOptions, parts: StopSequence): Promise<LocalStack> {
  let endpoint = options.dynamoEndpoint;
  if (endpoint === undefined) {
    const dynamo = await startDynamoLocal({ port: options.dynamoPort, path: options.dataPath });
    parts.add('DynamoDB Local', dynamo.stop);
    endpoint = dynamo.endpoint;
  }
  const tables = localTableNames(options.tablePrefix);
  const admin = localDynamoClient(endpoint);
  await createTables(admin, tables).finally(() => admin.destroy());
  useLocalEnvironment(endpoint, tables);
  // What a deployed stage keeps in Secrets Manager, handed to the handlers in process (lambdas/shared/secrets.ts).
  for (const id of SECRET_IDS) provideLocalSecret(id, randomBytes(32));
  // The stand-in for the stage's KMS key: callbacks' secrets and two-factor seeds, one key kept with the data, which each
  // function may use only as its role's key uses say (the function is its invocation's scope: local/function-scope.ts).
  const sealer = new GrantedSealer(LocalSealer.forStack(options.dataPath), options.keyUsers);
  // The handlers' DynamoDB client, on the shared platform below. Its part stops after everything that uses it (the front,
  // the jobs, the pipeline): the next stack of the process (tests run file after file in one worker) starts from a
  // platform nobody configured, and this one's client is closed.
  const storageWaitMs = options.storageWaitMs ?? LOCAL_HANDLER_DYNAMO_CONFIG.requestHandler.requestTimeout;
  const handlersClient = createDocumentClient(
    new DynamoDBClient({ ...LOCAL_HANDLER_DYNAMO_CONFIG, requestHandler: { ...LOCAL_HANDLER_DYNAMO_CONFIG.requestHandler, requestTimeout: storageWaitMs } }),
  );
  parts.add('the shared platform', async () => {
    configureSharedPlatform({});
    handlersClient.destroy();
  });
  let webhooks: LocalWebhookPipeline | undefined;
  // The front's port once it listens: the service's own address, which no callback may take (url-rules.ts).
  let frontPort: number | undefined;
  if (options.webhooks !== false) {
    webhooks = await startLocalWebhookPipeline({
      dynamoEndpoint: endpoint,
      tables,
      allowLocalWebhooks: options.webhooks?.allowLocalWebhooks ?? false,
      ownPorts: () => (frontPort === undefined ? [] : [frontPort]),
      waitScale: options.webhooks?.waitScale ?? 1,
      resolve: options.webhooks?.resolve,
      timeoutMs: options.webhooks?.timeoutMs,
      visibilityTimeoutSeconds: options.webhooks?.visibilityTimeoutSeconds,
      attemptLeaseMs: options.webhooks?.attemptLeaseMs,
      sweepGraceMs: options.webhooks?.sweepGraceMs,
      faults: options.webhooks?.faults,
      dataPath: options.dataPath,
      sealer,
    });
    parts.add('the webhook pipeline', webhooks.stop);
  }
  // Before the front serves a request: the handlers build their platform on first use. No in-function edge guard:
  // the front applies every edge rule once per request (or none, `edgeProtection: false`). It travels here, in
  // process, never through the environment a deployed function reads.
  const switches: LocalSwitches = {
    ticketBridgeDown: options.switches?.ticketBridgeDown ?? (() => false),
    sealer,
    // As long as an attempt of the handlers' DynamoDB client may take (LOCAL_HANDLER_DYNAMO_CONFIG, or storageWaitMs).
    cleanupTimeoutMs: storageWaitMs,
    ...(storageWaitMs > ADMISSION_BUDGET_MS ? { admissionBudgetMs: storageWaitMs } : {}),
    ...(webhooks ? { webhooks: webhooks.switches } : {}),
  };
  const faults = options.faults ?? (options.webhooks ? options.webhooks.faults : undefined);
  configureSharedPlatform({
    localSwitches: switches,
    edgeGuard: undefined,
    // Fault-injection tests: the pipeline's DynamoDB calls go through the plan (calls outside its invocations never do).
    documentClient: faults ? faults.instrument(handlersClient) : handlersClient,
  });

  const handlers = options.handlers ?? HANDLERS;
  const front = await startLocalFront({
    handlers: asFunctions(options.faults ? faultyHandlers(options.faults, handlers) : handlers),
    router: options.router,
    port: options.port,
    edge: options.edgeProtection === false ? undefined : localEdge(options.limits ?? LIMITS),
    functionTimeoutMs: options.functionTimeoutMs,
  });
  parts.add('the local front', front.close);
  frontPort = Number(new URL(front.baseUrl).port);
  // Join links point at the local player site (the deployed stack uses the API's host, or the stage's PLAYER_SITE_URL).
  process.env.PLAYER_SITE_URL = `${front.baseUrl}/join`;
  if (webhooks) {
    // The webhook sweeper's job, on the shared platform the handlers use (its queue is the local pipeline's), every
    // minute scaled with the retry waits (at least every second).
    const run = asFunction('webhook-sweeper', () => runWebhookSweeper(sharedPlatform(), 'when-changed'));
    const sweeper = startWebhookSweeper(
      Math.max(1000, SWEEP_INTERVAL_MS * (options.webhooks ? (options.webhooks.waitScale ?? 1) : 1)),
      faults ? () => faults.invocation('sweeper', run) : run,
    );
    parts.add('the webhook sweeper', sweeper.stop);
  }
  if (options.scheduledJobs !== false) {
    const jobs = startScheduledJobs(endpoint, tables.domain, options.scheduledJobs?.intervalMs ?? 60_000, options.switches);
    parts.add('the scheduled jobs', jobs.stop);
  }
  return {
    baseUrl: front.baseUrl,
    dynamoEndpoint: endpoint,
    tables,
    front,
    ...(webhooks ? { webhooks } : {}),
    stop: () => parts.stop(),
  };
}

/**
 * The local counterpart of the schedules: the entitlement-periods and claim-reconciler jobs' own code on an interval, one run at a
 * time, logging a run only when it wrote something (or failed). `stop()` waits for a run in progress.
 */
function startScheduledJobs(endpoint: string, domainTable: string, intervalMs: number, switches?: Pick<LocalSwitches, 'ticketBridgeDown'>) {
  const client = localDocumentClient(endpoint);
  let running: Promise<unknown> | undefined;
  const tick = () => {
    running ??= Promise.all([
      asFunction('entitlement-periods', () => runEntitlementPeriods({ client, table: domainTable }, 'when-changed'))().catch(() => undefined),
      asFunction('claim-reconciler', () => runClaimReconciler(client, domainTable, 'when-changed', undefined, switches?.ticketBridgeDown))().catch(() => undefined),
    ]) // Failures are logged by the runs; the next tick tries again.
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, intervalMs);
  tick();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
      client.destroy();
    },
  };
}

/** The local counterpart of the `webhook-sweeper` schedule: the job's own code on an interval, one run at a time, logged when it requeued something. */
function startWebhookSweeper(intervalMs: number, run: () => Promise<unknown>) {
  let running: Promise<unknown> | undefined;
  const tick = () => {
    running ??= run()
      .catch(() => undefined) // Logged by the run; the next tick tries again.
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, intervalMs);
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

/** Each handler's invocations in its function's scope (the front dispatches by endpoint group: each is one function). */
function asFunctions(handlers: Readonly<Record<string, ApiHandler>>): Record<string, ApiHandler> {
  return Object.fromEntries(Object.entries(handlers).map(([group, handler]) => [group, asFunction(group as EndpointGroup, handler)]));
}

/** Each handler's invocations as `api` invocations of the plan: a crash there is a function that died (the front answers 502). */
function faultyHandlers(faults: FaultPlan, handlers: Readonly<Record<string, ApiHandler>>): Record<string, ApiHandler> {
  return Object.fromEntries(Object.entries(handlers).map(([group, handler]) => [group, faults.apiHandler(handler)]));
}

/** The local counterpart of the WAF web ACL: every edge rule of the limits table, in the front. */
export function localEdge(limits: readonly Limit[]) {
  const guard = new EdgeGuard(limits, 'all');
  return (request: IncomingMessage) => {
    const authorization = request.headers.authorization;
    // Both surfaces share the local front's origin: the path says which web ACL would have seen the request.
    const { path } = stagePathOf(parseRequestTarget(request.url ?? '/').path);
    const rejection = guard.check({ surface: surfaceOfPath(path), sourceIp: request.socket.remoteAddress?.replace(/^::ffff:/, ''), authorization });
    // WAF's custom response, in the shape of the surface's web ACL (lib/constructs/edge-rate-rules.ts).
    return rejection ? frontErrorResponse(path, randomUUID(), edgeRejection(rejection)) : undefined;
  };
}

/** A document client on the local DynamoDB, for seeding and the back office. */
export function localDocumentClient(endpoint: string) {
  return createDocumentClient(localDynamoClient(endpoint));
}
