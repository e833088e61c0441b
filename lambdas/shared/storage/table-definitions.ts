/**
 * The service's DynamoDB tables, declared once. The CDK stateful stack, the
 * local stack, the integration tests and the benchmark all create their
 * tables from these definitions, so a key or index changed here changes
 * everywhere together.
 *
 * - `access`: the control plane. Accounts, organizations, memberships, API
 *   keys and (later) quota counters, idempotency records and concurrency
 *   leases. Write-hot, no stream: counters change on every request and must
 *   not wake stream consumers.
 * - `domain`: the business data (records, invitations, tickets,
 *   entitlements). Its stream feeds webhook events.
 */

export type AttributeType = 'S' | 'N';

export interface KeyAttribute {
  readonly name: string;
  readonly type: AttributeType;
}

export interface GlobalIndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
}

export interface TableDefinition {
  /** Short logical name; the physical name is `partner-api-<stage>-<id>`. */
  readonly id: 'access' | 'domain';
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
  readonly globalIndexes: readonly GlobalIndexDefinition[];
  /** Epoch-seconds attribute DynamoDB TTL removes eventually (days later): code never relies on the removal. */
  readonly timeToLiveAttribute: string;
  /** Stream view when changes of this table flow out as events. */
  readonly stream?: 'NEW_AND_OLD_IMAGES';
}

const pk: KeyAttribute = { name: 'pk', type: 'S' };
const sk: KeyAttribute = { name: 'sk', type: 'S' };
const gsi1: GlobalIndexDefinition = {
  indexName: 'gsi1',
  partitionKey: { name: 'gsi1pk', type: 'S' },
  sortKey: { name: 'gsi1sk', type: 'S' },
};

export const TABLES = {
  access: {
    id: 'access',
    partitionKey: pk,
    sortKey: sk,
    globalIndexes: [gsi1],
    timeToLiveAttribute: 'ttl',
  },
  domain: {
    id: 'domain',
    partitionKey: pk,
    sortKey: sk,
    globalIndexes: [gsi1],
    timeToLiveAttribute: 'ttl',
    stream: 'NEW_AND_OLD_IMAGES',
  },
} as const satisfies Record<string, TableDefinition>;

export type TableId = keyof typeof TABLES;

export const TABLE_IDS = Object.keys(TABLES) as TableId[];

/** Physical table name for a stage. Deterministic so that the admin CLI and operators can find a stage's tables. */
export function physicalTableName(stage: string, id: TableId): string {
  return `partner-api-${stage}-${id}`;
}

/** Environment variable through which a Lambda learns a table's name. */
export function tableEnvName(id: TableId): string {
  return `TABLE_${id.toUpperCase()}`;
}
