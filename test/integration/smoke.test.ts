/**
 * `npm run smoke` against the local stack: every check passes on the local
 * front (the web side and the edge burst included, the local front's edge
 * guard standing in for WAF), and the suite fails, naming what is wrong,
 * against a front that breaks the spec the way a misconfigured deployment
 * would (a header dropped, API Gateway's stock error body instead of the
 * envelope).
 *
 * One stack, one source address: the edge guard counts every request of this
 * file from 127.0.0.1, so the tests run in this order (vitest runs a file's
 * tests in sequence) and the burst, which leaves the address refused for the
 * rest of its window, comes last. Before it the file sends 19 partner
 * requests, below the 30 per 10 seconds of edge-ip-burst.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { runSmokeCli } from '../../scripts/smoke/cli';
import { recordInput } from '../support/record-input';
import { createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
let key: string;
let partnerId: string;

beforeAll(async () => {
  // The edge rules on, as WAF applies them in AWS; the webhook pipeline is not needed.
  stack = await startTestStack({ edgeProtection: true, webhooks: false });
  const org = await createOrgWithManagerKey(stack.office, ['records:read']);
  [key, partnerId] = [org.key.key, org.partner_id];
  // Three records an hour old, one second apart: two pages of two, far from the list's live end.
  let at = Date.now() - 3_600_000;
  const office = createBackOffice(stack.client, stack.tables.access, () => new Date((at += 1000)), stack.tables.domain);
  for (let i = 0; i < 3; i += 1) await office.records!.put(partnerId, recordInput('Smoke'));
});
afterAll(() => stack?.stop());

/** Runs the CLI as `npm run smoke` does; its printed table and exit status. */
async function smoke(args: string[]): Promise<{ status: number; output: string }> {
  let output = '';
  const status = await runSmokeCli(args, { out: { write: (text: string) => (output += text) }, env: {} });
  return { status, output };
}

/** RESULT and DETAIL of the table row of a check. */
function row(output: string, check: string): { result: string; detail: string } {
  const line = output.split('\n').find((l) => l.startsWith(`${check}  `));
  if (!line) throw new Error(`no row for ${check} in:\n${output}`);
  const [, result, detail] = /^.*?\s{2,}(PASS|FAIL|SKIP)\s+(.*)$/.exec(line) ?? [];
  return { result, detail };
}

/** Every row's result, by check. */
const results = (output: string) =>
  Object.fromEntries(
    output
      .split('\n')
      .map((line) => /^(.+?)\s{2,}(PASS|FAIL|SKIP)\s{2,}/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[1], match[2]]),
  );

/**
 * A front between the client and the local stack that breaks two promises of
 * the spec: every answer of /me comes back without X-Request-Id, and a path no route
 * declares gets API Gateway's stock answer (403 `{"message":"Missing
 * Authentication Token"}`), as on an API deployed without its gateway responses.
 */
async function startBrokenFront(target: string): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server: Server = createServer(async (request, response) => {
    if (request.url?.startsWith('/v1/smoke-unknown-route')) {
      response.writeHead(403, { 'Content-Type': 'application/json' }).end('{"message":"Missing Authentication Token"}');
      return;
    }
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => name !== 'host' && name !== 'connection')) as Record<string, string>;
    const answer = await fetch(`${new URL(target).origin}${request.url}`, { method: request.method, headers, redirect: 'manual' });
    const forwarded = [...answer.headers].filter(([name]) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name));
    const dropped = request.url === '/v1/me' ? forwarded.filter(([name]) => name !== 'x-request-id') : forwarded;
    response.writeHead(answer.status, Object.fromEntries(dropped)).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('npm run smoke against the local stack', () => {
  it('fails, exit status 1, against a front that drops X-Request-Id from /me or answers a path with API Gateway’s stock body, naming each problem', async () => {
    const front = await startBrokenFront(stack.baseUrl);
    try {
      const { status, output } = await smoke(['--base-url', front.baseUrl, '--key', key]);

      expect(status, output).toBe(1);
      for (const check of ['GET /me with the key', 'GET /me without a key', 'GET /me with a malformed key', 'GET /me with an unknown well-formed key']) {
        expect(row(output, check), check).toEqual({ result: 'FAIL', detail: 'no X-Request-Id header' });
      }
      expect(row(output, 'GET an unknown route')).toEqual({ result: 'FAIL', detail: 'status 403, expected 404' });
      // Each further problem on its own line, under the first.
      for (const problem of ['Cache-Control is absent, not no-store', 'ok is absent, not false', 'error is absent, not an object', 'request_id is absent']) {
        expect(output).toMatch(new RegExp(`\\n {40,}${problem}\\n`));
      }
      // Everything else of the deployment is fine, and the suite says so.
      const passed = Object.entries(results(output)).filter(([, result]) => result === 'PASS').map(([check]) => check);
      expect(passed).toEqual([
        'GET /health',
        'DELETE /health (method not offered)',
        'GET /health?smoke=1 (unknown parameter)',
        'GET /health?api_key=… (key in the URL)',
        'records page and its cursor',
        // The typed client reads the body's request_id: a front dropping the header does not stop it.
        'the typed client (@partner-api/client): me() and iterateRecords()',
      ]);
      expect(output).toMatch(/\n6 passed, 5 failed, 1 skipped\n$/);
    } finally {
      await front.close();
    }
  });

  it('refuses to send the key anywhere before the command line is right (exit status 2, nothing sent)', async () => {
    const { status, output } = await smoke(['--base-url', 'http://api.example.com/v1', '--key', key]);
    expect(status).toBe(2);
    expect(output).toContain('--base-url must be an https:// URL');
    expect(output).not.toContain(key);
  });

  // Last: the burst leaves 127.0.0.1 refused by the front's edge guard until its window ends.
  it('passes every check, the web side and the edge burst included, exit status 0; only the managed rule probes are skipped (no managed groups locally)', async () => {
    const { status, output } = await smoke(['--base-url', stack.baseUrl, '--key', key, '--web-base-url', stack.baseUrl, '--check-waf']);

    expect(status, output).toBe(0);
    const skipped = Object.entries(results(output)).filter(([, result]) => result !== 'PASS');
    expect(skipped).toEqual([
      ['edge: a managed rule blocks (partner API)', 'SKIP'],
      ['edge: a managed rule blocks (web side)', 'SKIP'],
    ]);
    expect(Object.keys(results(output))).toHaveLength(21);
    // No WAF here: the front routes the path as sent, so every spelling of the sign-in path is refused, none reaches sign-in.
    expect(row(output, 'edge: the sign-in rule counts every spelling of the sign-in path (web side)').detail).toMatch(/^no WAF on this machine: .* refused with 404 NOT_FOUND/);
    expect(row(output, 'the typed client (@partner-api/client): me() and iterateRecords()').detail).toMatch(new RegExp(`; iterateRecords\\(\\): 3 records of ${partnerId}$`));
    expect(row(output, 'GET /me with the key').detail).toContain(`organization ${partnerId}, scopes records:read; key-minute`);
    expect(row(output, 'records page and its cursor').detail).toBe(`2 + 1 records of ${partnerId} through next_cursor, in order`);
    expect(row(output, 'edge: a burst meets 429 (partner API)').detail).toMatch(/^429 RATE_LIMITED from the local front, WAF's stand-in: policy edge-ip-burst, Retry-After \d+/);
    expect(row(output, 'edge: a burst meets 429 (web side)').detail).toMatch(/^429 RATE_LIMITED from the local front, WAF's stand-in: policy web-ip-burst, Retry-After \d+/);
    expect(output).not.toContain(key);
  });
});
