/**
 * The OpenAPI 3.1 documents of the service, built by one builder from the
 * route table (lambdas/shared/http/routes.ts), the contracts
 * (each group's *-contracts.ts, assembled in lambdas/service/contracts.ts), the error catalog and the limits' headers:
 * - the partner API (docs/openapi.json): the partner surface's routes, in the
 *   spec's envelope, with API keys;
 * - web settings (docs/settings-openapi.json): the `settings` group, session
 *   based (a cookie), its successes the data objects as they are and its
 *   errors the web-settings shape (`{code, message, request_id}`).
 * The player site is in neither (docs/player-site.md describes it).
 * `npm run openapi` writes both; a test fails when a committed file is stale,
 * an independent validator checks them, and the integration tests check every
 * response they receive against them (test/support/contract-check.ts).
 */
import * as z from 'zod/mini';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../lambdas/back-office/sessions';
import { ERROR_CATALOG } from '../lambdas/shared/errors';
import { errorCodesOf, type RouteContract } from '../lambdas/shared/http/contract';
import { ROUTE_CONTRACTS } from '../lambdas/service/contracts';
import { BUSINESS_EVENTS, EVENT_DATA, type EventField } from '../lambdas/outbox/business-events';
import { IDEMPOTENCY_KEY_PATTERN } from '../lambdas/invitations/invitation-model';
import { API_STAGE_NAME, isSettingsPath, SURFACE_OF_GROUP, type RouteDefinition } from '../lambdas/shared/http/routes';
import { ROUTES, type RouteId } from '../lambdas/service/routes';
import { clearedSessionCookie, SESSION_COOKIE, sessionCookie } from '../lambdas/settings/web-session';
import { LIMITS, type Limit } from '../lambdas/shared/limits/limits-table';
import { frontAnswers } from '../lib/config/front-answers';
import { envelopeMessage, type EnvelopeCode } from '../lib/constructs/error-envelope';
import { compactOpenApiDocument, formatJson } from './openapi-compact';

/** The partner contract's own version (the spec's "Versioning"); the interface version is `v1`, in the base URL. */
export const CONTRACT_VERSION = '1.1.0';
export const OPENAPI_FILE = 'docs/openapi.json';

/** The web settings' contract version (its own document: not part of the partner API). */
export const SETTINGS_CONTRACT_VERSION = '1.1.0';
export const SETTINGS_OPENAPI_FILE = 'docs/settings-openapi.json';

type Json = Record<string, unknown>;

const ref = (kind: 'schemas' | 'headers' | 'parameters' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/**
 * A zod schema as a JSON Schema (2020-12, OpenAPI 3.1's dialect). Schemas
 * named with `.meta({ id })` land in `named` (the document's
 * components.schemas) and are referenced from there.
 */
function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output', named: Record<string, Json>): Json {
  const rendered = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' });
  const text = JSON.stringify(rendered).replaceAll('"#/$defs/', '"#/components/schemas/');
  const { $schema: _schema, $defs, ...rest } = JSON.parse(text) as Json & { $defs?: Record<string, Json> };
  Object.assign(named, $defs ?? {});
  return rest;
}

/**
 * What sets one document apart from the other: which routes it holds, how
 * callers authenticate, which headers its responses carry, and how a success
 * and an error body are shaped. The rest (parameters, bodies, codes by
 * status) is the same builder's.
 */
export interface OpenApiSurface {
  /** Where `npm run openapi` writes it (relative to the repository). */
  readonly file: string;
  readonly info: Json;
  /** The base URL's description, where the document says it (paths are relative to it; it ends with the stage, `v1`). */
  readonly serverDescription?: string;
  readonly includes: (route: RouteDefinition) => boolean;
  readonly components: { readonly securitySchemes: Json; readonly headers: Record<string, Json>; readonly parameters?: Record<string, Json> };
  readonly security: (route: RouteDefinition) => Json[];
  /** Header parameters the request must carry (by reference to components.parameters). */
  readonly headerParameters: (route: RouteDefinition) => Json[];
  /** Names of components.headers a response of this status carries. */
  readonly responseHeaders: (route: RouteDefinition, status: number, success: boolean) => string[];
  /** A success body whose data has schema `data`, by media type. */
  readonly successContent: (route: RouteDefinition, data: Json) => Json;
  /** An error body answering one of `codes`. */
  readonly errorBody: (codes: readonly EnvelopeCode[]) => Json;
  /**
   * The body of the front door's own answers (gateway and WAF responses, lib/config/front-answers.ts) when it differs
   * from the functions' (the web side's gateway shape); absent: the same body, their codes merged into the functions'.
   */
  readonly frontErrorBody?: (codes: readonly EnvelopeCode[]) => Json;
}

const retryHeaders = (status: number) => (status === 429 || status === 503 ? ['Retry-After'] : []);

const BASE_HEADERS: Record<string, Json> = {
  'Cache-Control': { description: 'Always `no-store`.', schema: { type: 'string', const: 'no-store' } },
  'Retry-After': { description: 'Minimum wait in seconds, on responses needing retry guidance (429, 503).', schema: { type: 'integer', minimum: 1 } },
};

const RATE_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Policy'];

const awsServer = (description: string | undefined) => ({
  url: `https://{api_id}.execute-api.{region}.amazonaws.com/${API_STAGE_NAME}`,
  ...(description ? { description } : {}),
  variables: { api_id: { default: 'api-id' }, region: { default: 'eu-west-1' } },
});

export const PARTNER_SURFACE: OpenApiSurface = {
  file: OPENAPI_FILE,
  info: {
    title: 'Partner API',
    version: CONTRACT_VERSION,
    description:
      'Screening records, invitations, ticket progress, entitlements and signed webhooks for server-side integrations. ' +
      'Every response carries X-Request-Id and Cache-Control: no-store; logic must rely on the HTTP status and error.code. ' +
      'Clients must handle unknown 4xx and 5xx codes safely.',
  },
  // The stage's ApiBaseUrl output (it ends with the version segment v1); paths are relative to it.
  // The web side (the player site, web settings) is not part of the partner API.
  includes: (route) => SURFACE_OF_GROUP[route.group] === 'partner',
  components: {
    securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: '`pak_live_` followed by 64 hexadecimal characters' } },
    headers: {
      'X-Request-Id': { description: 'The request id, also in the body as `request_id`.', schema: { type: 'string' } },
      'Cache-Control': BASE_HEADERS['Cache-Control'],
      'X-RateLimit-Limit': { description: 'Maximum requests in the reported window, when available.', schema: { type: 'integer', minimum: 1 } },
      'X-RateLimit-Remaining': { description: 'Snapshot after admission; concurrent calls may consume it.', schema: { type: 'integer', minimum: 0 } },
      'X-RateLimit-Reset': { description: 'Window end, Unix seconds.', schema: { type: 'integer' } },
      'X-RateLimit-Policy': {
        description: 'Normally `key-minute`; a rejection names the limiting policy (e.g. `organization-day`, `invitation-hour`, `ticket-concurrency`).',
        schema: { type: 'string' },
      },
      'Retry-After': BASE_HEADERS['Retry-After'],
    },
    parameters: {
      'Idempotency-Key': {
        name: 'Idempotency-Key',
        in: 'header',
        required: true,
        description:
          'Scope of idempotency with the key id and the organization: a retry with the same key and body answers the original (200, `replayed: true`); never generate a new key to clear an error.',
        schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN.source },
      },
    },
  },
  security: (route) => (route.auth === 'key' ? [{ apiKey: [] }] : []),
  // The operations that answer IDEMPOTENCY_KEY_REQUIRED take an Idempotency-Key (invitation creation).
  headerParameters: (route) => (ROUTE_CONTRACTS[route.id as RouteId]?.errors?.includes('IDEMPOTENCY_KEY_REQUIRED') ? [ref('parameters', 'Idempotency-Key')] : []),
  // A 401 has no key to count against, so no rate-limit headers.
  responseHeaders: (route, status) => ['X-Request-Id', 'Cache-Control', ...(route.auth === 'key' && status !== 401 ? RATE_HEADERS : []), ...retryHeaders(status)],
  successContent: (_route, data) => ({
    'application/json': {
      schema: { type: 'object', required: ['ok', 'data', 'request_id'], properties: { ok: { const: true }, data, request_id: { type: 'string' } } },
    },
  }),
  errorBody: (codes) => ({
    type: 'object',
    required: ['ok', 'error', 'request_id'],
    properties: {
      ok: { const: false },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string', enum: [...codes].sort() }, message: { type: 'string' } },
      },
      request_id: { type: 'string' },
    },
  }),
};

/** The settings routes that answer HTML (the page) rather than JSON. */
const SETTINGS_PAGES: ReadonlySet<RouteId> = new Set<RouteId>(['settings-page']);

/** The settings routes whose success sets the session cookie, and what it does there. */
const SESSION_COOKIE_SETTERS: Readonly<Partial<Record<RouteId, string>>> = {
  'settings-sign-in': 'Opens the session: the new session cookie.',
  'settings-sign-out': 'Clears the session cookie (`Max-Age=0`).',
  'settings-password': 'Every other session ended: a new session cookie for this browser.',
  'settings-two-factor-confirm': 'Every other session ended: a new session cookie for this browser.',
};

/** The policies a web-settings rejection can name: its own quotas, signing in, and the web side's edge rules. */
const settingsPolicies = (limits: readonly Limit[]) =>
  [...new Set(limits.filter((l) => (l.kind === 'edge' ? l.surface === 'web' : /^(settings|sign-in)-/.test(l.policy))).map((l) => l.policy))];

const SETTINGS_BASE = `/${API_STAGE_NAME}/settings`;

export const SETTINGS_SURFACE: OpenApiSurface = {
  file: SETTINGS_OPENAPI_FILE,
  info: {
    title: 'Web settings API (session-based; not part of the partner API)',
    version: SETTINGS_CONTRACT_VERSION,
    description:
      'What the web settings page\u2019s script calls: signing in and out, the account\u2019s API keys, its webhook callbacks and their deliveries, its password, two-factor and audit trail. ' +
      'It takes no API key (a request with an Authorization header is 400 API_KEY_NOT_ACCEPTED); signed-in operations need the ' +
      `\`${SESSION_COOKIE}\` cookie (HttpOnly, Secure, SameSite=Strict, Path=${SETTINGS_BASE}), which ends after ${SESSION_IDLE_MS / 60_000} minutes ` +
      `without a request or ${SESSION_ABSOLUTE_MS / 3_600_000} hours after signing in, and at once for every session of the account on a password change, reset or deactivation. ` +
      'Every request that is not a GET must carry `Origin` naming this host (and `Sec-Fetch-Site: same-origin` when the browser sends it) and ' +
      '`X-Settings-Request: 1`, else 403 CSRF_CHECK_FAILED. A success body is the operation\u2019s JSON object as it is (no envelope); ' +
      'an error body is `{code, message, request_id}`. Every response carries X-Request-Id and Cache-Control: no-store.',
  },
  serverDescription: 'The web side\u2019s base URL (its own REST API, apart from the partner API\u2019s; it ends with the version segment v1); paths are relative to it.',
  // Web settings: every route under /settings, whichever function serves it (settings, sign-in, webhooks).
  includes: (route) => isSettingsPath(route.path),
  components: {
    securitySchemes: {
      settingsSession: {
        type: 'apiKey',
        in: 'cookie',
        name: SESSION_COOKIE,
        description: 'The session cookie signing in sets (HttpOnly: the page\u2019s script never reads it; the browser sends it).',
      },
    },
    headers: {
      'X-Request-Id': { description: 'The request id, also in an error body as `request_id`.', schema: { type: 'string' } },
      'Cache-Control': BASE_HEADERS['Cache-Control'],
      'X-RateLimit-Policy': {
        description: `On a 429: the limiting policy (docs/limits.md), one of ${settingsPolicies(LIMITS)
          .map((policy) => `\`${policy}\``)
          .join(', ')}.`,
        schema: { type: 'string' },
      },
      'Retry-After': BASE_HEADERS['Retry-After'],
      'Set-Cookie': {
        description:
          `The \`${SESSION_COOKIE}\` cookie, e.g. \`${sessionCookie('<token>', `${SETTINGS_BASE}/api/session`, SESSION_ABSOLUTE_MS / 1000)}\`, ` +
          `or, cleared, \`${clearedSessionCookie(`${SETTINGS_BASE}/api/session`)}\`.`,
        schema: { type: 'string' },
      },
    },
    parameters: {
      'X-Settings-Request': {
        name: 'X-Settings-Request',
        in: 'header',
        required: true,
        description: 'Always `1`: no form and no simple cross-site request can set it (with a same-host `Origin`, else 403 CSRF_CHECK_FAILED).',
        schema: { type: 'string', const: '1' },
      },
      'Idempotency-Key': {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Scope of idempotency with the signed-in account: a retry with the same key and request answers what the first attempt created (200, `replayed: true`, its secret not shown again); another request under the same key is 409 IDEMPOTENCY_CONFLICT. The settings page sends one per submission; without it a retry may create twice.',
        schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN.source },
      },
    },
  },
  security: (route) => (route.auth === 'session' ? [{ settingsSession: [] }] : []),
  // The creations that answer IDEMPOTENCY_CONFLICT take an (optional) Idempotency-Key.
  headerParameters: (route) =>
    route.method === 'GET'
      ? []
      : [
          ref('parameters', 'X-Settings-Request'),
          ...(ROUTE_CONTRACTS[route.id as RouteId]?.errors?.includes('IDEMPOTENCY_CONFLICT') ? [ref('parameters', 'Idempotency-Key')] : []),
        ],
  responseHeaders: (route, status, success) => [
    'X-Request-Id',
    'Cache-Control',
    ...retryHeaders(status),
    ...(status === 429 ? ['X-RateLimit-Policy'] : []),
    ...(success && SESSION_COOKIE_SETTERS[route.id as RouteId] ? ['Set-Cookie'] : []),
  ],
  successContent: (route, data) =>
    SETTINGS_PAGES.has(route.id as RouteId) ? { 'text/html': { schema: { type: 'string' } } } : { 'application/json': { schema: data } },
  errorBody: (codes) => ({
    type: 'object',
    required: ['code', 'message', 'request_id'],
    additionalProperties: false,
    properties: { code: { type: 'string', enum: [...codes].sort() }, message: { type: 'string' }, request_id: { type: 'string' } },
  }),
  // The web side's gateway and WAF bodies serve the player site too: the envelope with `code` and `message` on top.
  frontErrorBody: (codes) => {
    const code = { type: 'string', enum: [...codes].sort() };
    return {
      type: 'object',
      required: ['code', 'message', 'request_id'],
      additionalProperties: false,
      properties: {
        ok: { const: false },
        code,
        message: { type: 'string' },
        error: { type: 'object', required: ['code', 'message'], additionalProperties: false, properties: { code, message: { type: 'string' } } },
        request_id: { type: 'string' },
      },
    };
  },
};

export const OPENAPI_SURFACES: readonly OpenApiSurface[] = [PARTNER_SURFACE, SETTINGS_SURFACE];

function operation(surface: OpenApiSurface, route: RouteDefinition, contract: RouteContract, named: Record<string, Json>): Json {
  const parameters: Json[] = [];
  for (const [location, schema] of [
    ['path', contract.pathParameters],
    ['query', contract.query],
  ] as const) {
    const rendered = schema ? (jsonSchema(schema, 'input', {}) as { properties?: Record<string, Json>; required?: string[] }) : undefined;
    for (const [name, property] of Object.entries(rendered?.properties ?? {})) {
      parameters.push({ name, in: location, required: location === 'path' || (rendered?.required ?? []).includes(name), schema: property });
    }
  }
  for (const segment of route.path.match(/\{([a-z_]+)\}/g) ?? []) {
    const name = segment.slice(1, -1);
    if (!parameters.some((p) => p.name === name && p.in === 'path')) parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  parameters.push(...surface.headerParameters(route));

  const headersFor = (status: number, success: boolean): Json =>
    Object.fromEntries([...new Set(surface.responseHeaders(route, status, success))].map((name) => [name, ref('headers', name)]));

  const byStatus = new Map<number, EnvelopeCode[]>();
  const frontByStatus = new Map<number, EnvelopeCode[]>();
  const add = (map: Map<number, EnvelopeCode[]>, status: number, code: EnvelopeCode) => {
    const codes = map.get(status) ?? [];
    if (!codes.includes(code)) map.set(status, [...codes, code]);
  };
  for (const code of errorCodesOf(route, contract)) add(byStatus, contract.errorStatus?.[code] ?? ERROR_CATALOG[code].status, code);
  // What the surface's gateway and WAF answer on any operation (lib/config/front-answers.ts).
  // Merged into the functions' codes when the body is the same, except at a status no function answers.
  const frontAnswered = frontAnswers(SURFACE_OF_GROUP[route.group]);
  for (const answer of frontAnswered) {
    add(surface.frontErrorBody || !byStatus.has(answer.status) ? frontByStatus : byStatus, answer.status, answer.code);
  }
  const success = (status: number, description: string): Json => ({
    description,
    headers: headersFor(status, true),
    content: surface.successContent(route, jsonSchema(contract.data, 'output', named)),
  });
  const responses: Json = {
    [String(contract.status)]: success(contract.status, contract.summary),
    ...(contract.replayStatus ? { [String(contract.replayStatus)]: success(contract.replayStatus, 'Idempotent replay: the original result') } : {}),
  };
  const describe = (codes: readonly EnvelopeCode[]) => [...codes].sort().map((code) => `\`${code}\`: ${envelopeMessage(code)}`);
  for (const status of [...new Set([...byStatus.keys(), ...frontByStatus.keys()])].sort((a, b) => a - b)) {
    const codes = byStatus.get(status) ?? [];
    const front = frontByStatus.get(status) ?? [];
    // A front door's answers are the same on every operation: their bodies are named once (components.schemas).
    const frontOnly = (name: string, schema: Json) => ((named[name] ??= schema), ref('schemas', name));
    const schemas = [
      ...(codes.length > 0 ? [surface.errorBody(codes)] : []),
      ...(front.length > 0 && surface.frontErrorBody ? [frontOnly(`GatewayError${status}`, surface.frontErrorBody(front))] : []),
    ];
    if (schemas.length === 0) schemas.push(frontOnly(`GatewayError${status}`, surface.errorBody(front)));
    responses[String(status)] = {
      description: [...describe(codes), ...(front.length > 0 ? [`From the gateway or the edge: ${describe(front).join(' ')}`] : [])].join(' '),
      headers: headersFor(status, false),
      content: { 'application/json': { schema: schemas.length === 1 ? schemas[0] : { anyOf: schemas } } },
    };
  }

  return {
    operationId: route.id,
    summary: contract.summary,
    ...(contract.description ? { description: contract.description } : {}),
    ...(route.scope ? { 'x-scope': route.scope } : {}),
    ...(contract.clientMethod ? { 'x-client-method': contract.clientMethod } : {}),
    security: surface.security(route),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(contract.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(contract.body, 'input', named) } } } }
      : {}),
    responses,
  };
}

/**
 * The `webhooks` section (OpenAPI 3.1): what the service POSTs to a registered callback, one entry per business event
 * type (lambdas/outbox/business-events.ts), with the signed headers and what the receiver's answer means. In both
 * documents: the partner API's integrations receive them; web settings register the callbacks.
 */
function webhookSection(): { webhooks: Json; schemas: Record<string, Json>; parameters: Record<string, Json>; responses: Record<string, Json> } {
  const field = (value: EventField): Json => (value === 'string' ? { type: 'string' } : { type: 'string', enum: [...value] });
  const dataSchemas = Object.fromEntries(
    Object.entries(EVENT_DATA).map(([name, shape]) => [
      name,
      { type: 'object', additionalProperties: false, required: Object.keys(shape), properties: Object.fromEntries(Object.entries(shape).map(([key, value]) => [key, field(value)])) },
    ]),
  );
  const schemas: Record<string, Json> = {
    ...dataSchemas,
    Event: {
      description: 'The event envelope every delivery carries. Later v1 versions may add types: treat an unknown one conservatively (acknowledge it).',
      type: 'object',
      additionalProperties: false,
      required: ['id', 'type', 'api_version', 'partner_id', 'created_at', 'data'],
      properties: {
        id: { type: 'string', pattern: '^evt_[0-9a-z]{9}_[0-9a-f]{16}$', description: 'Equal to X-Service-Event-Id; the same on every attempt and resend: deduplicate by it.' },
        type: { type: 'string' },
        api_version: { const: 'v1' },
        partner_id: { type: 'string' },
        created_at: { type: 'string', format: 'date-time', description: 'Time of the business action, not of the delivery.' },
        data: { type: 'object', additionalProperties: true, description: 'The fields its type lists (the type’s `data` schema).' },
      },
    },
  };
  const parameters: Record<string, Json> = {
    'X-Service-Event-Id': { name: 'X-Service-Event-Id', in: 'header', required: true, description: 'The event id (the body’s `id`).', schema: { type: 'string' } },
    'X-Service-Timestamp': {
      name: 'X-Service-Timestamp',
      in: 'header',
      required: true,
      description: 'This attempt’s Unix seconds: refuse one further than about 300 s from your clock.',
      schema: { type: 'string', pattern: '^[0-9]+$' },
    },
    'X-Service-Signature': {
      name: 'X-Service-Signature',
      in: 'header',
      required: true,
      description: '`v1=` and the lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed with the UTF-8 bytes of the whole `whsec_…` secret. Verify it over the raw bytes, in constant time, before parsing (docs/webhooks.md).',
      schema: { type: 'string', pattern: '^v1=[0-9a-f]{64}$' },
    },
  };
  const responses: Record<string, Json> = {
    'Event.Received': { description: 'Received: the delivery is done. Answer only after processing or reliable queuing.' },
    'Event.Refused': { description: 'A failed attempt (`HTTP_4xx`): retried, up to 8 attempts in about 22 hours.' },
    'Event.Failed': { description: 'A failed attempt (`HTTP_5xx`; no answer within 8 s: `CONNECTION_FAILED`): retried, up to 8 attempts in about 22 hours.' },
  };
  const webhooks: Json = {};
  for (const event of BUSINESS_EVENTS) {
    schemas[`Event.${event.type}`] = {
      allOf: [ref('schemas', 'Event'), { required: ['type', 'data'], properties: { type: { const: event.type }, data: ref('schemas', event.data) } }],
    };
    webhooks[event.type] = {
      post: {
        operationId: event.type,
        summary: event.emittedWhen,
        security: [],
        parameters: ['X-Service-Event-Id', 'X-Service-Timestamp', 'X-Service-Signature'].map((name) => ref('parameters', name)),
        requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', `Event.${event.type}`) } } },
        responses: { '2XX': ref('responses', 'Event.Received'), '4XX': ref('responses', 'Event.Refused'), '5XX': ref('responses', 'Event.Failed') },
      },
    };
  }
  return { webhooks, schemas, parameters, responses };
}

export function buildOpenApiDocument(surface: OpenApiSurface = PARTNER_SURFACE, routes: readonly RouteDefinition[] = ROUTES): Json {
  const named: Record<string, Json> = {};
  const paths: Record<string, Json> = {};
  for (const route of routes.filter(surface.includes)) {
    const contract = ROUTE_CONTRACTS[route.id as RouteId];
    if (!contract) throw new Error(`Route ${route.id} has no contract in lambdas/service/contracts.ts`);
    paths[route.path] = { ...(paths[route.path] as Json | undefined), [route.method.toLowerCase()]: operation(surface, route, contract, named) };
  }
  const { securitySchemes, headers, parameters } = surface.components;
  const events = webhookSection();
  return {
    openapi: '3.1.0',
    info: surface.info,
    servers: [awsServer(surface.serverDescription)],
    paths,
    webhooks: events.webhooks,
    components: {
      securitySchemes,
      headers,
      parameters: { ...parameters, ...events.parameters },
      responses: events.responses,
      schemas: Object.fromEntries(Object.entries({ ...named, ...events.schemas }).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}

const compacted = new Map<OpenApiSurface, Json>();

/**
 * The committed document's content: the builder's over the service's routes, its repeated responses and bodies named
 * once (scripts/openapi-compact.ts). Built once per surface and process: `npm run openapi` and the client's generators
 * read it several times. Shared: read it, never change it (structuredClone first).
 */
export function committedDocument(surface: OpenApiSurface = PARTNER_SURFACE): Json {
  let document = compacted.get(surface);
  if (!document) compacted.set(surface, (document = compactOpenApiDocument(buildOpenApiDocument(surface))));
  return document;
}

/** The committed document's text. */
export function renderOpenApiDocument(surface: OpenApiSurface = PARTNER_SURFACE): string {
  return formatJson(committedDocument(surface));
}
