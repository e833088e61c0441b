/**
 * A DynamoDB refusal no operation explained (a failed condition, a cancelled transaction, a transaction still in
 * progress after the retry budget) is never a 500: the one error path answers it with the retryable 503
 * WRITE_CONFLICT and Retry-After, in each surface's error shape, and logs a warning with what DynamoDB said and where,
 * never the items. An operation's own explanation keeps winning; a refusal a retry cannot change stays a 500.
 *
 * The operations here are test operations on real routes (the ticket list of the partner API, sign-out of web
 * settings) that send a write the mocked client refuses as DynamoDB does.
 */
import '../support/handler-environment';
import {
  ConditionalCheckFailedException,
  IdempotentParameterMismatchException,
  TransactionCanceledException,
  TransactionInProgressException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, ERROR_CATALOG } from '../../../lambdas/shared/errors';
import { errorCodesOf } from '../../../lambdas/shared/http/contract';
import { createPartnerApiHandler } from '../../../lambdas/shared/http/partner-api-pipeline';
import type { Operation, OperationInput } from '../../../lambdas/shared/http/pipeline';
import { Router, type RouteDefinition } from '../../../lambdas/shared/http/routes';
import { ROUTES } from '../../../lambdas/service/routes';
import { createPlatform } from '../../../lambdas/shared/platform';
import { ROUTE_CONTRACTS } from '../../../lambdas/service/contracts';
import { createSettingsHandler } from '../../../lambdas/settings/settings-pipeline';
import { isConditionFailure, refusalSiteOf, retryOnConflict, strayRefusalOf } from '../../../lambdas/shared/storage/conditions';
import { buildOpenApiDocument, PARTNER_SURFACE } from '../../../scripts/openapi-document';
import { captureLogs, type LogCapture } from '../../support/log-capture';
import { documentClient } from '../support/admission-fixtures';
import { lambdaContext, parseBody, proxyEvent } from '../support/api-gateway-event';
import { TABLES } from '../support/handler-environment';
import { NOW, PARTNER_ID, accountItem, bearer, issueKey, orgItem, serveAdmission } from '../support/identity-fixtures';

const ddbMock = mockClient(DynamoDBDocumentClient);

/** What an item's old image holds: it must never reach a log line. */
const SECRET = 'old-image-secret-7f3a';

const conditionFailed = () =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 }, Item: marshall({ pk: 'P', secret: SECRET }) });

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: codes.map((Code) => (Code === 'ConditionalCheckFailed' ? { Code, Message: 'The conditional request failed', Item: marshall({ pk: 'P', secret: SECRET }) } : { Code })),
  });

const inProgress = () => new TransactionInProgressException({ message: 'Transaction is in progress', $metadata: { httpStatusCode: 400 } });

/** A test operation's write: a conditional put, or a transaction. */
const put = (input: OperationInput) =>
  input.platform.documentClient.send(new PutCommand({ TableName: TABLES.domain, Item: { pk: 'P', sk: 'S' }, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
const transact = (input: OperationInput) =>
  input.platform.documentClient.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: TABLES.domain, Item: { pk: 'P', sk: 'S' }, ConditionExpression: 'attribute_not_exists(pk)' } }] }));

/** The ticket list as the route table declares it, served by a test operation in a partner API function. */
const TICKETS: RouteDefinition = { ...(ROUTES.find((route) => route.id === 'tickets') as RouteDefinition), group: 'identity' };
const issued = issueKey({ partner_id: PARTNER_ID, scopes: ['tickets:read'] });

function partnerCall(operation: Operation) {
  const platform = createPlatform({ documentClient, tables: TABLES, edgeGuard: undefined, clock: () => NOW });
  const handler = createPartnerApiHandler({ contracts: ROUTE_CONTRACTS, operations: { tickets: operation }, router: new Router([...ROUTES, TICKETS]), platform: () => platform });
  return handler(
    proxyEvent({ path: `/partners/${PARTNER_ID}/tickets`, resource: TICKETS.path, pathParameters: { partner_id: PARTNER_ID }, headers: { Authorization: bearer(issued.key) }, requestId: 'req-stray' }),
    lambdaContext(),
  );
}

/** Sign-out of web settings (needs no session, counts on no limit), served by a test operation. */
function settingsCall(operation: Operation) {
  const platform = createPlatform({ documentClient, tables: TABLES, edgeGuard: undefined, clock: () => NOW });
  const handler = createSettingsHandler({ contracts: ROUTE_CONTRACTS, routes: ROUTES, operations: { 'settings-sign-out': operation }, sessions: async () => undefined, platform: () => platform });
  return handler(
    proxyEvent({
      method: 'DELETE',
      path: '/settings/api/session',
      headers: { Origin: 'https://api.example.com', 'Sec-Fetch-Site': 'same-origin', 'X-Settings-Request': '1' },
      requestId: 'req-stray-settings',
    }),
    lambdaContext('partner-api-settings-test'),
  );
}

let logs: LogCapture;
const warnings = () => logs.lines().filter((line) => line.message === 'write refused, unexplained');
const failures = () => logs.lines().filter((line) => line.message === 'request failed');

beforeEach(() => {
  logs = captureLogs();
  serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
});

afterEach(() => {
  ddbMock.reset();
  vi.restoreAllMocks();
});

describe('a refusal no operation explained, on a partner route', () => {
  it('answers a failed condition with 503 WRITE_CONFLICT and Retry-After, and warns with the exception, never the old image', async () => {
    // Prepare
    ddbMock.on(PutCommand).rejects(conditionFailed());

    // Act
    const response = await partnerCall(async (input) => {
      await put(input);
      return { data: [] };
    });

    // Assess
    expect(response.statusCode).toBe(503);
    expect(parseBody(response)).toEqual({ ok: false, error: { code: 'WRITE_CONFLICT', message: ERROR_CATALOG.WRITE_CONFLICT.message }, request_id: 'req-stray' });
    expect(response.headers).toMatchObject({ 'Retry-After': '1' });
    // Admitted: the rate-limit headers are on the error too.
    expect(response.headers?.['X-RateLimit-Limit']).toBeDefined();
    expect(warnings()).toEqual([expect.objectContaining({ level: 'WARN', code: 'WRITE_CONFLICT', route: 'tickets', dynamo_error: 'ConditionalCheckFailedException' })]);
    expect(failures()).toEqual([]);
    expect(logs.text()).not.toContain(SECRET);
  });

  it('answers a cancelled transaction with 503 WRITE_CONFLICT, logging its cancellation reasons and no item', async () => {
    // Prepare
    ddbMock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));

    // Act
    const response = await partnerCall(async (input) => {
      await transact(input);
      return { data: [] };
    });

    // Assess
    expect(response.statusCode).toBe(503);
    expect(parseBody(response)).toMatchObject({ ok: false, error: { code: 'WRITE_CONFLICT' } });
    expect(response.headers).toMatchObject({ 'Retry-After': '1' });
    expect(warnings()).toEqual([expect.objectContaining({ dynamo_error: 'TransactionCanceledException', cancellation_reasons: ['ConditionalCheckFailed', 'None'] })]);
    expect(logs.text()).not.toContain(SECRET);
  });

  it('answers a lost race that a store retried until it gave up (retryOnConflict exhausted) with 503 WRITE_CONFLICT', async () => {
    // Prepare: every try of the read-modify-write loses to another transaction.
    ddbMock.on(TransactWriteCommand).rejects(cancelled('TransactionConflict'));

    // Act: the store's own exhaustion error is a plain Error, as record-store's is.
    const response = await partnerCall(async (input) => {
      await retryOnConflict(() => transact(input), 3, () => new Error('Too many concurrent changes; try again'));
      return { data: [] };
    });

    // Assess
    expect(response.statusCode).toBe(503);
    expect(parseBody(response)).toMatchObject({ error: { code: 'WRITE_CONFLICT' } });
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(3);
    expect(warnings()).toEqual([expect.objectContaining({ dynamo_error: 'TransactionCanceledException', cancellation_reasons: ['TransactionConflict'] })]);
  });

  it('keeps an operation’s own explanation: the refusal it explains is its answer, the one it does not is WRITE_CONFLICT', async () => {
    // Prepare
    ddbMock.on(PutCommand).rejects(conditionFailed());
    const explaining: Operation = async (input) => {
      try {
        await put(input);
      } catch (error) {
        if (isConditionFailure(error)) throw new ApiError('IDEMPOTENCY_CONFLICT');
        throw error;
      }
      return { data: [] };
    };

    // Act
    const explained = await partnerCall(explaining);
    const unexplained = await partnerCall(async (input) => {
      await put(input);
      return { data: [] };
    });

    // Assess
    expect([explained.statusCode, parseBody(explained).error]).toEqual([409, expect.objectContaining({ code: 'IDEMPOTENCY_CONFLICT' })]);
    expect([unexplained.statusCode, parseBody(unexplained).error]).toEqual([503, expect.objectContaining({ code: 'WRITE_CONFLICT' })]);
    expect(warnings()).toHaveLength(1);
  });

  it('keeps a 500 for what a retry cannot change (an invalid transaction, a reused token), and a 503 for what it can', async () => {
    // Prepare
    ddbMock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('None', 'ValidationError'))
      .rejectsOnce(new IdempotentParameterMismatchException({ message: 'mismatch', $metadata: { httpStatusCode: 400 } }))
      .rejectsOnce(cancelled('ThrottlingError', 'None'));

    // Act
    const statuses: number[] = [];
    for (let n = 0; n < 3; n += 1) {
      const response = await partnerCall(async (input) => {
        await transact(input);
        return { data: [] };
      });
      statuses.push(response.statusCode);
    }

    // Assess
    expect(statuses).toEqual([500, 500, 503]);
    expect(failures().map((line) => line.code)).toEqual(['INTERNAL_ERROR', 'INTERNAL_ERROR']);
    expect(warnings()).toHaveLength(1);
  });
});

describe('a refusal no operation explained, on a web settings route', () => {
  it('answers a transaction still in progress after the retry budget with 503 WRITE_CONFLICT in the settings shape', async () => {
    // Prepare
    ddbMock.on(TransactWriteCommand).rejects(inProgress());

    // Act
    const response = await settingsCall(async (input) => {
      await transact(input);
      return { data: { signed_out: true } };
    });

    // Assess
    expect(response.statusCode).toBe(503);
    expect(parseBody(response)).toEqual({ code: 'WRITE_CONFLICT', message: ERROR_CATALOG.WRITE_CONFLICT.message, request_id: 'req-stray-settings' });
    expect(response.headers).toMatchObject({ 'Retry-After': '1' });
    expect(warnings()).toEqual([expect.objectContaining({ route: 'settings-sign-out', dynamo_error: 'TransactionInProgressException' })]);
  });

  it('answers a failed condition with 503 WRITE_CONFLICT, not 500', async () => {
    // Prepare
    ddbMock.on(PutCommand).rejects(conditionFailed());

    // Act
    const response = await settingsCall(async (input) => {
      await put(input);
      return { data: { signed_out: true } };
    });

    // Assess
    expect(response.statusCode).toBe(503);
    expect(parseBody(response)).toMatchObject({ code: 'WRITE_CONFLICT' });
    expect(logs.text()).not.toContain(SECRET);
  });
});

describe('WRITE_CONFLICT in the contract', () => {
  it('is declared on every route, and the partner document lists it under 503 for every operation', () => {
    // Act
    const undeclared = ROUTES.filter((route) => !errorCodesOf(route, ROUTE_CONTRACTS[route.id]).includes('WRITE_CONFLICT')).map((route) => route.id);
    const paths = buildOpenApiDocument(PARTNER_SURFACE).paths as Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: Record<string, any> }> }> }>>;
    const missing = Object.entries(paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => !(operation.responses['503']?.content['application/json'].schema.properties.error.properties.code.enum as string[]).includes('WRITE_CONFLICT'))
        .map(([method]) => `${method} ${path}`),
    );

    // Assess
    expect(undeclared).toEqual([]);
    expect(missing).toEqual([]);
  });
});

describe('strayRefusalOf and refusalSiteOf', () => {
  it('find the refusal under a store’s own error, and name the lambdas/ frames outside storage/ as its site', () => {
    // Prepare
    const refusal = cancelled('ConditionalCheckFailed');
    refusal.stack = [
      'TransactionCanceledException: Transaction cancelled',
      '    at ProtocolLib.getErrorSchemaOrThrowBaseException (node_modules/@aws-sdk/core/dist-cjs/submodules/protocols/index.js:79:67)',
      '    at async retryOnConflict (lambdas/shared/storage/conditions.ts:90:14)',
      '    at async RecordStore.put (lambdas/records/record-store.ts:110:7)',
      '    at async putRecord (lambdas/records/put-record.ts:30:3)',
    ].join('\n');
    const wrapped = new Error('Too many concurrent changes to this record; try again', { cause: refusal });

    // Act
    const found = strayRefusalOf(wrapped);
    const site = refusalSiteOf(wrapped);

    // Assess
    expect(found).toEqual({ error: 'TransactionCanceledException', reasons: ['ConditionalCheckFailed'] });
    expect(site).toEqual(['at async RecordStore.put (lambdas/records/record-store.ts:110:7)', 'at async putRecord (lambdas/records/put-record.ts:30:3)']);
  });
});
