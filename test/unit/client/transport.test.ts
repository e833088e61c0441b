/**
 * The client's transport (client/src/transport.ts) against a scripted fetch and a recorded sleep: what is retried
 * (a GET; an invitation creation with its Idempotency-Key), on what (a network error, 408, 429, 502, 503, 504), how
 * long it waits (never less than Retry-After), what never is (401, 403, 404, 409, 422; a POST without a key), and how
 * many requests are in flight at once.
 */
import { describe, expect, it } from 'vitest';
import { createTransport } from '../../../client/src/transport';

const BASE = 'https://api.example.test/v1';

function scripted(answers: Array<number | Error | { status: number; retryAfter?: string }>) {
  const seen: Request[] = [];
  const bodies: string[] = [];
  let i = 0;
  const fetch = async (request: Request) => {
    seen.push(request);
    bodies.push(await request.text());
    const answer = answers[Math.min(i++, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    const { status, retryAfter } = typeof answer === 'number' ? { status: answer, retryAfter: undefined } : answer;
    return new Response(JSON.stringify({ ok: status < 400 }), { status, headers: retryAfter ? { 'Retry-After': retryAfter } : {} });
  };
  return { fetch, seen, bodies };
}

const waits: number[] = [];
const sleep = async (ms: number) => {
  waits.push(ms);
};

describe('retries', () => {
  it.each([408, 429, 502, 503, 504])('retries a GET answered %i, then returns the success', async (status) => {
    const server = scripted([status, status, 200]);
    const send = createTransport({ fetch: server.fetch, sleep, random: () => 0.5 });
    const response = await send(new Request(`${BASE}/me`));
    expect(response.status).toBe(200);
    expect(server.seen).toHaveLength(3);
  });

  it.each([400, 401, 403, 404, 409, 422, 500])('never retries a GET answered %i', async (status) => {
    const server = scripted([status, 200]);
    const response = await createTransport({ fetch: server.fetch, sleep })(new Request(`${BASE}/me`));
    expect(response.status).toBe(status);
    expect(server.seen).toHaveLength(1);
  });

  it('waits at least Retry-After, and backs off exponentially with jitter without it', async () => {
    waits.length = 0;
    const server = scripted([{ status: 429, retryAfter: '7' }, 503, 503, 200]);
    await createTransport({ fetch: server.fetch, sleep, random: () => 0.5, baseDelayMs: 100 })(new Request(`${BASE}/me`));
    expect(waits).toEqual([7000, 100, 200]);
  });

  it('retries a network error on a GET, and gives up after maxAttempts with the last answer', async () => {
    const server = scripted([new TypeError('fetch failed'), 503]);
    const response = await createTransport({ fetch: server.fetch, sleep, maxAttempts: 3 })(new Request(`${BASE}/me`));
    expect(response.status).toBe(503);
    expect(server.seen).toHaveLength(3);
  });

  it('retries an invitation creation with its Idempotency-Key, the same key and the same body every time', async () => {
    const server = scripted([new TypeError('socket hang up'), 502, 201]);
    const body = JSON.stringify({ game: 'fps' });
    const request = new Request(`${BASE}/partners/org_1/invitations`, { method: 'POST', body, headers: { 'Idempotency-Key': 'key-0123456789abcdef', 'Content-Type': 'application/json' } });
    const response = await createTransport({ fetch: server.fetch, sleep })(request);
    expect(response.status).toBe(201);
    expect(server.seen.map((r) => r.headers.get('idempotency-key'))).toEqual(Array(3).fill('key-0123456789abcdef'));
    expect(server.bodies).toEqual([body, body, body]);
  });

  it('never retries a POST without an Idempotency-Key, nor a revoke', async () => {
    for (const [path, headers] of [['/partners/org_1/invitations', {}], ['/partners/org_1/invitations/x/revoke', { 'Idempotency-Key': 'key-0123456789abcdef' }]] as const) {
      const server = scripted([503, 200]);
      const response = await createTransport({ fetch: server.fetch, sleep })(new Request(`${BASE}${path}`, { method: 'POST', body: '{}', headers }));
      expect(response.status).toBe(503);
      expect(server.seen).toHaveLength(1);
    }
  });

  it('stops at the deadline: a Retry-After beyond it returns the answer in hand', async () => {
    const server = scripted([{ status: 429, retryAfter: '120' }, 200]);
    const response = await createTransport({ fetch: server.fetch, sleep, deadlineMs: 30_000 })(new Request(`${BASE}/me`));
    expect(response.status).toBe(429);
    expect(server.seen).toHaveLength(1);
  });
});

describe('concurrency', () => {
  it('keeps at most 2 requests of one client in flight, and pauses an organization after its 429', async () => {
    let inFlight = 0;
    let most = 0;
    const release: Array<() => void> = [];
    const fetch = async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => release.push(resolve));
      inFlight -= 1;
      return new Response('{}', { status: 200 });
    };
    const send = createTransport({ fetch, sleep });
    const calls = Array.from({ length: 6 }, (_, i) => send(new Request(`${BASE}/partners/org_${i % 3}/records`)));
    for (let served = 0; served < 6; served += 1) {
      await expect.poll(() => release.length).toBeGreaterThan(0);
      release.shift()!();
    }
    await Promise.all(calls);
    expect(most).toBe(2);

    const paused: number[] = [];
    const pausing = createTransport({
      fetch: scripted([{ status: 429, retryAfter: '3' }, 200, 200]).fetch,
      sleep: async (ms) => {
        paused.push(ms);
      },
      random: () => 0,
    });
    await pausing(new Request(`${BASE}/partners/org_9/records`));
    // The retry itself waited Retry-After (3 s): the organization's queue was held for as long.
    expect(paused[0]).toBe(3000);
  });

  it('a call that gives up while waiting for a slot passes its turn on: the calls behind it still run', async () => {
    const release: Array<() => void> = [];
    const fetch = () => new Promise<Response>((resolve) => release.push(() => resolve(new Response('{}', { status: 200 }))));
    const send = createTransport({ fetch, maxInFlight: 1, sleep });
    const first = send(new Request(`${BASE}/me`));
    const abandoning = new AbortController();
    const gaveUp = send(new Request(`${BASE}/me`, { signal: abandoning.signal })).catch((error: unknown) => error);
    const third = send(new Request(`${BASE}/me`));
    await expect.poll(() => release.length).toBe(1);
    abandoning.abort(new Error('the caller gave up'));
    release.shift()!();
    await first;
    await expect.poll(() => release.length).toBe(1);
    release.shift()!();
    expect((await third).status).toBe(200);
    expect(await gaveUp).toBeInstanceOf(Error);
  });
});
