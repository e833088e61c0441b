/**
 * The platform's DynamoDB parts are built on their first call (platform.ts, deferred-object.ts): a function that
 * calls no table builds no client, and one that does gets the same client and store, answering as before.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';

const built = vi.hoisted(() => ({ clients: 0 }));

vi.mock('../../../lambdas/shared/storage/dynamo-client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../lambdas/shared/storage/dynamo-client')>();
  return {
    ...actual,
    createDocumentClient: (...args: Parameters<typeof actual.createDocumentClient>) => {
      built.clients += 1;
      return actual.createDocumentClient(...args);
    },
  };
});

const { createPlatform } = await import('../../../lambdas/shared/platform');
const ddbMock = mockClient(DynamoDBDocumentClient);
const TABLES = { access: 'deferred-access', domain: 'deferred-domain' } as const;

afterEach(() => {
  ddbMock.reset();
  built.clients = 0;
});

describe('the platform’s DynamoDB parts', () => {
  it('builds no DynamoDB client for a platform whose client and admission store are read but never called', async () => {
    // Prepare
    const platform = createPlatform({ tables: TABLES, edgeGuard: undefined });

    // Act
    const { documentClient, admissionStore } = platform;
    await Promise.resolve(documentClient);

    // Assess
    expect(documentClient).toBe(platform.documentClient);
    expect(admissionStore).toBe(platform.admissionStore);
    expect(built.clients).toBe(0);
  });

  it('builds the client once, on the first call, and answers through it', async () => {
    // Prepare
    ddbMock.on(GetCommand).resolves({ Item: { pk: 'a', sk: 'b', n: 1 } });
    const platform = createPlatform({ tables: TABLES, edgeGuard: undefined });

    // Act
    const first = await platform.documentClient.send(new GetCommand({ TableName: TABLES.domain, Key: { pk: 'a', sk: 'b' } }));
    const read = await platform.admissionStore.read({ pk: 'a', sk: 'b' });

    // Assess
    expect(first.Item).toEqual({ pk: 'a', sk: 'b', n: 1 });
    expect(read).toEqual({ pk: 'a', sk: 'b', n: 1 });
    expect(built.clients).toBe(1);
    expect(ddbMock.commandCalls(GetCommand).map((call) => call.args[0].input)).toEqual([
      { TableName: TABLES.domain, Key: { pk: 'a', sk: 'b' } },
      { TableName: TABLES.access, Key: { pk: 'a', sk: 'b' }, ConsistentRead: true },
    ]);
  });

  it('refuses the admission store at once where the function is not granted the access table', () => {
    // Prepare
    const platform = createPlatform({ tables: {}, edgeGuard: undefined });

    // Act
    const read = () => platform.admissionStore;

    // Assess
    expect(read).toThrow(/TABLE_ACCESS is not set/);
  });

  it('uses the document client it is given, and builds none', async () => {
    // Prepare
    ddbMock.on(GetCommand).resolves({ Item: { pk: 'given' } });
    const { createDocumentClient } = await import('../../../lambdas/shared/storage/dynamo-client');
    const given = createDocumentClient();
    built.clients = 0;
    const platform = createPlatform({ tables: TABLES, documentClient: given, edgeGuard: undefined });

    // Act
    const read = await platform.admissionStore.read({ pk: 'given', sk: 'x' });

    // Assess
    expect(platform.documentClient).toBe(given);
    expect(read).toEqual({ pk: 'given' });
    expect(built.clients).toBe(0);
  });
});
