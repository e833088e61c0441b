/**
 * The organization record list on DynamoDB: which index serves a filter,
 * the index attributes every record item carries, and one page read.
 *
 * Every record item carries a list-order key `rec_order` =
 * `<updated_at>#<id>` and one partition attribute per index
 * (RECORD_LIST_INDEXES): `rec_org` = `<partner>` (every record),
 * `rec_result` = `<partner>#<result>`, `rec_game` = `<partner>#<game group>`,
 * `rec_player` = `<partner>#<normalized player name>`. A page is one Query
 * of one index from a position: it reads the items it returns (plus one, to
 * know whether more follow) however deep the position is, and with any
 * single filter nothing it does not return.
 *
 * Combined filters (two or more of result, game, player_name) query the most
 * selective index (player name, then result, then game) and filter the rest
 * on the items read, in chunks of twice a page, until a page matches: such a
 * page reads about (1 / share of the other filters) items per record it
 * returns, at most COMBINED_READ_BUDGET items, and may then hold fewer than
 * `limit` records (even none) with a next cursor.
 * `updated_after` is part of the key condition on every index: it never
 * costs extra reads.
 */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { RECORD_INDEX_ATTRIBUTES, RECORD_LIST_INDEXES } from '../shared/storage/table-definitions';
import { gameGroupOf, normalizedPlayerName, toPublicRecord, type PublicRecord, type RecordItem, type Result } from './record-model';
import type { GameGroup } from './games';

/** The list's filters, normalized (player name as compared: NFC, lower case). */
export interface RecordFilters {
  /** Inclusive lower bound, as a list-order mark (ISO 8601 UTC with milliseconds). */
  readonly updatedAfter?: string;
  readonly result?: Result;
  readonly game?: GameGroup;
  readonly playerName?: string;
}

type FilterName = 'result' | 'game' | 'player_name';

/** Items a combined-filter page may read before it answers (with a cursor if it stopped early). */
export const COMBINED_READ_BUDGET = 250;
/** A combined-filter page reads its index in chunks of this many pages' worth (limit + 1). */
const COMBINED_CHUNK_FACTOR = 2;

/** The index attributes of a record item. */
export function recordListAttributes(record: Pick<RecordItem, 'partner_id' | 'result' | 'game_group' | 'player_key' | 'updated_at' | 'id'>) {
  const partner = record.partner_id;
  return {
    rec_order: listOrderKey(record.updated_at, record.id),
    rec_org: partner,
    rec_result: `${partner}#${record.result}`,
    rec_game: `${partner}#${record.game_group}`,
    rec_player: `${partner}#${record.player_key}`,
  };
}

export const listOrderKey = (updatedAt: string, id: string) => `${updatedAt}#${id}`;

/** What a page read found: the records, and the position after the last item read when more may follow. */
export interface PageRead {
  readonly records: PublicRecord[];
  /** The last returned record's list-order key (undefined when none was returned). */
  readonly lastKey?: string;
  /** Whether items may follow the page (the position to continue from is `continueFrom`). */
  readonly more: boolean;
  /** Where the next page starts (exclusive) when `more`. */
  readonly continueFrom?: string;
  /** Items DynamoDB read for this page. */
  readonly itemsRead: number;
}

/** The filter whose index serves the page: the most selective one set. */
function leadingFilter(filters: RecordFilters): FilterName | undefined {
  if (filters.playerName !== undefined) return 'player_name';
  if (filters.result !== undefined) return 'result';
  if (filters.game !== undefined) return 'game';
  return undefined;
}

export class RecordList {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /**
   * Up to `limit` records after `position` (exclusive), or from
   * `filters.updatedAfter` (inclusive) when there is no position or the
   * position is before it.
   */
  async readPage(partnerId: string, filters: RecordFilters, limit: number, position?: string): Promise<PageRead> {
    const lead = leadingFilter(filters);
    const index = RECORD_LIST_INDEXES[lead ?? 'all'];
    const partition = lead === undefined ? partnerId : `${partnerId}#${filterValue(filters, lead)}`;

    const values: Record<string, unknown> = { ':partition': partition };
    let range = '';
    if (position !== undefined && (filters.updatedAfter === undefined || position >= filters.updatedAfter)) {
      range = ' AND rec_order > :from';
      values[':from'] = position;
    } else if (filters.updatedAfter !== undefined) {
      range = ' AND rec_order >= :from';
      values[':from'] = filters.updatedAfter;
    }

    // The other filters are applied to the items read: their index attributes are not in this index,
    // the Record fields they derive from are.
    const residual = (['result', 'game', 'player_name'] as const).filter((name) => name !== lead && filterValue(filters, name) !== undefined);
    const names: Record<string, string> = { '#partition': index.partitionKey.name };
    // Only the projected Record fields are asked for (never another index's keys, never notes).
    const projection = [...RECORD_INDEX_ATTRIBUTES, 'rec_order'].map((attribute, i) => {
      names[`#p${i}`] = attribute;
      return `#p${i}`;
    });

    const query = (from: Record<string, unknown> | undefined, count: number) =>
      this.client.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: index.indexName,
          KeyConditionExpression: `#partition = :partition${range}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ProjectionExpression: projection.join(', '),
          Limit: count,
          ExclusiveStartKey: from,
        }),
      );
    type ListedItem = PublicRecord & { partner_id: string; rec_order: string };

    if (residual.length === 0) {
      // One more than a page: whether the traversal goes on, without an empty last page.
      const { Items = [], LastEvaluatedKey } = await query(undefined, limit + 1);
      const items = Items as ListedItem[];
      const page = items.slice(0, limit);
      const lastKey = page.at(-1)?.rec_order;
      const more = items.length > limit || LastEvaluatedKey !== undefined;
      const continueFrom = items.length > limit ? lastKey : (LastEvaluatedKey?.rec_order as string | undefined);
      return { records: page.map(toPublicRecord), lastKey, more, continueFrom, itemsRead: items.length };
    }

    // Combined filters: read the leading index in chunks until a page (and one more) matches or the budget is spent.
    const matches: ListedItem[] = [];
    let itemsRead = 0;
    let from: Record<string, unknown> | undefined;
    let lastRead: string | undefined;
    do {
      const chunk = Math.min(COMBINED_CHUNK_FACTOR * (limit + 1), COMBINED_READ_BUDGET - itemsRead);
      const { Items = [], LastEvaluatedKey } = await query(from, chunk);
      itemsRead += Items.length;
      for (const item of Items as ListedItem[]) {
        lastRead = item.rec_order;
        if (residual.every((name) => matchesFilter(item, filters, name))) matches.push(item);
        if (matches.length > limit) break;
      }
      from = LastEvaluatedKey;
    } while (matches.length <= limit && from !== undefined && itemsRead < COMBINED_READ_BUDGET);
    const page = matches.slice(0, limit);
    const lastKey = page.at(-1)?.rec_order;
    const more = matches.length > limit || from !== undefined;
    // More matches than a page: continue after the last one returned; else after the last item read.
    const continueFrom = matches.length > limit ? lastKey : lastRead;
    return { records: page.map(toPublicRecord), lastKey, more, continueFrom, itemsRead };
  }
}

function filterValue(filters: RecordFilters, name: FilterName): string | undefined {
  return name === 'result' ? filters.result : name === 'game' ? filters.game : filters.playerName;
}

function matchesFilter(item: PublicRecord, filters: RecordFilters, name: FilterName): boolean {
  if (name === 'result') return item.result === filters.result;
  if (name === 'game') return gameGroupOf(item.game_category) === filters.game;
  return normalizedPlayerName(item.player_name) === filters.playerName;
}

