/**
 * What DynamoDB Local does with a transaction's ClientRequestToken, stated so that local results are not mistaken
 * for AWS's (docs/faults.md "DynamoDB Local and AWS").
 *
 * On AWS a TransactWriteItems call is idempotent for 10 minutes per ClientRequestToken: a second call with the same
 * token and the same parameters succeeds without applying anything again, and the SDK serializes one token per
 * `send()` (its retries carry the same one). So on AWS the SDK's own retry of a transaction whose answer was lost is
 * harmless. These tests pin what DynamoDB Local does with the same sequence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { FaultPlan } from '../../local/fault-injection';
import { localDocumentClient } from '../../local/local-stack';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ webhooks: false });
});
afterAll(() => stack?.stop());

const counterIncrement = (table: string, pk: string) => ({
  TransactItems: [
    {
      Update: {
        TableName: table,
        Key: { pk, sk: 'COUNTER' },
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': 1 },
      },
    },
  ],
});

const counterOf = async (table: string, pk: string) => (await stack.client.send(new GetCommand({ TableName: table, Key: { pk, sk: 'COUNTER' }, ConsistentRead: true }))).Item?.n;

describe('DynamoDB Local and a transaction’s ClientRequestToken', () => {
  it('applies a transaction once when the same token is sent twice (as AWS does within 10 minutes)', async () => {
    // Prepare
    const pk = `CRT#same-${Date.now()}`;
    const token = `token-${pk}`;

    // Act
    await stack.client.send(new TransactWriteCommand({ ...counterIncrement(stack.tables.access, pk), ClientRequestToken: token }));
    await stack.client.send(new TransactWriteCommand({ ...counterIncrement(stack.tables.access, pk), ClientRequestToken: token }));

    // Assess
    expect(await counterOf(stack.tables.access, pk)).toBe(1);
  });

  it('applies a transaction once when its answer is lost below the SDK and the SDK sends it again (its own token)', async () => {
    // Prepare
    const pk = `CRT#retry-${Date.now()}`;
    const faults = new FaultPlan();
    const client = faults.instrument(localDocumentClient(stack.dynamoEndpoint));
    const rule = faults.arm({ component: 'api', call: 'TransactWriteItems', effect: 'lose-answer' });

    // Act
    await faults.invocation('api', () => client.send(new TransactWriteCommand(counterIncrement(stack.tables.access, pk))));

    // Assess
    expect(rule.fired()).toBe(true);
    expect(await counterOf(stack.tables.access, pk)).toBe(1);
    client.destroy();
  });

  it('applies it again under a new token (a caller’s own retry is a new transaction)', async () => {
    // Prepare
    const pk = `CRT#new-${Date.now()}`;

    // Act
    await stack.client.send(new TransactWriteCommand({ ...counterIncrement(stack.tables.access, pk), ClientRequestToken: `a-${pk}` }));
    await stack.client.send(new TransactWriteCommand({ ...counterIncrement(stack.tables.access, pk), ClientRequestToken: `b-${pk}` }));

    // Assess
    expect(await counterOf(stack.tables.access, pk)).toBe(2);
  });
});
