/**
 * What DynamoDB Local reports as consumed capacity, where the cost model (bench/cost/model.ts `billedUnits`) relies on
 * it or corrects it. If a DynamoDB Local upgrade changes one of these, this file fails and the model's corrections
 * must follow:
 * - relied on: a single write reports 1 unit per KB on the table plus the index writes (1 per KB; 2 when the index key
 *   changes), and a read 0.5 (eventual) or 1 (strong) per 4 KB, as AWS bills them;
 * - corrected: a write transaction reports 2 units per distinct item size (three 1 KB items: 2; AWS bills 6) and
 *   nothing for a ConditionCheck (AWS bills 2), and refused conditions and cancelled transactions report nothing.
 */
import { CreateTableCommand, DeleteTableCommand, GetItemCommand, PutItemCommand, TransactWriteItemsCommand, UpdateItemCommand, type ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoClient } from '../../local/dynamo-local';

const client = localDynamoClient(inject('dynamoEndpoint'));
const table = `capacity-${randomBytes(4).toString('hex')}`;
const s = (value: string) => ({ S: value });
const total = (consumed: ConsumedCapacity | ConsumedCapacity[] | undefined) => (Array.isArray(consumed) ? consumed : [consumed]).reduce((n, c) => n + (c?.CapacityUnits ?? 0), 0);

beforeAll(async () => {
  await client.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'g', AttributeType: 'S' },
      ],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [{ IndexName: 'by-g', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
    }),
  );
});
afterAll(async () => {
  await client.send(new DeleteTableCommand({ TableName: table }));
  client.destroy();
});

describe("DynamoDB Local's capacity report, as the cost model reads it", () => {
  it('reports single writes and reads as AWS bills them, index writes included', async () => {
    const put = (Item: Record<string, { S: string }>) => client.send(new PutItemCommand({ TableName: table, Item, ReturnConsumedCapacity: 'TOTAL' }));
    expect(total((await put({ pk: s('plain') })).ConsumedCapacity)).toBe(1);
    expect(total((await put({ pk: s('indexed'), g: s('x') })).ConsumedCapacity)).toBe(2);
    expect(total((await put({ pk: s('large'), g: s('x'), d: s('x'.repeat(1500)) })).ConsumedCapacity)).toBe(4);
    const moved = await client.send(
      new UpdateItemCommand({ TableName: table, Key: { pk: s('indexed') }, UpdateExpression: 'SET g = :y', ExpressionAttributeValues: { ':y': s('y') }, ReturnConsumedCapacity: 'TOTAL' }),
    );
    expect(total(moved.ConsumedCapacity)).toBe(3);
    const get = (ConsistentRead: boolean) => client.send(new GetItemCommand({ TableName: table, Key: { pk: s('plain') }, ConsistentRead, ReturnConsumedCapacity: 'TOTAL' }));
    expect(total((await get(false)).ConsumedCapacity)).toBe(0.5);
    expect(total((await get(true)).ConsumedCapacity)).toBe(1);
  });

  it('under-reports write transactions (per distinct item size, ConditionCheck free), which the model corrects', async () => {
    const sameSize = await client.send(
      new TransactWriteItemsCommand({ TransactItems: ['a', 'b', 'c'].map((pk) => ({ Put: { TableName: table, Item: { pk: s(pk) } } })), ReturnConsumedCapacity: 'TOTAL' }),
    );
    expect(total(sameSize.ConsumedCapacity)).toBe(2);
    const withCheck = await client.send(
      new TransactWriteItemsCommand({
        TransactItems: [{ ConditionCheck: { TableName: table, Key: { pk: s('plain') }, ConditionExpression: 'attribute_exists(pk)' } }, { Put: { TableName: table, Item: { pk: s('d') } } }],
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    expect(total(withCheck.ConsumedCapacity)).toBe(2);
  });

  it('reports nothing for a refused condition or a cancelled transaction', async () => {
    const refused = await client
      .send(new PutItemCommand({ TableName: table, Item: { pk: s('plain') }, ConditionExpression: 'attribute_not_exists(pk)', ReturnConsumedCapacity: 'TOTAL' }))
      .catch((error: { name: string; ConsumedCapacity?: unknown }) => error);
    expect(refused).toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect((refused as { ConsumedCapacity?: unknown }).ConsumedCapacity).toBeUndefined();
    const cancelled = await client
      .send(
        new TransactWriteItemsCommand({
          TransactItems: [{ Put: { TableName: table, Item: { pk: s('plain') }, ConditionExpression: 'attribute_not_exists(pk)' } }, { Put: { TableName: table, Item: { pk: s('e') } } }],
          ReturnConsumedCapacity: 'TOTAL',
        }),
      )
      .catch((error: { name: string; ConsumedCapacity?: unknown }) => error);
    expect(cancelled).toMatchObject({ name: 'TransactionCanceledException' });
    expect((cancelled as { ConsumedCapacity?: unknown }).ConsumedCapacity).toBeUndefined();
  });
});
