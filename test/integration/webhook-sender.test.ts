/**
 * The webhook sender against real HTTPS receivers on loopback: what comes
 * back for each kind of answer (statuses, redirects not followed, a capped
 * body), each kind of failure (deadline, refused connection, unknown name),
 * exactly which headers arrive, and that the address checked is the address
 * connected to (one resolution per attempt, whatever DNS says next).
 *
 * The sender runs in local mode (loopback receivers, self-signed
 * certificate) except where the production rules themselves are under test.
 * A connection watch sees every outgoing socket and cuts any that is not to
 * loopback, so the tests never leave the machine.
 */
import { createHmac } from 'node:crypto';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWebhookSender, type SenderOptions } from '../../lambdas/webhooks/destination/safe-sender';
import { webhookHeaders } from '../../lambdas/webhooks/signing';
import { closedPort, startHttpsReceiver, watchOutgoingConnections, type ConnectionWatch, type HttpsReceiver } from '../support/https-receiver';

const LOCAL_POLICY = { allowLocal: true, forbiddenHosts: [] };
const PRODUCTION_POLICY = { allowLocal: false, forbiddenHosts: ['screening-platform.io'] };
const PUBLIC_ADDRESS = '93.184.215.14';
const SECRET = 'whsec_5f1e0c8d2b7a4f3e9c6d1a0b8e7f6a5c4d3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f';
const BODY = JSON.stringify({ id: 'evt_01', type: 'webhook.test', api_version: 'v1', partner_id: 'org_1', created_at: '2024-05-01T12:00:00Z', data: { message: 'héllo' } });

let receiver: HttpsReceiver;
let other: HttpsReceiver;
let watch: ConnectionWatch;

/** A resolver that answers from a script, one entry per call (the last repeats), and counts its calls. */
function scriptedResolver(...answers: (readonly string[] | Error)[]) {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { resolve, calls };
}

const send = (url: string, options: Partial<SenderOptions> = {}, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
  createWebhookSender({ policy: LOCAL_POLICY, ...options })({ url, headers, body: BODY });

const localhostUrl = (r: HttpsReceiver) => r.url.replace('127.0.0.1', 'localhost');

beforeAll(async () => {
  [receiver, other] = await Promise.all([startHttpsReceiver(), startHttpsReceiver()]);
  watch = watchOutgoingConnections();
});

afterAll(async () => {
  watch.stop();
  await Promise.all([receiver.close(), other.close()]);
});

beforeEach(() => {
  for (const r of [receiver, other]) {
    r.requests.length = 0;
    r.setHandler(() => ({ status: 200, body: '{"ok":true}' }));
  }
  watch.destinations.length = 0;
  watch.blocked.length = 0;
});

describe('answers', () => {
  it('returns a 2xx with its body, and the receiver got one POST to the URL path with the exact body bytes', async () => {
    // Prepare
    receiver.setHandler(() => ({ status: 202, body: 'accepted' }));

    // Act
    const outcome = await send(`${receiver.url}?attempt=1`);

    // Assess
    expect(outcome).toMatchObject({ kind: 'response', status: 202, truncated: false });
    if (outcome.kind === 'response') expect(outcome.body.toString('utf8')).toBe('accepted');
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(0);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]).toMatchObject({ method: 'POST', path: '/hook?attempt=1' });
    expect(receiver.requests[0].rawBody.equals(Buffer.from(BODY, 'utf8'))).toBe(true);
  });

  it.each([204, 400, 401, 404, 410, 429, 500, 502, 503])('returns status %i as a response, not a failure', async (status) => {
    receiver.setHandler(() => ({ status, body: status === 204 ? undefined : `status ${status}` }));

    const outcome = await send(receiver.url);

    expect(outcome).toMatchObject({ kind: 'response', status });
    expect(receiver.requests).toHaveLength(1);
  });

  it.each([301, 302, 303, 307, 308])('returns a %i as it is and never follows its Location', async (status) => {
    // Prepare: the redirect points at another live receiver
    receiver.setHandler(() => ({ status, headers: { Location: `${other.url}?followed=1` } }));

    // Act
    const outcome = await send(receiver.url);

    // Assess
    expect(outcome).toMatchObject({ kind: 'response', status });
    expect(receiver.requests).toHaveLength(1);
    expect(other.requests).toHaveLength(0);
    expect(watch.destinations).toEqual(['127.0.0.1']);
  });

  it('reads a 1 MB response only up to the cap and cuts the connection', async () => {
    receiver.setHandler(() => ({ status: 200, body: Buffer.alloc(1024 * 1024, 0x61) }));

    const outcome = await send(receiver.url);

    expect(outcome).toMatchObject({ kind: 'response', status: 200, truncated: true });
    if (outcome.kind === 'response') expect(outcome.body.length).toBe(4096);
  });

  it('honours a smaller cap, and a body exactly at the cap is not truncated', async () => {
    receiver.setHandler(() => ({ status: 200, body: 'x'.repeat(300) }));
    const capped = await send(receiver.url, { maxResponseBytes: 100 });
    receiver.setHandler(() => ({ status: 200, body: 'y'.repeat(100) }));
    const exact = await send(receiver.url, { maxResponseBytes: 100 });

    expect(capped).toMatchObject({ kind: 'response', truncated: true });
    if (capped.kind === 'response') expect(capped.body.toString()).toBe('x'.repeat(100));
    expect(exact).toMatchObject({ kind: 'response', truncated: false });
    if (exact.kind === 'response') expect(exact.body.toString()).toBe('y'.repeat(100));
  });

  it('reaches a receiver named localhost (local mode, certificate for localhost)', async () => {
    const { resolve, calls } = scriptedResolver(['127.0.0.1']);

    const outcome = await send(localhostUrl(receiver), { resolve });

    expect(outcome).toMatchObject({ kind: 'response', status: 200 });
    expect(calls).toEqual(['localhost']);
    expect(receiver.requests[0].headers.host).toBe(`localhost:${receiver.port}`);
  });
});

describe('headers', () => {
  it('sends exactly the signed headers plus Host, Content-Length and Connection, and nothing a caller slips in', async () => {
    // Prepare
    const signed = webhookHeaders({ secret: SECRET, eventId: 'evt_01', body: BODY, now: new Date('2024-05-01T12:00:05Z') });
    const careless = { ...signed, Cookie: 'session=abc', Authorization: 'Bearer key_live_1', 'Proxy-Authorization': 'Basic eA==', Host: 'evil.net' };

    // Act
    const outcome = await send(receiver.url, {}, careless);

    // Assess
    expect(outcome).toMatchObject({ kind: 'response', status: 200 });
    const received = receiver.requests[0];
    expect(Object.keys(received.headers).sort()).toEqual(
      ['connection', 'content-length', 'content-type', 'host', 'user-agent', 'x-service-event-id', 'x-service-signature', 'x-service-timestamp'].sort(),
    );
    expect(received.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Service-Webhooks/1.0',
      'x-service-event-id': 'evt_01',
      'x-service-timestamp': '1714564805',
      host: `127.0.0.1:${receiver.port}`,
      'content-length': String(Buffer.byteLength(BODY, 'utf8')),
    });
    // The receiver can verify the signature over the raw bytes it got.
    const expected = createHmac('sha256', SECRET).update(`${received.headers['x-service-timestamp']}.`).update(received.rawBody).digest('hex');
    expect(received.headers['x-service-signature']).toBe(`v1=${expected}`);
  });
});

describe('failures', () => {
  it('gives up at the deadline when the receiver holds the request: WEBHOOK_UNREACHABLE', async () => {
    receiver.setHandler(() => ({ status: 200, delayMs: 5_000 }));

    const outcome = await send(receiver.url, { timeoutMs: 300 });

    expect(outcome).toMatchObject({ kind: 'failure', reason: 'WEBHOOK_UNREACHABLE', detail: 'timeout' });
    // It gave up: the receiver's 200 (after 5 s) never counted.
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(250);
  });

  it('counts resolution inside the deadline: a resolver that never answers is WEBHOOK_UNREACHABLE', async () => {
    const outcome = await send(localhostUrl(receiver), { timeoutMs: 200, resolve: () => new Promise<never>(() => undefined) });

    expect(outcome).toMatchObject({ kind: 'failure', reason: 'WEBHOOK_UNREACHABLE', detail: 'timeout' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('reports a refused connection as CONNECTION_FAILED', async () => {
    const port = await closedPort();

    const outcome = await send(`https://127.0.0.1:${port}/hook`);

    expect(outcome).toMatchObject({ kind: 'failure', reason: 'CONNECTION_FAILED', detail: 'ECONNREFUSED' });
  });

  it('reports a receiver that drops the connection as CONNECTION_FAILED', async () => {
    const dropper = createTcpServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', () => resolve()));
    const { port } = dropper.address() as AddressInfo;

    try {
      const outcome = await send(`https://127.0.0.1:${port}/hook`);

      expect(outcome).toMatchObject({ kind: 'failure', reason: 'CONNECTION_FAILED' });
    } finally {
      await new Promise<void>((resolve) => dropper.close(() => resolve()));
    }
  });

  it('reports an unknown name (ENOTFOUND) as WEBHOOK_UNREACHABLE, without connecting', async () => {
    const { resolve, calls } = scriptedResolver(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));

    const outcome = await send('https://hooks.partner-hooks.net/in', { resolve });

    expect(outcome).toMatchObject({ kind: 'failure', reason: 'WEBHOOK_UNREACHABLE', detail: 'ENOTFOUND' });
    expect(calls).toHaveLength(1);
    expect(watch.destinations).toEqual([]);
  });

  it('reports a name without addresses as WEBHOOK_UNREACHABLE', async () => {
    const { resolve } = scriptedResolver([]);

    const outcome = await send('https://hooks.partner-hooks.net/in', { resolve });

    expect(outcome).toMatchObject({ kind: 'failure', reason: 'WEBHOOK_UNREACHABLE' });
  });

  it('never throws, even on a header value node refuses to send', async () => {
    const outcome = await send(receiver.url, {}, { 'X-Bad': 'a\r\nInjected: 1' });

    expect(outcome).toMatchObject({ kind: 'failure', reason: 'CONNECTION_FAILED' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses a URL that breaks the rules before any resolution: INVALID_WEBHOOK_URL', async () => {
    const { resolve, calls } = scriptedResolver([PUBLIC_ADDRESS]);

    const outcome = await send('http://hooks.partner-hooks.net/in', { resolve });

    expect(outcome).toMatchObject({ kind: 'failure', reason: 'INVALID_WEBHOOK_URL' });
    expect(calls).toHaveLength(0);
  });
});

describe('destinations', () => {
  it('connects to the address it checked: public first, loopback on the next lookup, and only one lookup happens', async () => {
    // Prepare: a rebinding name, public for the check, loopback for whoever asks next
    const { resolve, calls } = scriptedResolver([PUBLIC_ADDRESS], ['127.0.0.1']);

    // Act
    const outcome = await send('https://rebind.partner-hooks.net/hook', { resolve, timeoutMs: 2_000 });

    // Assess: the socket went for the public address (the test's guard cut it), never loopback
    expect(calls).toEqual(['rebind.partner-hooks.net']);
    expect(watch.destinations).toEqual([PUBLIC_ADDRESS]);
    expect(watch.blocked).toEqual([PUBLIC_ADDRESS]);
    expect(outcome).toMatchObject({ kind: 'failure', reason: 'CONNECTION_FAILED', detail: 'ETESTBLOCKED' });
    expect(receiver.requests).toHaveLength(0);
    expect(other.requests).toHaveLength(0);
  });

  it('delivers to the checked loopback address even when the next lookup would answer elsewhere', async () => {
    const { resolve, calls } = scriptedResolver(['127.0.0.1'], ['10.0.0.7']);

    const outcome = await send(localhostUrl(receiver), { resolve });

    expect(outcome).toMatchObject({ kind: 'response', status: 200 });
    expect(calls).toHaveLength(1);
    expect(watch.destinations).toEqual(['127.0.0.1']);
    expect(receiver.requests).toHaveLength(1);
  });

  it.each([
    ['a private address', ['10.0.0.7']],
    ['the metadata address', ['169.254.169.254']],
    ['a public and a private address', [PUBLIC_ADDRESS, '192.168.0.10']],
    ['a public IPv4 and IPv6 loopback', [PUBLIC_ADDRESS, '::1']],
  ])('refuses a name resolving to %s: UNSAFE_WEBHOOK_DESTINATION, no connection', async (_name, addresses) => {
    const { resolve, calls } = scriptedResolver(addresses);

    const outcome = await send('https://hooks.partner-hooks.net/in', { resolve });

    expect(outcome).toMatchObject({ kind: 'failure', reason: 'UNSAFE_WEBHOOK_DESTINATION' });
    expect(calls).toHaveLength(1);
    expect(watch.destinations).toEqual([]);
  });

  it('accepts a loopback answer only for localhost in local mode: another name resolving to 127.0.0.1 is unsafe', async () => {
    const { resolve } = scriptedResolver(['127.0.0.1']);

    const outcome = await send('https://hooks.partner-hooks.net/in', { resolve });

    expect(outcome).toMatchObject({ kind: 'failure', reason: 'UNSAFE_WEBHOOK_DESTINATION' });
    expect(watch.destinations).toEqual([]);
  });
});

describe('production rules (allowLocal: false)', () => {
  it('refuses https://127.0.0.1:<port>/ as INVALID_WEBHOOK_URL; the receiver gets nothing', async () => {
    const outcome = await send(receiver.url, { policy: PRODUCTION_POLICY });

    expect(outcome).toMatchObject({ kind: 'failure', reason: 'INVALID_WEBHOOK_URL' });
    expect(receiver.requests).toHaveLength(0);
    expect(watch.destinations).toEqual([]);
  });

  it('refuses a name resolving to 127.0.0.1 as UNSAFE_WEBHOOK_DESTINATION; the receiver gets nothing', async () => {
    const { resolve, calls } = scriptedResolver(['127.0.0.1']);

    const outcome = await send('https://hooks.partner-hooks.net/in', { policy: PRODUCTION_POLICY, resolve });

    expect(outcome).toMatchObject({ kind: 'failure', reason: 'UNSAFE_WEBHOOK_DESTINATION' });
    expect(calls).toHaveLength(1);
    expect(receiver.requests).toHaveLength(0);
    expect(watch.destinations).toEqual([]);
  });

  it('refuses localhost itself', async () => {
    const { resolve, calls } = scriptedResolver(['127.0.0.1']);

    const outcome = await send(localhostUrl(receiver), { policy: PRODUCTION_POLICY, resolve });

    expect(outcome).toMatchObject({ kind: 'failure', reason: 'INVALID_WEBHOOK_URL' });
    expect(calls).toHaveLength(0);
    expect(receiver.requests).toHaveLength(0);
  });
});
