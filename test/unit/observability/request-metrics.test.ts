/**
 * The metrics of an API request, from the pipeline's one finish: every
 * answer counted by route and status class with the function's time, and
 * each refusal by the limits-table policy that refused it: a quota
 * (QuotaRejections), a concurrency limit (ConcurrencyRejections), the
 * in-function edge guard (EdgeRejections, never a quota rejection too).
 * Read as CloudWatch would, from the EMF documents a function writes.
 */
import '../support/handler-environment';
import { DynamoDBDocumentClient, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as identityHandler } from '../../../lambdas/identity/handler';
import { ApiError } from '../../../lambdas/shared/errors';
import { accountKey } from '../../../lambdas/shared/identity/access-items';
import { createPartnerApiHandler } from '../../../lambdas/shared/http/partner-api-pipeline';
import { ROUTE_CONTRACTS } from '../../../lambdas/service/contracts';
import type { Operation } from '../../../lambdas/shared/http/pipeline';
import { Router, type RouteDefinition } from '../../../lambdas/shared/http/routes';
import { ROUTES } from '../../../lambdas/service/routes';
import { EdgeGuard } from '../../../lambdas/shared/limits/edge-guard';
import { LIMITS } from '../../../lambdas/shared/limits/limits-table';
import { createPlatform } from '../../../lambdas/shared/platform';
import { captureLogs, type EmfDocument, type LogCapture } from '../../support/log-capture';
import { conditionFailed, resolveUpdate } from '../support/admission-fixtures';
import { lambdaContext, proxyEvent } from '../support/api-gateway-event';
import { ACCOUNT_ID, accountItem, bearer, issueKey, serveAdmission } from '../support/identity-fixtures';

const saved = vi.hoisted(() => {
  const before = process.env.STAGE;
  process.env.STAGE = 'unit';
  return before;
});
afterAll(() => {
  if (saved === undefined) delete process.env.STAGE;
  else process.env.STAGE = saved;
});

const ddbMock = mockClient(DynamoDBDocumentClient);
let logs: LogCapture;

beforeEach(() => {
  vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'partner-api-unit-fn');
  logs = captureLogs();
});
afterEach(() => {
  ddbMock.reset();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const probe = (id: string): RouteDefinition => ({ id, method: 'GET', path: `/metrics-probe/${id}`, group: 'system', auth: 'none', query: [], body: 'none' });
const router = new Router([...ROUTES, probe('answers'), probe('fails'), probe('busy'), probe('crowded')]);
const operations: Record<string, Operation> = {
  answers: async () => ({ data: { ok: true } }),
  fails: async () => {
    throw new Error('the store broke');
  },
  busy: async () => {
    throw new ApiError('CONCURRENCY_LIMITED', undefined, { 'X-RateLimit-Policy': 'ticket-concurrency', 'Retry-After': '1' });
  },
  crowded: async () => {
    throw new ApiError('RATE_LIMITED', undefined, { 'X-RateLimit-Policy': 'player-ip-minute', 'Retry-After': '30' });
  },
};
const probes = createPartnerApiHandler({ contracts: ROUTE_CONTRACTS, router, operations, platform: () => createPlatform({ edgeGuard: undefined }) });
const call = (path: string, requestId: string, handler = probes, headers: Record<string, string> = {}) =>
  handler(proxyEvent({ path, resource: path.startsWith('/metrics-probe/') || path === '/me' ? path : '/{proxy+}', requestId, headers }), lambdaContext());

/** The request's documents (by their request id metadata), as metric name → [dimension values, value]. */
function metricsOf(requestId: string): Record<string, [Record<string, string>, unknown]> {
  const documents = logs.metrics().filter((document) => document.request_id === requestId);
  return Object.fromEntries(
    documents.flatMap((document: EmfDocument) => {
      const { Dimensions, Metrics } = document._aws.CloudWatchMetrics[0];
      expect(Dimensions).toHaveLength(1);
      const dimensions = Object.fromEntries(Dimensions[0].map((name) => [name, String(document[name])]));
      return Metrics.map((metric) => [metric.Name, [dimensions, document[metric.Name]]]);
    }),
  );
}

const base = { service: 'partner-api', stage: 'unit' };

describe('every answer', () => {
  it('counts a 2xx by route and status class, with the function time by route', async () => {
    const response = await call('/metrics-probe/answers', 'req-2xx');
    expect(response.statusCode).toBe(200);
    const metrics = metricsOf('req-2xx');
    expect(Object.keys(metrics).sort()).toEqual(['RequestLatency', 'Requests']);
    expect(metrics.Requests).toEqual([{ ...base, route: 'answers', status_class: '2xx' }, 1]);
    expect(metrics.RequestLatency[0]).toEqual({ ...base, route: 'answers' });
    expect(metrics.RequestLatency[1]).toEqual(expect.any(Number));
  });

  it('counts a 5xx as 5xx', async () => {
    const response = await call('/metrics-probe/fails', 'req-5xx');
    expect(response.statusCode).toBe(500);
    expect(metricsOf('req-5xx').Requests).toEqual([{ ...base, route: 'fails', status_class: '5xx' }, 1]);
  });

  it('counts an unknown path under route unrouted', async () => {
    const response = await call('/no/such/path', 'req-404');
    expect(response.statusCode).toBe(404);
    expect(metricsOf('req-404').Requests).toEqual([{ ...base, route: 'unrouted', status_class: '4xx' }, 1]);
  });

  it('counts an invalid key as a 4xx of its route, and as nothing else', async () => {
    serveAdmission(ddbMock, []);
    const response = await call('/me', 'req-401', identityHandler, { Authorization: bearer(issueKey().key) });
    expect(response.statusCode).toBe(401);
    expect(Object.keys(metricsOf('req-401')).sort()).toEqual(['RequestLatency', 'Requests']);
    expect(metricsOf('req-401').Requests).toEqual([{ ...base, route: 'me', status_class: '4xx' }, 1]);
  });
});

describe('refusals by policy', () => {
  it('counts a quota rejection of admission under the policy that refused it', async () => {
    // Prepare: the account's day is full, in whichever day window it counts.
    const issued = issueKey({ expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString() });
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    ddbMock.on(UpdateCommand, { Key: accountKey(ACCOUNT_ID), ReturnValues: 'UPDATED_NEW' }).callsFake((input: UpdateCommandInput) => {
      const day = Number(/q_account_day\.w [=<] (\d+)/.exec(resolveUpdate(input).condition)?.[1]);
      return Promise.reject(conditionFailed({ ...accountItem(), q_account_day: { w: day, n: 20_000 } }));
    });

    // Act
    const response = await call('/me', 'req-quota', identityHandler, { Authorization: bearer(issued.key) });

    // Assess
    expect(response.statusCode).toBe(429);
    const metrics = metricsOf('req-quota');
    expect(metrics.QuotaRejections).toEqual([{ ...base, policy: 'account-day' }, 1]);
    expect(metrics.Requests).toEqual([{ ...base, route: 'me', status_class: '4xx' }, 1]);
    expect(metrics).not.toHaveProperty('EdgeRejections');
  });

  it('counts a 429 of any other quota row (player, settings) the same way, whoever threw it', async () => {
    await call('/metrics-probe/crowded', 'req-player-quota');
    expect(metricsOf('req-player-quota').QuotaRejections).toEqual([{ ...base, policy: 'player-ip-minute' }, 1]);
  });

  it('counts a concurrency rejection under its policy, not as a quota rejection', async () => {
    await call('/metrics-probe/busy', 'req-busy');
    const metrics = metricsOf('req-busy');
    expect(metrics.ConcurrencyRejections).toEqual([{ ...base, policy: 'ticket-concurrency' }, 1]);
    expect(metrics).not.toHaveProperty('QuotaRejections');
  });

  it('counts an edge rejection under its edge policy and route, not as a quota rejection', async () => {
    // Prepare: a guard allowing one request per IP and 10 seconds.
    const limits = LIMITS.map((l) => (l.kind === 'edge' && l.policy === 'edge-ip-burst' ? { ...l, limit: 1 } : l));
    const guard = new EdgeGuard(limits, 'application');
    const guarded = createPartnerApiHandler({ contracts: ROUTE_CONTRACTS, router, operations, platform: () => createPlatform({ edgeGuard: guard, limits }) });

    // Act
    const first = await call('/metrics-probe/answers', 'req-edge-1', guarded);
    const second = await call('/metrics-probe/answers', 'req-edge-2', guarded);

    // Assess
    expect([first.statusCode, second.statusCode]).toEqual([200, 429]);
    const metrics = metricsOf('req-edge-2');
    expect(metrics.EdgeRejections).toEqual([{ ...base, policy: 'edge-ip-burst' }, 1]);
    expect(metrics.Requests).toEqual([{ ...base, route: 'answers', status_class: '4xx' }, 1]);
    expect(metrics).not.toHaveProperty('QuotaRejections');
  });
});

describe('publishing', () => {
  it('publishes each request once, after its call log line', async () => {
    serveAdmission(ddbMock, []);
    await call('/metrics-probe/answers', 'req-once');
    const written = logs.json().filter((line) => line.request_id === 'req-once');
    expect(written.map((line) => ('_aws' in line ? 'metrics' : line.message))).toEqual(['request', 'metrics', 'metrics']);
  });

  it('writes no metrics outside Lambda', async () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', undefined);
    await call('/metrics-probe/answers', 'req-local');
    expect(logs.metrics()).toEqual([]);
    expect(logs.lines().map((line) => line.message)).toEqual(['request']);
  });
});
