/**
 * One request of the smoke suite and what came back, read whole. Redirects
 * are never followed (the spec: clients must not follow redirects while
 * forwarding the key); a redirect is an answer like any other, for the checks
 * to refuse. Every request says who sent it (SMOKE_USER_AGENT), so the
 * stage's access logs tell smoke traffic apart.
 */

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export const SMOKE_USER_AGENT = 'partner-api-smoke/1 (+npm run smoke)';

export interface Probe {
  readonly method: string;
  /** The path as sent, relative to the base URL (for messages). */
  readonly path: string;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

export interface ProbeRequest {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

/** A request that got no HTTP answer at all (connection refused, TLS failure, timeout). */
export class ProbeError extends Error {
  constructor(method: string, path: string, cause: unknown, timeoutMs: number) {
    super(`${method} ${path}: no answer (${describeFetchFailure(cause, timeoutMs)})`, { cause });
    this.name = 'ProbeError';
  }
}

function describeFetchFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `timed out after ${timeoutMs / 1000} s`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

export async function probe(baseUrl: string, path: string, request: ProbeRequest): Promise<Probe> {
  const method = request.method ?? 'GET';
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: { 'User-Agent': SMOKE_USER_AGENT, Accept: 'application/json', ...request.headers },
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    throw new ProbeError(method, path, error, request.timeoutMs);
  }
  return { method, path, status: response.status, headers: response.headers, text, json: parseJson(text) };
}

/**
 * A request whose path is sent exactly as given, after the base URL's own (`/v1`): no URL parser in between, so dot
 * segments and repeated slashes reach the server as written (`fetch` resolves `/./` and `/x/../` before sending).
 */
export async function probeAsSent(baseUrl: string, path: string, request: ProbeRequest & { readonly body?: string }): Promise<Probe> {
  const method = request.method ?? 'GET';
  const base = new URL(baseUrl);
  const send = base.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { 'User-Agent': SMOKE_USER_AGENT, Accept: 'application/json', ...request.headers };
  if (request.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(request.body));
  try {
    const { status, headers: answered, text } = await new Promise<{ status: number; headers: Headers; text: string }>((resolve, reject) => {
      const outgoing = send(
        { protocol: base.protocol, hostname: base.hostname.replace(/^\[|\]$/g, ''), port: base.port || undefined, method, path: `${base.pathname}${path}`, headers, signal: AbortSignal.timeout(request.timeoutMs) },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const received = new Headers();
            for (const [name, value] of Object.entries(response.headers)) {
              for (const one of [value ?? []].flat()) received.append(name, one);
            }
            resolve({ status: response.statusCode ?? 0, headers: received, text: Buffer.concat(chunks).toString('utf8') });
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
    return { method, path, status, headers: answered, text, json: parseJson(text) };
  } catch (error) {
    throw new ProbeError(method, path, error instanceof Error && error.name !== 'AbortError' ? { cause: error } : error, request.timeoutMs);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
