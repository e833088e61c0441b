/**
 * Every request-shape rule of the spec, through the local HTTP front (the
 * API Gateway stand-in) into the deployed handlers: the right status and
 * code, the error envelope, X-Request-Id and Cache-Control on every answer.
 * A test route with a JSON body and an organization path is added to the
 * real route table so the body rules can be exercised before the invitation
 * endpoints exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { ROUTE_CONTRACTS } from '../../lambdas/service/contracts';
import { Router, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { HANDLERS } from '../../local/handlers';
import { rawRequest, type RawResponse } from '../support/raw-http';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

const echoRoute: RouteDefinition = {
  id: 'test-echo',
  method: 'POST',
  path: '/partners/{partner_id}/echo',
  group: 'identity',
  auth: 'key',
  scope: 'invitations:write',
  partnerBound: true,
  query: ['mode'],
  body: 'json',
};
const router = new Router([...ROUTES, echoRoute]);
const testHandler = createPartnerApiHandler({ contracts: ROUTE_CONTRACTS, routes: ROUTES,
  router,
  operations: { 'test-echo': async ({ body, query }) => ({ status: 201, data: { body, query } }) },
});

let stack: TestStack;
let key: string;
let partnerId: string;

beforeAll(async () => {
  stack = await startTestStack({ router, handlers: { ...HANDLERS, identity: testHandler } });
  const org = await createOrgWithManagerKey(stack.office, ['invitations:write', 'public:read']);
  key = org.key.key;
  partnerId = org.partner_id;
});

afterAll(() => stack?.stop());

function expectError(response: RawResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.json).toMatchObject({ ok: false, error: { code } });
  expect(typeof response.json.error?.message).toBe('string');
  expect(response.headers['x-request-id']).toBe(response.json.request_id);
  expect(response.headers['cache-control']).toBe('no-store');
}

const echoUrl = () => `${stack.baseUrl}/partners/${partnerId}/echo`;
const jsonHeaders = () => ({ ...bearer(key), 'Content-Type': 'application/json' });

describe('request-shape rules through the local front', () => {
  it('accepts a well-formed JSON request on the test route (the baseline the rules below break)', async () => {
    const response = await rawRequest(`${echoUrl()}?mode=x`, { method: 'POST', headers: jsonHeaders(), chunks: ['{"a":1}'] });
    expect(response.status).toBe(201);
    expect(response.json).toMatchObject({ ok: true, data: { body: { a: 1 }, query: { mode: 'x' } } });
    expect(response.headers['x-request-id']).toBe(response.json.request_id);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('HTTPS_REQUIRED when the client connected over plain HTTP', async () => {
    expectError(await rawRequest(`${stack.baseUrl}/health`, { headers: { 'X-Forwarded-Proto': 'http' } }), 400, 'HTTPS_REQUIRED');
  });

  it('CREDENTIALS_IN_URL for a key in a query parameter, a credential-named parameter, or the path', async () => {
    expectError(await rawRequest(`${stack.baseUrl}/me?x=${key}`, { headers: bearer(key) }), 400, 'CREDENTIALS_IN_URL');
    expectError(await rawRequest(`${stack.baseUrl}/me?api_key=abc`), 400, 'CREDENTIALS_IN_URL');
    expectError(await rawRequest(`${stack.baseUrl}/me?access_token=abc`), 400, 'CREDENTIALS_IN_URL');
    expectError(await rawRequest(`${stack.baseUrl}/records/${key}`), 400, 'CREDENTIALS_IN_URL');
  });

  it('PATH_TOO_LONG over 512 characters, and a 512-character path is routed normally', async () => {
    const prefix = '/v1/';
    const at = (n: number) => `${stack.baseUrl}/${'a'.repeat(n - prefix.length)}`;
    expectError(await rawRequest(at(513)), 414, 'PATH_TOO_LONG');
    expectError(await rawRequest(at(512)), 404, 'NOT_FOUND');
  });

  it('QUERY_TOO_LONG over 2048 characters', async () => {
    const query = (n: number) => `mode=${'q'.repeat(n - 5)}`;
    expectError(await rawRequest(`${echoUrl()}?${query(2049)}`, { method: 'POST', headers: jsonHeaders(), chunks: ['{}'] }), 414, 'QUERY_TOO_LONG');
    const ok = await rawRequest(`${echoUrl()}?${query(2048)}`, { method: 'POST', headers: jsonHeaders(), chunks: ['{}'] });
    expect(ok.status).toBe(201);
  });

  it('AUTH_HEADER_TOO_LONG over 256 characters', async () => {
    expectError(await rawRequest(`${stack.baseUrl}/me`, { headers: { Authorization: `Bearer ${'a'.repeat(250)}` } }), 431, 'AUTH_HEADER_TOO_LONG');
  });

  it('UNKNOWN_PARAMETER and DUPLICATE_PARAMETER', async () => {
    expectError(await rawRequest(`${stack.baseUrl}/me?foo=1`, { headers: bearer(key) }), 422, 'UNKNOWN_PARAMETER');
    expectError(await rawRequest(`${stack.baseUrl}/health?verbose=1`), 422, 'UNKNOWN_PARAMETER');
    expectError(
      await rawRequest(`${echoUrl()}?mode=a&mode=b`, { method: 'POST', headers: jsonHeaders(), chunks: ['{}'] }),
      422,
      'DUPLICATE_PARAMETER',
    );
  });

  it('BODY_TOO_LARGE over 4096 bytes, by declared length and by a streamed (chunked) body without one', async () => {
    const big = `{"a":"${'x'.repeat(4100)}"}`;
    expectError(await rawRequest(echoUrl(), { method: 'POST', headers: jsonHeaders(), chunks: [big] }), 413, 'BODY_TOO_LARGE');
    expectError(
      await rawRequest(echoUrl(), { method: 'POST', headers: { ...jsonHeaders(), 'Content-Length': '5000' }, chunks: [], endAfterChunks: false }),
      413,
      'BODY_TOO_LARGE',
    );
    const streamed = await rawRequest(echoUrl(), {
      method: 'POST',
      headers: { ...jsonHeaders(), 'Transfer-Encoding': 'chunked' },
      chunks: ['{"a":"', 'x'.repeat(3000), 'y'.repeat(3000), '"}'],
    });
    expectError(streamed, 413, 'BODY_TOO_LARGE');
    const exact = `{"a":"${'x'.repeat(4096 - 8)}"}`;
    expect(Buffer.byteLength(exact)).toBe(4096);
    expect((await rawRequest(echoUrl(), { method: 'POST', headers: jsonHeaders(), chunks: [exact] })).status).toBe(201);
  });

  it('JSON_REQUIRED for a missing or wrong Content-Type or a non-UTF-8 charset', async () => {
    expectError(await rawRequest(echoUrl(), { method: 'POST', headers: { ...bearer(key), 'Content-Type': 'text/plain' }, chunks: ['{}'] }), 415, 'JSON_REQUIRED');
    expectError(await rawRequest(echoUrl(), { method: 'POST', headers: bearer(key), chunks: ['{}'] }), 415, 'JSON_REQUIRED');
    expectError(
      await rawRequest(echoUrl(), { method: 'POST', headers: { ...bearer(key), 'Content-Type': 'application/json; charset=latin1' }, chunks: ['{}'] }),
      415,
      'JSON_REQUIRED',
    );
    const utf8 = await rawRequest(echoUrl(), { method: 'POST', headers: { ...bearer(key), 'Content-Type': 'application/json; charset=UTF-8' }, chunks: ['{}'] });
    expect(utf8.status).toBe(201);
  });

  it('CONTENT_ENCODING_UNSUPPORTED for a compressed body', async () => {
    expectError(
      await rawRequest(echoUrl(), { method: 'POST', headers: { ...jsonHeaders(), 'Content-Encoding': 'gzip' }, chunks: ['{}'] }),
      415,
      'CONTENT_ENCODING_UNSUPPORTED',
    );
    expectError(
      await rawRequest(echoUrl(), { method: 'POST', headers: { ...jsonHeaders(), 'Content-Encoding': 'identity, gzip' }, chunks: ['{}'] }),
      415,
      'CONTENT_ENCODING_UNSUPPORTED',
    );
  });

  it('accepts Content-Encoding identity with an empty list element (`identity,`): it names no coding', async () => {
    const response = await rawRequest(echoUrl(), { method: 'POST', headers: { ...jsonHeaders(), 'Content-Encoding': 'identity,' }, chunks: ['{}'] });
    expect(response.status).toBe(201);
  });

  it('INVALID_JSON for a missing, malformed, non-object or non-UTF-8 body', async () => {
    for (const body of ['', '{"a":', '[1,2]', 'null', '"text"', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])]) {
      expectError(await rawRequest(echoUrl(), { method: 'POST', headers: jsonHeaders(), chunks: [body] }), 400, 'INVALID_JSON');
    }
  });

  it('BODY_NOT_ALLOWED for a body on an operation that takes none', async () => {
    expectError(await rawRequest(`${stack.baseUrl}/me`, { method: 'GET', headers: { ...bearer(key), 'Content-Type': 'application/json' }, chunks: ['{}'] }), 400, 'BODY_NOT_ALLOWED');
  });

  it('NOT_FOUND for unknown paths, unsupported methods and paths outside the v1 stage', async () => {
    expectError(await rawRequest(`${stack.baseUrl}/nope`), 404, 'NOT_FOUND');
    expectError(await rawRequest(`${stack.baseUrl}/me`, { method: 'DELETE', headers: bearer(key) }), 404, 'NOT_FOUND');
    expectError(await rawRequest(`${stack.baseUrl}/health`, { method: 'POST' }), 404, 'NOT_FOUND');
    expectError(await rawRequest(`${stack.baseUrl.replace('/v1', '/v2')}/health`), 404, 'NOT_FOUND');
    expectError(await rawRequest(`${stack.baseUrl}/partners/${partnerId}`), 404, 'NOT_FOUND');
  });

  it('REQUEST_TIMEOUT when the body is not fully received within the read deadline', async () => {
    const response = await rawRequest(echoUrl(), {
      method: 'POST',
      headers: { ...jsonHeaders(), 'Content-Length': '100' },
      chunks: ['{"a":'],
      endAfterChunks: false,
    });
    expectError(response, 408, 'REQUEST_TIMEOUT');
  }, 15_000);

  it('never answers 5xx to malformed input', async () => {
    const responses = await Promise.all([
      rawRequest(`${stack.baseUrl}/me?%E0%A4%A=1`, { headers: bearer(key) }),
      rawRequest(`${stack.baseUrl}/%E0%A4%A`),
      rawRequest(`${stack.baseUrl}/me`, { headers: { Authorization: 'Bearer \u00e9' } }),
      rawRequest(echoUrl(), { method: 'POST', headers: jsonHeaders(), chunks: ['{"__proto__":{"x":1}}'] }),
    ]);
    for (const response of responses) expect(response.status).toBeLessThan(500);
  });
});
