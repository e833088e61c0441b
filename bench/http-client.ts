/**
 * A keep-alive HTTP client for the local front: one socket per concurrent
 * client, reused across requests, as a partner's SDK would hold them. Plain
 * node:http rather than fetch so the client's own overhead stays small next
 * to what is measured.
 */
import { Agent, request, type IncomingHttpHeaders } from 'node:http';

export interface HttpAnswer {
  readonly status: number;
  readonly requestId: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export class KeepAliveClient {
  private readonly agent: Agent;
  private readonly base: URL;

  constructor(baseUrl: string, sockets: number) {
    this.base = new URL(baseUrl);
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets });
  }

  /** GET a path relative to the base URL (which ends with the stage, e.g. `/v1`). */
  get(path: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    return this.send('GET', path, headers);
  }

  /** POST a JSON body to a path relative to the base URL. */
  post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const text = JSON.stringify(body);
    return this.send('POST', path, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), ...headers }, text);
  }

  private send(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const req = request(
        { agent: this.agent, host: this.base.hostname, port: this.base.port, path: `${this.base.pathname}${path}`, method, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const requestId = res.headers['x-request-id'];
            resolve({
              status: res.statusCode ?? 0,
              requestId: Array.isArray(requestId) ? requestId[0] : requestId,
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
