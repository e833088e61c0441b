/**
 * The machine-readable contract of a route: zod schemas of its path
 * parameters, query and body, the schema of its response `data`, its success
 * status, and the error codes it can answer. Declared once per route in
 * its group's `*-contracts.ts` (lambdas/<group>/); the pipeline validates input with these schemas
 * (answering the spec's codes, never zod's messages), and scripts/openapi.ts
 * renders them, with the envelopes and headers, as the OpenAPI document.
 *
 * A field names the code its failures answer with `withErrorCode` (stored as
 * the schema's `x-error-code` metadata, which the OpenAPI document shows).
 * Schemas are written with `zod/mini`, whose functions esbuild tree-shakes:
 * classic zod would add ~440 KiB to every function's bundle and cold start.
 */
// zod/mini: tree-shakeable (~13 KiB in a bundle, where classic zod adds ~440 KiB to every function).
import * as z from 'zod/mini';
import { ApiError, ERROR_CATALOG, type ErrorCode } from '../errors';
import type { RouteDefinition } from './routes';

export interface RouteContract {
  readonly summary: string;
  /**
   * The typed client's method for this operation (client/src/methods.generated.ts, `npm run openapi`): every partner
   * API operation names one (the document carries it as `x-client-method`); web settings have no client.
   */
  readonly clientMethod?: string;
  readonly description?: string;
  readonly pathParameters?: z.ZodMiniObject;
  readonly query?: z.ZodMiniObject;
  readonly body?: z.ZodMiniObject;
  readonly status: 200 | 201;
  /** The success status of an idempotent replay, where it differs (invitation creation: 201 new, 200 replay). */
  readonly replayStatus?: 200;
  /** Schema of the success envelope's `data`. */
  readonly data: z.ZodMiniType;
  /** Codes this operation answers beyond those its route declaration implies (see errorCodesOf). */
  readonly errors?: readonly ErrorCode[];
  /** Codes this operation answers with another of their catalog statuses (`otherStatuses`), e.g. INVITE_UNAVAILABLE as 409. */
  readonly errorStatus?: Partial<Record<ErrorCode, number>>;
}

/**
 * A route as its group declares it, once (`lambdas/<group>/*-contracts.ts`): where and to whom it answers (method,
 * path, authentication, scope, organization binding, limits category) beside its contract. The rest of its
 * RouteDefinition follows from the contract (its query's names, whether it takes a body), and its group's
 * `*-routes.ts`, what a cold start reads without zod, is generated from these (`npm run routes`).
 */
export type RouteDeclaration = RouteContract & Pick<RouteDefinition, 'method' | 'path' | 'auth' | 'scope' | 'partnerBound' | 'category'>;

/**
 * A group's route declarations (`lambdas/<group>/*-contracts.ts`): one for each route of its generated table
 * (`typeof X_ROUTES`) and no other, at the same method, path and authentication, so a declaration the table does not
 * follow yet (`npm run routes`) is a compile error. The group's function carries these only; lambdas/service/contracts.ts
 * assembles every group's for the OpenAPI documents and tests.
 */
export type GroupContracts<R extends readonly RouteDefinition[]> = {
  readonly [id in R[number]['id']]: RouteDeclaration & Pick<Extract<R[number], { readonly id: id }>, 'method' | 'path' | 'auth'>;
};

/** A function's contracts by route id (its group's; a test's function may add its own routes'). */
export type ContractTable = Readonly<Record<string, RouteContract>>;

/** Name a schema (a component of the OpenAPI document) or describe a field. */
export function named<T extends z.ZodMiniType>(id: string, schema: T): T {
  z.globalRegistry.add(schema, { id });
  return schema;
}
export function described<T extends z.ZodMiniType>(description: string, schema: T): T {
  z.globalRegistry.add(schema, { description });
  return schema;
}

/** An RFC 3339 date-time with Z or an offset. */
export const isoTime = () => z.iso.datetime({ offset: true });

/** The query of the spec's numbered lists (invitations, tickets): `page`, 1–10000, default 1. */
export const pageNumberQuery = () =>
  z.object({ page: withErrorCode(z.optional(described('1–10000, default 1', z.string().check(z.regex(/^(10000|[1-9][0-9]{0,3})$/)))), 'INVALID_PAGE') });

const ERROR_CODE_KEY = 'x-error-code';

/** Input that fails `schema` answers `code`. */
export function withErrorCode<T extends z.ZodMiniType>(schema: T, code: ErrorCode): T {
  z.globalRegistry.add(schema, { [ERROR_CODE_KEY]: code });
  return schema;
}

function codeOf(schema: z.ZodMiniType | undefined): ErrorCode | undefined {
  return schema ? (z.globalRegistry.get(schema)?.[ERROR_CODE_KEY] as ErrorCode | undefined) : undefined;
}

/**
 * Parse input with a route's schema. A failure answers the code of the first
 * failing field (`withErrorCode`), UNKNOWN_FIELD for a field the schema does
 * not declare (strict objects), else `fallback`. The message is the
 * catalog's, naming the field: zod's own messages never leave the service.
 */
export function parseInput<T extends z.ZodMiniObject>(schema: T, value: unknown, fallback: ErrorCode): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  if (issue.code === 'unrecognized_keys') throw new ApiError('UNKNOWN_FIELD');
  const field = typeof issue.path[0] === 'string' ? issue.path[0] : undefined;
  const code = codeOf(field === undefined ? undefined : (schema.shape as Record<string, z.ZodMiniType>)[field]) ?? fallback;
  throw new ApiError(code, field === undefined ? undefined : `${ERROR_CATALOG[code].message} (${field.slice(0, 64)})`);
}

/**
 * Codes every route can answer: edge, transport and routing rules, internal failure, the function's deadline, and a
 * write that lost a race its operation did not explain (WRITE_CONFLICT: the one error path answers such a refusal the
 * same way whatever the route, so it is declared where the deadline is rather than per contract, which would have to
 * follow which operations write).
 */
const EVERY_ROUTE: readonly ErrorCode[] = [
  'HTTPS_REQUIRED',
  'CREDENTIALS_IN_URL',
  'CONTENT_ENCODING_UNSUPPORTED',
  'BODY_TOO_LARGE',
  'PATH_TOO_LONG',
  'QUERY_TOO_LONG',
  'AUTH_HEADER_TOO_LONG',
  'UNKNOWN_PARAMETER',
  'DUPLICATE_PARAMETER',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'WRITE_CONFLICT',
];

/**
 * Every code an operation can answer, from its route declaration (what the
 * pipeline checks for it) and its contract (what its operation adds).
 */
export function errorCodesOf(route: RouteDefinition, contract: RouteContract): ErrorCode[] {
  const codes = new Set<ErrorCode>(EVERY_ROUTE);
  if (route.body === 'none') codes.add('BODY_NOT_ALLOWED');
  else for (const code of ['INVALID_JSON', 'JSON_REQUIRED', 'REQUEST_TIMEOUT', 'UNKNOWN_FIELD'] as const) codes.add(code);
  if (route.auth === 'key') {
    for (const code of ['INVALID_API_KEY', 'PARTNER_INACTIVE', 'PARTNER_MANAGER_REQUIRED', 'RATE_LIMIT_UNAVAILABLE'] as const) codes.add(code);
  }
  if (route.partnerBound) codes.add('PARTNER_SCOPE_MISMATCH');
  if (route.scope) codes.add('INSUFFICIENT_SCOPE');
  if (route.category) codes.add('CONCURRENCY_LIMITED');
  for (const schema of [contract.pathParameters, contract.query, contract.body]) {
    for (const field of Object.values((schema?.shape ?? {}) as Record<string, z.ZodMiniType>)) {
      const code = codeOf(field);
      if (code) codes.add(code);
    }
  }
  for (const code of contract.errors ?? []) codes.add(code);
  return [...codes];
}
