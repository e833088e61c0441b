/**
 * Create the service's tables in DynamoDB Local from the same definitions
 * the CDK stateful stack deploys (lambdas/shared/storage/table-definitions.ts).
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { TABLE_IDS, TABLES, type KeyAttribute, type TableDefinition, type TableId } from '../lambdas/shared/storage/table-definitions';

export function createTableInput(definition: TableDefinition, tableName: string) {
  const attributes = new Map<string, KeyAttribute>();
  const remember = (a?: KeyAttribute) => a && attributes.set(a.name, a);
  remember(definition.partitionKey);
  remember(definition.sortKey);
  for (const index of definition.globalIndexes) {
    remember(index.partitionKey);
    remember(index.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [...attributes.values()].map((a) => ({ AttributeName: a.name, AttributeType: a.type })),
    KeySchema: [
      { AttributeName: definition.partitionKey.name, KeyType: 'HASH' as const },
      { AttributeName: definition.sortKey.name, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: definition.globalIndexes.length
      ? definition.globalIndexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
            ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' as const }] : []),
          ],
          Projection: index.keysOnly
            ? { ProjectionType: 'KEYS_ONLY' as const }
            : index.include
              ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.include] }
              : { ProjectionType: 'ALL' as const },
        }))
      : undefined,
    StreamSpecification: definition.stream ? { StreamEnabled: true, StreamViewType: definition.stream } : undefined,
  };
}

/** Create every table that does not exist yet (idempotent, for kept data folders). */
export async function createTables(client: DynamoDBClient, names: Record<TableId, string>): Promise<void> {
  for (const id of TABLE_IDS) {
    const definition: TableDefinition = TABLES[id];
    try {
      await client.send(new CreateTableCommand(createTableInput(definition, names[id])));
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: names[id],
          TimeToLiveSpecification: { AttributeName: definition.timeToLiveAttribute, Enabled: true },
        }),
      );
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
    }
    await client.send(new DescribeTableCommand({ TableName: names[id] }));
  }
}

export function localTableNames(prefix = 'local'): Record<TableId, string> {
  return Object.fromEntries(TABLE_IDS.map((id) => [id, `partner-api-${prefix}-${id}`])) as Record<TableId, string>;
}
