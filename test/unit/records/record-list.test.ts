/**
 * RecordList.readPage with a mocked DynamoDB: which index and key
 * condition a page uses, and how combined filters read in chunks, stop when
 * a page matches, and answer a short (even empty) page with where to
 * continue when the read budget is spent.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { COMBINED_READ_BUDGET, RecordList } from '../../../lambdas/records/record-list';
import { RECORD_LIST_INDEXES } from '../../../lambdas/shared/storage/table-definitions';

const ddb = mockClient(DynamoDBDocumentClient);
afterEach(() => ddb.reset());

const record = (i: number, result: string, category: string) => {
  const updated = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  const id = `rec_${String(i).padStart(20, '0')}`;
  return { id, uuid: `USS-00000000-${String(i).padStart(12, '0')}`, player_name: 'P', game_category: category, game: 'G', checked_at: updated, result, result_label: 'L', checker_name: 'C', public_notes: '', updated_at: updated, partner_id: 'org_1', rec_order: `${updated}#${id}` };
};

/** A leading index holding `items` in order: each Query returns the next `Limit` items after ExclusiveStartKey. */
function serveIndex(items: ReturnType<typeof record>[]) {
  ddb.on(QueryCommand).callsFake((input: QueryCommandInput) => {
    const from = input.ExclusiveStartKey ? items.findIndex((item) => item.rec_order === input.ExclusiveStartKey!.rec_order) + 1 : 0;
    const page = items.slice(from, from + (input.Limit ?? items.length));
    const more = from + page.length < items.length;
    return { Items: page, ...(more ? { LastEvaluatedKey: { rec_order: page.at(-1)!.rec_order } } : {}) };
  });
}

const list = new RecordList(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), 'domain');
const queries = () => ddb.commandCalls(QueryCommand).map((call) => call.args[0].input as QueryCommandInput);

describe('a single filter', () => {
  it('reads its own index for limit + 1, from the position or the updated_after bound', async () => {
    serveIndex([]);
    await list.readPage('org_1', { game: 'fps', updatedAfter: '2026-01-01T00:00:00.000Z' }, 10);
    await list.readPage('org_1', { game: 'fps', updatedAfter: '2026-01-01T00:00:00.000Z' }, 10, '2026-02-01T00:00:00.000Z#rec_1');
    expect(queries().map((q) => [q.IndexName, q.KeyConditionExpression, q.ExpressionAttributeValues, q.Limit])).toEqual([
      [RECORD_LIST_INDEXES.game.indexName, '#partition = :partition AND rec_order >= :from', { ':partition': 'org_1#fps', ':from': '2026-01-01T00:00:00.000Z' }, 11],
      [RECORD_LIST_INDEXES.game.indexName, '#partition = :partition AND rec_order > :from', { ':partition': 'org_1#fps', ':from': '2026-02-01T00:00:00.000Z#rec_1' }, 11],
    ]);
  });
});

describe('combined filters', () => {
  it('read the leading index in chunks of two pages and stop once a page and one more match', async () => {
    // result=warning is the leading index; every third item is Minecraft.
    serveIndex(Array.from({ length: 200 }, (_, i) => record(i, 'warning', i % 3 === 0 ? 'Minecraft' : 'FPS')));
    const page = await list.readPage('org_1', { result: 'warning', game: 'minecraft' }, 5);
    expect(page.records.map((r) => r.id)).toEqual([0, 3, 6, 9, 12].map((i) => record(i, '', '').id));
    expect(page.more).toBe(true);
    expect(page.continueFrom).toBe(record(12, '', '').rec_order);
    expect(queries().map((q) => q.Limit)).toEqual([12, 12]);
    expect(page.itemsRead).toBe(24);
  });

  it('answer an empty page that continues after the last item read when the budget holds no match', async () => {
    serveIndex(Array.from({ length: COMBINED_READ_BUDGET + 50 }, (_, i) => record(i, 'warning', i < COMBINED_READ_BUDGET ? 'FPS' : 'Minecraft')));
    const page = await list.readPage('org_1', { result: 'warning', game: 'minecraft' }, 20);
    expect(page.records).toEqual([]);
    expect(page.itemsRead).toBe(COMBINED_READ_BUDGET);
    expect(page.more).toBe(true);
    expect(page.continueFrom).toBe(record(COMBINED_READ_BUDGET - 1, '', '').rec_order);
  });

  it('end the traversal when the index ends before a page matches', async () => {
    serveIndex(Array.from({ length: 30 }, (_, i) => record(i, 'warning', i === 7 ? 'Minecraft' : 'FPS')));
    const page = await list.readPage('org_1', { result: 'warning', game: 'minecraft' }, 20);
    expect(page.records.map((r) => r.id)).toEqual([record(7, '', '').id]);
    expect(page.more).toBe(false);
  });

  it('lead with the player name index when a player name is among them', async () => {
    serveIndex([]);
    await list.readPage('org_1', { result: 'clean', game: 'fps', playerName: 'steve' }, 20);
    expect(queries()[0]).toMatchObject({ IndexName: RECORD_LIST_INDEXES.player_name.indexName, ExpressionAttributeValues: { ':partition': 'org_1#steve' } });
  });
});
