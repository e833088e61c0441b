/**
 * What the smoke suite holds a response to: the envelope or web settings'
 * shape with the code's status, the common headers, the rate-limit headers,
 * and a records page's fields and order. Each check names every problem.
 */
import { describe, expect, it } from 'vitest';
import { edgeRejectionProblems, errorProblems, rateLimitHeaderProblems, successProblems } from '../../../scripts/smoke/expectations';
import type { Probe } from '../../../scripts/smoke/probe';
import { recordPageProblems } from '../../../scripts/smoke/record-page';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': 'req-1' };

function answer(status: number, body: unknown, headers: Record<string, string> = JSON_HEADERS): Probe {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { method: 'GET', path: '/x', status, headers: new Headers(headers), text, json };
}

const envelope = (code: string, requestId = 'req-1') => ({ ok: false, error: { code, message: 'Some words.' }, request_id: requestId });

describe('error expectations', () => {
  it('holds the envelope with the code’s status from the error catalog', () => {
    expect(errorProblems(answer(401, envelope('INVALID_API_KEY')), 'INVALID_API_KEY', 'envelope')).toEqual([]);
    expect(errorProblems(answer(403, envelope('INVALID_API_KEY')), 'INVALID_API_KEY', 'envelope')).toEqual(['status 403, expected 401']);
  });

  it('takes the web side’s edge body (the envelope plus top-level code and message) in either shape, since it serves both', () => {
    const combined = { ok: false, code: 'RATE_LIMITED', message: 'Wait.', error: { code: 'RATE_LIMITED', message: 'Wait.' }, request_id: 'edge' };
    const headers = { ...JSON_HEADERS, 'x-request-id': 'edge' };
    expect(errorProblems(answer(429, combined, headers), 'RATE_LIMITED', 'envelope')).toEqual([]);
    expect(errorProblems(answer(429, combined, headers), 'RATE_LIMITED', 'settings')).toEqual([]);
  });

  it('refuses web settings’ shape where the envelope is due, and a top-level code that disagrees with error.code', () => {
    const settings = { code: 'NOT_FOUND', message: 'No such path or method.', request_id: 'req-1' };
    expect(errorProblems(answer(404, settings), 'NOT_FOUND', 'envelope')).toEqual(['ok is absent, not false', 'error is absent, not an object']);
    expect(errorProblems(answer(404, { ...envelope('NOT_FOUND'), code: 'OTHER', message: 'x' }), 'NOT_FOUND', 'envelope')).toEqual(['code is "OTHER", expected NOT_FOUND']);
  });

  it('names every problem of API Gateway’s stock answer: status, headers, body', () => {
    const stock = answer(403, { message: 'Missing Authentication Token' }, { 'content-type': 'application/json' });
    expect(errorProblems(stock, 'NOT_FOUND', 'envelope')).toEqual([
      'status 403, expected 404',
      'no X-Request-Id header',
      'Cache-Control is absent, not no-store',
      'ok is absent, not false',
      'error is absent, not an object',
      'request_id is absent',
    ]);
  });

  it('requires the body’s request_id to be the X-Request-Id header’s, and a JSON body', () => {
    expect(errorProblems(answer(401, envelope('INVALID_API_KEY', 'req-2')), 'INVALID_API_KEY', 'envelope')).toEqual([
      'request_id "req-2" differs from X-Request-Id "req-1"',
    ]);
    expect(errorProblems(answer(401, '<html>Unauthorized</html>', { ...JSON_HEADERS, 'content-type': 'text/html' }), 'INVALID_API_KEY', 'envelope')).toEqual([
      'Content-Type is "text/html", not application/json',
      'the body is not a JSON object: <html>Unauthorized</html>',
    ]);
  });

  it('names a redirect, which the suite never follows', () => {
    const redirect = answer(301, '', { ...JSON_HEADERS, location: 'https://elsewhere.example/v1/me' });
    expect(successProblems(redirect).problems[0]).toBe('status 301 (redirect to https://elsewhere.example/v1/me), expected 200');
  });

  it('holds an edge rejection to Retry-After and X-RateLimit-Policy', () => {
    const headers = { ...JSON_HEADERS, 'retry-after': '60', 'x-ratelimit-policy': 'edge-ip-minute' };
    expect(edgeRejectionProblems(answer(429, envelope('RATE_LIMITED'), headers), 'envelope')).toEqual([]);
    expect(edgeRejectionProblems(answer(429, envelope('RATE_LIMITED'), { ...headers, 'retry-after': '0' }), 'envelope')).toEqual(['Retry-After is "0", not an integer >= 1']);
    expect(edgeRejectionProblems(answer(429, envelope('RATE_LIMITED'), JSON_HEADERS), 'envelope')).toEqual([
      'Retry-After is absent, not an integer >= 1',
      'X-RateLimit-Policy is absent',
    ]);
  });
});

describe('rate-limit header expectations', () => {
  const headers = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '1795458060', 'x-ratelimit-policy': 'key-minute' };

  it('takes the spec’s four headers', () => {
    expect(rateLimitHeaderProblems(answer(200, {}, headers))).toEqual([]);
  });

  it('refuses a reset in milliseconds, more remaining than the limit, and missing headers', () => {
    expect(rateLimitHeaderProblems(answer(200, {}, { ...headers, 'x-ratelimit-reset': '1795458060000', 'x-ratelimit-remaining': '61' }))).toEqual([
      'X-RateLimit-Remaining 61 exceeds X-RateLimit-Limit 60',
      'X-RateLimit-Reset is "1795458060000", not Unix seconds',
    ]);
    expect(rateLimitHeaderProblems(answer(200, {}, {}))).toHaveLength(4);
  });
});

describe('records page expectations', () => {
  const record = (id: string, updatedAt: string, overrides: Record<string, unknown> = {}) => ({
    id,
    uuid: 'USS-20250001-Demo00000001',
    player_name: 'Alex',
    game_category: 'Minecraft',
    game: 'Minecraft: Java Edition',
    checked_at: '2026-08-31T08:08:03.652Z',
    result: 'clean',
    result_label: 'Clean',
    checker_name: 'Sam',
    public_notes: '',
    updated_at: updatedAt,
    ...overrides,
  });
  const headers = { ...JSON_HEADERS, 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '58', 'x-ratelimit-reset': '1795458060', 'x-ratelimit-policy': 'key-minute' };
  const page = (items: unknown[], nextCursor: unknown = 'c1') => answer(200, { ok: true, data: { items, next_cursor: nextCursor }, request_id: 'req-1' }, headers);

  it('takes a page in updated_at, then id order (ties broken by id), with its cursor', () => {
    const result = recordPageProblems(page([record('rec_a', '2026-08-31T08:00:00.000Z'), record('rec_b', '2026-08-31T08:00:00.000Z')]), 2);
    expect(result).toEqual({ problems: [], items: [expect.objectContaining({ id: 'rec_a' }), expect.objectContaining({ id: 'rec_b' })], nextCursor: 'c1' });
  });

  it('refuses records out of order, more records than the limit, and a malformed record', () => {
    expect(recordPageProblems(page([record('rec_b', '2026-08-31T09:00:00Z'), record('rec_a', '2026-08-31T08:00:00Z')]), 2).problems).toEqual([
      'items[1] (rec_a) does not come after items[0] (rec_b) by updated_at, then id',
    ]);
    expect(recordPageProblems(page([record('a', '2026-08-31T08:00:00Z'), record('b', '2026-08-31T09:00:00Z')]), 1).problems).toEqual(['2 items on a page of limit=1']);
    expect(recordPageProblems(page([record('a', 'yesterday', { uuid: 'USS-1-x', result: 'passed' })], null), 2).problems).toEqual([
      'items[0].uuid "USS-1-x" does not match the record uuid pattern',
      'items[0].result "passed" is not clean, warning or cheating',
      'items[0].updated_at "yesterday" is not an ISO 8601 time',
    ]);
  });

  it('refuses a next_cursor that is neither an opaque string nor null', () => {
    expect(recordPageProblems(page([], ''), 2).problems).toEqual(['data.next_cursor is "", not a string or null']);
    expect(recordPageProblems(page([], null), 2)).toEqual({ problems: [], items: [], nextCursor: null });
  });
});
