/**
 * The local front as API Gateway plus WAF: request targets routed raw (no
 * `..`, `\` or `//` normalization), client-chosen names that are not object
 * keys (`__proto__`, `constructor`, …), WAF's rules on the raw request (a key
 * anywhere in the target, raw sizes), Lambda's function timeout (502), and a
 * seeded fuzz over names, values and paths that never yields a 5xx.
 *
 * Requests go over raw sockets: fetch() would normalize the very targets
 * under test.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeKey } from '../../lambdas/identity/describe-key';
import { generateApiKey } from '../../lambdas/shared/identity/api-keys';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { ROUTE_CONTRACTS } from '../../lambdas/service/contracts';
import { Router, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { HANDLERS } from '../../local/handlers';
import { startLocalFront } from '../../local/http-front';
import { createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

interface WireAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: { ok?: boolean; error?: { code: string; message: string }; request_id?: string } | undefined;
}

/** Send one HTTP/1.1 request exactly as written (target, headers, body) and read the answer. */
function wire(baseUrl: string, request: { method?: string; target: string; headers?: [string, string][]; body?: string }): Promise<WireAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const headers: [string, string][] = [['Host', `${hostname}:${port}`], ['Connection', 'close'], ...(request.headers ?? [])];
  if (request.body !== undefined) headers.push(['Content-Length', String(Buffer.byteLength(request.body))]);
  const head = `${request.method ?? 'GET'} ${request.target} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  return new Promise((resolve, reject) => {
    // Written, not ended: the server closes the connection after its answer (Connection: close).
    const socket = connect(Number(port), hostname, () => socket.write(head + (request.body ?? '')));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [headText, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...headerLines] = headText.split('\r\n');
      const answerHeaders = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const bodyText = rest.join('\r\n\r\n');
      let body: WireAnswer['body'];
      try {
        body = bodyText ? (JSON.parse(bodyText) as WireAnswer['body']) : undefined;
      } catch {
        body = undefined;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers: answerHeaders, body });
    });
  });
}

const probeRoute: RouteDefinition = {
  id: 'probe',
  method: 'GET',
  path: '/partners/{partner_id}/probe',
  group: 'identity',
  auth: 'key',
  partnerBound: true,
  query: ['q', '__proto__', 'constructor'],
  body: 'none',
};
const router = new Router([...ROUTES, probeRoute]);

let stack: TestStack;
let key: string;
let partnerId: string;

beforeAll(async () => {
  const identity = createPartnerApiHandler({ contracts: ROUTE_CONTRACTS, routes: ROUTES,
    router,
    operations: { me: describeKey, probe: async ({ query }) => ({ data: { query: { ...query } } }) },
  });
  stack = await startTestStack({ router, handlers: { ...HANDLERS, identity } });
  const org = await createOrgWithManagerKey(stack.office, ['records:read']);
  key = org.key.key;
  partnerId = org.partner_id;
});
afterAll(() => stack?.stop());

const authorized = (): [string, string][] => [['Authorization', `Bearer ${key}`]];

describe('routing the raw path, as API Gateway does', () => {
  it.each(['/v1/../v1/me', '/v1//me', '//v1/me', '/v1/me/', '/v1\\me', '/v1/./me', '/v1/%6De'])('answers %s with 404 NOT_FOUND, not GET /me', async (target) => {
    const answer = await wire(stack.baseUrl, { target, headers: authorized() });
    expect(answer.status).toBe(404);
    expect(answer.body?.error?.code).toBe('NOT_FOUND');
  });

  it('still routes the plain path', async () => {
    expect((await wire(stack.baseUrl, { target: '/v1/me', headers: authorized() })).status).toBe(200);
  });
});

describe('names the client chooses are never object keys', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])('serves a header named %s', async (name) => {
    const answer = await wire(stack.baseUrl, { target: '/v1/me', headers: [...authorized(), [name, 'x']] });
    expect(answer.status).toBe(200);
  });

  it.each(['__proto__', 'constructor', 'toString'])('serves a query parameter named %s', async (name) => {
    const answer = await wire(stack.baseUrl, { target: `/v1/me?${name}=x`, headers: authorized() });
    expect(answer.status).toBe(422);
    expect(answer.body?.error?.code).toBe('UNKNOWN_PARAMETER');
  });

  it('passes a declared __proto__ parameter through as data', async () => {
    const answer = await wire(stack.baseUrl, { target: `/v1/partners/${partnerId}/probe?__proto__=a&constructor=b&q=c`, headers: authorized() });
    expect(answer.status).toBe(200);
    expect((answer.body as { data: { query: Record<string, string> } }).data.query).toEqual(JSON.parse('{"__proto__":"a","constructor":"b","q":"c"}'));
  });
});

describe('WAF rules on the raw request (mirrored by the front)', () => {
  const hex = 'ab'.repeat(32);

  it.each([
    { name: 'a percent-encoded key prefix in the path', target: `/v1/me/pak%5Flive_${hex}` },
    { name: 'a key in an absolute-form target\u2019s userinfo', target: `http://pak_live_${hex}@127.0.0.1/v1/me` },
    { name: 'a key in a fragment sent in the target', target: `/v1/me#pak_live_${hex}` },
    { name: 'a key as a query value', target: `/v1/me?x=pak_live_${hex}` },
    { name: 'a credential-named parameter', target: '/v1/me?api_key=whatever' },
  ])('refuses $name with 400 CREDENTIALS_IN_URL', async ({ target }) => {
    const answer = await wire(stack.baseUrl, { target, headers: authorized() });
    expect(answer.status).toBe(400);
    expect(answer.body?.error?.code).toBe('CREDENTIALS_IN_URL');
    expect(answer.headers['x-request-id']).toBe(answer.body?.request_id);
  });

  it('measures the raw query: %41 x 1000 (3000 characters sent) is 414 QUERY_TOO_LONG', async () => {
    const answer = await wire(stack.baseUrl, { target: `/v1/me?q=${'%41'.repeat(1000)}`, headers: authorized() });
    expect(answer.status).toBe(414);
    expect(answer.body?.error?.code).toBe('QUERY_TOO_LONG');
  });

  it('measures the raw query: 1000 colons (1002 characters sent) are within the limit', async () => {
    const answer = await wire(stack.baseUrl, { target: `/v1/partners/${partnerId}/probe?q=${':'.repeat(1000)}`, headers: authorized() });
    expect(answer.status).toBe(200);
  });

  it('measures the raw path: a 513-character path is 414 PATH_TOO_LONG even when it decodes shorter', async () => {
    const answer = await wire(stack.baseUrl, { target: `/v1/${'%41'.repeat(170)}`, headers: authorized() });
    expect(answer.status).toBe(414);
    expect(answer.body?.error?.code).toBe('PATH_TOO_LONG');
  });

  it('refuses a second Content-Encoding header after identity with 415', async () => {
    const answer = await wire(stack.baseUrl, {
      method: 'POST',
      target: `/v1/partners/${partnerId}/probe`,
      headers: [...authorized(), ['Content-Type', 'application/json'], ['Content-Encoding', 'identity'], ['Content-Encoding', 'gzip']],
      body: '{}',
    });
    expect(answer.status).toBe(415);
    expect(answer.body?.error?.code).toBe('CONTENT_ENCODING_UNSUPPORTED');
  });

  it('refuses a key in a JSON body with CREDENTIALS_IN_URL', async () => {
    const answer = await wire(stack.baseUrl, {
      method: 'POST',
      target: '/v1/me',
      headers: [['Content-Type', 'application/json']],
      body: JSON.stringify({ api: generateApiKey() }),
    });
    expect(answer.body?.error?.code).toBe('CREDENTIALS_IN_URL');
  });
});

describe('the function timeout', () => {
  it('answers 502 with the error envelope when the handler outlives it, as API Gateway does', async () => {
    // A function that never answers (the pipeline itself answers 500 just before its deadline, so this is a bare one).
    const never = () => new Promise<never>(() => undefined);
    const front = await startLocalFront({ handlers: { ...HANDLERS, system: never }, functionTimeoutMs: 300 });
    try {
      const answer = await wire(front.baseUrl, { target: '/v1/health' });
      expect(answer.status).toBe(502);
      expect(answer.body).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR' } });
    } finally {
      await front.close();
    }
  });
});

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('fuzz: names, values and paths through the front', () => {
  const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '', 'q', 'Q', '%', '%zz', '%00', 'a%5Bb%5D', 'ä', '💥', '+', '=', 'limit', 'cursor'];
  const VALUES = ['', 'x', '%', '%zz', '%E0%A4%A', '+ +', '\u00e9', '💥', '__proto__', '{"a":1}', '%00', 'a'.repeat(300), '..', '%2F'];
  const SEGMENTS = ['..', '.', '', '%2F', '%2e%2e', '%00', '%', '%zz', '\\', 'me', 'health', 'partners', partnerIdPlaceholder(), 'probe', '__proto__', 'constructor', 'ä', '%F0%9F%92%A5', 'a'.repeat(40)];
  const HEADER_NAMES = ['__proto__', 'constructor', 'toString', 'X-Forwarded-Proto', 'Content-Type', 'Content-Encoding', 'X-Amzn-RequestId', 'Authorization'];

  function partnerIdPlaceholder() {
    return '{partner}';
  }

  it('never answers 5xx, always with the envelope and a request id (400 seeded requests)', async () => {
    const next = random(20261122);
    const pick = <T,>(items: readonly T[]) => items[Math.floor(next() * items.length)];
    const encodeHeader = (value: string) => value.replace(/[^\x20-\x7e]/g, '?');
    const failures: string[] = [];
    for (let i = 0; i < 400; i += 1) {
      const stagePrefix = next() < 0.85 ? '/v1' : pick(['', '/v2', '/V1', '//v1']);
      const segments = Array.from({ length: 1 + Math.floor(next() * 4) }, () => pick(SEGMENTS).replace('{partner}', partnerId));
      const query = Array.from({ length: Math.floor(next() * 4) }, () => `${encodeURIComponent(pick(NAMES)).replace(/%25/g, '%')}=${encodeURIComponent(pick(VALUES)).replace(/%25/g, '%')}`);
      const target = `${stagePrefix}/${segments.join('/')}${query.length ? `?${query.join('&')}` : ''}`.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c));
      const headers: [string, string][] = [];
      if (next() < 0.7) headers.push(['Authorization', next() < 0.8 ? `Bearer ${key}` : encodeHeader(pick(VALUES))]);
      for (let h = Math.floor(next() * 3); h > 0; h -= 1) {
        const name = pick(HEADER_NAMES);
        if (name !== 'Authorization') headers.push([name, encodeHeader(pick(VALUES)) || 'x']);
      }
      const method = pick(['GET', 'GET', 'POST', 'PUT', 'DELETE']);
      const body = method === 'GET' && next() < 0.8 ? undefined : pick(['{}', '{"a":1}', '[]', 'null', '{"__proto__":{"x":1}}', '']);
      const answer = await wire(stack.baseUrl, { method, target, headers, body });
      const envelope = answer.body?.ok === false && typeof answer.body.error?.code === 'string' && typeof answer.body.request_id === 'string';
      const success = answer.body?.ok === true;
      if (answer.status >= 500 || !(envelope || success) || answer.headers['x-request-id'] === undefined) {
        failures.push(`${answer.status} ${method} ${target} ${JSON.stringify(headers)} → ${JSON.stringify(answer.body)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
