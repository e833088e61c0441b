/**
 * The one request pipeline every handler shares (middy). Middlewares, in the
 * order they run before the handler:
 *   0. observability  – the invocation in the request scope, debug sampling, cold start, the
 *                       X-Ray handler subsegment, one metrics flush at the end (observability/)
 *   1. envelope       – request id, success/error envelopes, the one error path, call log,
 *                       the request's metrics, rate-limit headers, release of concurrency leases
 *   2. edge           – the 10-second burst limits below WAF's resolution
 *   3. transport      – HTTPS, sizes, credentials in the URL, encodings (before routing)
 *   4. routing        – the route API Gateway invoked, or 404 NOT_FOUND
 *   5. authentication – the key behind the Authorization header (cached facts or one read);
 *                       the web side's routes take no key (and refuse one); the player site:
 *                       what the call proves about its join link (the token, checked locally,
 *                       or the player's credential: one read); web settings: the cross-site
 *                       request checks, then the session cookie (one read)
 *   6. admission      – the key's standing (revocation, account, organization, membership,
 *                       re-checked inside the quota writes), quotas, concurrency; on the
 *                       player site, its limits by source IP, and by join link for a call that
 *                       proved possession; in web settings, the account's limits, re-checking
 *                       the session's account in the same write
 *   7. authorization  – scope and organization binding of the admitted request
 *   8. input          – query parameters and body against the route's declaration
 * The envelope middleware is attached before the others, so its after/onError
 * hooks run after theirs and see every error, typed or not; only observability's
 * run later (they publish what the envelope recorded).
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ApiError, apiError, toApiError, type ErrorCode } from '../errors';
import { authorizeRoute } from '../identity/authorization';
import { authenticateKey, type AuthenticatedKey } from '../identity/key-authentication';
import { principalOf, type Principal } from '../identity/principal';
import { admitRequest, decisionDepsOf, type Admission } from '../limits/admission';
import { edgeRejection } from '../limits/edge-guard';
import { isPlayerCategory, isSettingsCategory } from '../limits/limits-table';
import { admitPlayerCall } from '../limits/player-admission';
import { admitSettingsCall, type SettingsHolderItem } from '../limits/settings-admission';
import { observability } from '../observability/invocation';
import { logger } from '../observability/logger';
import { METRICS, statusClass } from '../observability/metric-catalog';
import { recordMetric } from '../observability/metrics';
import { currentRequestScope, runInRequestScope } from '../observability/request-scope';
import { sharedPlatform, type Platform } from '../platform';
import { normalizeEvent, type ApiEvent } from './api-event';
import { errorResponse, errorResponseFor, pageResponse, settingsResponse, successResponse } from './envelope';
import { parseInput, type RouteContract } from './contract';
import { enforceInputRules, enforceTransportRules } from './request-rules';
import { ROUTE_CONTRACTS } from './route-contracts';
import { defaultRouter, FALLBACK_RESOURCE, isSettingsPath, SETTINGS_PATH, surfaceOfPath, type RouteDefinition, type Router } from './routes';
import { enforceSameOrigin, presentedSessionToken } from './web-session';
import { AUTHORIZATION_HEADER, COOKIE_HEADER } from './credential-headers';
import { credentialCookie, PLAYER_CREDENTIAL_COOKIE } from './cookies';

/** A signed-in web-settings session: its account, the credential generation it was opened under, and its token (for sign-out). */
export interface SettingsSession {
  readonly accountId: string;
  readonly credGen: number;
  /** The account's session generation it was opened under. */
  readonly sessionGen: number;
  /** The session's absolute end. */
  readonly expiresAt: string;
  readonly token: string;
}

/**
 * The items beyond the signed-in account that a web-settings call counts on, found from its path (a webhook callback's
 * and its organization's counters: lambdas/webhooks). Read before the one admission decision; unknown ids give none
 * (the operation then answers 404).
 */
export type AdmissionHolders = (call: {
  readonly route: RouteDefinition;
  readonly pathParameters: Readonly<Record<string, string>>;
  readonly session: Omit<SettingsSession, 'token'>;
  readonly platform: Platform;
}) => Promise<readonly SettingsHolderItem[]>;

/**
 * What a player-site call proved about its join link before admission counts it (lambdas/player/player-possession.ts):
 * the link's token, the claiming browser's credential, or nothing. Only a proof spends the link's limits (`join-*`);
 * a call that proves nothing counts by source IP alone, so knowing an invitation id cannot deny its holder.
 */
export interface PlayerPossession {
  readonly proof: 'token' | 'credential' | 'none';
  /** The path's invitation id when it is a well-formed one (the player group judges its format); absent otherwise. */
  readonly invitationId?: string;
  /** What the check read to decide (the player group's invitation), handed to the operation so the call reads it once. */
  readonly read?: unknown;
}

/** How the player function decides a call's possession, from the path's invitation id as sent (the group judges its format). */
export type PossessionCheck = (call: {
  readonly route: RouteDefinition;
  readonly invitationId: string;
  readonly headers: ApiEvent['headers'];
  /** The raw body (at most 4096 bytes, after the transport rules): a claim's token travels in it. */
  readonly body: Buffer | undefined;
  readonly platform: Platform;
  readonly now: Date;
}) => Promise<PlayerPossession>;

/** How a function with web-settings routes finds the live session behind a cookie's token (lambdas/settings). */
export type SessionLookup = (token: string, platform: Platform) => Promise<Omit<SettingsSession, 'token'> | undefined>;

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
  /** Present on web-settings routes that need a session. */
  readonly session?: SettingsSession;
  /** Present on the player site's calls (not the page): what the call proved about its join link. */
  readonly possession?: PlayerPossession;
  /** The caller's address as API Gateway saw it. */
  readonly sourceIp: string | undefined;
  /** The request's admission deadline, for an operation that admits what only its parsed body names (signing in). */
  readonly admissionSignal: AbortSignal | undefined;
  readonly requestId: string;
  readonly now: Date;
  readonly platform: Platform;
}

export interface OperationResult {
  readonly status?: number;
  readonly data: unknown;
  readonly headers?: Record<string, string>;
  /** A page (text/html) instead of the JSON envelope: the player site's page, whose `data` is its HTML. */
  readonly page?: true;
}

export type Operation = (input: OperationInput) => Promise<OperationResult>;

interface PipelineState {
  event: ApiEvent;
  startedAt: number;
  platform: Platform;
  route?: RouteDefinition;
  /** Aborts admission's store calls at the admission deadline. */
  signal?: AbortSignal;
  key?: AuthenticatedKey;
  /** The recognized key's principal, from authentication on (also when admission then refuses). */
  principal?: Principal;
  admission?: Admission;
  session?: SettingsSession;
  possession?: PlayerPossession;
  pathParameters?: Readonly<Record<string, unknown>>;
  query?: Readonly<Record<string, unknown>>;
  body?: unknown;
  /** Set once the request was admitted (or needs no key). */
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

type PipelineContext = Context & { pipeline: PipelineState };
type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, PipelineContext>;
type Middleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, PipelineContext>;

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

function envelope(getPlatform: () => Platform, router: Router): Middleware {
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
        account_id: state.principal?.accountId ?? state.session?.accountId ?? currentRequestScope()?.accountId,
        partner_id: state.principal?.partnerId ?? undefined,
        path_partner_id: state.event.pathParameters.partner_id?.slice(0, 128),
        source_ip: state.event.sourceIp,
        duration_ms: durationMs,
        dynamo: dynamo && { calls: dynamo.calls, round_trips: dynamo.roundTrips, rcu: dynamo.readUnits, wcu: dynamo.writeUnits },
      });
    }
  };
  return {
    before: (request) => {
      const event = normalizeEvent(request.event);
      request.context.pipeline = { event, startedAt: Date.now(), platform: getPlatform(), admitted: false };
    },
    after: (request) => finish(request, request.response as APIGatewayProxyResult),
    onError: (request) => {
      const error = withRouteStatus(toApiError(request.error), request.context.pipeline?.route);
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
function withRouteStatus(error: ApiError, route: RouteDefinition | undefined): ApiError {
  const status = route && contractOf(route)?.errorStatus?.[error.code];
  return status === undefined || status === error.status ? error : new ApiError(error.code, error.message, error.headers, { status, cause: error.cause });
}

const edge = (): Middleware => ({
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

const transport = (): Middleware => ({
  before: (request) => enforceTransportRules(request.context.pipeline.event),
});

const routing = (router: Router): Middleware => ({
  before: (request) => {
    const state = request.context.pipeline;
    const { method, resource } = state.event;
    const route = resource === FALLBACK_RESOURCE ? undefined : router.byResource(method, resource);
    if (!route) throw apiError('NOT_FOUND');
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

function admissionSignal(context: Context): AbortSignal {
  const remaining = typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : Number.POSITIVE_INFINITY;
  return AbortSignal.timeout(Math.max(1, Math.min(ADMISSION_BUDGET_MS, remaining - RESPONSE_RESERVE_MS)));
}

/** Who is calling: the key behind the Authorization header (401 otherwise), the player site's proof of its link, or the web settings' session. */
const authentication = (sessions: SessionLookup | undefined, possession: PossessionCheck | undefined): Middleware => ({
  before: async (request) => {
    const state = request.context.pipeline;
    const route = state.route as RouteDefinition;
    if (route.auth === 'none') {
      state.admitted = true;
      return;
    }
    const { platform, event } = state;
    state.signal = admissionSignal(request.context);
    if (route.auth === 'player' || route.auth === 'web' || route.auth === 'session') {
      // The web side is not reachable with API keys, nor does it take one.
      if (event.headers.has(AUTHORIZATION_HEADER)) throw apiError('API_KEY_NOT_ACCEPTED');
      if (route.auth === 'player') {
        // Two player_credential cookies: 400 DUPLICATE_CREDENTIAL_COOKIE before anything is read or counted (cookies.ts).
        if (isPlayerCategory(route.category)) credentialCookie(event.headers.get(COOKIE_HEADER), PLAYER_CREDENTIAL_COOKIE);
        state.possession = await playerPossession(state, route, possession);
        return;
      }
      enforceSameOrigin(event);
      // Every settings API call (signing in and out too; the page itself is served): two settings_session cookies are
      // refused with 400 DUPLICATE_CREDENTIAL_COOKIE before anything is read, counted or written (cookies.ts).
      const token = route.path.startsWith(`${SETTINGS_PATH}/api/`) ? presentedSessionToken(event.headers.get(COOKIE_HEADER)) : undefined;
      if (route.auth === 'web') return;
      const session = token && sessions ? await sessions(token, platform) : undefined;
      if (!token || !session) throw apiError('SESSION_REQUIRED');
      state.session = { ...session, token };
      return;
    }
    const authorization = event.headers.get(AUTHORIZATION_HEADER);
    state.key = await authenticateKey(authorization?.length === 1 ? authorization[0] : undefined, {
      reader: platform.admissionStore,
      cache: platform.keyCache,
      now: platform.clock(),
      signal: state.signal,
    });
    // From here on the key is recognized: the call is logged whatever its outcome (see isCallLogged).
    state.principal = principalOf(state.key.facts);
  },
});

/** Whether the key is still usable and every quota and slot covering the route has room (docs/limits.md). */
const admission = (holders: AdmissionHolders | undefined): Middleware => ({
  before: async (request) => {
    const state = request.context.pipeline;
    const route = state.route as RouteDefinition;
    if (route.auth === 'player') {
      await admitPlayerRoute(state, route);
      return;
    }
    if (route.auth === 'web') {
      // Signing in counts by source IP and e-mail address in its operation, once the body is parsed (settings-admission.ts).
      state.admitted = true;
      return;
    }
    if (route.auth === 'session') {
      const session = state.session as SettingsSession;
      const { platform } = state;
      const category = route.category;
      if (category !== undefined && category !== 'settings-sign-in' && isSettingsCategory(category)) {
        // A group may count the call on more items than the account (a webhook callback, its organization): one decision.
        const extra = holders ? await holders({ route, pathParameters: state.event.pathParameters, session, platform }) : [];
        await admitSettingsCall(
          { category, accountId: session.accountId, credGen: session.credGen, sessionGen: session.sessionGen, extra },
          decisionDepsOf(platform, state.signal),
        );
      }
      state.admitted = true;
      return;
    }
    if (!state.key) return;
    const { platform } = state;
    state.admission = await admitRequest(state.key, { category: (state.route as RouteDefinition).category }, {
      ...decisionDepsOf(platform, state.signal),
      rateLog: platform.rateLog,
    });
    state.admitted = true;
  },
});

/**
 * What a player-site call proves about its join link (the page itself proves nothing and is counted by nothing).
 * A function without a check serves no player route (createApiHandler refuses that): such a call proves nothing.
 */
async function playerPossession(state: PipelineState, route: RouteDefinition, check: PossessionCheck | undefined): Promise<PlayerPossession | undefined> {
  if (!isPlayerCategory(route.category)) return undefined;
  if (!check) return { proof: 'none' };
  // The player group judges the id (its format is the group's); a proof names the well-formed id it holds.
  const invitationId = state.event.pathParameters.invitation_id;
  if (invitationId === undefined) return { proof: 'none' };
  const { event, platform } = state;
  return check({ route, invitationId, headers: event.headers, body: event.body, platform, now: platform.clock() });
}

/**
 * The player site's abuse limits for a route that has a category (the page itself has none): by source IP always,
 * by join link only for a call that proved possession (authentication above).
 */
async function admitPlayerRoute(state: PipelineState, route: RouteDefinition): Promise<void> {
  const { platform, event } = state;
  if (isPlayerCategory(route.category)) {
    await admitPlayerCall(
      {
        category: route.category,
        sourceIp: event.sourceIp ?? 'unknown',
        invitationId: state.possession?.invitationId,
        possession: state.possession !== undefined && state.possession.proof !== 'none',
      },
      decisionDepsOf(platform, state.signal),
    );
  }
  state.admitted = true;
}

/** Scope and organization binding of the admitted request. */
const authorization = (): Middleware => ({
  before: (request) => {
    const state = request.context.pipeline;
    if (!state.admission) return;
    authorizeRoute(state.admission.principal, state.route as RouteDefinition, state.event.pathParameters.partner_id);
  },
});

/** Query and body against the route's declaration, then against its contract's schemas (route-contracts.ts). */
const input = (): Middleware => ({
  before: (request) => {
    const state = request.context.pipeline;
    const route = state.route as RouteDefinition;
    const { query, body } = enforceInputRules(state.event, route);
    const contract = contractOf(route);
    state.pathParameters = contract?.pathParameters ? parseInput(contract.pathParameters, state.event.pathParameters, 'NOT_FOUND') : state.event.pathParameters;
    state.query = contract?.query ? parseInput(contract.query, query, 'INVALID_FIELD') : { ...query };
    state.body = contract?.body && body !== undefined ? parseInput(contract.body, body, 'INVALID_FIELD') : body;
  },
});

/** The contract of a route of the service's table; test-only routes have none. */
const contractOf = (route: RouteDefinition): RouteContract | undefined => (ROUTE_CONTRACTS as Record<string, RouteContract>)[route.id];

export interface ApiHandlerOptions {
  /** Operations this function serves, by route id. Routes of other groups answer 404. */
  readonly operations: Readonly<Record<string, Operation>>;
  readonly router?: Router;
  readonly platform?: () => Platform;
  /** Extra holder items of this function's web-settings calls (see AdmissionHolders). */
  readonly admissionHolders?: AdmissionHolders;
  /** The session lookup of a function with web-settings routes; without one, no session is ever found. */
  readonly sessions?: SessionLookup;
  /** The possession check of a function with player-site routes (see PlayerPossession); required to serve them. */
  readonly possession?: PossessionCheck;
}

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export function createApiHandler(options: ApiHandlerOptions): ApiHandler {
  const router = options.router ?? defaultRouter;
  // Without a possession check no player call would ever count on its join link: refuse to build such a function.
  const unchecked = router.routes.filter((r) => isPlayerCategory(r.category) && options.operations[r.id] !== undefined);
  if (unchecked.length > 0 && !options.possession) {
    throw new Error(`createApiHandler: the player routes ${unchecked.map((r) => r.id).join(', ')} need the possession option`);
  }
  const getPlatform = options.platform ?? sharedPlatform;

  const pipeline = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, PipelineContext>()
    .use(observability<APIGatewayProxyEvent, APIGatewayProxyResult, PipelineContext>())
    .use(envelope(getPlatform, router))
    .use(edge())
    .use(transport())
    .use(routing(router))
    .use(authentication(options.sessions, options.possession))
    .use(admission(options.admissionHolders))
    .use(authorization())
    .use(input())
    .handler(async (_event, context) => {
      const state = context.pipeline;
      const route = state.route as RouteDefinition;
      const operation = options.operations[route.id];
      if (!operation) throw apiError('NOT_FOUND');
      const result = await operation({
        route,
        pathParameters: state.pathParameters ?? state.event.pathParameters,
        query: state.query ?? {},
        body: state.body,
        headers: state.event.headers,
        fullPath: state.event.fullPath,
        principal: state.admission?.principal,
        session: state.session,
        possession: state.possession,
        sourceIp: state.event.sourceIp,
        admissionSignal: state.signal,
        requestId: state.event.requestId,
        now: state.platform.clock(),
        platform: state.platform,
      });
      if (result.page) return pageResponse(state.event.requestId, String(result.data), result.headers);
      if (isSettingsPath(state.event.path)) return settingsResponse(state.event.requestId, result.data, result.status ?? 200, result.headers);
      return successResponse(state.event.requestId, result.data, result.status ?? 200, result.headers);
    });

  return (event, context) =>
    runInRequestScope(event.requestContext?.requestId ?? 'unknown', () =>
      pipeline(event, context as PipelineContext),
    );
}
