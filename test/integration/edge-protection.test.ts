/**
 * The local front's counterpart of the WAF web ACL: the edge rows of the
 * limits table, by source IP (health included) and by credential (unknown but
 * well-formed credentials included), answering 429 with the envelope,
 * X-RateLimit-Policy and Retry-After, before any handler or DynamoDB call.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS, type Limit } from '../../lambdas/shared/limits/limits-table';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { localDocumentClient, startLocalStack, type LocalStack } from '../../local/local-stack';
import { createOrgWithManagerKey } from '../support/test-stack';
import { inject } from 'vitest';

let stack: LocalStack | undefined;
const TABLE_PREFIX = `edge-${Date.now()}`;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

async function withEdge(overrides: Record<string, number>) {
  const limits: Limit[] = LIMITS.map((l) => (l.kind === 'edge' ? { ...l, limit: overrides[l.policy] ?? 10_000 } : l));
  // One set of tables for the file: the handlers' platform is built once per process, on the first stack's tables.
  stack = await startLocalStack({ dynamoEndpoint: inject('dynamoEndpoint'), tablePrefix: TABLE_PREFIX, edgeProtection: true, limits });
  return stack;
}

/** Start a run of requests well inside a window (at least `marginMs` before its end), so a boundary cannot split it. */
async function awayFromWindowEdge(seconds: number, marginMs = 1500) {
  const into = Date.now() % (seconds * 1000);
  if (into > seconds * 1000 - marginMs) await new Promise((r) => setTimeout(r, seconds * 1000 - into + 100));
}

/**
 * A GET from another client: the front sees the socket's source address, and on Linux the whole of
 * 127.0.0.0/8 is loopback, so binding 127.0.0.n gives each simulated client its own address.
 */
function getFrom(localAddress: string, url: string, headers: Record<string, string>): Promise<{ status: number; policy: string | undefined }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, localAddress, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, policy: res.headers['x-ratelimit-policy'] as string | undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function hammer(url: string, n: number, headers: Record<string, string> = {}) {
  const results = [];
  for (let i = 0; i < n; i += 1) {
    const response = await fetch(url, { headers });
    results.push({ status: response.status, policy: response.headers.get('x-ratelimit-policy'), retryAfter: response.headers.get('retry-after'), body: await response.json() });
  }
  return results;
}

describe('edge protection in the local front', () => {
  it('limits a source IP, health included, and answers with the envelope, the policy and Retry-After', async () => {
    const { baseUrl } = await withEdge({ 'edge-ip-burst': 5 });
    await awayFromWindowEdge(10);
    const results = await hammer(`${baseUrl}/health`, 7);
    expect(results.slice(0, 5).every((r) => r.status === 200)).toBe(true);
    for (const r of results.slice(5)) {
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED' } });
      expect(r.policy).toBe('edge-ip-burst');
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(r.retryAfter)).toBeLessThanOrEqual(10);
    }
  });

  it('limits a credential per minute even when no such key exists', async () => {
    const { baseUrl } = await withEdge({ 'edge-credential-minute': 3 });
    await awayFromWindowEdge(60);
    const unknown = { Authorization: `Bearer pak_live_${'1'.repeat(64)}` };
    const results = await hammer(`${baseUrl}/me`, 5, unknown);
    expect(results.map((r) => r.status)).toEqual([401, 401, 401, 429, 429]);
    expect(results[3].policy).toBe('edge-credential-minute');
    // Another credential from the same address is not affected.
    expect((await hammer(`${baseUrl}/me`, 1, { Authorization: `Bearer pak_live_${'2'.repeat(64)}` }))[0].status).toBe(401);
  });

  it('limits floods of malformed credentials overall, but never a well-formed key nor requests without credentials', async () => {
    const { baseUrl } = await withEdge({ 'edge-authentication-minute': 2 });
    await awayFromWindowEdge(60);
    const results = await hammer(`${baseUrl}/me`, 3, { Authorization: 'Bearer x' });
    expect(results.map((r) => r.status)).toEqual([401, 401, 429]);
    expect(results[2].policy).toBe('edge-authentication-minute');
    expect((await hammer(`${baseUrl}/health`, 2)).map((r) => r.status)).toEqual([200, 200]);

    // The Region-wide rule is exhausted, yet a valid key is served.
    const office = createBackOffice(localDocumentClient(inject('dynamoEndpoint')), stack!.tables.access);
    const { key } = await createOrgWithManagerKey(office, ['records:read']);
    expect((await hammer(`${baseUrl}/me`, 2, { Authorization: `Bearer ${key.key}` })).map((r) => r.status)).toEqual([200, 200]);
    // So is an unknown but well-formed key: refused as invalid (401), not blocked at the edge.
    expect((await hammer(`${baseUrl}/me`, 1, { Authorization: `Bearer pak_live_${'3'.repeat(64)}` }))[0].status).toBe(401);
  });

  it('lets many clients exhaust the Region-wide rule with junk credentials, each within its own limits, and still serves a valid key', async () => {
    // Prepare: 5 junk requests per address fit the per-address limits (6); 5 addresses send 25, over the Region-wide 20.
    const { baseUrl } = await withEdge({ 'edge-authentication-minute': 20, 'edge-ip-minute': 6, 'edge-ip-burst': 6 });
    const office = createBackOffice(localDocumentClient(inject('dynamoEndpoint')), stack!.tables.access);
    const { key } = await createOrgWithManagerKey(office, ['records:read']);
    // A new minute would empty the Region-wide counter mid-run; a new 10-second window only lowers counts.
    await awayFromWindowEdge(60, 5_000);

    // Act
    const flood = [];
    for (const client of [2, 3, 4, 5, 6]) {
      for (let i = 0; i < 5; i += 1) flood.push(await getFrom(`127.0.0.${client}`, `${baseUrl}/me`, { Authorization: `Bearer junk-${client}-${i}` }));
    }
    const validFromNewClient = await getFrom('127.0.0.7', `${baseUrl}/me`, { Authorization: `Bearer ${key.key}` });
    const validFromFloodingClient = await getFrom('127.0.0.2', `${baseUrl}/me`, { Authorization: `Bearer ${key.key}` });
    const junkFromNewClient = await getFrom('127.0.0.8', `${baseUrl}/me`, { Authorization: 'Bearer junk' });

    // Assess: no client hit its own limits; the Region-wide rule refused the last 5 junk requests.
    expect(flood.map((r) => r.status)).toEqual([...Array(20).fill(401), ...Array(5).fill(429)]);
    expect(new Set(flood.slice(20).map((r) => r.policy))).toEqual(new Set(['edge-authentication-minute']));
    expect(validFromNewClient.status).toBe(200);
    expect(validFromFloodingClient.status).toBe(200);
    expect(junkFromNewClient).toEqual({ status: 429, policy: 'edge-authentication-minute' });
  });

  it('counts the Bearer, bearer and BEARER spellings of one key on one credential counter', async () => {
    const { baseUrl } = await withEdge({ 'edge-credential-minute': 3 });
    const office = createBackOffice(localDocumentClient(inject('dynamoEndpoint')), stack!.tables.access);
    const { key } = await createOrgWithManagerKey(office, ['records:read']);
    await awayFromWindowEdge(60);
    const results = [];
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      results.push((await hammer(`${baseUrl}/me`, 1, { Authorization: `${scheme} ${key.key}` }))[0]);
    }
    // Every spelling is the key (200) until the key's one edge counter is full.
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(results[3].policy).toBe('edge-credential-minute');
  });
});
