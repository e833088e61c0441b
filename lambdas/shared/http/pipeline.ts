/**
 * The request pipeline's shared steps (middy) and how a front door composes them. Each front door has
 * its composition, readable top to bottom: the partner API (partner-api-pipeline.ts: API keys), the
 * player site (lambdas/player/player-pipeline.ts: proof of the join link) and web settings
 * (lambdas/settings/settings-pipeline.ts: the session cookie). Every composition runs, in order:
 *   0. observability  – the invocation in the request scope, debug sampling, cold start, the
 *                       X-Ray handler subsegment, one metrics flush at the end (observability/)
 *   1. envelope       – request id, success/error envelopes, the one error path, call log,
 *                       the request's metrics, rate-limit headers, release of concurrency leases
 *   2. edge           – the 10-second burst limits below WAF's resolution
 *   3. transport      – HTTPS, sizes, credentials in the URL, encodings (before routing)
 *   4. routing        – the route API Gateway invoked (of this front door), or 404 NOT_FOUND
 *   5. authentication – the front door's own: who or what the call proves to be
 *   6. admission      – the front door's own limits, decided in one write
 *   7. authorization  – (partner API) scope and organization binding
 *   8. input          – path, query and body against the route's declaration and its contract
 * The envelope middleware is attached before the others, so its after/onError
 * hooks run after theirs and see every error, typed or not; only observability's
 * run later (they publish what the envelope recorded).
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ApiError, apiError, toApiError, type ErrorCode } from '../errors';
import type { AuthenticatedKey } from '../identity/key-authentication';
import type { Principal } from '../identity/principal';
import type { Admission } from '../limits/key-admission';
import { edgeRejection } from '../limits/edge-guard';
import { observability } from '../observability/invocation';
import { logger } from '../observability/logger';
import { METRICS, statusClass } from '../observability/metric-catalog';
import { recordMetric } from '../observability/metrics';
import { currentRequestScope, dynamoFigures, runInRequestScope } from '../observability/request-scope';
import { sharedPlatform, type Platform } from '../platform';
import { refusalSiteOf, strayRefusalOf } from '../storage/conditions';
import { withinDeadline } from '../storage/operation-deadline';
import { normalizeEvent, type ApiEvent } from './api-event';
import { errorResponse, errorResponseFor, pageResponse } from './envelope';
import type * as z from 'zod/mini';
import type { ContractTable } from './contract';
import { functionContracts, type DeclaredContracts, type FunctionContracts } from './contract-loading';
import type { LazyChunk } from './lazy-chunk';
import { enforceInputRules, enforceTransportRules } from './request-rules';
import { FALLBACK_RESOURCE, Router, surfaceOfPath, type RouteDefinition } from './routes';
import { AUTHORIZATION_HEADER } from './credential-headers';

export interface OperationInput {
  readonly route: RouteDefinition;
  /** Path parameters and query, parsed by the route's contract when it declares them. */
  readonly pathParameters: Readonly<Record<string, unknown>>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly body: unknown;
  readonly headers: ApiEvent['headers'];
  /** The path as the client addressed it, stage included (e.g. `/v1/join/<id>/claim`). */
  readonly fullPath: string;
  /** Present on routes that need a key. */
  readonly principal?: Principal;
  /** The caller's address as API Gateway saw it. */
  readonly sourceIp: string | undefined;
  /** The request's admission deadline, for an operation that admits what only its parsed body names (signing in). */
  readonly admissionSignal: AbortSignal | undefined;
  readonly requestId: string;
  readonly now: Date;
  readonly platform: Platform;
  /** The route's reads started beside its admission by the front door (see `Prefetch`); read them with `prefetchedOr`. */
  readonly prefetched?: Promise<unknown>;
}

/**
 * A route's reads that need only what authentication knows (the raw request, the caller): a front door starts them
 * beside the admission's writes, so they cost no sequential round trip of their own. Reads only: a refused call's are
 * dropped unused, and an operation that finds them failed or not its own reads again (`prefetchedOr`).
 */
export type Prefetch<C = unknown> = (request: { readonly event: ApiEvent; readonly caller: C; readonly platform: Platform }) => Promise<unknown> | undefined;

/** A group's reads beside the admission, by route id (`{…} satisfies GroupPrefetch<typeof X_CONTRACTS, Caller>`): none for a route it lacks. */
export type GroupPrefetch<T, C> = { readonly [K in keyof T]?: Prefetch<C> };

/** Start `prefetch` (when there is one), never leaving its rejection unhandled: the operation handles what it answered. */
export function startPrefetch<C>(prefetch: Prefetch<C> | undefined, request: Parameters<Prefetch<C>>[0]): Promise<unknown> | undefined {
  const started = prefetch?.(request);
  started?.catch(() => undefined);
  return started;
}

/** What the front door prefetched for this operation, if `usable` says it is what it needs, or `fresh()` now. */
export async function prefetchedOr<T>(input: OperationInput, fresh: () => Promise<T>, usable: (value: unknown) => value is T): Promise<T> {
  if (!input.prefetched) return fresh();
  const value = await input.prefetched.catch(() => undefined);
  return usable(value) ? value : fresh();
}

export interface OperationResult {
  readonly status?: number;
  readonly data: unknown;
  readonly headers?: Record<string, string>;
  /**
   * Cookies the answer sets, one `Set-Cookie` each: a header map holds one value per name, so they go out as the
   * proxy result's `multiValueHeaders` (signing in sets the session cookie and the device cookie).
   */
  readonly cookies?: readonly string[];
  /** A page (text/html) instead of the JSON envelope: the player site's page, whose `data` is its HTML. */
  readonly page?: true;
}

/** A route's operation; a surface's operations may take more than the shared input (a session, a proof of possession). */
export type Operation<I extends OperationInput = OperationInput> = (input: I) => Promise<OperationResult>;

/**
 * An operation as a function's table holds it: typed by its route's contract (ContractOperation), narrower than the
 * input the pipeline builds, which is that contract's parse of the request. A method's parameter, so a narrower one is
 * accepted (TypeScript checks method parameters both ways), and an operation written inline is given `I`.
 */
export type ServedOperation<I extends OperationInput = OperationInput> = { serve(input: I): Promise<OperationResult> }['serve'];

/** What a contract's schema `K` parses to, or `Otherwise` when the contract declares none. */
type ParsedBy<C, K extends 'pathParameters' | 'query' | 'body', Otherwise> = C extends { readonly [P in K]: infer S extends z.ZodMiniType } ? z.output<S> : Otherwise;

/** The input of an operation whose route's contract is `C`: its path, query and body as the contract parsed them. */
export type ContractInput<C, I extends OperationInput = OperationInput> = Omit<I, 'pathParameters' | 'query' | 'body'> & {
  // Without a schema, the path's parameters as API Gateway matched them: every name of the template, none empty.
  readonly pathParameters: ParsedBy<C, 'pathParameters', Readonly<Record<string, string>>>;
  readonly query: ParsedBy<C, 'query', Readonly<Record<string, unknown>>>;
  readonly body: ParsedBy<C, 'body', undefined>;
};

/** The input of any operation whose path names parameters `P`: what a group's helper shared by several operations takes. */
export type InputWithPath<P extends string, I extends OperationInput = OperationInput> = I & { readonly pathParameters: Readonly<Record<P, string>> };

/** `T`, its arrays and objects read-only at every depth: what accepts a model's read-only lists as well as fresh ones. */
export type DeepReadonly<T> = T extends readonly (infer E)[] ? readonly DeepReadonly<E>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

/** What an operation whose route's contract is `C` answers: `data` of the shape the contract's response schema takes. */
export type ContractResult<C> = Omit<OperationResult, 'data'> & {
  readonly data: C extends { readonly data: infer D extends z.ZodMiniType } ? DeepReadonly<z.input<D>> : unknown;
};

/** An operation typed by its route's contract `C` (a surface's input `I`): a result the contract forbids does not compile. */
export type ContractOperation<C, I extends OperationInput = OperationInput> = (input: ContractInput<C, I>) => Promise<ContractResult<C>>;

/**
 * A group's operations, one per contract (`typeof GROUP_CONTRACTS`): `{…} satisfies GroupOperations<typeof
 * X_CONTRACTS, Input>` makes a route without an operation, an operation without a route, an operation reading input its
 * contract does not parse, and one answering data its contract does not allow, compile errors.
 */
export type GroupOperations<T, I extends OperationInput = OperationInput> = { readonly [K in keyof T]: ContractOperation<T[K], I> };

/** The operation of route `K` of a group whose contracts are `T`, for declaring it on its own (`const x: OperationOf<…> = …`). */
export type OperationOf<T, K extends keyof T, I extends OperationInput = OperationInput> = ContractOperation<T[K], I>;

/**
 * What a function's operations table must cover: one entry for every route of its group, none for a route it lacks.
 * `operations = {…} satisfies RouteOperations<typeof GROUP_ROUTES>` makes a route without an operation a compile error
 * (it would otherwise answer 404 at run time).
 */
export type RouteOperations<R extends readonly { readonly id: string }[]> = { readonly [K in R[number]['id']]: unknown };

/** What the steps learn about a request, for the later steps and the envelope. */
export interface PipelineState {
  event: ApiEvent;
  startedAt: number;
  platform: Platform;
  route?: RouteDefinition;
  /** Aborts admission's store calls at the admission deadline. */
  signal?: AbortSignal;
  /** The partner API's key, as authentication found it. */
  key?: AuthenticatedKey;
  /** The recognized key's principal, from authentication on (also when admission then refuses). */
  principal?: Principal;
  /** The partner API's admission: its slots are released and its headers added by the envelope. */
  admission?: Admission;
  /** The account a web-settings session belongs to, for the call log. */
  accountId?: string;
  /** What a front door's authentication hands to its operations (a session, a proof of possession). */
  credentials?: object;
  pathParameters?: Readonly<Record<string, unknown>>;
  query?: Readonly<Record<string, unknown>>;
  body?: unknown;
  /** The route's reads started beside the admission (Prefetch), handed to the operation. */
  prefetched?: Promise<unknown>;
  /** Set once the request was admitted (or needs no admission). */
  admitted: boolean;
  /** Refused by the in-function edge guard (its 429 is not a quota's). */
  edgeRejected?: boolean;
}

/**
 * Rejections the spec does not log one by one: invalid credentials, and rate
 * rejections, which admission samples once per key per minute (`rate_…`).
 */
const NOT_CALL_LOGGED: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['INVALID_API_KEY', 'RATE_LIMITED', 'CONCURRENCY_LIMITED']);

/**
 * Calls entering business processing keep a redacted call log: every request
 * that needs no key, and every request of a recognized key, admitted or
 * refused by its standing, scope, organization binding, input or operation
 * (so that probing other organizations with a valid key leaves a trace).
 */
function isCallLogged(state: PipelineState, error: ApiError | undefined): boolean {
  if (error && NOT_CALL_LOGGED.has(error.code)) return false;
  return state.admitted || state.principal !== undefined;
}

export type PipelineContext = Context & { pipeline: PipelineState };
export type PipelineRequest = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, PipelineContext>;
export type Middleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, PipelineContext>;
type Request = PipelineRequest;

/**
 * The route a request counts under in the metrics: the one routing found, else the one its resource
 * names (a request refused before routing, at the edge or by the transport rules), else `unrouted`.
 */
function metricRoute(state: PipelineState | undefined, router: Router): string {
  if (state?.route) return state.route.id;
  const resource = state?.event.resource;
  const named = resource !== undefined && resource !== FALLBACK_RESOURCE ? router.byResource(state?.event.method ?? '', resource) : undefined;
  return named?.id ?? 'unrouted';
}

/** The answer's metrics: by route and status class, the function's time, and a refusal by its limits-table policy. */
function recordAnswer(state: PipelineState | undefined, router: Router, status: number, durationMs: number | undefined, error: ApiError | undefined): void {
  const route = metricRoute(state, router);
  recordMetric(METRICS.requests, { route, status_class: statusClass(status) });
  if (durationMs !== undefined) recordMetric(METRICS.requestLatency, { route }, durationMs);
  const policy = error?.headers['X-RateLimit-Policy'] ?? 'unknown';
  // Edge rejections were counted by the edge middleware, which knows it refused them.
  if (error?.code === 'RATE_LIMITED' && !state?.edgeRejected) recordMetric(METRICS.quotaRejections, { policy });
  if (error?.code === 'CONCURRENCY_LIMITED') recordMetric(METRICS.concurrencyRejections, { policy });
}

function envelope(getPlatform: () => Platform, router: Router, contracts: FunctionContracts, chunks: readonly LazyChunk<unknown>[]): Middleware {
  const finish = async (request: Request, response: APIGatewayProxyResult, error?: ApiError) => {
    const state = request.context.pipeline as PipelineState | undefined;
    // A normal response always frees the request's concurrency slots.
    await state?.admission?.release();
    if (state?.admission) response.headers = { ...state.admission.headers, ...response.headers };
    request.response = response;
    const durationMs = state && Date.now() - state.startedAt;
    recordAnswer(state, router, response.statusCode, durationMs, error);
    if (error?.code === 'SERVICE_UNAVAILABLE') {
      // The deadline, not a bug: a warning with what the request had done (its slots were released above).
      logger.warn('request timed out', { code: error.code, route: state?.route?.id, duration_ms: durationMs });
    } else if (error?.code === 'WRITE_CONFLICT') {
      // A lost race no operation explained: retryable, but the site should explain it. What DynamoDB said and where in
      // the code, never the items (a refusal carries the old image when the write asked for it).
      const refusal = strayRefusalOf(error.cause);
      logger.warn('write refused, unexplained', {
        code: error.code,
        route: state?.route?.id,
        dynamo_error: refusal?.error,
        cancellation_reasons: refusal?.reasons,
        site: refusalSiteOf(error.cause),
      });
    } else if (error?.code === 'PASSWORD_CHECK_BUSY') {
      // A refusal by design, before anything was written (lambdas/back-office/password-gate.ts): a warning, not a failure.
      logger.warn('password checks busy', { code: error.code, route: state?.route?.id, retry_after: error.headers['Retry-After'], duration_ms: durationMs });
    } else if (error && error.status >= 500) {
      logger.error('request failed', { code: error.code, error: error.cause ?? error });
    }
    if (state && isCallLogged(state, error)) {
      const dynamo = currentRequestScope()?.dynamo;
      // Redacted: identifiers only, never a header, a query value or a body (the route is on every line).
      logger.info('request', {
        method: state.event.method,
        status: response.statusCode,
        code: error?.code,
        key_id: state.principal?.keyId,
        account_id: state.principal?.accountId ?? state.accountId ?? currentRequestScope()?.accountId,
        partner_id: state.principal?.partnerId ?? undefined,
        path_partner_id: state.event.pathParameters.partner_id?.slice(0, 128),
        source_ip: state.event.sourceIp,
        duration_ms: durationMs,
        dynamo: dynamo && dynamoFigures(dynamo),
      });
    }
  };
  return {
    before: (request) => {
      const event = normalizeEvent(request.event);
      request.context.pipeline = { event, startedAt: Date.now(), platform: getPlatform(), admitted: false };
      // The contracts (and zod) and the route code load while authentication and admission make their round trip.
      contracts.start();
      for (const chunk of chunks) chunk.start();
    },
    after: (request) => finish(request, request.response as APIGatewayProxyResult),
    onError: async (request) => {
      // A table that failed to load names no route status: the error keeps its catalog's.
      const table = await contracts.loaded().then(({ table: loaded }) => loaded, () => undefined);
      const error = withRouteStatus(toApiError(request.error), request.context.pipeline?.route, table);
      const requestId = request.context.pipeline?.event.requestId ?? request.event?.requestContext?.requestId ?? 'unknown';
      const path = request.context.pipeline?.event.path;
      return finish(request, path === undefined ? errorResponse(requestId, error) : errorResponseFor(path, requestId, error), error);
    },
  };
}

/**
 * The status this route answers a code with, when its contract names another of the code's
 * catalog statuses (`errorStatus`: INVITE_UNAVAILABLE is 404 on reads, 409 on link and revoke),
 * whoever threw it: input parsing or the operation.
 */
function withRouteStatus(error: ApiError, route: RouteDefinition | undefined, contracts: ContractTable | undefined): ApiError {
  const status = route && contracts?.[route.id]?.errorStatus?.[error.code];
  return status === undefined || status === error.status ? error : new ApiError(error.code, error.message, error.headers, { status, cause: error.cause });
}

export const edge = (): Middleware => ({
  before: (request) => {
    const { platform, event } = request.context.pipeline;
    const rejection = platform.edgeGuard?.check({
      // A deployed function knows its REST API; the local front serves both on one origin, so there the path says.
      surface: platform.surface ?? surfaceOfPath(event.path),
      sourceIp: event.sourceIp,
      authorization: event.headers.get(AUTHORIZATION_HEADER)?.join(','),
    });
    if (rejection) {
      request.context.pipeline.edgeRejected = true;
      recordMetric(METRICS.edgeRejections, { policy: rejection.limit.policy });
      throw edgeRejection(rejection);
    }
  },
});

export const transport = (): Middleware => ({
  before: (request) => enforceTransportRules(request.context.pipeline.event),
});

/**
 * The route API Gateway invoked, or 404 NOT_FOUND: also for a route of another front door than this
 * composition's (API Gateway never sends one; the local front and tests could).
 */
export const routing = (router: Router, doors: readonly RouteDefinition['auth'][]): Middleware => ({
  before: (request) => {
    const state = request.context.pipeline;
    const { method, resource } = state.event;
    const route = resource === FALLBACK_RESOURCE ? undefined : router.byResource(method, resource);
    if (!route || !doors.includes(route.auth)) throw apiError('NOT_FOUND');
    state.route = route;
    const scope = currentRequestScope();
    if (scope) scope.route = route.id;
  },
});

/**
 * Admission must answer, with a 503 at worst, well inside the function
 * timeout (API Gateway would otherwise answer 502 with no Retry-After and the
 * slots taken so far would stay held until their leases expire): its store
 * calls are aborted after ADMISSION_BUDGET_MS, or earlier when the function
 * has less than RESPONSE_RESERVE_MS left beyond that.
 */
export const ADMISSION_BUDGET_MS = 3000;
export const RESPONSE_RESERVE_MS = 2000;

/** The admission deadline's signal, from the function's remaining time (and a local stack's budget, LocalSwitches). */
export function admissionSignal(context: Context, platform: Pick<Platform, 'localSwitches'>): AbortSignal {
  const remaining = typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : Number.POSITIVE_INFINITY;
  const budgetMs = platform.localSwitches?.admissionBudgetMs ?? ADMISSION_BUDGET_MS;
  return AbortSignal.timeout(Math.max(1, Math.min(budgetMs, remaining - RESPONSE_RESERVE_MS)));
}

/**
 * When the operation's DynamoDB calls must have answered (epoch ms): the function's deadline less RESPONSE_RESERVE_MS
 * for the answer, the release of the request's slots and the call log. The retry budget keeps a transaction in
 * progress going until then at most (storage/retry-budget.ts); undefined when the context cannot tell.
 */
export function operationDeadline(context: Context): number | undefined {
  return typeof context.getRemainingTimeInMillis === 'function' ? Date.now() + context.getRemainingTimeInMillis() - RESPONSE_RESERVE_MS : undefined;
}

/** Query and body against the route's declaration, then against its contract's schemas (its group's *-contracts.ts). */
export const input = (contracts: FunctionContracts): Middleware => ({
  before: async (request) => {
    const state = request.context.pipeline;
    const route = state.route as RouteDefinition;
    const { query, body } = enforceInputRules(state.event, route);
    const { table, parseInput } = await contracts.loaded();
    const contract = table[route.id];
    state.pathParameters = contract?.pathParameters ? parseInput(contract.pathParameters, state.event.pathParameters, 'NOT_FOUND') : state.event.pathParameters;
    state.query = contract?.query ? parseInput(contract.query, query, 'INVALID_FIELD') : { ...query };
    state.body = contract?.body && body !== undefined ? parseInput(contract.body, body, 'INVALID_FIELD') : body;
  },
});

/** What every function declares: its operations by route id and their contracts; a test may bring its router and platform. */
export interface FunctionDefinition<I extends OperationInput = OperationInput> {
  /** Operations this function serves, by route id. Routes of other groups answer 404. */
  readonly operations: Readonly<Record<string, ServedOperation<I>>>;
  /**
   * The contracts of its routes (its group's *-contracts.ts): every operation of a route of the service's table has
   * one. A group's function declares them `lazyContracts(...)`, off its cold start (contract-loading.ts).
   */
  readonly contracts: DeclaredContracts;
  /**
   * The chunks its route code loads from (lazy-chunk.ts): started when a request starts, beside the contracts, so they
   * load while its first round trip is in flight.
   */
  readonly chunks?: readonly LazyChunk<unknown>[];
  /** Its group's routes (`lambdas/<group>/*-routes.ts`): a request for any other path answers 404. */
  readonly routes?: readonly RouteDefinition[];
  /** A router instead of `routes` (a test's, over an extended table). */
  readonly router?: Router;
  readonly platform?: () => Platform;
}

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** The parts of a front door's composition (see partner-api-pipeline.ts for the simplest). */
export interface FrontDoor<I extends OperationInput> {
  /** The route kinds (RouteDefinition.auth) it serves. */
  readonly doors: readonly RouteDefinition['auth'][];
  /** Its authentication, admission and authorization steps, in order. */
  readonly steps: readonly Middleware[];
  /** What its operations take beyond the shared input (from the state its steps filled). */
  readonly credentials: (state: PipelineState) => Omit<I, keyof OperationInput>;
  /** Its success answer (the API envelope, the web settings' bare object, a page). */
  readonly respond: (state: PipelineState, result: OperationResult) => APIGatewayProxyResult;
}

/** The router of a function: its own, or one over its routes (a function declares one or the other). */
export function routerOf(definition: Pick<FunctionDefinition<never>, 'routes' | 'router'>): Router {
  if (definition.router) return definition.router;
  if (!definition.routes) throw new Error('A function declares its routes (FunctionDefinition.routes) or a router');
  return new Router(definition.routes);
}

/**
 * A function's handler: the shared steps around a front door's own. A route of the function's that has an
 * operation here must have its contract here too (input would otherwise go unchecked): refused at construction.
 */
export function composeApiHandler<I extends OperationInput>(definition: FunctionDefinition<I>, door: FrontDoor<I>): ApiHandler {
  const router = routerOf(definition);
  // A group's own routes are checked for their contracts; a test's router (probe routes beside the service's) is not.
  const contracts = functionContracts(definition.contracts, definition.operations, definition.routes ?? []);
  const getPlatform = definition.platform ?? sharedPlatform;
  let pipeline = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, PipelineContext>()
    .use(observability<APIGatewayProxyEvent, APIGatewayProxyResult, PipelineContext>())
    .use(envelope(getPlatform, router, contracts, definition.chunks ?? []))
    .use(edge())
    .use(transport())
    .use(routing(router, door.doors));
  for (const step of door.steps) pipeline = pipeline.use(step);
  const handler = pipeline.use(input(contracts)).handler(async (_event, context) => {
    const state = context.pipeline;
    const route = state.route as RouteDefinition;
    const operation = definition.operations[route.id];
    if (!operation) throw apiError('NOT_FOUND');
    const result = await withinDeadline(operationDeadline(context), () => operation({
      route,
      pathParameters: state.pathParameters ?? state.event.pathParameters,
      query: state.query ?? {},
      body: state.body,
      headers: state.event.headers,
      fullPath: state.event.fullPath,
      principal: state.admission?.principal,
      sourceIp: state.event.sourceIp,
      admissionSignal: state.signal,
      requestId: state.event.requestId,
      now: state.platform.clock(),
      platform: state.platform,
      prefetched: state.prefetched,
      ...door.credentials(state),
    } as I));
    return door.respond(state, result);
  });

  return (event, context) =>
    runInRequestScope(event.requestContext?.requestId ?? 'unknown', () =>
      handler(event, context as PipelineContext),
    );
}

/** A front door's answer: a page (`page: true`, its HTML) as it is, anything else in the door's success shape. */
export const answerWith =
  (success: (requestId: string, data: unknown, status: number, headers?: Record<string, string>) => APIGatewayProxyResult) =>
  (state: PipelineState, { page, data, status, headers, cookies }: OperationResult): APIGatewayProxyResult => {
    const response = page ? pageResponse(state.event.requestId, String(data), headers) : success(state.event.requestId, data, status ?? 200, headers);
    return cookies?.length ? { ...response, multiValueHeaders: { ...response.multiValueHeaders, 'Set-Cookie': [...cookies] } } : response;
  };

/** The web side takes no API key: a request carrying an Authorization header is refused (400 API_KEY_NOT_ACCEPTED). */
export function refuseApiKey(event: ApiEvent): void {
  if (event.headers.has(AUTHORIZATION_HEADER)) throw apiError('API_KEY_NOT_ACCEPTED');
}
