/**
 * The spec's client rules, as the `fetch` the generated client calls (openapi-fetch's `fetch` option):
 * - retries (docs "Retry rules"): a GET, and an invitation creation carrying its Idempotency-Key (same key, same body:
 *   the very request again), on a network error, 408, 429, 502, 503 or 504, with exponential backoff and full jitter,
 *   never sooner than Retry-After; never on any other status (401, 403, 404, 409, 422 …); never past the call's deadline;
 * - concurrency (docs "Client guidance"): at most `maxInFlight` requests of this client (one key) at once, and one queue
 *   per organization (`/partners/{partner_id}/…`) with `organizationConcurrency` slots, paused after a 429 until its
 *   Retry-After.
 */
import { retryAfterOf } from './errors.js';

export interface TransportOptions {
  /** The fetch to send with (default: the global one). */
  readonly fetch?: (request: Request) => Promise<Response>;
  /** Attempts of a retryable request, the first included (default 4). */
  readonly maxAttempts?: number;
  /** First backoff ceiling, ms (default 250): attempt n waits a random time below base × 2^(n-1), capped at `maxDelayMs`. */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** A call's whole time, retries and waits included, ms (default 30 s). */
  readonly deadlineMs?: number;
  /** Requests of this client in flight at once (default 2: the spec's per-key guidance). */
  readonly maxInFlight?: number;
  /** Requests of one organization in flight at once (default 2). */
  readonly organizationConcurrency?: number;
  /** For tests: the clock and the wait. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random?: () => number;
}

const RETRYABLE_STATUSES = new Set([408, 429, 502, 503, 504]);

/** Whether sending `request` again is safe: a read, or an invitation creation under its Idempotency-Key. */
export function isRetryable(request: Request): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  return request.method === 'POST' && /\/partners\/[^/]+\/invitations$/.test(new URL(request.url).pathname) && request.headers.has('idempotency-key');
}

const organizationOf = (request: Request) => /\/partners\/([^/]+)\//.exec(`${new URL(request.url).pathname}/`)?.[1];

/** A counting semaphore whose waiters are served in order; `pauseUntil` holds new admissions until a time. */
class Slots {
  private active = 0;
  private readonly waiters: (() => void)[] = [];
  private pausedUntil = 0;

  constructor(
    private readonly size: number,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ) {}

  async acquire(signal?: AbortSignal): Promise<() => void> {
    for (;;) {
      const paused = this.pausedUntil - Date.now();
      if (paused > 0) await this.sleep(paused, signal);
      else if (this.active < this.size) break;
      else await new Promise<void>((resolve) => this.waiters.push(resolve));
      if (signal?.aborted) {
        // A caller that gave up passes its turn on: the next waiter is not left waiting for a release that came.
        this.waiters.shift()?.();
        throw signal.reason;
      }
    }
    this.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      this.waiters.shift()?.();
    };
  }

  pauseUntil(time: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, time);
  }
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export function createTransport(options: TransportOptions = {}): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const maxAttempts = options.maxAttempts ?? 4;
  const base = options.baseDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 20_000;
  const deadlineMs = options.deadlineMs ?? 30_000;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const client = new Slots(options.maxInFlight ?? 2, sleep);
  const organizations = new Map<string, Slots>();
  const queueOf = (id: string) => {
    let queue = organizations.get(id);
    if (!queue) organizations.set(id, (queue = new Slots(options.organizationConcurrency ?? 2, sleep)));
    return queue;
  };

  return async (request: Request) => {
    const deadline = Date.now() + deadlineMs;
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(deadlineMs)]);
    const retryable = isRetryable(request);
    const organization = organizationOf(request);
    const queue = organization ? queueOf(organization) : undefined;
    // A body can be read once: each attempt sends its own copy of the original.
    const original = request.clone();
    for (let attempt = 1; ; attempt += 1) {
      const releaseOrganization = queue ? await queue.acquire(signal) : () => undefined;
      const releaseClient = await client.acquire(signal).catch((error: unknown) => {
        releaseOrganization();
        throw error;
      });
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await send(new Request(original.clone(), { signal }));
      } catch (error) {
        failure = error;
      } finally {
        releaseClient();
        releaseOrganization();
      }
      const retryAfterMs = response ? (retryAfterOf(response.headers) ?? 0) * 1000 : 0;
      if (response?.status === 429 && queue) queue.pauseUntil(Date.now() + retryAfterMs);
      const again = retryable && attempt < maxAttempts && !request.signal.aborted && (failure !== undefined ? !signal.aborted : RETRYABLE_STATUSES.has(response!.status));
      if (!again) {
        if (failure !== undefined) throw failure;
        return response!;
      }
      const backoff = random() * Math.min(maxDelay, base * 2 ** (attempt - 1));
      const wait = Math.max(retryAfterMs, backoff);
      // Past the deadline the answer in hand is the answer.
      if (Date.now() + wait >= deadline) {
        if (failure !== undefined) throw failure;
        return response!;
      }
      await response?.body?.cancel().catch(() => undefined);
      await sleep(wait, signal);
    }
  };
}
