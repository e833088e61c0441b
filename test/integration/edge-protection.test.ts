/**
 * The local front's counterpart of the WAF web ACL: the edge rows of the
 * limits table, by source IP (health included) and by credential (unknown but
 * well-formed credentials included), answering 429 with the envelope,
 * X-RateLimit-Policy and Retry-After, before any handler or DynamoDB call.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS, type Limit } from '../../lambdas/shared/limits/limits-table';
import { startLocalStack, type LocalStack } from '../../local/local-stack';
import { inject } from 'vitest';

let stack: LocalStack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

async function withEdge(overrides: Record<string, number>) {
  const limits: Limit[] = LIMITS.map((l) => (l.kind === 'edge' ? { ...l, limit: overrides[l.policy] ?? 10_000 } : l));
  stack = await startLocalStack({ dynamoEndpoint: inject('dynamoEndpoint'), tablePrefix: `edge-${Date.now()}`, edgeProtection: true, limits });
  return stack;
}

/** Start a run of requests well inside a window, so a boundary cannot split it. */
async function awayFromWindowEdge(seconds: number) {
  const into = Date.now() % (seconds * 1000);
  if (into > seconds * 1000 - 1500) await new Promise((r) => setTimeout(r, seconds * 1000 - into + 100));
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

  it('limits authenticated traffic overall, but not requests without credentials', async () => {
    const { baseUrl } = await withEdge({ 'edge-authentication-minute': 2 });
    await awayFromWindowEdge(60);
    const results = await hammer(`${baseUrl}/me`, 3, { Authorization: 'Bearer x' });
    expect(results.map((r) => r.status)).toEqual([401, 401, 429]);
    expect(results[2].policy).toBe('edge-authentication-minute');
    expect((await hammer(`${baseUrl}/health`, 2)).map((r) => r.status)).toEqual([200, 200]);
  });
});
