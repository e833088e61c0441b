/**
 * One request per request rule and per operation of both OpenAPI documents (docs/openapi.json,
 * docs/settings-openapi.json), through the local front: each request breaks exactly one rule (a credential in the URL,
 * an over-long path, query or Authorization header, an unknown or repeated parameter, a body where none is allowed, a
 * body that is too large, not JSON, not declared JSON or never arrives, a header block over the front's limit, a
 * missing or too narrow credential, an organization not the key's, a key of an archived organization or of a creator
 * who no longer manages it, plain HTTP, a state-changing settings call without its page's headers) and must be answered with that rule's code, in a status and body its operation's document declares
 * (`checkResponse`, test/support/contract-check.ts).
 *
 * The rules are the catalogue's: every code an operation's route declaration implies (`errorCodesOf` without the
 * operation's own fields) and every answer the surface's front can give (lib/config/front-answers.ts) is either sent
 * here or named in NOT_SENT_HERE with the test that produces it, so a rule added to either catalogue fails this file
 * until it is tried on every operation.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodesOf } from '../../lambdas/shared/http/contract';
import { REQUEST_LIMITS } from '../../lambdas/shared/http/request-rules';
import { SURFACE_OF_GROUP, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { ROUTES, type RouteId } from '../../lambdas/service/routes';
import { ROUTE_CONTRACTS } from '../../lambdas/service/contracts';
import { SETTINGS_REQUEST_HEADER, SESSION_COOKIE } from '../../lambdas/settings/web-session';
import { frontAnswers } from '../../lib/config/front-answers';
import { checkResponse, ContractViolation } from '../support/contract-check';
import { wireRequest, type WireAnswer } from '../support/raw-http';
import { raisedHandlers } from '../support/raised-quotas';
import { recordInput } from '../support/record-input';
import { SettingsBrowser } from '../support/settings-browser';
import { startTestStack, type TestStack } from '../support/test-stack';

type Json = Record<string, any>;

interface Operation {
  readonly route: RouteDefinition;
  readonly surface: 'partner' | 'settings';
}

/** The operations of both documents, each with its route declaration (operationId is the route id). */
const operations: Operation[] = [
  ['partner', 'docs/openapi.json'],
  ['settings', 'docs/settings-openapi.json'],
].flatMap(([surface, file]) => {
  const document = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', file), 'utf8')) as Json;
  return Object.values(document.paths as Record<string, Record<string, Json>>).flatMap((methods) =>
    Object.values(methods).map((op) => {
      const route = ROUTES.find((r) => r.id === op.operationId);
      if (!route) throw new Error(`${file}: operation ${op.operationId} has no route`);
      return { route, surface: surface as Operation['surface'] };
    }),
  );
});

/** A request as the rule shapes it, on top of a request that passes every rule. */
interface Broken {
  /** Replaces the first path parameter's value. */
  readonly pathValue?: string;
  readonly query?: string;
  /** Added after the credential headers (a header named here replaces theirs). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** No credential at all (no Authorization; no session cookie). */
  readonly anonymous?: boolean;
  /** A key of the organization carrying only this scope. */
  readonly scope?: string;
  /** The organization in the path is another one than the key's. */
  readonly otherPartner?: boolean;
  /** A key (every scope) of an archived organization, or of one its creator no longer manages; the path names it. */
  readonly keyOf?: 'archived' | 'unmanaged';
  /** Leave out the settings page's own headers (Origin, X-Settings-Request). */
  readonly withoutPageHeaders?: boolean;
}

interface Rule {
  readonly code: string;
  readonly status: number;
  readonly applies: (op: Operation) => boolean;
  readonly request: (op: Operation) => Broken;
}

const JSON_TYPE = { 'Content-Type': 'application/json' };
const hasPathParameter = (op: Operation) => op.route.path.includes('{');
const hasBody = (op: Operation) => op.route.body === 'json';
const anyOperation = () => true;

const RULES: readonly Rule[] = [
  // The web ACL's rules (the local front mirrors them: local/waf-mirror.ts).
  { code: 'CREDENTIALS_IN_URL', status: 400, applies: anyOperation, request: () => ({ query: 'api_key=x' }) },
  { code: 'PATH_TOO_LONG', status: 414, applies: hasPathParameter, request: () => ({ pathValue: 'a'.repeat(REQUEST_LIMITS.pathChars + 1) }) },
  { code: 'QUERY_TOO_LONG', status: 414, applies: anyOperation, request: () => ({ query: `q=${'a'.repeat(REQUEST_LIMITS.queryChars)}` }) },
  // The front's own: a declared body that never arrives, a header block over its limit.
  { code: 'REQUEST_TIMEOUT', status: 408, applies: anyOperation, request: () => ({ headers: { ...JSON_TYPE, 'Content-Length': '16' } }) },
  { code: 'REQUEST_REJECTED', status: 431, applies: anyOperation, request: () => ({ headers: { 'X-Padding': 'p'.repeat(20_000) } }) },
  // The pipeline's request rules, the same on every operation.
  { code: 'HTTPS_REQUIRED', status: 400, applies: anyOperation, request: () => ({ headers: { 'X-Forwarded-Proto': 'http' } }) },
  { code: 'BODY_TOO_LARGE', status: 413, applies: anyOperation, request: () => ({ headers: JSON_TYPE, body: `{"x":"${'a'.repeat(REQUEST_LIMITS.bodyBytes)}"}` }) },
  { code: 'CONTENT_ENCODING_UNSUPPORTED', status: 415, applies: anyOperation, request: () => ({ headers: { 'Content-Encoding': 'gzip' } }) },
  { code: 'AUTH_HEADER_TOO_LONG', status: 431, applies: anyOperation, request: () => ({ headers: { Authorization: `Bearer ${'a'.repeat(REQUEST_LIMITS.authorizationChars)}` } }) },
  { code: 'UNKNOWN_PARAMETER', status: 422, applies: anyOperation, request: () => ({ query: 'unexpected=1' }) },
  {
    code: 'DUPLICATE_PARAMETER',
    status: 422,
    applies: (op) => op.route.query.length > 0,
    request: (op) => ({ query: `${op.route.query[0]}=1&${op.route.query[0]}=1` }),
  },
  { code: 'BODY_NOT_ALLOWED', status: 400, applies: (op) => !hasBody(op), request: () => ({ headers: JSON_TYPE, body: '{}' }) },
  { code: 'JSON_REQUIRED', status: 415, applies: hasBody, request: () => ({ headers: { 'Content-Type': 'text/plain' }, body: '{}' }) },
  { code: 'INVALID_JSON', status: 400, applies: hasBody, request: () => ({ headers: JSON_TYPE, body: '{"a":' }) },
  // Credentials.
  { code: 'INVALID_API_KEY', status: 401, applies: (op) => op.route.auth === 'key', request: () => ({ anonymous: true }) },
  {
    code: 'INSUFFICIENT_SCOPE',
    status: 403,
    applies: (op) => op.route.scope !== undefined,
    request: (op) => ({ scope: op.route.scope === 'public:read' ? 'records:read' : 'public:read' }),
  },
  { code: 'PARTNER_SCOPE_MISMATCH', status: 403, applies: (op) => op.route.partnerBound === true, request: () => ({ otherPartner: true }) },
  { code: 'PARTNER_INACTIVE', status: 409, applies: (op) => op.route.auth === 'key', request: () => ({ keyOf: 'archived' }) },
  { code: 'PARTNER_MANAGER_REQUIRED', status: 403, applies: (op) => op.route.auth === 'key', request: () => ({ keyOf: 'unmanaged' }) },
  { code: 'SESSION_REQUIRED', status: 401, applies: (op) => op.route.auth === 'session', request: () => ({ anonymous: true }) },
  {
    code: 'CSRF_CHECK_FAILED',
    status: 403,
    applies: (op) => op.surface === 'settings' && op.route.method !== 'GET',
    request: () => ({ withoutPageHeaders: true }),
  },
];

/** Codes of the catalogues that are not sent per operation here, and where each is produced. */
const NOT_SENT_HERE: Readonly<Record<string, string>> = {
  RATE_LIMITED: 'quotas and rates: quotas.test.ts, rolling-window.test.ts, web-settings-limits.test.ts, edge-protection.test.ts',
  RATE_LIMIT_UNAVAILABLE: 'the counters failing: store-timeouts.test.ts',
  CONCURRENCY_LIMITED: 'concurrent slots: quotas.test.ts',
  INTERNAL_ERROR: 'a failing handler or integration: front-fidelity.test.ts, front-function-timeout.test.ts',
  SERVICE_UNAVAILABLE: 'a store or deadline failing: store-timeouts.test.ts, front-function-timeout.test.ts',
  WRITE_CONFLICT: 'a write DynamoDB refused that no operation explained: stray-refusals.test.ts',
  UNKNOWN_FIELD: "each body's own fields: contract-fuzz.test.ts and the group's tests",
  REQUEST_BLOCKED: "WAF's managed rule groups, which AWS runs (no local mirror): test/infra/edge-protection.test.ts",
};

const PASSWORD = 'rules password 1234';
let stack: TestStack;
let session: string;
let partnerId: string;
let otherPartnerId: string;
const keysByScope = new Map<string, string>();
/** Keys with every scope, one per request in flight: invitation and ticket routes hold 2 slots per key at once. */
const fullKeys: string[] = [];
const keysOf: Partial<Record<'archived' | 'unmanaged', { partnerId: string; key: string }>> = {};
const pathValues: Record<string, string> = {};

beforeAll(async () => {
  stack = await startTestStack({ handlers: raisedHandlers() });
  const email = `rules-${Date.now()}@example.com`;
  const { account_id } = await stack.office.accounts.create('Rules manager', { email, password: PASSWORD });
  ({ partner_id: partnerId } = await stack.office.organizations.create('Rules organization'));
  ({ partner_id: otherPartnerId } = await stack.office.organizations.create('Another organization'));
  await stack.office.memberships.set(partnerId, account_id, 'manager');
  await stack.office.memberships.set(otherPartnerId, account_id, 'manager');
  const scopes = ['records:read', 'public:read', 'invitations:read', 'invitations:write', 'entitlements:read', 'tickets:read'];
  for (let i = 0; i < 8; i += 1) fullKeys.push((await stack.office.keys.create({ accountId: account_id, partnerId, scopes })).key);
  for (const scope of ['records:read', 'public:read']) keysByScope.set(scope, (await stack.office.keys.create({ accountId: account_id, partnerId, scopes: [scope] })).key);
  // A key of an organization archived since, and one whose creator no longer manages its organization.
  for (const [kind, name] of [
    ['archived', 'Archived organization'],
    ['unmanaged', 'Unmanaged organization'],
  ] as const) {
    const { partner_id } = await stack.office.organizations.create(name);
    const { account_id: creator } = await stack.office.accounts.create(`${name} manager`);
    await stack.office.memberships.set(partner_id, creator, 'manager');
    keysOf[kind] = { partnerId: partner_id, key: (await stack.office.keys.create({ accountId: creator, partnerId: partner_id, scopes })).key };
    if (kind === 'archived') await stack.office.organizations.archive(partner_id);
    else await stack.office.memberships.set(partner_id, creator, 'member');
  }
  const record = await stack.office.records!.put(partnerId, recordInput('Rules'));
  const created = await stack.call(`/partners/${partnerId}/invitations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${fullKeys[0]}`, ...JSON_TYPE, 'Idempotency-Key': `rules-invitation-${Date.now()}` },
    body: JSON.stringify({ game: 'fps' }),
  });
  const browser = new SettingsBrowser(stack);
  expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
  session = browser.token!;
  const keys = (await (await browser.get('/settings/api/keys')).json()) as { keys: { key_id: string }[] };
  Object.assign(pathValues, {
    partner_id: partnerId,
    uuid: record.uuid,
    record_id: record.id,
    invitation_id: ((await created.json()) as { data: { id: string } }).data.id,
    key_id: keys.keys[0].key_id,
    webhook_id: `wh_${'0'.repeat(20)}`,
    delivery_id: `dlv_000000000_${'0'.repeat(16)}`,
  });
});
afterAll(() => stack?.stop());

/** The request line, headers and body of `op` broken as `broken` says; everything else as a well-behaved caller sends it. */
function requestOf(op: Operation, broken: Broken, fullKey: string) {
  let first = true;
  const path = op.route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const partner = broken.keyOf ? keysOf[broken.keyOf]!.partnerId : broken.otherPartner ? otherPartnerId : partnerId;
    const value = first && broken.pathValue !== undefined ? broken.pathValue : name === 'partner_id' ? partner : pathValues[name];
    first = false;
    if (value === undefined) throw new Error(`no value for {${name}}`);
    return encodeURIComponent(value);
  });
  const headers: Record<string, string> = {};
  const origin = new URL(stack.baseUrl).origin;
  if (!broken.anonymous) {
    if (op.surface === 'partner') headers.Authorization = `Bearer ${broken.keyOf ? keysOf[broken.keyOf]!.key : broken.scope ? keysByScope.get(broken.scope) : fullKey}`;
    else headers.Cookie = `${SESSION_COOKIE}=${session}`;
  }
  if (op.surface === 'settings' && !broken.withoutPageHeaders) {
    headers.Origin = origin;
    if (op.route.method !== 'GET') headers[SETTINGS_REQUEST_HEADER] = '1';
  }
  Object.assign(headers, broken.headers);
  const target = `${new URL(stack.baseUrl).pathname}${path}${broken.query === undefined ? '' : `?${broken.query}`}`;
  return { path: `${path}${broken.query === undefined ? '' : `?${broken.query}`}`, target, headers, body: broken.body };
}

const codeOf = (answer: WireAnswer): unknown => {
  const body = answer.json as Json | undefined;
  return body?.error?.code ?? body?.code;
};

describe('one request per rule and per operation', () => {
  it('names every rule of the catalogues: sent here, or produced by another test', () => {
    const sent = new Set(RULES.map((rule) => rule.code));
    const catalogued = new Set<string>();
    for (const { route, surface } of operations) {
      const contract = ROUTE_CONTRACTS[route.id as RouteId];
      // What the route declaration implies (the pipeline's rules), without the operation's own fields and errors.
      for (const code of errorCodesOf(route, { ...contract, pathParameters: undefined, query: undefined, body: undefined, errors: [] })) catalogued.add(code);
      for (const answer of frontAnswers(SURFACE_OF_GROUP[route.group])) catalogued.add(answer.code);
      expect(SURFACE_OF_GROUP[route.group] === 'partner').toBe(surface === 'partner');
    }
    const unnamed = [...catalogued].filter((code) => !sent.has(code) && !(code in NOT_SENT_HERE));
    expect(unnamed).toEqual([]);
    expect(Object.keys(NOT_SENT_HERE).filter((code) => !catalogued.has(code))).toEqual([]);
  });

  it('answers each broken request with its rule, in a status and body the operation documents', async () => {
    const cases = operations.flatMap((op) => RULES.filter((rule) => rule.applies(op)).map((rule) => ({ op, rule })));
    const failures: string[] = [];
    const send = async ({ op, rule }: (typeof cases)[number], fullKey: string) => {
      const request = requestOf(op, rule.request(op), fullKey);
      const where = `${rule.code} on ${op.route.method} ${op.route.path}`;
      const answer = await wireRequest(stack.baseUrl, {
        method: op.route.method,
        target: request.target,
        headers: Object.entries(request.headers),
        body: request.body,
      });
      if (answer.status !== rule.status || codeOf(answer) !== rule.code) {
        failures.push(`${where}: ${answer.status} ${String(codeOf(answer))} (${answer.text.slice(0, 160)})`);
        return;
      }
      try {
        await checkResponse(op.route.method, request.path, new Response(answer.text, { status: answer.status, headers: answer.headers }));
      } catch (error) {
        failures.push(`${where}: ${error instanceof ContractViolation ? error.message : String(error)}`);
      }
    };
    // A body that never arrives waits out the front's body deadline (5 s) and reaches no function: those requests all
    // wait at once, beside the others, which go a few at a time (8, each with a key of its own: invitation and ticket
    // routes hold 2 slots per key).
    const waiting = cases.filter(({ rule }) => rule.code === 'REQUEST_TIMEOUT');
    const queue = cases.filter(({ rule }) => rule.code !== 'REQUEST_TIMEOUT');
    let next = 0;
    await Promise.all([
      ...waiting.map((one) => send(one, fullKeys[0])),
      ...Array.from({ length: 8 }, async (_, worker) => {
        while (next < queue.length) await send(queue[next++], fullKeys[worker]);
      }),
    ]);
    console.log(`operation rules: ${cases.length} requests, ${operations.length} operations × ${RULES.length} rules where they apply`);
    expect(failures).toEqual([]);
    expect(cases.length).toBeGreaterThan(operations.length * 10);
  }, 300_000);
});
