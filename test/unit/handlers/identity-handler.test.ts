/**
 * The `identity` function through its `handler` export: GET /me answers the
 * Identity object of the presented key, every invalid key the same 401, and
 * a DynamoDB failure a 500 that reveals nothing.
 */
import '../support/handler-environment';
import { ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { handler } from '../../../lambdas/identity/handler';
import { lambdaContext, parseBody, proxyEvent } from '../support/api-gateway-event';
import { TABLES } from '../support/handler-environment';
import { ACCOUNT_ID, PARTNER_ID, accountItem, bearer, issueKey, orgItem, serveItems } from '../support/identity-fixtures';

const ddbMock = mockClient(DynamoDBDocumentClient);
/** The handler runs on the real clock: keys must be valid now. */
const IN_30_DAYS = new Date(Date.now() + 30 * 86_400_000).toISOString();
let stdout: MockInstance<typeof process.stdout.write>;

const getMe = (authorization?: string | string[], requestId = 'req-me-1') =>
  handler(proxyEvent({ method: 'GET', path: '/me', headers: { Authorization: authorization }, requestId }), lambdaContext());

const logLines = () => stdout.mock.calls.map(([chunk]) => String(chunk));

beforeEach(() => {
  stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});

afterEach(() => {
  ddbMock.reset();
  vi.restoreAllMocks();
});

describe('identity handler: GET /me', () => {
  it('answers the Identity object of a personal key, without partner_id', async () => {
    // Prepare
    const issued = issueKey({ scopes: ['public:read', 'entitlements:read'], expires_at: IN_30_DAYS });
    serveItems(ddbMock, [issued.item, accountItem()]);

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
    serveItems(ddbMock, [issued.item, accountItem(), orgItem()]);

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

  it('reads the access table named by the environment', async () => {
    // Prepare
    const issued = issueKey({ expires_at: IN_30_DAYS });
    serveItems(ddbMock, [issued.item, accountItem()]);

    // Act
    await getMe(bearer(issued.key));

    // Assess
    expect(ddbMock.commandCalls(GetCommand)[0].args[0].input.TableName).toBe(TABLES.access);
  });

  it.each([
    { name: 'no key', authorization: undefined },
    { name: 'a malformed key', authorization: 'Bearer nope' },
    { name: 'an unknown key', authorization: bearer(issueKey().key) },
  ])('answers $name with 401 INVALID_API_KEY', async ({ authorization }) => {
    // Prepare
    serveItems(ddbMock, [accountItem()]);

    // Act
    const response = await getMe(authorization, 'req-401');

    // Assess
    expect(response.statusCode).toBe(401);
    expect(parseBody(response)).toEqual({
      ok: false,
      error: { code: 'INVALID_API_KEY', message: 'The API key is missing or invalid.' },
      request_id: 'req-401',
    });
  });

  it('refuses a request carrying two Authorization headers, even if each is valid', async () => {
    // Prepare
    const issued = issueKey({ expires_at: IN_30_DAYS });
    serveItems(ddbMock, [issued.item, accountItem()]);

    // Act
    const response = await getMe([bearer(issued.key), bearer(issued.key)]);

    // Assess
    expect(response.statusCode).toBe(401);
  });

  it('refuses a key in the query string before any lookup', async () => {
    // Prepare
    const issued = issueKey();
    serveItems(ddbMock, [issued.item, accountItem()]);
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
    serveItems(ddbMock, [issued.item, accountItem()]);

    // Act
    await getMe(bearer(issued.key), 'req-logged');

    // Assess
    const access = logLines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.message === 'request');
    expect(access).toMatchObject({ request_id: 'req-logged', route: 'me', status: 200, key_id: issued.keyId });
    expect(logLines().join('')).not.toContain(issued.key);
  });
});

describe('identity handler: failures', () => {
  it('answers a DynamoDB failure with 500 INTERNAL_ERROR revealing no internals', async () => {
    // Prepare
    const sdkMessage = `Requested resource not found: Table: ${TABLES.access} not found`;
    ddbMock.on(GetCommand).rejects(new ResourceNotFoundException({ message: sdkMessage, $metadata: { httpStatusCode: 400 } }));
    const issued = issueKey();

    // Act
    const response = await getMe(bearer(issued.key), 'req-500');

    // Assess
    expect(response.statusCode).toBe(500);
    expect(parseBody(response)).toEqual({
      ok: false,
      error: { code: 'INTERNAL_ERROR', message: 'An internal error occurred.' },
      request_id: 'req-500',
    });
    expect(response.body).not.toContain('Requested resource');
    expect(response.body).not.toContain(TABLES.access);
    expect(response.body).not.toContain('ResourceNotFoundException');
    expect(response.body).not.toMatch(/stack|\bat .*\.ts:\d+/);
    expect(response.headers).toMatchObject({ 'X-Request-Id': 'req-500', 'Cache-Control': 'no-store' });
  });

  it('logs the cause of a 500 for operators, without the key', async () => {
    // Prepare
    ddbMock.on(GetCommand).rejects(new Error('socket hang up'));
    const issued = issueKey();

    // Act
    await getMe(bearer(issued.key), 'req-500-log');

    // Assess
    const failure = logLines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.level === 'error');
    expect(failure).toMatchObject({ request_id: 'req-500-log', code: 'INTERNAL_ERROR', error: { message: 'socket hang up' } });
    expect(logLines().join('')).not.toContain(issued.key);
  });
});
