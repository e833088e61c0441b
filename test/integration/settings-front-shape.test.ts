/**
 * Every answer to a request on a settings path is in web settings' shape (docs/web-settings.md "Shapes"), whoever
 * gives it, and every answer on the partner API in its envelope: the requests Node's HTTP parser refuses before the
 * front sees them (lower-case and unknown methods, NUL and control characters in the target, a query name or a header
 * name, over-long request lines and headers, a GET's body sent without a length), the front's WAF mirror, a body on a
 * GET, each sent over raw sockets to a settings path and to a partner path through the local stack. The front gives
 * each answer the shape its deployed counterpart gives the path (lib/config/front-answers.ts frontAnswerShape): the web
 * ACL's exactly `{code, message, request_id}`; API Gateway's (its DEFAULT_4XX for what the parser refuses) the web
 * side's one body, those three fields with the envelope beside them; and at the status the front answers declare.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '../../lambdas/shared/errors';
import { frontAnswers } from '../../lib/config/front-answers';
import { rawConnection } from '../support/raw-connection';
import { wireRequest, type WireAnswer, type WireRequest } from '../support/raw-http';
import { SettingsBrowser } from '../support/settings-browser';
import { startTestStack, type TestStack } from '../support/test-stack';

const PASSWORD = 'front shape password 1234';
let stack: TestStack;
let cookie: string;

beforeAll(async () => {
  stack = await startTestStack({ webhooks: false });
  const email = `front-shape-${Date.now()}@example.com`;
  await stack.office.accounts.create('Front shape', { email, password: PASSWORD });
  const browser = new SettingsBrowser(stack);
  expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
  cookie = `settings_session=${browser.token}`;
});
afterAll(() => stack?.stop());

/** Who gave an answer, which decides its shape on a settings path. */
type Responder = 'gateway' | 'edge' | 'function';

/** The answer's body, with the X-Request-Id and Cache-Control every answer carries. */
function bodyOf(answer: WireAnswer): Record<string, unknown> {
  expect(answer.json, answer.text).toBeTypeOf('object');
  const body = answer.json as unknown as Record<string, unknown>;
  expect(typeof body.request_id === 'string' && body.request_id !== '').toBe(true);
  expect(answer.headers['x-request-id']).toBe(body.request_id);
  expect(answer.headers['cache-control']).toBe('no-store');
  return body;
}

/**
 * Web settings' shape: `{code, message, request_id}` exactly from a function or the web ACL; from API Gateway's
 * gateway responses (one body per API, which serves the player site too) the same three fields with the envelope's
 * `ok` and `error` beside them, saying the same.
 */
function expectSettingsShape(answer: WireAnswer, by: Responder, status: number, code: string): void {
  const body = bodyOf(answer);
  expect([answer.status, body.code], answer.text).toEqual([status, code]);
  const settings = { code, message: expect.any(String), request_id: body.request_id };
  expect(body).toEqual(by === 'gateway' ? { ...settings, ok: false, error: { code, message: body.message } } : settings);
  expectDeclared('web', by, status, code);
}

/** The partner API's envelope, and nothing beside it. */
function expectEnvelope(answer: WireAnswer, by: Responder, status: number, code: string): void {
  const body = bodyOf(answer);
  expect([answer.status, (body.error as { code?: string } | undefined)?.code], answer.text).toEqual([status, code]);
  expect(body).toEqual({ ok: false, error: { code, message: expect.any(String) }, request_id: body.request_id });
  expectDeclared('partner', by, status, code);
}

/** The status is the one declared: among the front's answers of the surface (lib/config/front-answers.ts), or the code's own. */
function expectDeclared(surface: 'web' | 'partner', by: Responder, status: number, code: string): void {
  if (by === 'function') expect(ERROR_CATALOG[code as keyof typeof ERROR_CATALOG].status).toBe(status);
  else expect(frontAnswers(surface).map((answer) => `${answer.status} ${answer.code}`)).toContain(`${status} ${code}`);
}

const SETTINGS = '/v1/settings/api/keys';
const PARTNER = '/v1/health';

/** Requests Node's parser refuses, as written on the wire, to a path; each answered 400 REQUEST_REJECTED unless said. */
const PARSER_REFUSALS: readonly { name: string; request: (path: string) => WireRequest; status?: number }[] = [
  { name: 'a lower-case method', request: (path) => ({ method: 'get', target: path }) },
  { name: 'a mixed-case method', request: (path) => ({ method: 'Get', target: path }) },
  { name: 'an unknown method', request: (path) => ({ method: 'FETCH', target: path }) },
  { name: 'a lower-case method with a body', request: (path) => ({ method: 'post', target: path, body: '{}' }) },
  { name: 'a NUL in the path', request: (path) => ({ target: `${path}\u0000x` }) },
  { name: 'a control character in the path', request: (path) => ({ target: `${path}\u0001x` }) },
  { name: 'a NUL in a query parameter name', request: (path) => ({ target: `${path}?a\u0000b=1` }) },
  { name: 'a control character in a query parameter name', request: (path) => ({ target: `${path}?a\u0007b=1` }) },
  { name: 'a NUL in a header name', request: (path) => ({ target: path, headers: [['X-A\u0000b', '1']] }) },
  { name: 'a control character in a header name', request: (path) => ({ target: path, headers: [['X-A\u0001b', '1']] }) },
  { name: 'an over-long request line (a 20,000-character query)', request: (path) => ({ target: `${path}?q=${'a'.repeat(20_000)}` }), status: 431 },
  { name: 'an over-long header', request: (path) => ({ target: path, headers: [['X-Long', 'a'.repeat(20_000)]] }), status: 431 },
];

describe('requests Node’s parser refuses, on a settings path and on the partner API', () => {
  it.each(PARSER_REFUSALS)('$name: web settings’ shape (API Gateway’s DEFAULT_4XX body of the web side) on a settings path', async ({ request, status }) => {
    const answer = await wireRequest(stack.baseUrl, request(SETTINGS));
    expectSettingsShape(answer, 'gateway', status ?? 400, 'REQUEST_REJECTED');
  });

  it.each(PARSER_REFUSALS)('$name: the envelope on the partner API', async ({ request, status }) => {
    const answer = await wireRequest(stack.baseUrl, request(PARTNER));
    expectEnvelope(answer, 'gateway', status ?? 400, 'REQUEST_REJECTED');
  });

  it.each([
    { name: 'a header block that grows over the limit', first: (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\nX-Long: ${'a'.repeat(10_000)}`, second: `${'a'.repeat(10_000)}\r\n\r\n`, status: 431 },
    { name: 'a NUL in a query parameter name', first: (path: string) => `GET ${path}`, second: '?a\u0000b=1 HTTP/1.1\r\nHost: localhost\r\n\r\n', status: 400 },
    { name: 'a NUL in a header name', first: (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n`, second: 'X-A\u0000b: 1\r\n\r\n', status: 400 },
  ])('$name in the second piece of a request (the refused piece holds no request line): the path of the first', async ({ first, second, status }) => {
    const [settings] = await rawConnection(stack.baseUrl, [{ bytes: first(SETTINGS) }, { bytes: second, after: 'pause' }]);
    const [partner] = await rawConnection(stack.baseUrl, [{ bytes: first(PARTNER) }, { bytes: second, after: 'pause' }]);

    expectSettingsShape(settings, 'gateway', status, 'REQUEST_REJECTED');
    expectEnvelope(partner, 'gateway', status, 'REQUEST_REJECTED');
  });

  it('answers bytes that are no request on a fresh connection (no path to read) in the web side’s body, which both shapes read', async () => {
    const answer = await wireRequest(stack.baseUrl, { method: '{"a":1}', target: '' });

    const body = bodyOf(answer);
    expect(answer.status).toBe(400);
    expect(body).toEqual({ ok: false, code: 'REQUEST_REJECTED', message: body.message, error: { code: 'REQUEST_REJECTED', message: body.message }, request_id: body.request_id });
  });
});

describe('a body on a GET with a settings session', () => {
  it('with its length: the settings function refuses it, 400 BODY_NOT_ALLOWED in web settings’ shape (the partner API: its envelope)', async () => {
    const settings = await wireRequest(stack.baseUrl, { target: SETTINGS, headers: [['Cookie', cookie], ['Content-Type', 'application/json']], body: '{"a":1}' });
    const partner = await wireRequest(stack.baseUrl, { target: PARTNER, headers: [['Content-Type', 'application/json']], body: '{"a":1}' });

    expectSettingsShape(settings, 'function', 400, 'BODY_NOT_ALLOWED');
    expectEnvelope(partner, 'function', 400, 'BODY_NOT_ALLOWED');
  });

  it('without a length, in the same write: Node’s parser refuses the body as a request, in the shape of the GET’s path', async () => {
    const get = (path: string, headers: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${headers}Content-Type: application/json\r\n\r\n{"a":1}`;

    const [settings] = await rawConnection(stack.baseUrl, [{ bytes: get(SETTINGS, `Cookie: ${cookie}\r\n`) }]);
    const [partner] = await rawConnection(stack.baseUrl, [{ bytes: get(PARTNER, '') }]);

    expectSettingsShape(settings, 'gateway', 400, 'REQUEST_REJECTED');
    expectEnvelope(partner, 'gateway', 400, 'REQUEST_REJECTED');
  });

  it('without a length, after the GET was answered: the body, refused as a request, is answered in the shape of the path its connection addressed', async () => {
    const get = (path: string, headers: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`;

    const [listed, settings] = await rawConnection(stack.baseUrl, [{ bytes: get(SETTINGS, `Cookie: ${cookie}\r\n`) }, { bytes: '{"a":1}', after: 'answer' }]);
    const [healthy, partner] = await rawConnection(stack.baseUrl, [{ bytes: get(PARTNER, '') }, { bytes: '{"a":1}', after: 'answer' }]);

    expect([listed.status, healthy.status]).toEqual([200, 200]);
    expectSettingsShape(settings, 'gateway', 400, 'REQUEST_REJECTED');
    expectEnvelope(partner, 'gateway', 400, 'REQUEST_REJECTED');
  });
});

describe('the WAF mirror’s refusals: web settings’ shape exactly on a settings path, as the web ACL answers it', () => {
  it.each([
    ['a credential-named query parameter', '?api_key=x', 400, 'CREDENTIALS_IN_URL'],
    ['a path over the limit', `/${'p'.repeat(600)}`, 414, 'PATH_TOO_LONG'],
    ['a query over the limit', `?q=${'a'.repeat(2_100)}`, 414, 'QUERY_TOO_LONG'],
  ] as const)('%s', async (_what, tail, status, code) => {
    const settings = await wireRequest(stack.baseUrl, { target: `${SETTINGS}${tail}` });
    const player = await wireRequest(stack.baseUrl, { target: `/v1/join/abc${tail}` });
    const partner = await wireRequest(stack.baseUrl, { target: `${PARTNER}${tail}` });

    expectSettingsShape(settings, 'edge', status, code);
    // The player site: the web side's body (the envelope, with web settings' fields on top).
    const body = bodyOf(player);
    expect([player.status, body]).toEqual([status, { ok: false, code, message: body.message, error: { code, message: body.message }, request_id: body.request_id }]);
    expectEnvelope(partner, 'edge', status, code);
  });
});

describe('the local edge rules’ 429 (the web ACL’s rate rules): web settings’ shape exactly on a settings path', () => {
  let guarded: TestStack;
  beforeAll(async () => {
    guarded = await startTestStack({ webhooks: false, edgeProtection: true });
  });
  afterAll(() => guarded?.stop());

  it('answers the first request over the address’s web-side limits with RATE_LIMITED in web settings’ shape, with Retry-After', async () => {
    let answer: WireAnswer | undefined;
    for (let i = 0; i < 200 && answer?.status !== 429; i += 1) answer = await wireRequest(guarded.baseUrl, { target: '/v1/settings/api/session' });

    expectSettingsShape(answer!, 'edge', 429, 'RATE_LIMITED');
    expect(Number(answer!.headers['retry-after'])).toBeGreaterThan(0);
  });
});
