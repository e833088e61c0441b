/**
 * A seeded fuzz through the local front, over raw sockets (fetch() would
 * normalize the very targets under test): header names and values, query
 * names and values, request targets (`..`, `\`, `//`, `%2F`, `%00`, `%`
 * garbage, raw and encoded unicode, very long, outside the stage, absolute
 * form, fragments), methods and bodies, with and without a valid key. Every
 * answer must be below 500 and carry the envelope with a request id equal to
 * X-Request-Id: whatever the client sends, the front and the pipeline answer
 * like the deployed API does, never with a crash (a 502) or a bare status.
 *
 * Settings paths get a fuzz of their own over the request forms Node's parser
 * refuses (lower-case and unknown methods, NUL and control characters in the
 * target, query names and header names, bodies on GET with and without a
 * length, over-long request lines and headers), with and without a signed-in
 * session: every answer there must be in web settings' shape, and every answer
 * to the same forms on the partner API in its envelope.
 *
 * A failure lists the requests that broke the rule; the seed makes them
 * replayable.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeKey } from '../../lambdas/identity/describe-key';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { ROUTE_CONTRACTS } from '../../lambdas/service/contracts';
import { isSettingsPath, Router, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { frontAnswers } from '../../lib/config/front-answers';
import { HANDLERS } from '../../local/handlers';
import { stagePathOf } from '../../local/http-front';
import { parseRequestTarget } from '../../local/request-target';
import { rawConnection } from '../support/raw-connection';
import { wireRequest, type WireAnswer, type WireRequest } from '../support/raw-http';
import { SettingsBrowser } from '../support/settings-browser';
import { createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

/** Names a client may choose that are also members of Object.prototype, declared so they reach the operation. */
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

const echoQueryRoute: RouteDefinition = {
  id: 'fuzz-echo',
  method: 'GET',
  path: '/partners/{partner_id}/fuzz',
  group: 'identity',
  auth: 'key',
  partnerBound: true,
  query: ['q', ...PROTOTYPE_NAMES],
  body: 'none',
};
const router = new Router([...ROUTES, echoQueryRoute]);

let stack: TestStack;
let partnerId: string;
/** A signed-in settings session's cookie. */
let settingsCookie: string;
/** Several keys of one organization, so the fuzz stays below each key's minute quota and reaches the operations. */
const keys: string[] = [];

beforeAll(async () => {
  const identity = createPartnerApiHandler({ contracts: ROUTE_CONTRACTS, routes: ROUTES,
    router,
    operations: { me: describeKey, 'fuzz-echo': async ({ query }) => ({ data: { query: { ...query } } }) },
  });
  stack = await startTestStack({ router, handlers: { ...HANDLERS, identity } });
  const org = await createOrgWithManagerKey(stack.office, ['records:read', 'public:read', 'entitlements:read']);
  partnerId = org.partner_id;
  keys.push(org.key.key);
  for (let i = 0; i < 3; i += 1) {
    const extra = await stack.office.keys.create({ accountId: org.account_id, partnerId, scopes: ['records:read', 'public:read'] });
    keys.push(extra.key);
  }
  const email = `front-fuzz-${Date.now()}@example.com`;
  await stack.office.accounts.create('Front fuzz', { email, password: 'front fuzz password 1234' });
  const browser = new SettingsBrowser(stack);
  expect((await browser.signIn(email, 'front fuzz password 1234')).status).toBe(200);
  settingsCookie = `settings_session=${browser.token}`;
});
afterAll(() => stack?.stop());

const send = (request: WireRequest) => wireRequest(stack.baseUrl, request);

/** Why an answer breaks the rule, or undefined: below 500, the envelope, a request id in the body and the header. */
function envelopeFault(answer: WireAnswer): string | undefined {
  if (answer.status >= 500) return `status ${answer.status}`;
  const body = answer.json;
  if (body === undefined || typeof body !== 'object' || body === null) return 'no JSON body';
  if (body.ok === false && (typeof body.error?.code !== 'string' || typeof body.error?.message !== 'string')) return 'no error code and message';
  if (body.ok !== true && body.ok !== false) return 'no ok flag';
  if (typeof body.request_id !== 'string' || body.request_id === '') return 'no request_id';
  if (answer.headers['x-request-id'] !== body.request_id) return 'X-Request-Id differs from request_id';
  return undefined;
}

describe('requests Node refuses to parse get the envelope, not a bare status line', () => {
  it.each([
    { name: 'raw UTF-8 bytes in the target', request: { target: '/v1/h\u00e9alth?q=\u{1F4A5}' }, status: 400 },
    { name: 'a space in the target', request: { target: '/v1/he alth' }, status: 400 },
    { name: 'an empty header name', request: { target: '/v1/health', headers: [['', 'x']] as const }, status: 400 },
    { name: 'a header name that is not a token', request: { target: '/v1/health', headers: [['X \u00e4', 'x']] as const }, status: 400 },
    { name: 'a header block over the limit (a 20,000-character path)', request: { target: `/v1/${'a'.repeat(20_000)}` }, status: 431 },
    { name: 'a Content-Length that is not a number', request: { target: '/v1/health', headers: [['Content-Length', 'abc']] as const }, status: 400 },
  ])('$name: $status REQUEST_REJECTED (API Gateway\u2019s DEFAULT_4XX envelope)', async ({ request, status }) => {
    const answer = await send(request);
    expect(answer.status).toBe(status);
    expect(answer.json?.error?.code).toBe('REQUEST_REJECTED');
    expect(envelopeFault(answer)).toBeUndefined();
  });

  it.each([
    { name: 'raw UTF-8 bytes in a settings target', request: { target: '/v1/settings/api/keys?q=\u{1F4A5}' }, status: 400 },
    { name: 'an empty header name on the player site', request: { target: '/v1/join/x', headers: [['', 'x']] as const }, status: 400 },
    { name: 'a Content-Length that is not a number on a settings route', request: { target: '/v1/settings/api/session', headers: [['Content-Length', 'abc']] as const }, status: 400 },
  ])('$name: the web side\u2019s gateway shape (top-level code and message, and the envelope), as its DEFAULT_4XX gives', async ({ request, status }) => {
    const answer = await send(request);
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject({ ok: false, code: 'REQUEST_REJECTED', message: expect.any(String), error: { code: 'REQUEST_REJECTED' } });
    expect(envelopeFault(answer)).toBeUndefined();
  });

  it('serves a request whose Expect header is not 100-continue instead of a bare 417', async () => {
    const answer = await send({ target: '/v1/health', headers: [['Expect', 'something-else']] });
    expect(answer.status).toBe(200);
    expect(envelopeFault(answer)).toBeUndefined();
  });
});

describe('query values decoded like API Gateway', () => {
  it('decodes every valid escape and keeps only the invalid one (`%C3%A9%` is `\u00e9%`), and `+` is a space', async () => {
    const answer = await send({ target: `/v1/partners/${partnerId}/fuzz?q=%C3%A9%25%+a`, headers: [['Authorization', `Bearer ${keys[0]}`]] });
    expect(answer.status).toBe(200);
    expect((answer.json?.data as { query: { q: string } }).query.q).toBe('\u00e9%% a');
  });
});

/** A deterministic stream of numbers in [0, 1) from a seed, so a failing request can be replayed. */
function seededRandom(seed: string): () => number {
  let counter = 0;
  return () => createHash('sha256').update(`${seed}:${counter++}`).digest().readUInt32BE(0) / 2 ** 32;
}

describe('fuzz: no request gets a 5xx or an answer without the envelope', () => {
  const SEED = 'front-fuzz-2026-11-22';
  const REQUESTS = 300;

  /** Stage prefixes other than `/v1` (a quarter of the requests): missing, another stage, `..`, `.`, `//`, encoded, absolute form. */
  const ODD_STAGE_PREFIXES = ['', '/v2', '/V1', '//v1', '/v1/..', '/%76%31', 'http://127.0.0.1/v1', '/v1/.', '/v1/'];
  /** Paths of real routes (most requests), so that fuzzed names and values reach authentication and the operations. */
  const ROUTE_PATHS = ['/me', '/health', '/entitlements', '/records/USS-20260001-abcdef000001', '/partners/{partner}/fuzz', '/partners/{partner}/fuzz', '/partners/{partner}/entitlements', '/partners/{partner}/records/rec_0'];
  const SEGMENTS = [
    'me', 'health', 'records', 'partners', '{partner}', 'fuzz', 'entitlements', 'USS-20260001-abcdef000001',
    '..', '.', '', '\\', '%2F', '%2f', '%2e%2e', '%00', '%', '%zz', '%E0%A4%A', '%5C',
    '__proto__', 'constructor', 'toString', 'hasOwnProperty', '\u00e4', '\u{1F4A5}', '%F0%9F%92%A5', 'a'.repeat(200), 'pak%5Flive_',
  ];
  const QUERY_NAMES = [...PROTOTYPE_NAMES, '', 'q', 'Q', '%', '%zz', '%00', '\u00e4', '%C3%A4', '\u{1F4A5}', '+', 'a+b', 'limit', 'api_key', '__proto__[x]', '%5F%5Fproto%5F%5F'];
  const VALUES = ['', 'x', '%', '%zz', '%E0%A4%A', '+ +', '\u00e9', '\u{1F4A5}', '%F0%9F%92%A5', '__proto__', '{"a":1}', '%00', 'a'.repeat(300), '..', '%2F', '=', '%26', ':'.repeat(50)];
  const HEADER_NAMES = [
    ...PROTOTYPE_NAMES, 'X-Forwarded-Proto', 'x-forwarded-for', 'Content-Type', 'Content-Encoding', 'Content-Encoding',
    'Expect', 'X-Amzn-Trace-Id', 'X-Request-Id', 'Accept', 'Accept', 'X-Custom', 'X-Custom', '', 'X \u00e4',
  ];
  const HEADER_VALUES = ['x', '', 'https', 'https', 'http', 'identity', 'identity', 'gzip', 'identity, gzip', 'application/json', '\u00e9', '\u{1F4A5}', '%00', '__proto__', 'a'.repeat(300)];
  const METHODS = ['GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
  const BODIES = ['{}', '{"a":1}', '[]', 'null', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '', 'not json', '{"k":"pak\\u005flive_'];

  it(`answers ${REQUESTS} seeded requests below 500 with the envelope and a request id`, async () => {
    const next = seededRandom(SEED);
    const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
    // Mostly encoded as a client would; raw now and then (a raw space or non-ASCII byte is a request Node refuses).
    const encodeSometimes = (text: string) => (next() < 0.85 ? encodeURIComponent(text) : text);
    const faults: string[] = [];

    for (let i = 0; i < REQUESTS; i += 1) {
      const stage = next() < 0.75 ? '/v1' : pick(ODD_STAGE_PREFIXES);
      const path = next() < 0.6 ? pick(ROUTE_PATHS) : `/${Array.from({ length: 1 + Math.floor(next() * 4) }, () => pick(SEGMENTS)).join('/')}`;
      const longPath = next() < 0.05 ? `/${'p'.repeat(pick([300, 509, 600, 5_000, 17_000]))}` : '';
      const query = Array.from({ length: Math.floor(next() * 4) }, () => `${encodeSometimes(pick(QUERY_NAMES))}=${encodeSometimes(pick(VALUES))}`);
      const fragment = next() < 0.05 ? '#frag' : '';
      const target = `${stage}${path.replace('{partner}', partnerId)}${longPath}${query.length > 0 ? `?${query.join('&')}` : ''}${fragment}`;

      const headers: [string, string][] = [];
      const credential = next();
      if (credential < 0.6) headers.push(['Authorization', `Bearer ${pick(keys)}`]);
      else if (credential < 0.75) headers.push(['Authorization', pick(['Bearer', 'Bearer pak_live_00', `bearer ${pick(keys).toUpperCase()}`, 'Basic eA==', '\u00e9'])]);
      for (let h = Math.floor(next() * 3); h > 0; h -= 1) headers.push([pick(HEADER_NAMES), pick(HEADER_VALUES)]);
      if (next() < 0.3) headers.push(['__proto__', pick(HEADER_VALUES)], ['constructor', pick(HEADER_VALUES)]);

      const method = pick(METHODS);
      const body = method === 'GET' && next() < 0.9 ? undefined : pick(BODIES);
      const answer = await send({ method, target, headers, body });
      const fault = envelopeFault(answer);
      if (fault) faults.push(`#${i} ${fault}: ${answer.status} ${method} ${target.slice(0, 200)} ${JSON.stringify(headers)} ${JSON.stringify(body)} -> ${answer.text.slice(0, 200)}`);
    }
    expect(faults).toEqual([]);
  }, 120_000);
});

/**
 * Why an answer to a settings path breaks web settings' shape, or undefined: below 500; an error with `code`, `message`
 * and a `request_id` equal to X-Request-Id at the top level, nothing else beside them, unless it is API Gateway's body
 * of the web side (the envelope beside them, saying the same: one body per API), which only the front's declared
 * answers carry; a success never an envelope (the settings page is HTML).
 */
function settingsShapeFault(answer: WireAnswer): string | undefined {
  if (answer.status >= 500) return `status ${answer.status}`;
  const body = answer.json as unknown as Record<string, unknown> | undefined;
  if (answer.status < 400) return body !== undefined && ('ok' in body || 'error' in body) ? 'an envelope for a success' : undefined;
  if (typeof body !== 'object' || body === null) return 'no JSON body';
  if (typeof body.code !== 'string' || typeof body.message !== 'string') return 'no top-level code and message';
  if (typeof body.request_id !== 'string' || body.request_id === '') return 'no request_id';
  if (answer.headers['x-request-id'] !== body.request_id) return 'X-Request-Id differs from request_id';
  const extra = Object.keys(body).filter((key) => !['code', 'message', 'request_id'].includes(key)).sort();
  if (extra.length === 0) return undefined;
  const error = body.error as { code?: unknown; message?: unknown } | undefined;
  if (extra.join() !== 'error,ok' || body.ok !== false || error?.code !== body.code || error?.message !== body.message) return `fields beside the settings shape: ${extra.join(', ')}`;
  if (!frontAnswers('web').some((front) => front.status === answer.status && front.code === body.code)) return `the web side's gateway body for ${answer.status} ${String(body.code)}, which no front answer declares`;
  return undefined;
}

describe('fuzz: settings paths answer web settings’ shape, the partner API its envelope, whatever request form the front meets', () => {
  const SEED = 'front-fuzz-settings-2026-11-29';
  const REQUESTS = 240;

  const SETTINGS_PATHS = ['/settings', '/settings/api/session', '/settings/api/keys', '/settings/api/audit', '/settings/api/webhooks', '/settings/api/nope', '/settings/api/keys/key_0/revoke'];
  const PARTNER_PATHS = ['/health', '/me', '/records/USS-20260001-abcdef000001', '/nope'];
  /** Spelled as sent: lower-case, mixed-case and unknown methods are what Node's parser refuses. */
  const METHODS = ['GET', 'GET', 'GET', 'POST', 'DELETE', 'get', 'Get', 'post', 'delete', 'FETCH', 'BREW', 'G\u00c9T'];
  /** Characters a target, a query name or a header name may not hold (and some it may). */
  const ODD = ['\u0000', '\u0001', '\u0007', '\u001f', '\u007f', '%00', '%01', ' ', '\u00e9', 'x'];
  const HEADER_NAMES = ['X-Custom', 'Accept', 'X-A\u0000b', 'X-A\u0001b', 'X\u007fB', '', 'X \u00e4'];
  const BODIES = ['{}', '{"a":1}', 'not json', ''];

  it(`answers ${REQUESTS} seeded requests to settings and partner paths in the shape of their surface`, async () => {
    const next = seededRandom(SEED);
    const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
    const faults: string[] = [];

    for (let i = 0; i < REQUESTS; i += 1) {
      const settings = next() < 0.7;
      const path = pick(settings ? SETTINGS_PATHS : PARTNER_PATHS);
      const form = next();
      // One odd thing (or none) per request, where Node's parser meets it: the path, a query name, a header name, the line's length.
      const odd = pick(ODD);
      const target = `/v1${path}${form < 0.15 ? odd : ''}${form >= 0.15 && form < 0.35 ? `?a${odd}b=1` : ''}${form >= 0.35 && form < 0.4 ? `?q=${'a'.repeat(pick([3_000, 20_000]))}` : ''}`;
      const headers: [string, string][] = [];
      if (settings && next() < 0.7) headers.push(['Cookie', settingsCookie]);
      if (form >= 0.4 && form < 0.55) headers.push([pick(HEADER_NAMES), 'x']);
      if (form >= 0.55 && form < 0.6) headers.push(['X-Long', 'a'.repeat(pick([9_000, 20_000]))]);
      const method = pick(METHODS);
      const body = method.toUpperCase() === 'GET' && next() < 0.6 ? undefined : pick(BODIES);
      // A body on a GET is sent with its length, or without one (its bytes then follow the request as if they were another).
      const unframed = body !== undefined && body !== '' && method === 'GET' && next() < 0.4;

      let answer: WireAnswer | undefined;
      if (unframed) {
        const head = `GET ${target} HTTP/1.1\r\nHost: localhost\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
        [answer] = await rawConnection(stack.baseUrl, [{ bytes: head + body }]);
      } else {
        answer = await send({ method, target, headers, body });
      }
      const where = `#${i} ${method} ${JSON.stringify(target.slice(0, 120))} ${JSON.stringify(headers.map(([name]) => name))} ${unframed ? 'unframed ' : ''}${JSON.stringify(body)}`;
      if (!answer) {
        faults.push(`${where}: no answer`);
        continue;
      }
      // The surface of the path as sent (an odd character may make `/settings…` a path of no surface: the partner API's fallback).
      const onSettings = isSettingsPath(stagePathOf(parseRequestTarget(target).path).path);
      const surfaceFault = onSettings ? settingsShapeFault(answer) : (envelopeFault(answer) ?? (answer.json && 'code' in (answer.json as object) ? 'web settings’ code on the partner API' : undefined));
      if (surfaceFault) faults.push(`${where} -> ${answer.status} ${surfaceFault}: ${answer.text.slice(0, 200)}`);
    }
    expect(faults).toEqual([]);
  }, 120_000);
});
