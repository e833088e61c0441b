/**
 * The request pipeline around admission: the in-process burst guard answers
 * first, before any other rule or any DynamoDB call; once a request is
 * admitted its X-RateLimit headers go on every response, errors included;
 * the envelope frees the request's concurrency leases however it ends.
 */
import '../support/handler-environment';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { describeKey } from '../../../lambdas/identity/describe-key';
import { createPartnerApiHandler } from '../../../lambdas/shared/http/partner-api-pipeline';
import { ROUTE_CONTRACTS } from '../../../lambdas/service/contracts';
import type { Operation } from '../../../lambdas/shared/http/pipeline';
import { Router, type RouteDefinition } from '../../../lambdas/shared/http/routes';
import { ROUTES } from '../../../lambdas/service/routes';
import { EdgeGuard } from '../../../lambdas/shared/limits/edge-guard';
import { LIMITS } from '../../../lambdas/shared/limits/limits-table';
import { createPlatform } from '../../../lambdas/shared/platform';
import { health } from '../../../lambdas/system/health';
import { captureLogs } from '../../support/log-capture';
import { documentClient } from '../support/admission-fixtures';
import { lambdaContext, parseBody, proxyEvent } from '../support/api-gateway-event';
import { TABLES } from '../support/handler-environment';
import { NOW, PARTNER_ID, accountItem, bearer, issueKey, orgItem, serveAdmission } from '../support/identity-fixtures';

const ddbMock = mockClient(DynamoDBDocumentClient);

/** A concurrency-limited route: the ticket list as the route table declares it, served here by a test operation. */
const TICKETS: RouteDefinition = { ...(ROUTES.find((route) => route.id === 'tickets') as RouteDefinition), group: 'identity' };

function handlerWith(options: { edgeGuard?: EdgeGuard; tickets?: Operation } = {}) {
  const platform = createPlatform({ documentClient, tables: TABLES, edgeGuard: options.edgeGuard, clock: () => NOW });
  return createPartnerApiHandler({ contracts: ROUTE_CONTRACTS, routes: ROUTES,
    operations: { health, me: describeKey, tickets: options.tickets ?? (async () => ({ data: [] })) },
    router: new Router([...ROUTES, TICKETS]),
    platform: () => platform,
  });
}

const issued = issueKey({ partner_id: PARTNER_ID, scopes: ['tickets:read'] });
const getTickets = (handler: ReturnType<typeof handlerWith>, query?: Record<string, string>) =>
  handler(
    proxyEvent({
      path: `/partners/${PARTNER_ID}/tickets`,
      resource: TICKETS.path,
      pathParameters: { partner_id: PARTNER_ID },
      headers: { Authorization: bearer(issued.key) },
      query,
    }),
    lambdaContext(),
  );
/** The policies that reject the 31st request of one source IP and the 21st of one credential in 10 seconds. */
function send31(guard: EdgeGuard): (string | undefined)[] {
  const policies = Array.from({ length: 31 }, (_, i) => guard.check({ surface: 'partner', sourceIp: '198.51.100.1', authorization: i < 21 ? 'Bearer x' : undefined })?.limit.policy);
  return [...new Set(policies.filter((policy) => policy !== undefined))];
}
const releases = () => ddbMock.commandCalls(UpdateCommand).filter((call) => call.args[0].input.UpdateExpression === 'REMOVE #leases.#lease');

let stdout: MockInstance<typeof process.stdout.write>;

beforeEach(() => {
  stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
});

afterEach(() => {
  ddbMock.reset();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.useRealTimers();
});

describe('pipeline: burst guard', () => {
  it('answers the 31st request from one source IP in 10 seconds with 429, before transport rules and without DynamoDB', async () => {
    // Prepare
    const handler = handlerWith({ edgeGuard: new EdgeGuard(LIMITS, 'application', () => NOW.getTime() + 4_000) });
    for (let i = 0; i < 30; i += 1) await handler(proxyEvent({ path: '/health' }), lambdaContext());
    const linesBefore = stdout.mock.calls.length;

    // Act
    const response = await handler(proxyEvent({ path: '/health', headers: { 'X-Forwarded-Proto': 'http' }, requestId: 'req-burst' }), lambdaContext());

    // Assess
    expect(response.statusCode).toBe(429);
    expect(parseBody(response)).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED' }, request_id: 'req-burst' });
    expect(response.headers).toMatchObject({ 'X-RateLimit-Policy': 'edge-ip-burst', 'Retry-After': '6' });
    expect(ddbMock.calls()).toHaveLength(0);
    // Edge rejections are not logged one by one.
    expect(stdout.mock.calls.length).toBe(linesBefore);
  });

  it.each([
    { env: undefined, expected: ['edge-credential-burst', 'edge-ip-burst'] },
    { env: 'off', expected: ['edge-credential-burst', 'edge-ip-burst'] },
  ])('builds the container guard with the 10-second rows whatever the environment says (EDGE_GUARD=$env)', ({ env, expected }) => {
    // Prepare: the guard reads the real clock; pin it so the 31 requests share one window.
    vi.stubEnv('EDGE_GUARD', env);
    vi.useFakeTimers({ now: NOW.getTime() + 4_000, toFake: ['Date'] });

    // Act
    const platform = createPlatform({ documentClient, tables: TABLES });

    // Assess
    expect(platform.edgeGuard && send31(platform.edgeGuard)).toEqual(expected);
  });

  it.each([
    { surface: 'web', policy: 'web-ip-burst' },
    { surface: 'partner', policy: 'edge-ip-burst' },
  ] as const)('counts a deployed function’s requests under its own front door’s rules (API_SURFACE=$surface), whatever the path', async ({ surface, policy }) => {
    // Prepare: the stack tells each function its REST API; an unknown path on the web API reaches the settings function.
    vi.stubEnv('API_SURFACE', surface);
    const guard = new EdgeGuard(LIMITS, 'application', () => NOW.getTime() + 4_000);
    const platform = createPlatform({ documentClient, tables: TABLES, edgeGuard: guard, clock: () => NOW });
    const handler = createPartnerApiHandler({ contracts: ROUTE_CONTRACTS, routes: ROUTES, operations: { health }, platform: () => platform });
    for (let i = 0; i < 30; i += 1) await handler(proxyEvent({ path: '/health' }), lambdaContext());

    // Act
    const response = await handler(proxyEvent({ path: '/health' }), lambdaContext());

    // Assess
    expect(platform.surface).toBe(surface);
    expect(response.headers).toMatchObject({ 'X-RateLimit-Policy': policy });
  });

  it('lets requests through when no guard is configured (the local stack, whose front enforces the edge rules)', async () => {
    // Prepare
    const handler = handlerWith();

    // Act
    const statuses = [];
    for (let i = 0; i < 31; i += 1) statuses.push((await handler(proxyEvent({ path: '/health' }), lambdaContext())).statusCode);

    // Assess
    expect(new Set(statuses)).toEqual(new Set([200]));
  });
});

describe('pipeline: admission headers and leases', () => {
  it('puts the X-RateLimit headers on an error answered after admission', async () => {
    // Prepare
    const handler = handlerWith();

    // Act
    const response = await getTickets(handler, { verbose: '1' });

    // Assess
    expect(response.statusCode).toBe(422);
    expect(response.headers).toMatchObject({ 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '59', 'X-RateLimit-Policy': 'key-minute' });
  });

  it('frees the leases of a request that succeeded', async () => {
    // Prepare
    const handler = handlerWith();

    // Act
    const response = await getTickets(handler);

    // Assess
    expect(response.statusCode).toBe(200);
    expect(releases()).toHaveLength(3);
  });

  it('frees the leases of a request whose operation failed', async () => {
    // Prepare
    const handler = handlerWith({
      tickets: async () => {
        throw new Error('ticket service exploded');
      },
    });

    // Act
    const response = await getTickets(handler);

    // Assess
    expect(response.statusCode).toBe(500);
    expect(releases()).toHaveLength(3);
    expect(response.headers).toHaveProperty('X-RateLimit-Remaining');
  });

  it('answers a request that runs out of time 503 SERVICE_UNAVAILABLE with Retry-After (not 500), frees its leases and logs a timeout', async () => {
    // Prepare: an operation that never finishes, in a function with 2.6 s left (middy answers 5 ms before the end).
    const handler = handlerWith({ tickets: () => new Promise(() => undefined) });
    const context = { ...lambdaContext(), getRemainingTimeInMillis: () => 2600 };
    const logs = captureLogs();

    // Act
    const response = await handler(
      proxyEvent({ path: `/partners/${PARTNER_ID}/tickets`, resource: TICKETS.path, pathParameters: { partner_id: PARTNER_ID }, headers: { Authorization: bearer(issued.key) } }),
      context,
    );

    // Assess
    expect(response.statusCode).toBe(503);
    expect(parseBody(response)).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(response.headers?.['Retry-After']).toBe('1');
    expect(releases()).toHaveLength(3);
    const messages = logs.lines().map((line) => [line.level, line.message]);
    expect(messages).toContainEqual(['WARN', 'request timed out']);
    expect(messages.map(([, message]) => message)).not.toContain('request failed');
  });

  it('frees the leases only after the operation has finished', async () => {
    // Prepare
    let releasesDuringOperation = -1;
    const handler = handlerWith({
      tickets: async () => {
        releasesDuringOperation = releases().length;
        return { data: [] };
      },
    });

    // Act
    await getTickets(handler);

    // Assess
    expect(releasesDuringOperation).toBe(0);
    expect(releases()).toHaveLength(3);
  });
});
