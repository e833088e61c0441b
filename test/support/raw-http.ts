/** Raw HTTP requests for what fetch() refuses to send (bodies on GET, chunked bodies, lying lengths, slow bodies). */
import { request as httpRequest } from 'node:http';

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
