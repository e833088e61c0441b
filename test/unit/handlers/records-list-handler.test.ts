/**
 * The `records` function's list, deployed-style: the cursor secret comes
 * from Secrets Manager by the ARN in the environment (read once per
 * container, current and previous versions), and each filter is served by
 * its own index with one Query that reads one item more than a page.
 */
import '../support/handler-environment';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../../../lambdas/records/handler';
import { RECORD_LIST_INDEXES } from '../../../lambdas/shared/storage/table-definitions';
import { lambdaContext, parseBody, proxyEvent } from '../support/api-gateway-event';
import { TABLES } from '../support/handler-environment';
import { PARTNER_ID, accountItem, bearer, issueKey, orgItem, serveAdmission } from '../support/identity-fixtures';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:partner-api/unit/record-cursor-AbCdEf';
process.env.SECRET_ARN_RECORD_CURSOR = SECRET_ARN;

const ddbMock = mockClient(DynamoDBDocumentClient);
const secretsMock = mockClient(SecretsManagerClient);

function recordAt(i: number) {
  const updated = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  const id = `rec_${String(i).padStart(20, '0')}`;
  return {
    id,
    uuid: `USS-00000000-${String(i).padStart(12, '0')}`,
    player_name: 'Steve',
    game_category: 'Minecraft',
    game: 'Minecraft: Java Edition',
    checked_at: '2025-12-01T00:00:00.000Z',
    result: 'clean',
    result_label: 'Clean',
    checker_name: 'Alex',
    public_notes: '',
    updated_at: updated,
    partner_id: PARTNER_ID,
    rec_order: `${updated}#${id}`,
  };
}

async function list(query: Record<string, string> = {}) {
  const issued = issueKey({ partner_id: PARTNER_ID, scopes: ['records:read'], expires_at: null });
  serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
  const response = await handler(
    proxyEvent({
      method: 'GET',
      path: `/partners/${PARTNER_ID}/records`,
      resource: '/partners/{partner_id}/records',
      pathParameters: { partner_id: PARTNER_ID },
      query,
      headers: { Authorization: bearer(issued.key) },
    }),
    lambdaContext(),
  );
  return { response, body: parseBody(response) as { data?: { items: { id: string }[]; next_cursor: string | null }; error?: { code: string } } };
}

const queries = () => ddbMock.commandCalls(QueryCommand).map((call) => call.args[0].input as QueryCommandInput);

beforeEach(() => {
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  secretsMock.on(GetSecretValueCommand, { VersionStage: 'AWSCURRENT' }).resolves({ SecretString: 'c'.repeat(64) });
  secretsMock.on(GetSecretValueCommand, { VersionStage: 'AWSPREVIOUS' }).rejects(Object.assign(new Error('no previous'), { name: 'ResourceNotFoundException' }));
  secretsMock.on(GetSecretValueCommand, { VersionStage: 'AWSPENDING' }).rejects(Object.assign(new Error('no rotation in progress'), { name: 'ResourceNotFoundException' }));
});
afterEach(() => {
  ddbMock.reset();
  secretsMock.reset();
  vi.restoreAllMocks();
});

describe('records handler: GET /partners/{partner_id}/records', () => {
  it('queries the organization index once for limit + 1 items, signs the next cursor, and reads the secret by ARN once per container', async () => {
    // Prepare
    ddbMock.on(QueryCommand).resolves({ Items: Array.from({ length: 21 }, (_, i) => recordAt(i)) });

    // Act
    const first = await list();
    const second = await list({ cursor: first.body.data!.next_cursor! });

    // Assess
    expect(first.response.statusCode).toBe(200);
    expect(first.body.data!.items).toHaveLength(20);
    expect(first.body.data!.items[0]).not.toHaveProperty('rec_order');
    expect(first.body.data!.items[0]).not.toHaveProperty('partner_id');
    expect(second.response.statusCode).toBe(200);
    const [firstQuery, secondQuery] = queries();
    expect(firstQuery).toMatchObject({
      TableName: TABLES.domain,
      IndexName: RECORD_LIST_INDEXES.all.indexName,
      KeyConditionExpression: '#partition = :partition',
      ExpressionAttributeValues: { ':partition': PARTNER_ID },
      Limit: 21,
    });
    expect(firstQuery.ProjectionExpression).toBeDefined();
    // The second page starts strictly after the first page's last record.
    expect(secondQuery).toMatchObject({
      KeyConditionExpression: '#partition = :partition AND rec_order > :from',
      ExpressionAttributeValues: { ':from': recordAt(19).rec_order },
    });
    const reads = secretsMock.commandCalls(GetSecretValueCommand).map((call) => call.args[0].input);
    expect(reads).toEqual([
      { SecretId: SECRET_ARN, VersionStage: 'AWSCURRENT' },
      { SecretId: SECRET_ARN, VersionStage: 'AWSPREVIOUS' },
      { SecretId: SECRET_ARN, VersionStage: 'AWSPENDING' },
    ]);
  });

  it.each([
    [{ result: 'warning' }, 'result', `${PARTNER_ID}#warning`],
    [{ game: 'fps' }, 'game', `${PARTNER_ID}#fps`],
    [{ player_name: 'StEvE' }, 'player_name', `${PARTNER_ID}#steve`],
  ] as const)('serves %o from its own index, reading one item more than a page', async (query, index, partition) => {
    ddbMock.on(QueryCommand).resolves({ Items: [] });

    const { response } = await list({ ...query, limit: '5' });

    expect(response.statusCode).toBe(200);
    expect(queries()[0]).toMatchObject({ IndexName: RECORD_LIST_INDEXES[index].indexName, ExpressionAttributeValues: { ':partition': partition }, Limit: 6 });
  });

  it('serves combined filters from the most selective index, with updated_after in the key condition', async () => {
    ddbMock.on(QueryCommand).resolves({ Items: [] });

    await list({ result: 'clean', player_name: 'Steve', updated_after: '2026-01-01T00:00:00Z' });

    expect(queries()[0]).toMatchObject({
      IndexName: RECORD_LIST_INDEXES.player_name.indexName,
      KeyConditionExpression: '#partition = :partition AND rec_order >= :from',
      ExpressionAttributeValues: { ':partition': `${PARTNER_ID}#steve`, ':from': '2026-01-01T00:00:00.000Z' },
    });
  });
});
