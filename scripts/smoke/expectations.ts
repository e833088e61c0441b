/**
 * What the spec promises about a response, as lists of problems (empty: the
 * promise holds). Each check gathers every problem of a response before it
 * fails, so one run names everything that is wrong.
 *
 * Shapes: the spec's envelope (`{ok, data | error: {code, message},
 * request_id}`), web settings' `{code, message, request_id}`; the web side's
 * edge and gateway responses carry both at once, which satisfies either.
 */
import { ERROR_CATALOG, type ErrorCode } from '../../lambdas/shared/errors';
import type { Probe } from './probe';

export type ErrorShape = 'envelope' | 'settings';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const describe = (value: unknown) => (value === undefined ? 'absent' : JSON.stringify(value));

/** Thrown by a check: its problems, each a sentence. */
export class CheckFailure extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('; '));
    this.name = 'CheckFailure';
  }
}

/** Fails the check with every problem found, if any. */
export function failOn(...problemLists: (readonly string[])[]): void {
  const problems = problemLists.flat();
  if (problems.length > 0) throw new CheckFailure(problems);
}

/**
 * The header that carries a response's request id: the service's `X-Request-Id`, or, on answers API Gateway gives
 * itself (its gateway responses, which cannot set a header from `$context`), its own `x-amzn-RequestId`.
 */
export type RequestIdHeader = 'x-request-id' | 'x-amzn-requestid';

/** A request id header and `Cache-Control: no-store` on every response; JSON bodies say so. */
export function commonHeaderProblems(probe: Probe, contentType: 'json' | 'html' = 'json', requestIdHeader: RequestIdHeader = 'x-request-id'): string[] {
  const problems: string[] = [];
  if (!nonEmptyString(probe.headers.get(requestIdHeader))) problems.push(requestIdHeader === 'x-request-id' ? 'no X-Request-Id header' : `no ${requestIdHeader} header`);
  if (!/(^|,)\s*no-store\s*(,|$)/i.test(probe.headers.get('cache-control') ?? '')) {
    problems.push(`Cache-Control is ${describe(probe.headers.get('cache-control') ?? undefined)}, not no-store`);
  }
  const type = probe.headers.get('content-type') ?? '';
  const expected = contentType === 'json' ? 'application/json' : 'text/html';
  if (!type.toLowerCase().startsWith(expected)) problems.push(`Content-Type is ${describe(type || undefined)}, not ${expected}`);
  return problems;
}

function statusProblems(probe: Probe, expected: number): string[] {
  if (probe.status === expected) return [];
  const location = probe.headers.get('location');
  return [`status ${probe.status}${location ? ` (redirect to ${location})` : ''}, expected ${expected}`];
}

/** The body's request_id is the request id header's value (both `edge` on WAF's custom answers). */
function requestIdProblems(probe: Probe, body: Json, requestIdHeader: RequestIdHeader = 'x-request-id'): string[] {
  if (!nonEmptyString(body.request_id)) return [`request_id is ${describe(body.request_id)}`];
  const header = probe.headers.get(requestIdHeader);
  const name = requestIdHeader === 'x-request-id' ? 'X-Request-Id' : requestIdHeader;
  return header && header !== body.request_id ? [`request_id ${describe(body.request_id)} differs from ${name} ${describe(header)}`] : [];
}

/** A success envelope with `status`: `{ok: true, data: {...}, request_id}`. Returns the data for further checks. */
export function successProblems(probe: Probe, status = 200): { problems: string[]; data: Json } {
  const problems = [...statusProblems(probe, status), ...commonHeaderProblems(probe)];
  const body = probe.json;
  if (!isObject(body)) return { problems: [...problems, `the body is not a JSON object: ${probe.text.slice(0, 120)}`], data: {} };
  if (body.ok !== true) problems.push(`ok is ${describe(body.ok)}, not true`);
  if (!isObject(body.data)) problems.push(`data is ${describe(body.data)}, not an object`);
  return { problems: [...problems, ...requestIdProblems(probe, body)], data: isObject(body.data) ? body.data : {} };
}

/**
 * An error in `shape` with `code`, at the status the spec gives the code
 * (ERROR_CATALOG), unless `status` says otherwise (codes only the edge answers).
 */
export function errorProblems(probe: Probe, code: string, shape: ErrorShape, status?: number, requestIdHeader: RequestIdHeader = 'x-request-id'): string[] {
  const expectedStatus = status ?? ERROR_CATALOG[code as ErrorCode]?.status;
  if (expectedStatus === undefined) throw new Error(`no status known for ${code}`);
  const problems = [...statusProblems(probe, expectedStatus), ...commonHeaderProblems(probe, 'json', requestIdHeader)];
  const body = probe.json;
  if (!isObject(body)) return [...problems, `the body is not a JSON object: ${probe.text.slice(0, 120)}`];
  const fields: { where: string; code: unknown; message: unknown }[] = [];
  if (shape === 'envelope') {
    if (body.ok !== false) problems.push(`ok is ${describe(body.ok)}, not false`);
    if (!isObject(body.error)) problems.push(`error is ${describe(body.error)}, not an object`);
    else fields.push({ where: 'error.', code: body.error.code, message: body.error.message });
    if ('code' in body) fields.push({ where: '', code: body.code, message: body.message });
  } else {
    fields.push({ where: '', code: body.code, message: body.message });
    if (isObject(body.error)) fields.push({ where: 'error.', code: body.error.code, message: body.error.message });
  }
  for (const field of fields) {
    if (field.code !== code) problems.push(`${field.where}code is ${describe(field.code)}, expected ${code}`);
    if (!nonEmptyString(field.message)) problems.push(`${field.where}message is ${describe(field.message)}`);
  }
  return [...problems, ...requestIdProblems(probe, body, requestIdHeader)];
}

const integerHeader = (probe: Probe, name: string): number | undefined => {
  const value = probe.headers.get(name);
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
};

/** The spec's X-RateLimit-* headers on an admitted request of a key. */
export function rateLimitHeaderProblems(probe: Probe): string[] {
  const problems: string[] = [];
  const limit = integerHeader(probe, 'x-ratelimit-limit');
  const remaining = integerHeader(probe, 'x-ratelimit-remaining');
  const reset = integerHeader(probe, 'x-ratelimit-reset');
  if (limit === undefined || limit < 1) problems.push(`X-RateLimit-Limit is ${describe(probe.headers.get('x-ratelimit-limit') ?? undefined)}, not an integer >= 1`);
  if (remaining === undefined) problems.push(`X-RateLimit-Remaining is ${describe(probe.headers.get('x-ratelimit-remaining') ?? undefined)}, not an integer >= 0`);
  else if (limit !== undefined && remaining > limit) problems.push(`X-RateLimit-Remaining ${remaining} exceeds X-RateLimit-Limit ${limit}`);
  // Unix seconds: ten digits for the next centuries; milliseconds would have thirteen.
  if (reset === undefined || reset < 1_000_000_000 || reset >= 10_000_000_000) {
    problems.push(`X-RateLimit-Reset is ${describe(probe.headers.get('x-ratelimit-reset') ?? undefined)}, not Unix seconds`);
  }
  if (!/^[\w-]+$/.test(probe.headers.get('x-ratelimit-policy') ?? '')) problems.push(`X-RateLimit-Policy is ${describe(probe.headers.get('x-ratelimit-policy') ?? undefined)}`);
  return problems;
}

/** An edge rejection (WAF, the in-process guard, the stage throttle): 429 RATE_LIMITED with the policy and Retry-After. */
export function edgeRejectionProblems(probe: Probe, shape: ErrorShape): string[] {
  const problems = errorProblems(probe, 'RATE_LIMITED', shape);
  const retryAfter = integerHeader(probe, 'retry-after');
  if (retryAfter === undefined || retryAfter < 1) problems.push(`Retry-After is ${describe(probe.headers.get('retry-after') ?? undefined)}, not an integer >= 1`);
  if (!/^[\w-]+$/.test(probe.headers.get('x-ratelimit-policy') ?? '')) problems.push(`X-RateLimit-Policy is ${describe(probe.headers.get('x-ratelimit-policy') ?? undefined)}`);
  return problems;
}
