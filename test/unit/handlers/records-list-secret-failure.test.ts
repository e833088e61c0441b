/**
 * The record list when Secrets Manager cannot be read (a fresh container,
 * no cached secret): a last page needs no cursor and is answered; a page
 * with more to come answers 500 INTERNAL_ERROR, never an unsigned cursor.
 */
import '../support/handler-environment';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { handler } from '../../../lambdas/records/handler';
import { lambdaContext, parseBody, proxyEvent } from '../support/api-gateway-event';
import { PARTNER_ID, accountItem, bearer, issueKey, orgItem, serveAdmission } from '../support/identity-fixtures';

process.env.SECRET_ARN_RECORD_CURSOR = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:partner-api/unit/record-cursor-AbCdEf';

const ddbMock = mockClient(DynamoDBDocumentClient);
const secretsMock = mockClient(SecretsManagerClient);

const item = (i: number) => {
  const updated = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  const id = `rec_${String(i).padStart(20, '0')}`;
  return { id, uuid: `USS-00000000-${String(i).padStart(12, '0')}`, player_name: 'Steve', game_category: 'FPS', game: 'Valorant', checked_at: updated, result: 'clean', result_label: 'Clean', checker_name: 'A', public_notes: '', updated_at: updated, rec_order: `${updated}#${id}` };
};

async function list(limit: string) {
  const issued = issueKey({ partner_id: PARTNER_ID, scopes: ['records:read'], expires_at: null });
  serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
  const response = await handler(
    proxyEvent({ method: 'GET', path: `/partners/${PARTNER_ID}/records`, resource: '/partners/{partner_id}/records', pathParameters: { partner_id: PARTNER_ID }, query: { limit }, headers: { Authorization: bearer(issued.key) } }),
    lambdaContext(),
  );
  return { status: response.statusCode, body: parseBody(response) as { error?: { code: string } } };
}

beforeEach(() => {
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  secretsMock.on(GetSecretValueCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
});
afterEach(() => {
  ddbMock.reset();
  secretsMock.reset();
  vi.restoreAllMocks();
});

it('answers a last page without the secret, and 500 INTERNAL_ERROR where a next cursor must be signed', async () => {
  ddbMock.on(QueryCommand).resolves({ Items: [item(1)] });
  expect((await list('5')).status).toBe(200);

  ddbMock.on(QueryCommand).resolves({ Items: [item(1), item(2), item(3)] });
  const failed = await list('2');
  expect(failed.status).toBe(500);
  expect(failed.body.error?.code).toBe('INTERNAL_ERROR');
});
