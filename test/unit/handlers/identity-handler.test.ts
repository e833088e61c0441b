/**
 * The `identity` function through its `handler` export: GET /me answers the
 * Identity object of the presented key with the key's rate-limit headers,
 * every invalid key the same 401, an exhausted quota a 429 with Retry-After,
 * and a quota store that does not answer a 503 that reveals nothing.
 */
import '../support/handler-environment';
import { ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../../../lambdas/identity/handler';
import { lambdaContext, parseBody, proxyEvent } from '../support/api-gateway-event';
import { TABLES } from '../support/handler-environment';
import { accountKey, apiKeyKey } from '../../../lambdas/shared/identity/access-items';
import { conditionFailed, resolveUpdate, throttled } from '../support/admission-fixtures';
import { captureLogs, type LogCapture } from '../../support/log-capture';
import { ACCOUNT_ID, PARTNER_ID, accountItem, bearer, issueKey, orgItem, serveAdmission } from '../support/identity-fixtures';

const ddbMock = mockClient(DynamoDBDocumentClient);
/** The handler runs on the real clock: keys must be valid now. */
const IN_30_DAYS = new Date(Date.now() + 30 * 86_400_000).toISOString();
let logs: LogCapture;

const getMe = (authorization?: string | string[], requestId = 'req-me-1') =>
  handler(proxyEvent({ method: 'GET', path: '/me', headers: { Authorization: authorization }, requestId }), lambdaContext());

const logLines = () => logs.text().split('\n').filter((line) => line !== '');

beforeEach(() => {
  logs = captureLogs();
});

afterEach(() => {
  ddbMock.reset();
  vi.restoreAllMocks();
});

describe('identity handler: GET /me', () => {
  it('answers the Identity object of a personal key, without partner_id', async () => {
    // Prepare
    const issued = issueKey({ scopes: ['public:read', 'entitlements:read'], expires_at: IN_30_DAYS });
    serveAdmission(ddbMock, [issued.item, accountItem()]);

    // Act
    const response = await getMe(bearer(issued.key), 'req-personal');

    // Assess
    expect(response.statusCode).toBe(200);
    const body = parseBody(response);
    expect(body).toEqual({
      ok: true,
      data: {
        key_id: issued.keyId,
        account_id: ACCOUNT_ID,
        scopes: ['public:read', 'entitlements:read'],
        expires_at: IN_30_DAYS,
      },
      request_id: 'req-personal',
    });
    expect(body.data).not.toHaveProperty('partner_id');
    expect(response.headers).toMatchObject({ 'X-Request-Id': 'req-personal', 'Cache-Control': 'no-store' });
  });

  it('answers the Identity object of a permanent organization key, with partner_id and a null expiry', async () => {
    // Prepare
    const issued = issueKey({ partner_id: PARTNER_ID, scopes: ['records:read'], expires_at: null });
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    const response = await getMe(bearer(issued.key));

    // Assess
    expect(response.statusCode).toBe(200);
    expect(parseBody(response).data).toEqual({
      key_id: issued.keyId,
      account_id: ACCOUNT_ID,
      partner_id: PARTNER_ID,
      scopes: ['records:read'],
      expires_at: null,
    });
  });

  it('admits through the access table named by the environment: the key read, then one write per item', async () => {
    // Prepare
    const issued = issueKey({ expires_at: IN_30_DAYS });
    serveAdmission(ddbMock, [issued.item, accountItem()]);

    // Act
    await getMe(bearer(issued.key));

    // Assess
    expect(ddbMock.commandCalls(GetCommand).map((call) => call.args[0].input.TableName)).toEqual([TABLES.access]);
    expect(ddbMock.commandCalls(UpdateCommand).map((call) => call.args[0].input.TableName)).toEqual([TABLES.access, TABLES.access]);
  });

  it("answers with the key's minute window in the X-RateLimit headers", async () => {
    // Prepare
    const issued = issueKey({ expires_at: IN_30_DAYS });
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    ddbMock.on(UpdateCommand, { Key: apiKeyKey(issued.keyId) }).resolves({ Attributes: { q_key_minute: { n: 9 }, q_key_day: { n: 9 } } });
    const minuteEnd = (Math.floor(Date.now() / 60_000) + 1) * 60;

    // Act
    const response = await getMe(bearer(issued.key));

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({ 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '51', 'X-RateLimit-Policy': 'key-minute' });
    // The window may turn over between the two clock reads.
    expect([minuteEnd, minuteEnd + 60]).toContain(Number(response.headers?.['X-RateLimit-Reset']));
  });

  it('answers an exhausted quota with 429 RATE_LIMITED, its numbers and Retry-After', async () => {
    // Prepare
    const issued = issueKey({ expires_at: IN_30_DAYS });
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    // The handler runs on the real clock: the account's day is full in whichever day window it counts in.
    let day = Number.NaN;
    ddbMock.on(UpdateCommand, { Key: accountKey(ACCOUNT_ID), ReturnValues: 'UPDATED_NEW' }).callsFake((input: UpdateCommandInput) => {
      day = Number(/q_account_day\.w [=<] (\d+)/.exec(resolveUpdate(input).condition)?.[1]);
      return Promise.reject(conditionFailed({ ...accountItem(), q_account_day: { w: day, n: 20_000 } }));
    });

    // Act
    const response = await getMe(bearer(issued.key), 'req-429');

    // Assess
    expect(response.statusCode).toBe(429);
    expect(parseBody(response)).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED' }, request_id: 'req-429' });
    expect(response.headers).toMatchObject({ 'X-RateLimit-Limit': '20000', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Policy': 'account-day' });
    expect(Number(response.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(Number(response.headers?.['X-RateLimit-Reset'])).toBe((day + 1) * 86_400);
  });

  it.each([
    { name: 'no key', authorization: undefined },
    { name: 'a malformed key', authorization: 'Bearer nope' },
    { name: 'an unknown key', authorization: bearer(issueKey().key) },
  ])('answers $name with 401 INVALID_API_KEY', async ({ authorization }) => {
    // Prepare
    serveAdmission(ddbMock, [accountItem()]);

    // Act
    const response = await getMe(authorization, 'req-401');

    // Assess
    expect(response.statusCode).toBe(401);
    expect(parseBody(response)).toEqual({
      ok: false,
      error: { code: 'INVALID_API_KEY', message: 'The API key is missing or invalid.' },
      request_id: 'req-401',
    });
    expect(Object.keys(response.headers ?? {}).filter((name) => name.startsWith('X-RateLimit') || name === 'Retry-After')).toEqual([]);
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('answers a key revoked after this container cached it with 401', async () => {
    // Prepare
    const issued = issueKey({ expires_at: IN_30_DAYS });
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    await getMe(bearer(issued.key));
    ddbMock
      .on(UpdateCommand, { Key: apiKeyKey(issued.keyId), ReturnValues: 'UPDATED_NEW' })
      .rejects(conditionFailed({ ...issued.item, revoked_at: new Date().toISOString() }));

    // Act
    const response = await getMe(bearer(issued.key), 'req-revoked');

    // Assess
    expect(response.statusCode).toBe(401);
    expect(parseBody(response)).toMatchObject({ error: { code: 'INVALID_API_KEY' } });
  });

  it('refuses a request carrying two Authorization headers, even if each is valid', async () => {
    // Prepare
    const issued = issueKey({ expires_at: IN_30_DAYS });
    serveAdmission(ddbMock, [issued.item, accountItem()]);

    // Act
    const response = await getMe([bearer(issued.key), bearer(issued.key)]);

    // Assess
    expect(response.statusCode).toBe(401);
  });

  it('refuses a key in the query string before any lookup', async () => {
    // Prepare
    const issued = issueKey();
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    const event = proxyEvent({ method: 'GET', path: '/me', query: { api_key: issued.key } });

    // Act
    const response = await handler(event, lambdaContext());

    // Assess
    expect(response.statusCode).toBe(400);
    expect(parseBody(response)).toMatchObject({ error: { code: 'CREDENTIALS_IN_URL' } });
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it('logs the admitted request with its key id, never the key', async () => {
    // Prepare
    const issued = issueKey({ expires_at: IN_30_DAYS });
    serveAdmission(ddbMock, [issued.item, accountItem()]);

    // Act
    await getMe(bearer(issued.key), 'req-logged');

    // Assess
    const access = logLines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.message === 'request');
    expect(access).toMatchObject({ request_id: 'req-logged', route: 'me', status: 200, key_id: issued.keyId });
    expect(logLines().join('')).not.toContain(issued.key);
  });

  it('does not log invalid credentials one by one: a 401 writes no log line at all', async () => {
    // Prepare
    const unknown = issueKey({ expires_at: IN_30_DAYS });
    serveAdmission(ddbMock, []);

    // Act
    const responses = [await getMe(bearer(unknown.key)), await getMe('Bearer nonsense'), await getMe(undefined)];

    // Assess
    expect(responses.map((r) => r.statusCode)).toEqual([401, 401, 401]);
    expect(logLines()).toEqual([]);
  });
});

describe('identity handler: a quota store that does not answer', () => {
  it.each([
    { name: 'a missing table', error: () => new ResourceNotFoundException({ message: `Requested resource not found: Table: ${TABLES.access} not found`, $metadata: { httpStatusCode: 400 } }) },
    { name: 'throttling', error: throttled },
  ])('answers $name with 503 RATE_LIMIT_UNAVAILABLE and Retry-After, revealing no internals', async ({ error }) => {
    // Prepare
    ddbMock.on(GetCommand).rejects(error());
    const issued = issueKey();

    // Act
    const response = await getMe(bearer(issued.key), 'req-503');

    // Assess
    expect(response.statusCode).toBe(503);
    expect(parseBody(response)).toEqual({
      ok: false,
      error: { code: 'RATE_LIMIT_UNAVAILABLE', message: 'Rate protection is unavailable; retry after the Retry-After delay.' },
      request_id: 'req-503',
    });
    expect(response.headers).toMatchObject({ 'Retry-After': '1', 'X-Request-Id': 'req-503', 'Cache-Control': 'no-store' });
    expect(response.body).not.toContain('Requested resource');
    expect(response.body).not.toContain(TABLES.access);
    expect(response.body).not.toMatch(/ResourceNotFound|ProvisionedThroughput|QuotaStore/);
    expect(response.body).not.toMatch(/stack|\bat .*\.ts:\d+/);
  });

  it('never admits when a write fails after the key was read', async () => {
    // Prepare
    const issued = issueKey({ expires_at: IN_30_DAYS });
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    ddbMock.on(UpdateCommand, { Key: accountKey(ACCOUNT_ID) }).rejects(throttled());

    // Act
    const response = await getMe(bearer(issued.key));

    // Assess
    expect(response.statusCode).toBe(503);
    expect(parseBody(response)).toMatchObject({ ok: false, error: { code: 'RATE_LIMIT_UNAVAILABLE' } });
  });

  it('logs the cause of a 503 for operators, without the key', async () => {
    // Prepare
    ddbMock.on(GetCommand).rejects(new Error('socket hang up'));
    const issued = issueKey();

    // Act
    await getMe(bearer(issued.key), 'req-503-log');

    // Assess
    const failure = logLines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.level === 'ERROR');
    expect(failure).toMatchObject({
      request_id: 'req-503-log',
      code: 'RATE_LIMIT_UNAVAILABLE',
      error: { message: 'socket hang up' },
    });
    expect(logLines().join('')).not.toContain(issued.key);
  });
});
