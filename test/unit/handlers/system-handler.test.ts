/**
 * The `system` function through its `handler` export: GET /health, the
 * envelopes and headers every response carries, and 404 for everything no
 * route declares.
 */
import '../support/handler-environment';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPlatform } from '../../../lambdas/shared/platform';
import { tableNamesFromEnv } from '../../../lambdas/shared/storage/table-names';
import { createSystemHandler, definition, handler } from '../../../lambdas/system/handler';
import { lambdaContext, parseBody, proxyEvent } from '../support/api-gateway-event';
import { accountItem, bearer, issueKey, serveAdmission } from '../support/identity-fixtures';
import { captureLogs } from '../../support/log-capture';

const ddbMock = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});

afterEach(() => {
  ddbMock.reset();
  vi.restoreAllMocks();
});

describe('system handler', () => {
  it('answers GET /health with the Health object in the success envelope', async () => {
    // Prepare
    const event = proxyEvent({ method: 'GET', path: '/health', requestId: 'req-health-1' });

    // Act
    const response = await handler(event, lambdaContext());

    // Assess
    expect(response.statusCode).toBe(200);
    expect(parseBody(response)).toEqual({ ok: true, data: { status: 'ok', version: 'v1' }, request_id: 'req-health-1' });
    expect(response.headers).toMatchObject({
      'X-Request-Id': 'req-health-1',
      'Cache-Control': 'no-store',
      'Content-Type': 'application/json; charset=utf-8',
    });
  });

  it('answers GET /health without a key and without touching a table', async () => {
    // Prepare
    const event = proxyEvent({ method: 'GET', path: '/health' });

    // Act
    const response = await handler(event, lambdaContext());

    // Assess
    expect(response.statusCode).toBe(200);
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it("logs GET /health's call, as every request that needs no key (its own composition keeps the partner API's rule)", async () => {
    // Prepare
    const logs = captureLogs();
    const event = proxyEvent({ method: 'GET', path: '/health', requestId: 'req-health-log' });

    // Act
    await handler(event, lambdaContext());

    // Assess
    const calls = logs.lines().filter((line) => line.message === 'request');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'GET', status: 200, route: 'health', request_id: 'req-health-log' });
  });

  it('answers a path no route declares with 404 NOT_FOUND in the error envelope', async () => {
    // Prepare
    const event = proxyEvent({ method: 'GET', path: '/nothing/here', resource: '/{proxy+}', requestId: 'req-404' });

    // Act
    const response = await handler(event, lambdaContext());

    // Assess
    expect(response.statusCode).toBe(404);
    expect(parseBody(response)).toEqual({
      ok: false,
      error: { code: 'NOT_FOUND', message: 'No such path or method.' },
      request_id: 'req-404',
    });
    expect(response.headers).toMatchObject({ 'X-Request-Id': 'req-404', 'Cache-Control': 'no-store' });
  });

  it('answers a method the path does not offer with 404 NOT_FOUND', async () => {
    // Prepare
    const event = proxyEvent({ method: 'POST', path: '/health', resource: '/health' });

    // Act
    const response = await handler(event, lambdaContext());

    // Assess
    expect(response.statusCode).toBe(404);
    expect(parseBody(response)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it("answers another function's route with 404 NOT_FOUND, even with a valid key", async () => {
    // Prepare: GET /me is served by the identity function.
    const issued = issueKey({ expires_at: new Date(Date.now() + 86_400_000).toISOString() });
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    const event = proxyEvent({ method: 'GET', path: '/me', headers: { Authorization: bearer(issued.key) } });

    // Act
    const response = await handler(event, lambdaContext());

    // Assess
    expect(response.statusCode).toBe(404);
  });

  it('applies transport rules before routing, to unknown paths too', async () => {
    // Prepare
    const event = proxyEvent({ path: '/nothing', resource: '/{proxy+}', headers: { 'X-Forwarded-Proto': 'http' }, requestId: 'req-http' });

    // Act
    const response = await handler(event, lambdaContext());

    // Assess
    expect(response.statusCode).toBe(400);
    expect(parseBody(response)).toMatchObject({ ok: false, error: { code: 'HTTPS_REQUIRED' }, request_id: 'req-http' });
    expect(response.headers).toMatchObject({ 'X-Request-Id': 'req-http', 'Cache-Control': 'no-store' });
  });

  it('refuses a query parameter on GET /health with 422 UNKNOWN_PARAMETER', async () => {
    // Prepare
    const event = proxyEvent({ path: '/health', query: { verbose: '1' } });

    // Act
    const response = await handler(event, lambdaContext());

    // Assess
    expect(response.statusCode).toBe(422);
    expect(parseBody(response)).toMatchObject({ error: { code: 'UNKNOWN_PARAMETER' } });
  });
});

describe('system handler without any table (as deployed: it is granted none)', () => {
  const tableless = createSystemHandler({ ...definition, platform: () => createPlatform({ tables: tableNamesFromEnv({}), edgeGuard: undefined }) });

  it.each([
    { path: '/health', resource: '/health', status: 200 },
    { path: '/nope', resource: '/{proxy+}', status: 404 },
  ])('answers $path with $status and touches no table', async ({ path, resource, status }) => {
    // Act
    const response = await tableless(proxyEvent({ method: 'GET', path, resource }), lambdaContext());

    // Assess
    expect(response.statusCode).toBe(status);
    expect(ddbMock.calls()).toHaveLength(0);
  });
});
