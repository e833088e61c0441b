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
import type { TableId } from './table-ids';

/** The ids and names, re-exported for what creates or grants the tables (a function's cold start imports table-ids.ts alone). */
export { TABLE_IDS, physicalTableName, tableEnvName, type TableId } from './table-ids';

export type AttributeType = 'S' | 'N';

export interface KeyAttribute {
  readonly name: string;
  readonly type: AttributeType;
}

export interface GlobalIndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  /** Non-key attributes the index carries; every attribute when absent (and `keysOnly` is not set). */
  readonly include?: readonly string[];
  /** The index carries the keys alone (its own and the table's): the cheapest entry to write. */
  readonly keysOnly?: true;
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

/**
 * The fields of the spec's Record object (and the owner): what the record
 * filter indexes carry, so a filtered page is read from the index alone and
 * internal or staff notes are not even in it.
 */
export const RECORD_INDEX_ATTRIBUTES = [
  'id',
  'uuid',
  'player_name',
  'game_category',
  'game',
  'checked_at',
  'result',
  'result_label',
  'checker_name',
  'public_notes',
  'updated_at',
  'partner_id',
] as const;

/**
 * An organization's records in list order (`updated_at`, then `id`): the
 * partition is `<partner>` (every record) or `<partner>#<value>` (the records
 * with one filter value), the sort key `rec_order` = `<updated_at>#<id>`.
 * Only record items carry these attributes (sparse indexes), and only the
 * Record fields are projected (RECORD_INDEX_ATTRIBUTES).
 */
const recordListIndex = (indexName: string, attribute: string): GlobalIndexDefinition => ({
  indexName,
  partitionKey: { name: attribute, type: 'S' },
  sortKey: { name: 'rec_order', type: 'S' },
  include: RECORD_INDEX_ATTRIBUTES,
});

/** The record list's indexes: every record of an organization, and one per filter (lambdas/records/record-list.ts). */
export const RECORD_LIST_INDEXES = {
  all: recordListIndex('records-by-org', 'rec_org'),
  result: recordListIndex('records-by-result', 'rec_result'),
  game: recordListIndex('records-by-game', 'rec_game'),
  player_name: recordListIndex('records-by-player', 'rec_player'),
} as const;

/**
 * Open webhook deliveries by when their next attempt is due (lambdas/webhooks/delivery-sweeper.ts):
 * a delivery carries `due_shard` and `due_at` (epoch ms) from its creation until it ends, so the
 * sweeper finds the overdue ones with one Query per shard however many callbacks there are. Sparse
 * (ended deliveries and every other item lack the attributes) and keys only: an entry costs one
 * write unit, and the sweeper reads the record itself.
 */
export const DUE_DELIVERIES_INDEX: GlobalIndexDefinition = {
  indexName: 'deliveries-due',
  partitionKey: { name: 'due_shard', type: 'S' },
  sortKey: { name: 'due_at', type: 'N' },
  keysOnly: true,
};

export const TABLES = {
  access: {
    id: 'access',
    partitionKey: pk,
    sortKey: sk,
    globalIndexes: [gsi1, DUE_DELIVERIES_INDEX],
    timeToLiveAttribute: 'ttl',
  },
  domain: {
    id: 'domain',
    partitionKey: pk,
    sortKey: sk,
    globalIndexes: [gsi1, ...Object.values(RECORD_LIST_INDEXES)],
    timeToLiveAttribute: 'ttl',
    stream: 'NEW_AND_OLD_IMAGES',
  },
} as const satisfies Record<TableId, TableDefinition>;
