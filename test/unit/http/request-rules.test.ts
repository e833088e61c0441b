/**
 * The spec's request-shape rules: transport rules (before routing and
 * authentication) and input rules (against the matched route), each code and
 * the boundary that must still pass.
 */
import { describe, expect, it } from 'vitest';
import { normalizeEvent } from '../../../lambdas/shared/http/api-event';
import { ApiError, type ErrorCode } from '../../../lambdas/shared/errors';
import { decodeLeniently, enforceInputRules, enforceTransportRules, REQUEST_LIMITS } from '../../../lambdas/shared/http/request-rules';
import type { RouteDefinition } from '../../../lambdas/shared/http/routes';
import { generateApiKey } from '../../../lambdas/shared/identity/api-keys';
import { proxyEvent, STAGE, type ProxyEventOptions } from '../support/api-gateway-event';

const transport = (options: ProxyEventOptions) => () => enforceTransportRules(normalizeEvent(proxyEvent(options)));

/** Assert `act` throws an ApiError with `code`. */
function expectApiError(act: () => unknown, code: ErrorCode): void {
  let thrown: unknown;
  try {
    act();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ApiError);
  expect((thrown as ApiError).code).toBe(code);
}

/** A path below the stage such that the path the client addressed (`/v1/...`) has `length` characters. */
const pathAddressedWith = (length: number) => `/${'a'.repeat(length - STAGE.length - 2)}`;

describe('enforceTransportRules', () => {
  it('accepts an ordinary HTTPS request', () => {
    expect(transport({ path: '/me', headers: { Authorization: `Bearer ${generateApiKey()}` } })).not.toThrow();
  });

  describe('HTTPS_REQUIRED', () => {
    it.each(['http', 'HTTP', 'https, http'])('refuses X-Forwarded-Proto %j', (proto) => {
      expectApiError(transport({ headers: { 'X-Forwarded-Proto': proto } }), 'HTTPS_REQUIRED');
    });

    it.each(['https', 'HTTPS', 'http, https'])('accepts X-Forwarded-Proto %j (the last hop decides)', (proto) => {
      expect(transport({ headers: { 'X-Forwarded-Proto': proto } })).not.toThrow();
    });
  });

  describe('PATH_TOO_LONG', () => {
    it('refuses a path of 513 characters', () => {
      expectApiError(transport({ path: pathAddressedWith(REQUEST_LIMITS.pathChars + 1) }), 'PATH_TOO_LONG');
    });

    it('accepts a path of exactly 512 characters, stage included', () => {
      const event = normalizeEvent(proxyEvent({ path: pathAddressedWith(512) }));
      expect(event.fullPath).toHaveLength(512);
      expect(() => enforceTransportRules(event)).not.toThrow();
    });
  });

  describe('QUERY_TOO_LONG', () => {
    // `q=` plus the value: the query string as sent has 2 + value length characters.
    it('refuses a query string of 2049 characters', () => {
      expectApiError(transport({ query: { q: 'a'.repeat(2047) } }), 'QUERY_TOO_LONG');
    });

    it('accepts a query string of exactly 2048 characters', () => {
      expect(transport({ query: { q: 'a'.repeat(2046) } })).not.toThrow();
    });

    it('never refuses a query the client sent within the limit: 1000 raw colons of ISO dates are 1002 characters, not 3002', () => {
      // Re-encoding `:` as `%3A` would count 2 + 1000 * 3; what was sent raw is 2 + 1000 (WAF measures the raw string).
      expect(transport({ query: { q: ':'.repeat(1000) } })).not.toThrow();
      expect(transport({ query: { updated_after: '2026-01-01T00:00:00Z'.repeat(100) } })).not.toThrow();
    });

    it('counts every value of a repeated parameter', () => {
      expectApiError(transport({ query: { q: ['a'.repeat(1022), 'a'.repeat(1022)] } }), 'QUERY_TOO_LONG');
    });
  });

  describe('AUTH_HEADER_TOO_LONG', () => {
    it('refuses an Authorization header of 257 characters', () => {
      expectApiError(transport({ headers: { Authorization: `Bearer ${'x'.repeat(250)}` } }), 'AUTH_HEADER_TOO_LONG');
    });

    it('accepts an Authorization header of exactly 256 characters', () => {
      expect(transport({ headers: { Authorization: `Bearer ${'x'.repeat(249)}` } })).not.toThrow();
    });

    it('refuses a second Authorization header that is too long', () => {
      expectApiError(transport({ headers: { Authorization: ['Bearer short', `Bearer ${'x'.repeat(250)}`] } }), 'AUTH_HEADER_TOO_LONG');
    });
  });

  describe('CREDENTIALS_IN_URL', () => {
    it.each(['api_key', 'apikey', 'api-key', 'API_KEY', 'key', 'token', 'access_token', 'authorization', 'x-api-key'])(
      'refuses a %j query parameter whatever its value',
      (name) => {
        expectApiError(transport({ query: { [name]: 'anything' } }), 'CREDENTIALS_IN_URL');
      },
    );

    it('refuses a live key in the value of an innocent parameter', () => {
      expectApiError(transport({ query: { cursor: generateApiKey() } }), 'CREDENTIALS_IN_URL');
    });

    it('refuses a live key embedded in a longer value', () => {
      expectApiError(transport({ query: { q: `prefix-${generateApiKey()}-suffix` } }), 'CREDENTIALS_IN_URL');
    });

    it('refuses a bearer credential in a query value', () => {
      expectApiError(transport({ query: { q: 'Bearer abc' } }), 'CREDENTIALS_IN_URL');
    });

    it('refuses a live key as a query parameter name', () => {
      expectApiError(transport({ query: { [generateApiKey()]: '' } }), 'CREDENTIALS_IN_URL');
    });

    it('refuses a live key in the path', () => {
      expectApiError(transport({ path: `/records/${generateApiKey()}`, resource: '/{proxy+}' }), 'CREDENTIALS_IN_URL');
    });

    it.each([
      { name: 'percent-encoded in the path', path: `/records/pak%5Flive_${'ab'.repeat(32)}` },
      { name: 'with a percent-encoded prefix letter', path: `/records/%70ak_live_${'ab'.repeat(32)}` },
      { name: 'in upper case', path: `/records/PAK_LIVE_${'AB'.repeat(32)}` },
    ])('refuses a live key $name', ({ path }) => {
      expectApiError(transport({ path, resource: '/{proxy+}' }), 'CREDENTIALS_IN_URL');
    });

    it.each([
      { name: 'as a JSON value', body: JSON.stringify({ game: 'fps', notes: generateApiKey() }) },
      { name: 'as a JSON key', body: JSON.stringify({ [generateApiKey()]: 'x' }) },
      { name: 'escaped in a JSON string', body: `{"notes":"${generateApiKey().replace('_', '\\u005f')}"}` },
      { name: 'in a body that is not JSON', body: `key=${generateApiKey()}` },
    ])('refuses a live key in the body, $name, with CREDENTIALS_IN_URL (never in query, body or URL)', ({ body }) => {
      expectApiError(transport({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body }), 'CREDENTIALS_IN_URL');
    });

    it('accepts a body that only mentions the prefix', () => {
      expect(transport({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"notes":"keys start with pak_live_"}' })).not.toThrow();
    });

    it('accepts ordinary parameters that merely resemble credential names', () => {
      expect(transport({ query: { keyword: 'x', tokens: 'y', cursor: 'pak_live_short' } })).not.toThrow();
    });
  });

  describe('CONTENT_ENCODING_UNSUPPORTED', () => {
    it.each(['gzip', 'br', 'deflate', 'gzip, identity', 'identity, gzip', 'identity,gzip', ', gzip'])('refuses Content-Encoding %j', (encoding) => {
      expectApiError(transport({ method: 'POST', headers: { 'Content-Encoding': encoding }, body: '{}' }), 'CONTENT_ENCODING_UNSUPPORTED');
    });

    it('refuses a second Content-Encoding header after an identity one', () => {
      expectApiError(transport({ method: 'POST', headers: { 'Content-Encoding': ['identity', 'gzip'] }, body: '{}' }), 'CONTENT_ENCODING_UNSUPPORTED');
    });

    it.each(['identity', ' Identity '])('accepts Content-Encoding %j', (encoding) => {
      expect(transport({ method: 'POST', headers: { 'Content-Encoding': encoding }, body: '{}' })).not.toThrow();
    });

    it.each(['identity, ', ', identity', '', ' , '])('accepts Content-Encoding %j: empty list elements name no coding (RFC 9110 §5.6.1)', (encoding) => {
      expect(transport({ method: 'POST', headers: { 'Content-Encoding': encoding }, body: '{}' })).not.toThrow();
    });
  });

  describe('BODY_TOO_LARGE', () => {
    it('refuses a declared Content-Length of 4097 before looking at the body', () => {
      expectApiError(transport({ method: 'POST', headers: { 'Content-Length': '4097' }, body: '{}' }), 'BODY_TOO_LARGE');
    });

    it('refuses 4097 bytes actually received whatever the declared length', () => {
      expectApiError(transport({ method: 'POST', headers: { 'Content-Length': '2' }, body: 'a'.repeat(4097) }), 'BODY_TOO_LARGE');
    });

    it('counts bytes, not characters', () => {
      // 4095 ASCII characters and one two-byte character: 4096 characters, 4097 bytes.
      expectApiError(transport({ method: 'POST', body: `${'a'.repeat(4095)}é` }), 'BODY_TOO_LARGE');
    });

    it('counts the decoded bytes of a base64-encoded body', () => {
      expectApiError(transport({ method: 'POST', body: Buffer.alloc(4097, 0x61) }), 'BODY_TOO_LARGE');
    });

    it('accepts a body of exactly 4096 bytes declared as such', () => {
      expect(transport({ method: 'POST', headers: { 'Content-Length': '4096' }, body: 'a'.repeat(4096) })).not.toThrow();
    });
  });
});

describe('decodeLeniently', () => {
  it.each([
    { raw: '%C3%A9%', decoded: 'é%' },
    { raw: '%C3%A9%FF%41', decoded: 'é%FFA' },
    { raw: '%zz%41%', decoded: '%zzA%' },
    { raw: '2026-01-01T00%3A00%3A00Z%E9', decoded: '2026-01-01T00:00:00Z%E9' },
    { raw: '%E2%82%AC%E2%82', decoded: '€%E2%82' },
    { raw: '%ED%A0%80', decoded: '%ED%A0%80' },
    { raw: '%C0%AF', decoded: '%C0%AF' },
  ])('decodes every valid escape of $raw and keeps only the invalid ones', ({ raw, decoded }) => {
    expect(decodeLeniently(raw)).toBe(decoded);
  });

  it.each(['%F0%9F%92%A5', 'a%20b%2Fc', '%E2%82%AC', 'plain', '%25%41'])('agrees with decodeURIComponent on %j, which it can decode', (raw) => {
    expect(decodeLeniently(raw)).toBe(decodeURIComponent(raw));
  });
});

describe('normalizeEvent', () => {
  it('keeps headers named like Object.prototype members as ordinary headers', () => {
    const event = normalizeEvent(proxyEvent({ headers: { ['__proto__']: 'a', constructor: 'b', toString: 'c' } }));
    expect(event.headers.get('__proto__')).toEqual(['a']);
    expect(event.headers.get('constructor')).toEqual(['b']);
    expect(event.headers.get('tostring')).toEqual(['c']);
    expect(() => enforceTransportRules(event)).not.toThrow();
  });
});

const listRoute: RouteDefinition = {
  id: 'test-list',
  method: 'GET',
  path: '/partners/{partner_id}/records',
  group: 'system',
  auth: 'key',
  query: ['limit', 'cursor'],
  body: 'none',
};

const createRoute: RouteDefinition = {
  id: 'test-create',
  method: 'POST',
  path: '/partners/{partner_id}/invitations',
  group: 'system',
  auth: 'key',
  query: [],
  body: 'json',
};

const input = (route: RouteDefinition, options: ProxyEventOptions) => () =>
  enforceInputRules(normalizeEvent(proxyEvent({ path: route.path, method: route.method, ...options })), route);

const json = (body: string | Buffer, contentType = 'application/json') => ({ headers: { 'Content-Type': contentType }, body });

describe('enforceInputRules', () => {
  describe('query parameters', () => {
    it('returns the declared parameters by name', () => {
      expect(input(listRoute, { query: { limit: '5', cursor: 'abc' } })()).toEqual({ query: { limit: '5', cursor: 'abc' }, body: undefined });
    });

    it('refuses an undeclared parameter with UNKNOWN_PARAMETER', () => {
      expectApiError(input(listRoute, { query: { limit: '5', sort: 'desc' } }), 'UNKNOWN_PARAMETER');
    });

    it('refuses any parameter on a route that declares none', () => {
      expectApiError(input(createRoute, { query: { limit: '5' }, ...json('{}') }), 'UNKNOWN_PARAMETER');
    });

    it('refuses a repeated parameter with DUPLICATE_PARAMETER', () => {
      expectApiError(input(listRoute, { query: { limit: ['5', '6'] } }), 'DUPLICATE_PARAMETER');
    });

    it('refuses a parameter repeated with the same value', () => {
      expectApiError(input(listRoute, { query: { cursor: ['a', 'a'] } }), 'DUPLICATE_PARAMETER');
    });
  });

  describe('routes without a body', () => {
    it.each(['{}', 'x', ' '])('refuses body %j with BODY_NOT_ALLOWED', (body) => {
      expectApiError(input(listRoute, { body }), 'BODY_NOT_ALLOWED');
    });

    it('accepts an empty body', () => {
      expect(input(listRoute, { body: '' })()).toEqual({ query: {}, body: undefined });
    });
  });

  describe('routes with a JSON body', () => {
    it('returns the parsed object', () => {
      expect(input(createRoute, json('{"game":"fps","notes":"é"}'))().body).toEqual({ game: 'fps', notes: 'é' });
    });

    it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON; Charset=UTF-8', 'application/json;charset="utf-8"'])(
      'accepts Content-Type %j',
      (contentType) => {
        expect(input(createRoute, json('{}', contentType))().body).toEqual({});
      },
    );

    it.each([
      { name: 'no Content-Type', headers: { 'Content-Type': undefined } },
      { name: 'text/plain', headers: { 'Content-Type': 'text/plain' } },
      { name: 'a form', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } },
      { name: 'JSON in another charset', headers: { 'Content-Type': 'application/json; charset=iso-8859-1' } },
      { name: 'JSON in UTF-16', headers: { 'Content-Type': 'application/json; charset=utf-16' } },
      { name: 'a JSON look-alike type', headers: { 'Content-Type': 'application/jsonp' } },
    ])('refuses $name with JSON_REQUIRED', ({ headers }) => {
      expectApiError(input(createRoute, { headers, body: '{}' }), 'JSON_REQUIRED');
    });

    it.each([
      { name: 'a missing body', body: undefined },
      { name: 'an empty body', body: '' },
      { name: 'malformed JSON', body: '{"game":' },
      { name: 'an array', body: '[{"game":"fps"}]' },
      { name: 'null', body: 'null' },
      { name: 'a string', body: '"fps"' },
      { name: 'a number', body: '42' },
      { name: 'invalid UTF-8', body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) },
    ])('refuses $name with INVALID_JSON', ({ body }) => {
      expectApiError(input(createRoute, { headers: { 'Content-Type': 'application/json' }, body }), 'INVALID_JSON');
    });
  });
});
