/**
 * The service's DynamoDB tables, created from the shared TABLES definitions
 * (lambdas/shared/storage/table-definitions.ts) so that keys, indexes, TTL and
 * streams are declared once for CDK, the local stack and the tests.
 *
 * Billing is on demand. Recovery settings (PITR, deletion protection,
 * removal policy) come from the stage config: long-lived data is retained,
 * ephemeral stages clean up after themselves.
 */
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import {
  TABLES,
  TABLE_IDS,
  physicalTableName,
  type KeyAttribute,
  type TableDefinition,
  type TableId,
} from '../../lambdas/shared/storage/table-definitions';
import type { StageConfig } from '../config/stage-config';
import { stageRemovalPolicy } from './removal-policy';

export interface DataTablesProps {
  readonly config: StageConfig;
}

export type TableMap = Readonly<Record<TableId, dynamodb.ITableV2>>;

export class DataTables extends Construct {
  /** Every table of TABLES, by id. */
  public readonly tables: Readonly<Record<TableId, dynamodb.TableV2>>;

  constructor(scope: Construct, id: string, props: DataTablesProps) {
    super(scope, id);
    const { config } = props;
    const entries = TABLE_IDS.map((tableId) => [tableId, this.createTable(config, TABLES[tableId])] as const);
    this.tables = Object.freeze(Object.fromEntries(entries) as Record<TableId, dynamodb.TableV2>);
  }

  private createTable(config: StageConfig, definition: TableDefinition): dynamodb.TableV2 {
    return new dynamodb.TableV2(this, pascalCase(definition.id), {
      tableName: physicalTableName(config.stage, definition.id),
      partitionKey: attribute(definition.partitionKey),
      sortKey: attribute(definition.sortKey),
      billing: dynamodb.Billing.onDemand(),
      globalSecondaryIndexes: definition.globalIndexes.map((index) => ({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        ...(index.sortKey ? { sortKey: attribute(index.sortKey) } : {}),
        ...(index.keysOnly ? { projectionType: dynamodb.ProjectionType.KEYS_ONLY } : {}),
        ...(index.include ? { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.include] } : {}),
      })),
      timeToLiveAttribute: definition.timeToLiveAttribute,
      ...(definition.stream ? { dynamoStream: dynamodb.StreamViewType[definition.stream] } : {}),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: config.pointInTimeRecovery },
      deletionProtection: config.deletionProtection,
      removalPolicy: stageRemovalPolicy(config),
    });
  }
}

function attribute(key: KeyAttribute): dynamodb.Attribute {
  return { name: key.name, type: key.type === 'S' ? dynamodb.AttributeType.STRING : dynamodb.AttributeType.NUMBER };
}

function pascalCase(id: string): string {
  return id.replace(/(^|[-_])([a-z])/g, (_, __, c: string) => c.toUpperCase()) + 'Table';
}
