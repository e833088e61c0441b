/**
 * The `records` function through its `handler` export: GET /records/{uuid}
 * reads the uuid item of the domain table once and answers its public
 * projection; a private, missing or malformed uuid gets the spec's code.
 */
import '../support/handler-environment';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../../../lambdas/records/handler';
import { lambdaContext, parseBody, proxyEvent } from '../support/api-gateway-event';
import { TABLES } from '../support/handler-environment';
import { accountItem, bearer, issueKey, serveAdmission } from '../support/identity-fixtures';

const ddbMock = mockClient(DynamoDBDocumentClient);
const IN_30_DAYS = new Date(Date.now() + 30 * 86_400_000).toISOString();
const RECORD = {
  id: 'rec_1',
  uuid: 'USS-12345678-AbCdEfGhIjKl',
  player_name: 'Steve',
  game_category: 'Minecraft',
  game: 'Minecraft: Java Edition',
  checked_at: '2026-11-01T10:00:00.000Z',
  result: 'warning',
  result_label: 'Warning',
  checker_name: 'Alex',
  public_notes: '',
  updated_at: '2026-11-02T10:00:00.000Z',
};

/** Admission answered from the fixtures; the domain table's uuid item is `item` (later `on` calls take precedence). */
function lookup(uuid: string, item?: Record<string, unknown>) {
  const issued = issueKey({ scopes: ['public:read'], expires_at: IN_30_DAYS });
  serveAdmission(ddbMock, [issued.item, accountItem()]);
  ddbMock.on(GetCommand, { TableName: TABLES.domain }).resolves({ Item: item });
  return handler(
    proxyEvent({ method: 'GET', path: `/records/${uuid}`, resource: '/records/{uuid}', pathParameters: { uuid }, headers: { Authorization: bearer(issued.key) } }),
    lambdaContext(),
  );
}

beforeEach(() => {
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterEach(() => {
  ddbMock.reset();
  vi.restoreAllMocks();
});

describe('records handler: GET /records/{uuid}', () => {
  it('reads the lowercased uuid item of the domain table and answers its public projection only', async () => {
    // Act
    const response = await lookup('uss-12345678-abcdefghijkl', { record_id: 'rec_1', partner_id: 'org_1', public: true, record: { ...RECORD, internal_notes: 'x' } });

    // Assess
    expect(response.statusCode).toBe(200);
    expect((parseBody(response) as { data: unknown }).data).toEqual(RECORD);
    const reads = ddbMock.commandCalls(GetCommand).map((call) => call.args[0].input).filter((input) => input.TableName === TABLES.domain);
    expect(reads).toEqual([{ TableName: TABLES.domain, Key: { pk: 'UUID#uss-12345678-abcdefghijkl', sk: 'UUID' } }]);
  });

  it.each([
    { name: 'a private record', item: { record_id: 'rec_1', partner_id: 'org_1', public: false, record: RECORD } },
    { name: 'no record', item: undefined },
  ])('answers 404 RECORD_NOT_FOUND for $name', async ({ item }) => {
    // Act
    const response = await lookup('USS-12345678-AbCdEfGhIjKl', item);

    // Assess
    expect(response.statusCode).toBe(404);
    expect((parseBody(response) as { error: { code: string } }).error.code).toBe('RECORD_NOT_FOUND');
  });

  it('answers 422 INVALID_RECORD_UUID without reading the domain table', async () => {
    // Act
    const response = await lookup('USS-1234-short');

    // Assess
    expect(response.statusCode).toBe(422);
    expect((parseBody(response) as { error: { code: string } }).error.code).toBe('INVALID_RECORD_UUID');
    expect(ddbMock.commandCalls(GetCommand).filter((call) => call.args[0].input.TableName === TABLES.domain)).toHaveLength(0);
  });
});
