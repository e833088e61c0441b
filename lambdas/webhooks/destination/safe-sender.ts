/**
 * The one way the service sends an HTTP request to a partner's callback.
 * A webhook URL is attacker-chosen text, so this module is the SSRF guard:
 *
 * 1. the URL must pass the address rules (url-rules.ts);
 * 2. the name is resolved once, and every address it resolves to must be
 *    public (address-policy.ts), or the delivery is refused: a name that
 *    mixes a public and a private answer is refused as a whole;
 * 3. the socket connects to the address that was checked. A pinned `lookup`
 *    hands that address to the socket, so no second DNS lookup happens
 *    between the check and the connection (DNS rebinding), while TLS still
 *    verifies the certificate against the name (SNI and identity).
 *
 * The request carries only the caller's headers plus Host and Content-Length
 * (credential and hop-by-hop names are dropped if a caller passes them; node
 * adds `Connection: close`), no proxy, no pooled connection (`agent: false`);
 * redirects are answers, never followed; the response body is read up to a
 * cap and the socket is then cut.
 * One deadline covers the whole exchange: resolution, connection, TLS and the
 * response. The sender never throws and never logs: the outcome says what
 * happened, and nothing of the body or headers leaves this module.
 *
 * The outcome's reasons are the spec's failure reason names (Callback rules);
 * mapping a response status to HTTP_3xx/4xx/5xx is the caller's.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isAllowedAddress } from './address-policy';
import { checkWebhookUrl, LOCAL_HOSTS, type UrlPolicy } from './url-rules';

export type SendFailure = 'INVALID_WEBHOOK_URL' | 'UNSAFE_WEBHOOK_DESTINATION' | 'CONNECTION_FAILED' | 'WEBHOOK_UNREACHABLE';

export type SendOutcome =
  | { kind: 'response'; status: number; body: Buffer; truncated: boolean; elapsedMs: number }
  | { kind: 'failure'; reason: SendFailure; detail: string; elapsedMs: number };

export interface WebhookRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface SenderOptions {
  readonly policy: UrlPolicy;
  /** The whole exchange: DNS, connection, TLS and the response. The spec's 8 seconds by default. */
  readonly timeoutMs?: number;
  /** Response bytes read before the socket is cut. */
  readonly maxResponseBytes?: number;
  /** Every address `host` resolves to. Defaults to the system resolver (getaddrinfo, all answers, in their order). */
  readonly resolve?: (host: string) => Promise<readonly string[]>;
}

export const DEFAULT_TIMEOUT_MS = 8_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 4_096;

/** Header names the sender sets itself or never forwards, whatever the caller passes. */
const DROPPED_HEADERS = new Set([
  'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer',
  'cookie', 'authorization', 'proxy-authorization', 'proxy-connection',
]);

/** Socket errors that mean the address could not be reached at all (no route, no answer), rather than a refused or broken connection. */
const UNREACHABLE_CODES = new Set(['ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);

type Failure = Omit<Extract<SendOutcome, { kind: 'failure' }>, 'elapsedMs'>;
type Response = Omit<Extract<SendOutcome, { kind: 'response' }>, 'elapsedMs'>;
type Destination = { readonly address: string; readonly family: 4 | 6 };

const failure = (reason: SendFailure, detail: string): Failure => ({ kind: 'failure', reason, detail });
const TIMED_OUT = failure('WEBHOOK_UNREACHABLE', 'timeout');

/** A sender bound to one policy; each call is one attempt: one resolution, at most one connection. */
export function createWebhookSender(options: SenderOptions): (request: WebhookRequest) => Promise<SendOutcome> {
  const settings = {
    policy: options.policy,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    resolve: options.resolve ?? resolveWithSystem,
  };
  return async (request) => {
    const started = performance.now();
    const result = await attempt(request, settings).catch((error: unknown) => failure('CONNECTION_FAILED', errorCode(error)));
    return { ...result, elapsedMs: Math.round(performance.now() - started) };
  };
}

type Settings = { policy: UrlPolicy; timeoutMs: number; maxResponseBytes: number; resolve: (host: string) => Promise<readonly string[]> };

async function attempt(request: WebhookRequest, settings: Settings): Promise<Failure | Response> {
  const checked = checkWebhookUrl(request.url, settings.policy);
  if (!checked.ok) return failure('INVALID_WEBHOOK_URL', checked.detail);
  const local = settings.policy.allowLocal && LOCAL_HOSTS.includes(checked.host);

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), settings.timeoutMs);
  try {
    const destination = await untilAborted(destinationOf(checked.host, local, settings.resolve), deadline.signal);
    if (destination === undefined) return TIMED_OUT;
    if ('kind' in destination) return destination;
    return await exchange(request, { url: checked.url, host: checked.host, port: checked.port, local, destination }, settings, deadline.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolve once and judge every answer; the address to connect to, or why not. */
async function destinationOf(host: string, local: boolean, resolve: Settings['resolve']): Promise<Destination | Failure> {
  let addresses: readonly string[];
  if (isIP(host)) {
    addresses = [host]; // only 127.0.0.1 in local mode: url-rules refuses every other IP literal
  } else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      return failure('WEBHOOK_UNREACHABLE', errorCode(error, 'name not resolved'));
    }
  }
  if (!Array.isArray(addresses) || addresses.length === 0) return failure('WEBHOOK_UNREACHABLE', 'name has no address');
  if (!addresses.every((address) => isAllowedAddress(address, { allowLoopback: local }))) {
    return failure('UNSAFE_WEBHOOK_DESTINATION', 'name resolves to a non-public address');
  }
  // Lambda's egress is IPv4: prefer the first IPv4 answer, else the first answer.
  const address = addresses.find((a) => isIP(a) === 4) ?? addresses[0];
  return { address, family: isIP(address) === 6 ? 6 : 4 };
}

interface Target {
  readonly url: URL;
  readonly host: string;
  readonly port: number;
  readonly local: boolean;
  readonly destination: Destination;
}

/** One POST to the checked address; settles once, on the response, an error or the deadline. */
function exchange(request: WebhookRequest, target: Target, settings: Settings, deadline: AbortSignal): Promise<Failure | Response> {
  return new Promise((settle) => {
    if (deadline.aborted) return settle(TIMED_OUT);
    const body = Buffer.from(request.body, 'utf8');
    const ipHost = isIP(target.host) !== 0;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (!DROPPED_HEADERS.has(name.toLowerCase())) headers[name] = value;
    }
    headers.Host = target.port === 443 ? target.host : `${target.host}:${target.port}`;
    headers['Content-Length'] = String(body.length);

    let settled = false;
    const finish = (result: Failure | Response) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', onDeadline);
      settle(result);
    };
    const onDeadline = () => {
      finish(TIMED_OUT);
      req.destroy();
    };

    const req = httpsRequest({
      method: 'POST',
      host: target.host,
      port: target.port,
      path: `${target.url.pathname}${target.url.search}`,
      headers,
      family: target.destination.family,
      lookup: pinnedLookup(target.destination),
      servername: ipHost ? undefined : target.host,
      rejectUnauthorized: !target.local,
      agent: false,
    });
    deadline.addEventListener('abort', onDeadline, { once: true });

    req.on('error', (error) => finish(failureOfSocketError(error)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const status = res.statusCode ?? 0;
      res.on('data', (chunk: Buffer) => {
        const room = settings.maxResponseBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          finish({ kind: 'response', status, body: Buffer.concat(chunks), truncated: true });
          req.destroy();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => finish({ kind: 'response', status, body: Buffer.concat(chunks), truncated: false }));
      res.on('error', (error) => finish(failureOfSocketError(error)));
      res.on('close', () => {
        if (!res.complete) finish(failure('CONNECTION_FAILED', 'response interrupted'));
      });
    });
    req.end(body);
  });
}

/** The socket's lookup: always the checked address, never DNS. */
function pinnedLookup({ address, family }: Destination) {
  return (
    _hostname: string,
    options: LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    process.nextTick(() => (options.all ? callback(null, [{ address, family }]) : callback(null, address, family)));
  };
}

async function resolveWithSystem(host: string): Promise<readonly string[]> {
  const answers = await dnsLookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

/** `work`'s value, or undefined when `signal` aborts first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function failureOfSocketError(error: unknown): Failure {
  const code = errorCode(error);
  return failure(UNREACHABLE_CODES.has(code) ? 'WEBHOOK_UNREACHABLE' : 'CONNECTION_FAILED', code);
}

/** A short, safe description: the error's code (ECONNREFUSED, ERR_TLS_CERT_ALTNAME_INVALID, ...), never its message with its context. */
function errorCode(error: unknown, fallback = 'connection failed'): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : fallback;
}
