/**
 * The smoke check of the sign-in path's spellings (`--check-waf`, web side), against scripted deployments on
 * loopback: a WAF whose sign-in rule decodes and normalizes the path (the rule as deployed) passes; the rule before
 * NORMALIZE_PATH, which lets `/v1//settings/api/session` through to the sign-in function uncounted, fails, naming the
 * spelling; a spelling API Gateway refuses itself (404) passes as refused; a web ACL that never answers the sign-in
 * rule's 429 fails. The spellings reach the server exactly as written (no client-side normalization).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SmokeContext } from '../../../scripts/smoke/check';
import { edgeChecks } from '../../../scripts/smoke/edge-checks';
import { CheckFailure } from '../../../scripts/smoke/expectations';
import type { SmokeOptions } from '../../../scripts/smoke/options';
import { SIGN_IN_PATH_SPELLINGS, signInSpellings } from '../../../scripts/smoke/sign-in-spellings';

type Reply = { status: number; headers: Record<string, string>; body: unknown };

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** WAF's documented NORMALIZE_PATH: repeated slashes, `.` segments and `x/..` pairs (not at the start) removed. */
const normalized = (path: string) => {
  const kept: string[] = [];
  for (const segment of path.split('/').slice(1)) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && kept.length > 0) kept.pop();
    else kept.push(segment);
  }
  return `/${kept.join('/')}`;
};

interface Deployment {
  /** The rule's transformations: the deployed ones (decode, normalize) or the old ones (decode only). */
  readonly normalizes: boolean;
  /** How API Gateway routes a spelling: merged slashes to the sign-in method, or a 404 of its own. */
  readonly routes: (path: string) => 'sign-in' | 'not-found';
  /** The plain sign-in attempt after which WAF refuses the address (never: no rule). */
  readonly blocksAfter: number;
}

const answer = (status: number, code: string, requestId: string, headers: Record<string, string> = {}): Reply => ({
  status,
  headers: { 'X-Request-Id': requestId, ...headers },
  body: { code, message: code, request_id: requestId, ok: false, error: { code, message: code } },
});

/** A web side behind a scripted WAF: the paths it received, as received. */
async function deployment({ normalizes, routes, blocksAfter }: Deployment): Promise<{ base: string; received: string[] }> {
  const received: string[] = [];
  let counted = 0;
  server = createServer((request, response) => {
    const path = request.url ?? '';
    received.push(`${request.method} ${path}`);
    const inspected = normalizes ? normalized(decodeURIComponent(path)) : decodeURIComponent(path);
    const matched = request.method === 'POST' && inspected.startsWith('/v1/settings/api/session');
    if (matched) counted += 1;
    const reply =
      matched && counted > blocksAfter
        ? answer(429, 'RATE_LIMITED', 'edge', { 'X-RateLimit-Policy': 'sign-in-ip-minute', 'Retry-After': '60' })
        : path === '/v1/settings/api/session' || routes(path) === 'sign-in'
          ? answer(403, 'CSRF_CHECK_FAILED', `r-${received.length}`)
          : answer(404, 'NOT_FOUND', `r-${received.length}`);
    request.resume();
    response.writeHead(reply.status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...reply.headers }).end(JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, received };
}

const mergesSlashes = (path: string) => (path.replace(/^\/v1\/+/, '/v1/') === '/v1/settings/api/session' ? 'sign-in' : 'not-found');

function options(webBaseUrl: string, overrides: Partial<SmokeOptions> = {}): SmokeOptions {
  return { baseUrl: webBaseUrl, webBaseUrl, key: `pak_live_${'0'.repeat(64)}`, checkWaf: true, wafInFront: true, timeoutMs: 5000, burstDeadlineMs: 60_000, burstRate: 40, ...overrides };
}

async function problemsOf(opts: SmokeOptions): Promise<readonly string[]> {
  try {
    await signInSpellings.run(new SmokeContext(opts));
    return [];
  } catch (error) {
    if (error instanceof CheckFailure) return error.problems;
    throw error;
  }
}

describe('--check-waf: the sign-in path however spelled', () => {
  it('runs after the managed-rule probes and before the bursts, on the web side only', () => {
    expect(edgeChecks(true).map((c) => c.name)).toEqual([
      'edge: a managed rule blocks (partner API)',
      'edge: a managed rule blocks (web side)',
      'edge: the sign-in rule counts every spelling of the sign-in path (web side)',
      'edge: a burst meets 429 (partner API)',
      'edge: a burst meets 429 (web side)',
    ]);
    expect(edgeChecks(false).map((c) => c.name)).not.toContain(signInSpellings.name);
  });

  it('passes when WAF, once the address is over the sign-in rule, refuses every spelling too; each sent as written', async () => {
    // Prepare: the rule as deployed (decoded, normalized); API Gateway merging the slashes after the stage.
    const { base, received } = await deployment({ normalizes: true, routes: mergesSlashes, blocksAfter: 1 });

    // Act
    const outcome = await signInSpellings.run(new SmokeContext(options(base)));

    // Assess
    expect(outcome).toEqual({
      status: 'pass',
      detail: "WAF's sign-in-ip-minute 429 after 2 plain sign-ins, then //settings/api/session 429 sign-in-ip-minute, /./settings/api/session 429 sign-in-ip-minute, /x/../settings/api/session 429 sign-in-ip-minute",
    });
    expect(received).toEqual(['POST /v1/settings/api/session', 'POST /v1/settings/api/session', ...SIGN_IN_PATH_SPELLINGS.map((spelling) => `POST /v1${spelling}`)]);
  });

  it('fails on the rule before NORMALIZE_PATH: the merged-slash spelling reaches the sign-in function uncounted', async () => {
    // Prepare: percent-decoding only; API Gateway routes //settings/api/session to sign-in and 404s the dot segments.
    const { base } = await deployment({ normalizes: false, routes: mergesSlashes, blocksAfter: 1 });

    // Act / Assess
    expect(await problemsOf(options(base))).toEqual([
      'POST //settings/api/session: 403 CSRF_CHECK_FAILED, neither the sign-in rule\'s 429 nor 404 NOT_FOUND: it reached the service uncounted',
    ]);
  });

  it('passes a spelling API Gateway refuses itself as refused without reaching sign-in', async () => {
    // Prepare: no normalization, but no spelling routed to sign-in either.
    const { base } = await deployment({ normalizes: false, routes: () => 'not-found', blocksAfter: 1 });

    // Act
    const outcome = await signInSpellings.run(new SmokeContext(options(base)));

    // Assess
    expect(outcome.detail).toMatch(/then \/\/settings\/api\/session 404 NOT_FOUND, \/\.\/settings\/api\/session 404 NOT_FOUND, \/x\/\.\.\/settings\/api\/session 404 NOT_FOUND$/);
  });

  it('fails when WAF never answers the sign-in rule\'s 429 before the deadline', async () => {
    const { base } = await deployment({ normalizes: true, routes: mergesSlashes, blocksAfter: Number.POSITIVE_INFINITY });
    const [problem] = await problemsOf(options(base, { burstDeadlineMs: 500 }));
    expect(problem).toMatch(/^no 429 from WAF's sign-in-ip-minute within 0\.5 s and 1 sign-in attempts \(its limit: 10 a minute\): is the web side's web ACL associated with its stage/);
  });

  it('on this machine (no WAF) wants every spelling refused, none routed to sign-in', async () => {
    const { base, received } = await deployment({ normalizes: false, routes: () => 'not-found', blocksAfter: Number.POSITIVE_INFINITY });
    const outcome = await signInSpellings.run(new SmokeContext(options(base, { wafInFront: false })));
    expect(outcome.status).toBe('pass');
    expect([...received].sort()).toEqual(SIGN_IN_PATH_SPELLINGS.map((spelling) => `POST /v1${spelling}`).sort());

    await new Promise<void>((resolve) => server!.close(() => resolve()));
    const merged = await deployment({ normalizes: false, routes: mergesSlashes, blocksAfter: Number.POSITIVE_INFINITY });
    expect(await problemsOf(options(merged.base, { wafInFront: false }))).toEqual([
      'POST //settings/api/session: 403 CSRF_CHECK_FAILED, neither the sign-in rule\'s 429 nor 404 NOT_FOUND: it reached the service uncounted',
    ]);
  });
});
