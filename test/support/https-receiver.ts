/**
 * A webhook receiver for tests: a real HTTPS server on 127.0.0.1 with a
 * self-signed certificate (CN=localhost, SAN localhost and 127.0.0.1), which
 * records every request it gets (raw body bytes included) and answers with
 * what its handler says, optionally after a delay (to hold a request open past
 * the sender's deadline). The certificate is generated once per test process.
 *
 * watchOutgoingConnections() is the other half of the SSRF tests: it sees
 * every client socket this process opens and the address it is about to
 * connect to, and cuts any non-loopback connection before a packet leaves, so
 * tests that make the sender pick a public address stay on loopback.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { generate } from 'selfsigned';

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  /** When the whole request had arrived (epoch ms). */
  readonly receivedAt: number;
}

export interface ReceiverAnswer {
  readonly status: number;
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
  /** Wait this long before answering. */
  readonly delayMs?: number;
}

export type ReceiverHandler = (request: ReceivedRequest) => ReceiverAnswer | Promise<ReceiverAnswer>;

export interface HttpsReceiver {
  /** https://127.0.0.1:<port>/hook */
  readonly url: string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  setHandler(handler: ReceiverHandler): void;
  /** Stop listening and cut every open connection (held requests included). */
  close(): Promise<void>;
}

const DEFAULT_HANDLER: ReceiverHandler = () => ({ status: 200, body: '{"ok":true}', headers: { 'Content-Type': 'application/json' } });

let certificate: Promise<{ key: string; cert: string }> | undefined;

/** The process's test certificate (key generation takes a moment, so once). */
export function testCertificate(): Promise<{ key: string; cert: string }> {
  certificate ??= generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 60_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  }).then((pems) => ({ key: pems.private, cert: pems.cert }));
  return certificate;
}

export async function startHttpsReceiver(handler: ReceiverHandler = DEFAULT_HANDLER): Promise<HttpsReceiver> {
  const { key, cert } = await testCertificate();
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let current = handler;

  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const received: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks), receivedAt: Date.now() };
      requests.push(received);
      let answer: ReceiverAnswer;
      try {
        answer = await current(received);
      } catch {
        answer = { status: 500, body: 'receiver handler failed' };
      }
      const respond = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      };
      if (answer.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          respond();
        }, answer.delayMs);
        timers.add(timer);
      } else {
        respond();
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A sender that cuts the connection (body cap, deadline) is expected here; never let it fail the test process.
  server.on('tlsClientError', () => undefined);
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `https://127.0.0.1:${port}/hook`,
    port,
    requests,
    setHandler(next) {
      current = next;
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ConnectionWatch {
  /** Every address a client socket of this process was about to connect to, in order. */
  readonly destinations: string[];
  /** The non-loopback ones among them, which were cut before connecting. */
  readonly blocked: string[];
  stop(): void;
}

const isLoopback = (address: string) => address.startsWith('127.') || address === '::1';

/**
 * Watch this process's outgoing TCP connections (node:net publishes each
 * client socket on the `net.client.socket` channel before it connects). An
 * address from a `lookup` that is not loopback is destroyed right there,
 * before net connects; a host given as an IP literal is only recorded.
 */
export function watchOutgoingConnections(): ConnectionWatch {
  const destinations: string[] = [];
  const blocked: string[] = [];
  const onSocket = (message: unknown) => {
    const socket = (message as { socket: Socket }).socket;
    let looked = false;
    socket.on('lookup', (error: Error | null, address: string | undefined) => {
      if (error || !address) return;
      looked = true;
      destinations.push(address);
      if (!isLoopback(address)) {
        blocked.push(address);
        socket.destroy(Object.assign(new Error(`test network guard: no connection to ${address}`), { code: 'ETESTBLOCKED' }));
      }
    });
    socket.on('connectionAttempt', (address: string) => {
      if (!looked) destinations.push(address);
    });
  };
  subscribe('net.client.socket', onSocket);
  return {
    destinations,
    blocked,
    stop: () => unsubscribe('net.client.socket', onSocket),
  };
}
