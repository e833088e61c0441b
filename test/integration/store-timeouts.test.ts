/**
 * A quota store that accepts connections and never answers: every request
 * still answers inside the function timeout, 503 RATE_LIMIT_UNAVAILABLE with
 * Retry-After (never API Gateway's 502 for a timed-out Lambda, which the
 * local front emulates), and a concurrency slot taken before the store went
 * silent is given back.
 *
 * Two stand-ins on loopback: a TCP server that accepts and never answers, and
 * an HTTP relay to DynamoDB Local that swallows the requests a test chooses
 * (the account item's admission writes), forwarding everything else.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeKey } from '../../lambdas/identity/describe-key';
import { apiKeyKey } from '../../lambdas/shared/identity/access-items';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { ROUTE_CONTRACTS } from '../../lambdas/service/contracts';
import { Router, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { createPlatform, type Platform } from '../../lambdas/shared/platform';
import { createDocumentClient, DYNAMO_CLIENT_CONFIG } from '../../lambdas/shared/storage/dynamo-client';
import { LOCAL_AWS_ENV } from '../../local/dynamo-local';
import { HANDLERS } from '../../local/handlers';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

const ticketRoute: RouteDefinition = {
  id: 'ticket-probe',
  method: 'GET',
  path: '/partners/{partner_id}/ticket-probe',
  group: 'identity',
  auth: 'key',
  partnerBound: true,
  category: 'ticket',
  query: [],
  body: 'none',
};
const router = new Router([...ROUTES, ticketRoute]);

/** The deployed client configuration, pointed at `endpoint`. */
const storeClient = (endpoint: string) =>
  createDocumentClient(
    new DynamoDBClient({
      ...DYNAMO_CLIENT_CONFIG,
      endpoint,
      region: LOCAL_AWS_ENV.AWS_REGION,
      credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
    }),
  );

/** Accepts TCP connections, reads what it is sent, never answers. */
async function silentServer(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Forwards DynamoDB requests to `target`, except those `swallow` picks, which never get an answer. */
async function relay(target: string, swallow: (body: string) => boolean): Promise<{ endpoint: string; swallowed: () => number; close(): Promise<void> }> {
  let swallowed = 0;
  const server: HttpServer = createHttpServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (swallow(body.toString('utf8'))) {
      swallowed += 1;
      return;
    }
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)));
    const answer = await fetch(`${target}${request.url}`, { method: request.method, headers: headers as Record<string, string>, body });
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    swallowed: () => swallowed,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let platform: Platform;
let stack: TestStack;

beforeAll(async () => {
  const identity = createPartnerApiHandler({ contracts: ROUTE_CONTRACTS, router, platform: () => platform, operations: { me: describeKey, 'ticket-probe': async () => ({ data: {} }) } });
  stack = await startTestStack({ router, handlers: { ...HANDLERS, identity } });
});
afterAll(() => stack?.stop());

async function answer(path: string, key: string) {
  const response = await stack.call(path, { headers: bearer(key) });
  const body = (await response.json()) as { ok: boolean; error?: { code: string } };
  return { status: response.status, code: body.error?.code, retryAfter: response.headers.get('retry-after') };
}

describe('a quota store that never answers', () => {
  it('answers a cold key with 503 RATE_LIMIT_UNAVAILABLE and Retry-After inside the function timeout', async () => {
    const { key } = await createOrgWithManagerKey(stack.office, ['public:read']);
    const silent = await silentServer();
    platform = createPlatform({ documentClient: storeClient(silent.endpoint), tables: stack.tables, edgeGuard: undefined });
    try {
      // The front answers 502 (as API Gateway does) if the handler outlives the function timeout.
      expect(await answer('/me', key.key)).toEqual({ status: 503, code: 'RATE_LIMIT_UNAVAILABLE', retryAfter: '1' });
    } finally {
      await silent.close();
    }
  });

  it('answers a warm key the same way', async () => {
    const { key } = await createOrgWithManagerKey(stack.office, ['public:read']);
    platform = createPlatform({ documentClient: storeClient(stack.dynamoEndpoint), tables: stack.tables, edgeGuard: undefined });
    expect((await answer('/me', key.key)).status).toBe(200);

    // Same container memories (warm key), store gone silent.
    const silent = await silentServer();
    platform = createPlatform({
      documentClient: storeClient(silent.endpoint),
      tables: stack.tables,
      edgeGuard: undefined,
      keyCache: platform.keyCache,
      windowMemory: platform.windowMemory,
    });
    try {
      expect(await answer('/me', key.key)).toEqual({ status: 503, code: 'RATE_LIMIT_UNAVAILABLE', retryAfter: '1' });
    } finally {
      await silent.close();
    }
  });

  it('gives back the concurrency slot taken on the key before the account item went silent', async () => {
    const { partner_id, key } = await createOrgWithManagerKey(stack.office, ['tickets:read']);
    // Slots are taken layer by layer (key, then account): the account's admission write never gets an answer.
    const silentAccount = await relay(stack.dynamoEndpoint, (body) => body.includes('ACCOUNT#'));
    platform = createPlatform({ documentClient: storeClient(silentAccount.endpoint), tables: stack.tables, edgeGuard: undefined });
    try {
      expect(await answer(`/partners/${partner_id}/ticket-probe`, key.key)).toEqual({ status: 503, code: 'RATE_LIMIT_UNAVAILABLE', retryAfter: '1' });
      expect(silentAccount.swallowed()).toBeGreaterThan(0);
    } finally {
      await silentAccount.close();
    }
    const { Item } = await stack.client.send(new GetCommand({ TableName: stack.tables.access, Key: apiKeyKey(key.key_id), ConsistentRead: true }));
    // The key's write was applied (stamped with the admission id) and then compensated under the same id.
    expect(Item?.adm).toMatch(/^r[0-9a-f]{32}$/);
    expect(Item?.undo).toBe(Item?.adm);
    expect(Item?.leases).toEqual({});
    expect(Item?.q_key_minute?.n).toBe(0);
  });
});
