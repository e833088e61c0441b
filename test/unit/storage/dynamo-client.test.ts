/**
 * The instrumented document client: every call asks DynamoDB for its
 * consumed capacity, and calls, sequential round trips and capacity units
 * are accounted to the request scope. A fake HTTP handler stands in for
 * DynamoDB so the SDK's whole middleware stack runs, as in production.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { currentRequestScope, dynamoFigures, runInRequestScope, type DynamoAccounting } from '../../../lambdas/shared/observability/request-scope';
import { createDocumentClient, requireTable, tableNamesFromEnv } from '../../../lambdas/shared/storage/dynamo-client';

interface WireRequest {
  readonly operation: string;
  readonly body: Record<string, unknown>;
}

/**
 * DynamoDB over a fake wire: records each request, answers each operation
 * with `answers[operation]`, and holds every response until `release()` when
 * `held` is set (to keep calls in flight together).
 */
function fakeDynamo(answers: Record<string, Record<string, unknown>>, options: { held?: boolean } = {}) {
  const requests: WireRequest[] = [];
  const waiting: Array<() => void> = [];
  let arrived: () => void = () => undefined;
  const client = new DynamoDBClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
    requestHandler: {
      handle: async (request: { headers: Record<string, string>; body: Uint8Array | string }) => {
        const operation = request.headers['x-amz-target'].split('.')[1];
        const text = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
        requests.push({ operation, body: JSON.parse(text) as Record<string, unknown> });
        arrived();
        if (options.held) await new Promise<void>((resolve) => waiting.push(resolve));
        const answer = answers[operation];
        const failed = answer?.__type !== undefined;
        return {
          response: {
            statusCode: failed ? 400 : 200,
            headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `wire-${requests.length}` },
            body: Readable.from([Buffer.from(JSON.stringify(answer ?? {}))]),
          },
        };
      },
    },
  });
  return {
    documentClient: createDocumentClient(client),
    requests,
    /** Resolves once `count` requests reached the wire. */
    untilArrived: (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (requests.length >= count) resolve();
        };
        arrived = check;
        check();
      }),
    release: () => waiting.splice(0).forEach((resolve) => resolve()),
    /** Answer only the request that arrived last. */
    releaseLast: () => waiting.pop()?.(),
  };
}

/** Run `fn` in a request scope and return the scope's DynamoDB accounting. */
async function accounted(fn: () => Promise<unknown>): Promise<DynamoAccounting> {
  return runInRequestScope('req-accounting', async () => {
    await fn();
    return (currentRequestScope() as NonNullable<ReturnType<typeof currentRequestScope>>).dynamo;
  });
}

const TABLE = 'access';
const getAnswer = { Item: { pk: { S: 'A' }, sk: { S: 'A' } }, ConsumedCapacity: { TableName: TABLE, CapacityUnits: 0.5 } };
const get = (pk = 'A') => new GetCommand({ TableName: TABLE, Key: { pk, sk: pk } });

describe('createDocumentClient: consumed capacity', () => {
  it('asks DynamoDB for the TOTAL consumed capacity of every call', async () => {
    // Prepare
    const dynamo = fakeDynamo({ GetItem: getAnswer, PutItem: {} });

    // Act
    await dynamo.documentClient.send(get());
    await dynamo.documentClient.send(new PutCommand({ TableName: TABLE, Item: { pk: 'B', sk: 'B' } }));

    // Assess
    expect(dynamo.requests.map((r) => [r.operation, r.body.ReturnConsumedCapacity])).toEqual([
      ['GetItem', 'TOTAL'],
      ['PutItem', 'TOTAL'],
    ]);
  });

  it('keeps a ReturnConsumedCapacity the caller chose', async () => {
    // Prepare
    const dynamo = fakeDynamo({ GetItem: getAnswer });

    // Act
    await dynamo.documentClient.send(new GetCommand({ TableName: TABLE, Key: { pk: 'A', sk: 'A' }, ReturnConsumedCapacity: 'INDEXES' }));

    // Assess
    expect(dynamo.requests[0].body.ReturnConsumedCapacity).toBe('INDEXES');
  });

  it('still marshals the document and unmarshals the answer', async () => {
    // Prepare
    const dynamo = fakeDynamo({ GetItem: getAnswer });

    // Act
    const output = await dynamo.documentClient.send(get());

    // Assess
    expect(dynamo.requests[0].body.Key).toEqual({ pk: { S: 'A' }, sk: { S: 'A' } });
    expect(output.Item).toEqual({ pk: 'A', sk: 'A' });
  });

  it('works outside a request scope', async () => {
    // Prepare
    const dynamo = fakeDynamo({ GetItem: getAnswer });

    // Act
    const output = await dynamo.documentClient.send(get());

    // Assess
    expect(output.Item).toEqual({ pk: 'A', sk: 'A' });
  });
});

describe('createDocumentClient: per-request accounting', () => {
  it('counts sequential calls as one round trip each', async () => {
    // Prepare
    const dynamo = fakeDynamo({ GetItem: getAnswer });

    // Act
    const accounting = await accounted(async () => {
      await dynamo.documentClient.send(get('A'));
      await dynamo.documentClient.send(get('B'));
    });

    // Assess
    expect(accounting).toMatchObject({ calls: 2, roundTrips: 2, inFlight: 0, operations: ['GetItem', 'GetItem'] });
  });

  it('counts calls in flight together as one round trip', async () => {
    // Prepare
    const dynamo = fakeDynamo({ GetItem: getAnswer, BatchGetItem: {} }, { held: true });

    // Act
    const accounting = await accounted(async () => {
      const both = Promise.all([
        dynamo.documentClient.send(get('A')),
        dynamo.documentClient.send(new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: [{ pk: 'B', sk: 'B' }] } } })),
      ]);
      await dynamo.untilArrived(2);
      dynamo.release();
      await both;
    });

    // Assess
    expect(accounting).toMatchObject({ calls: 2, roundTrips: 1, inFlight: 0 });
    expect([...accounting.operations].sort()).toEqual(['BatchGetItem', 'GetItem']);
  });

  it('counts a parallel pair followed by a single call as two round trips', async () => {
    // Prepare
    const dynamo = fakeDynamo({ GetItem: getAnswer }, { held: true });

    // Act
    const accounting = await accounted(async () => {
      const pair = Promise.all([dynamo.documentClient.send(get('A')), dynamo.documentClient.send(get('B'))]);
      await dynamo.untilArrived(2);
      dynamo.release();
      await pair;
      const single = dynamo.documentClient.send(get('C'));
      await dynamo.untilArrived(3);
      dynamo.release();
      await single;
    });

    // Assess
    expect(accounting).toMatchObject({ calls: 3, roundTrips: 2, inFlight: 0 });
  });

  it('counts a call sent after one of two parallel calls answered as a second round trip, while the other is still in flight', async () => {
    // Prepare: the shape of an admission retry on one item while another item's write is pending.
    const dynamo = fakeDynamo({ GetItem: getAnswer }, { held: true });

    // Act
    const accounting = await accounted(async () => {
      const first = dynamo.documentClient.send(get('A'));
      const second = dynamo.documentClient.send(get('B'));
      await dynamo.untilArrived(2);
      dynamo.releaseLast();
      await second;
      const retry = dynamo.documentClient.send(get('B'));
      await dynamo.untilArrived(3);
      dynamo.release();
      await Promise.all([first, retry]);
    });

    // Assess
    expect(accounting).toMatchObject({ calls: 3, roundTrips: 2, inFlight: 0 });
  });

  it('attributes TOTAL capacity to reads or writes by operation', async () => {
    // Prepare
    const dynamo = fakeDynamo({
      GetItem: getAnswer,
      BatchGetItem: { Responses: {}, ConsumedCapacity: [{ TableName: TABLE, CapacityUnits: 1.5 }] },
      Query: { Items: [], Count: 0, ConsumedCapacity: { TableName: TABLE, CapacityUnits: 2 } },
      PutItem: { ConsumedCapacity: { TableName: TABLE, CapacityUnits: 1 } },
      UpdateItem: { ConsumedCapacity: { TableName: TABLE, CapacityUnits: 3 } },
      TransactWriteItems: { ConsumedCapacity: [{ TableName: TABLE, CapacityUnits: 4 }, { TableName: 'domain', CapacityUnits: 2 }] },
    });
    const client = dynamo.documentClient;

    // Act
    const accounting = await accounted(async () => {
      await client.send(get());
      await client.send(new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: [{ pk: 'A', sk: 'A' }] } } }));
      await client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'A' } }));
      await client.send(new PutCommand({ TableName: TABLE, Item: { pk: 'A', sk: 'A' } }));
      await client.send(new UpdateCommand({ TableName: TABLE, Key: { pk: 'A', sk: 'A' }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 1 } }));
      await client.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: TABLE, Item: { pk: 'B', sk: 'B' } } }] }));
    });

    // Assess
    expect(accounting).toMatchObject({
      calls: 6,
      roundTrips: 6,
      readUnits: 0.5 + 1.5 + 2,
      writeUnits: 1 + 3 + 4 + 2,
      operations: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'TransactWriteItems'],
    });
  });

  it('prefers explicit read and write units when DynamoDB reports them', async () => {
    // Prepare
    const dynamo = fakeDynamo({
      TransactWriteItems: { ConsumedCapacity: [{ TableName: TABLE, CapacityUnits: 6, ReadCapacityUnits: 2, WriteCapacityUnits: 4 }] },
    });

    // Act
    const accounting = await accounted(() =>
      dynamo.documentClient.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: TABLE, Item: { pk: 'B', sk: 'B' } } }] })),
    );

    // Assess
    expect(accounting).toMatchObject({ readUnits: 2, writeUnits: 4 });
  });

  it('counts a failed call and closes its round trip', async () => {
    // Prepare
    const dynamo = fakeDynamo({
      PutItem: { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'The conditional request failed' },
      GetItem: getAnswer,
    });

    // Act
    const accounting = await accounted(async () => {
      await dynamo.documentClient
        .send(new PutCommand({ TableName: TABLE, Item: { pk: 'A', sk: 'A' }, ConditionExpression: 'attribute_not_exists(pk)' }))
        .catch((error: unknown) => error);
      await dynamo.documentClient.send(get());
    });

    // Assess
    expect(accounting).toMatchObject({ calls: 2, roundTrips: 2, inFlight: 0, readUnits: 0.5, writeUnits: 0, failedConditionalWrites: 1 });
  });

  it("counts what a cost model bills beyond the reported units: transactions' items, refused conditions, cancelled transactions", async () => {
    // Prepare
    const dynamo = fakeDynamo({
      TransactWriteItems: { ConsumedCapacity: [{ TableName: TABLE, CapacityUnits: 2 }] },
      UpdateItem: { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'The conditional request failed' },
    });
    const cancelling = fakeDynamo({
      TransactWriteItems: { __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException', message: 'Transaction cancelled', CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }] },
    });
    const transaction = (pk: string) =>
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: TABLE, Item: { pk, sk: pk } } },
          { ConditionCheck: { TableName: TABLE, Key: { pk: 'A', sk: 'A' }, ConditionExpression: 'attribute_exists(pk)' } },
        ],
      });

    // Act
    const accounting = await accounted(async () => {
      await dynamo.documentClient.send(transaction('B'));
      await dynamo.documentClient.send(new UpdateCommand({ TableName: TABLE, Key: { pk: 'A', sk: 'A' }, UpdateExpression: 'SET n = :n', ConditionExpression: 'n < :n', ExpressionAttributeValues: { ':n': 1 } })).catch(() => undefined);
      await cancelling.documentClient.send(transaction('C')).catch(() => undefined);
    });

    // Assess
    expect(accounting).toMatchObject({ calls: 3, writeUnits: 2, transactionItems: 2, transactionWriteUnits: 2, failedConditionalWrites: 1, cancelledTransactionItems: 2 });
    expect(dynamoFigures(accounting)).toEqual({ calls: 3, round_trips: 3, rcu: 0, wcu: 2, tx_items: 2, tx_wcu: 2, failed_conditions: 1, cancelled_tx_items: 2 });
    expect(dynamoFigures({ ...accounting, transactionItems: 0, failedConditionalWrites: 0, cancelledTransactionItems: 0 })).toEqual({ calls: 3, round_trips: 3, rcu: 0, wcu: 2 });
  });

  it('keeps the accounting of concurrent requests apart', async () => {
    // Prepare
    const dynamo = fakeDynamo({ GetItem: getAnswer });

    // Act
    const [one, two] = await Promise.all([
      accounted(() => dynamo.documentClient.send(get('A'))),
      accounted(async () => {
        await dynamo.documentClient.send(get('B'));
        await dynamo.documentClient.send(get('C'));
      }),
    ]);

    // Assess
    expect(one).toMatchObject({ calls: 1, roundTrips: 1, readUnits: 0.5 });
    expect(two).toMatchObject({ calls: 2, roundTrips: 2, readUnits: 1 });
  });
});

describe('tableNamesFromEnv', () => {
  it('reads every table name from its TABLE_<ID> variable', () => {
    expect(tableNamesFromEnv({ TABLE_ACCESS: 'a-table', TABLE_DOMAIN: 'd-table' })).toEqual({ access: 'a-table', domain: 'd-table' });
  });

  it('leaves out the tables the function is not granted', () => {
    expect(tableNamesFromEnv({ TABLE_ACCESS: 'a-table' })).toEqual({ access: 'a-table' });
  });

  it('names the missing variable when a table the code needs was not granted', () => {
    expect(requireTable({ access: 'a-table' }, 'access')).toBe('a-table');
    expect(() => requireTable({ access: 'a-table' }, 'domain')).toThrow('TABLE_DOMAIN');
  });
});
