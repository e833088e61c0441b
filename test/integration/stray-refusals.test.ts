/**
 * Real refusals from DynamoDB Local, through the local front: a failed condition and a cancelled transaction that no
 * operation explained answer the retryable 503 WRITE_CONFLICT with Retry-After in each surface's shape (never 500), and
 * the warning names the exception and the cancellation reasons, never the old image DynamoDB returned with them
 * (ReturnValuesOnConditionCheckFailure: ALL_OLD). Test routes on the partner API and web settings make the writes, on
 * the deployed pipelines and the local stack's DynamoDB client.
 *
 * DynamoDB Local runs transactions one at a time, so it never answers TransactionInProgressException or a
 * TransactionConflict cancellation (tried: 30 concurrent transactions on the same items, with one token and with
 * thirty); those are shown on a fake wire (test/unit/storage/retry-budget.test.ts, test/unit/http/stray-refusals.test.ts).
 */
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ERROR_CATALOG } from '../../lambdas/shared/errors';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import type { Operation } from '../../lambdas/shared/http/pipeline';
import { Router, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { HANDLERS } from '../../local/handlers';
import { captureLogs } from '../support/log-capture';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

/** What the refused item holds: DynamoDB returns it with the refusal, and it must never reach a log line. */
const SECRET = 'old-image-secret-integration-51c2';
const PROBE_KEY = { pk: 'PROBE#refusal', sk: 'PROBE' };

const partnerProbe: RouteDefinition = { id: 'refusal-probe', method: 'POST', path: '/refusal-probe', group: 'identity', auth: 'key', query: ['kind'], body: 'none' };
const settingsProbe: RouteDefinition = { id: 'settings-refusal-probe', method: 'POST', path: '/settings/api/refusal-probe', group: 'settings', auth: 'web', query: ['kind'], body: 'none' };
const router = new Router([...ROUTES, partnerProbe, settingsProbe]);

/** A write of the probe item that DynamoDB Local refuses (the item exists), unexplained: a single put or a transaction. */
const refusedWrite: Operation = async (input) => {
  const table = input.platform.tables.domain as string;
  const put = { TableName: table, Item: { ...PROBE_KEY, secret: 'new' }, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
  if (input.query.kind === 'transaction') await input.platform.documentClient.send(new TransactWriteCommand({ TransactItems: [{ Put: put }] }));
  else await input.platform.documentClient.send(new PutCommand(put));
  return { data: {} };
};

let stack: TestStack;
beforeAll(async () => {
  const identity = createPartnerApiHandler({ contracts: {}, router, operations: { 'refusal-probe': refusedWrite } });
  const settings = createSettingsHandler({ contracts: {}, router, operations: { 'settings-refusal-probe': refusedWrite }, sessions: async () => undefined });
  stack = await startTestStack({ router, handlers: { ...HANDLERS, identity, settings }, webhooks: false });
  await stack.client.send(new PutCommand({ TableName: stack.tables.domain, Item: { ...PROBE_KEY, secret: SECRET } }));
});
afterAll(() => stack?.stop());
afterEach(() => {
  vi.restoreAllMocks();
});

const warningsIn = (logs: ReturnType<typeof captureLogs>) => logs.lines().filter((line) => line.message === 'write refused, unexplained');

describe('a real refusal from DynamoDB Local that no operation explained', () => {
  it.each([
    { kind: 'put', dynamo_error: 'ConditionalCheckFailedException', reasons: undefined },
    { kind: 'transaction', dynamo_error: 'TransactionCanceledException', reasons: ['ConditionalCheckFailed'] },
  ])('answers a partner API call whose $kind was refused with 503 WRITE_CONFLICT and Retry-After', async ({ kind, dynamo_error, reasons }) => {
    // Prepare
    const { key } = await createOrgWithManagerKey(stack.office, ['public:read']);
    const logs = captureLogs();

    // Act
    const response = await fetch(`${stack.baseUrl}/refusal-probe?kind=${kind}`, { method: 'POST', headers: bearer(key.key) });
    const body = (await response.json()) as Record<string, unknown>;

    // Assess
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(body).toMatchObject({ ok: false, error: { code: 'WRITE_CONFLICT', message: ERROR_CATALOG.WRITE_CONFLICT.message } });
    expect(warningsIn(logs)).toEqual([expect.objectContaining({ level: 'WARN', route: 'refusal-probe', dynamo_error, ...(reasons ? { cancellation_reasons: reasons } : {}) })]);
    expect(logs.lines().filter((line) => line.message === 'request failed')).toEqual([]);
    expect(logs.text()).not.toContain(SECRET);
  });

  it('answers a web settings call whose transaction was refused with 503 WRITE_CONFLICT in the settings shape', async () => {
    // Prepare
    const logs = captureLogs();

    // Act
    const response = await fetch(`${stack.baseUrl}/settings/api/refusal-probe?kind=transaction`, {
      method: 'POST',
      headers: { Origin: new URL(stack.baseUrl).origin, 'X-Settings-Request': '1' },
    });
    const body = (await response.json()) as Record<string, unknown>;

    // Assess
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(body).toEqual({ code: 'WRITE_CONFLICT', message: ERROR_CATALOG.WRITE_CONFLICT.message, request_id: expect.any(String) });
    expect(warningsIn(logs)).toEqual([expect.objectContaining({ route: 'settings-refusal-probe', cancellation_reasons: ['ConditionalCheckFailed'] })]);
    expect(logs.text()).not.toContain(SECRET);
  });
});
