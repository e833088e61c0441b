/**
 * Raw HTTP requests for what fetch() refuses to send (bodies on GET, chunked
 * bodies, lying lengths, slow bodies) and, over a bare socket, for request
 * targets and header names that node:http would refuse or normalize.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly json: { ok: boolean; data?: unknown; error?: { code: string; message: string }; request_id: string };
}

export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; chunks?: (string | Buffer)[]; chunkDelayMs?: number; endAfterChunks?: boolean } = {},
): Promise<RawResponse> {
  const target = new URL(url);
  const headers = { ...options.headers };
  const named = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
  if (options.chunks?.length && !named('content-length') && !named('transfer-encoding')) {
    headers['Content-Length'] = String(options.chunks.reduce((n, c) => n + Buffer.byteLength(c), 0));
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: options.method ?? 'GET', headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)));
    req.flushHeaders();
    const chunks = options.chunks ?? [];
    let i = 0;
    const writeNext = () => {
      if (i < chunks.length) {
        req.write(chunks[i++]);
        setTimeout(writeNext, options.chunkDelayMs ?? 0);
      } else if (options.endAfterChunks !== false) {
        req.end();
      }
    };
    writeNext();
  });
}

export interface WireAnswer {
  readonly status: number;
  /** Header names lowercased; a repeated header keeps its last value. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: RawResponse['json'] | undefined;
}

export interface WireRequest {
  readonly method?: string;
  /** Written as is (UTF-8): `..`, `\`, `//`, raw non-ASCII bytes, absolute forms, fragments. */
  readonly target: string;
  /** Written as is, in order; a Host header and `Connection: close` come first. */
  readonly headers?: readonly (readonly [string, string])[];
  /** Sent with its Content-Length. */
  readonly body?: string;
}

/**
 * One HTTP/1.1 request written to a socket exactly as given, for what
 * node:http and fetch() refuse to send or normalize (request targets, header
 * names), and the answer read until the server closes the connection
 * (interim 1xx answers skipped).
 */
export function wireRequest(baseUrl: string, request: WireRequest): Promise<WireAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const headers: (readonly [string, string])[] = [['Host', `${hostname}:${port}`], ['Connection', 'close'], ...(request.headers ?? [])];
  if (request.body !== undefined) headers.push(['Content-Length', String(Buffer.byteLength(request.body))]);
  const head = `${request.method ?? 'GET'} ${request.target} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head + (request.body ?? '')));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseAnswer(Buffer.concat(chunks).toString('utf8'))));
  });
}

function parseAnswer(text: string): WireAnswer {
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = (end < 0 ? rest : rest.slice(0, end)).split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    const body = end < 0 ? '' : rest.slice(end + 4);
    if (status >= 100 && status < 200) {
      rest = body;
      continue;
    }
    const headers: Record<string, string> = Object.create(null);
    for (const line of lines) headers[line.slice(0, line.indexOf(':')).trim().toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    let json: WireAnswer['json'];
    try {
      json = JSON.parse(body) as WireAnswer['json'];
    } catch {
      json = undefined;
    }
    return { status, headers, text: body, json };
  }
}
