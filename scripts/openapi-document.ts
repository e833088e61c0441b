/**
 * The OpenAPI 3.1 document of the API, built from the route table
 * (lambdas/shared/http/routes.ts), the contracts (route-contracts.ts), the
 * error catalog and the limits' headers. `npm run openapi` writes it to
 * docs/openapi.json; a test fails when the committed file is stale, an
 * independent validator checks it, and the integration tests check every
 * response they receive against it (test/support/contract-check.ts).
 */
import * as z from 'zod/mini';
import { ERROR_CATALOG, type ErrorCode } from '../lambdas/shared/errors';
import { errorCodesOf, type RouteContract } from '../lambdas/shared/http/contract';
import { ROUTE_CONTRACTS } from '../lambdas/shared/http/route-contracts';
import { ROUTES, type RouteDefinition, type RouteId } from '../lambdas/shared/http/routes';

/** The contract's own version (the spec's "Versioning"); the interface version is `v1`, in the base URL. */
export const CONTRACT_VERSION = '1.0.2';
export const OPENAPI_FILE = 'docs/openapi.json';

type Json = Record<string, unknown>;

const ref = (kind: 'schemas' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

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

const HEADERS: Record<string, Json> = {
  'X-Request-Id': { description: 'The request id, also in the body as `request_id`.', schema: { type: 'string' } },
  'Cache-Control': { description: 'Always `no-store`.', schema: { type: 'string', const: 'no-store' } },
  'X-RateLimit-Limit': { description: 'Maximum requests in the reported window, when available.', schema: { type: 'integer', minimum: 1 } },
  'X-RateLimit-Remaining': { description: 'Snapshot after admission; concurrent calls may consume it.', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'Window end, Unix seconds.', schema: { type: 'integer' } },
  'X-RateLimit-Policy': {
    description: 'Normally `key-minute`; a rejection names the limiting policy (e.g. `organization-day`, `invitation-hour`, `ticket-concurrency`).',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Minimum wait in seconds, on responses needing retry guidance (429, 503).', schema: { type: 'integer', minimum: 1 } },
};

const RATE_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Policy'];

function headersFor(status: number, authenticated: boolean): Json {
  const names = ['X-Request-Id', 'Cache-Control', ...(authenticated ? RATE_HEADERS : []), ...(status === 429 || status === 503 ? ['Retry-After'] : [])];
  return Object.fromEntries([...new Set(names)].map((name) => [name, ref('headers', name)]));
}

function errorEnvelope(codes: readonly ErrorCode[]): Json {
  return {
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
  };
}

function operation(route: RouteDefinition, contract: RouteContract, named: Record<string, Json>): Json {
  const authenticated = route.auth === 'key';
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

  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route, contract)) {
    const status = contract.errorStatus?.[code] ?? ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const success = (status: number, description: string): Json => ({
    description,
    headers: headersFor(status, authenticated),
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['ok', 'data', 'request_id'],
          properties: { ok: { const: true }, data: jsonSchema(contract.data, 'output', named), request_id: { type: 'string' } },
        },
      },
    },
  });
  const responses: Json = {
    [String(contract.status)]: success(contract.status, contract.summary),
    ...(contract.replayStatus ? { [String(contract.replayStatus)]: success(contract.replayStatus, 'Idempotent replay: the original result') } : {}),
  };
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.sort().map((code) => `\`${code}\`: ${ERROR_CATALOG[code].message}`).join(' '),
      headers: headersFor(status, authenticated && status !== 401),
      content: { 'application/json': { schema: errorEnvelope(codes) } },
    };
  }

  return {
    operationId: route.id,
    summary: contract.summary,
    ...(contract.description ? { description: contract.description } : {}),
    ...(route.scope ? { 'x-scope': route.scope } : {}),
    security: authenticated ? [{ apiKey: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(contract.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(contract.body, 'input', named) } } } }
      : {}),
    responses,
  };
}

export function buildOpenApiDocument(routes: readonly RouteDefinition[] = ROUTES): Json {
  const named: Record<string, Json> = {};
  const paths: Record<string, Json> = {};
  // The player site is not part of the partner API (docs/player-site.md describes it).
  for (const route of routes.filter((r) => r.auth !== 'player')) {
    const contract = ROUTE_CONTRACTS[route.id as RouteId];
    if (!contract) throw new Error(`Route ${route.id} has no contract in route-contracts.ts`);
    paths[route.path] = { ...(paths[route.path] as Json | undefined), [route.method.toLowerCase()]: operation(route, contract, named) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Partner API',
      version: CONTRACT_VERSION,
      description:
        'Screening records, invitations, ticket progress, entitlements and signed webhooks for server-side integrations. ' +
        'Every response carries X-Request-Id and Cache-Control: no-store; logic must rely on the HTTP status and error.code. ' +
        'Clients must handle unknown 4xx and 5xx codes safely.',
    },
    // The stage's ApiBaseUrl output (it ends with the version segment v1); paths are relative to it.
    servers: [{ url: 'https://{api_id}.execute-api.{region}.amazonaws.com/v1', variables: { api_id: { default: 'api-id' }, region: { default: 'eu-west-1' } } }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: '`pak_live_` followed by 64 hexadecimal characters' } },
      headers: HEADERS,
      schemas: Object.fromEntries(Object.entries(named).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}

export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
