/**
 * Many records at once, for the demo data and the benchmark: the same items
 * the back office writes (lambdas/records/record-store.ts newRecordItems),
 * loaded with BatchWriteItem a few batches at a time, without events (a
 * bulk load is a data migration, not a business action). Each record gets
 * its own `updated_at` from `timeOf(i)`, so lists have a realistic history.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RecordInput } from '../lambdas/records/record-model';
import { newRecordItems } from '../lambdas/records/record-store';

const BATCH = 25;
const IN_FLIGHT = 8;

export interface BulkRecords {
  readonly partnerId: string;
  readonly count: number;
  readonly input: (i: number) => RecordInput;
  readonly timeOf: (i: number) => Date;
  /** Also write the uuid items public lookups read (default true; a list-only benchmark skips them). */
  readonly lookups?: boolean;
}

/** Write the records; returns the updated_at#id list-order keys, in index order. */
export async function loadRecords(client: DynamoDBDocumentClient, table: string, bulk: BulkRecords): Promise<string[]> {
  const orders: string[] = new Array(bulk.count);
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < bulk.count; i += 1) {
    const { record, items: recordItems } = newRecordItems(bulk.partnerId, bulk.input(i), bulk.timeOf(i));
    orders[i] = `${record.updated_at}#${record.id}`;
    items.push(...(bulk.lookups === false ? recordItems.slice(0, 1) : recordItems));
  }
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const batch = items.slice(next, next + BATCH);
      next += BATCH;
      let pending: Record<string, unknown>[] = batch;
      // Unprocessed items (throttling) are written again until none is left.
      while (pending.length > 0) {
        const { UnprocessedItems } = await client.send(
          new BatchWriteCommand({ RequestItems: { [table]: pending.map((Item) => ({ PutRequest: { Item } })) } }),
        );
        pending = (UnprocessedItems?.[table] ?? []).map((request) => request.PutRequest!.Item as Record<string, unknown>);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return orders;
}
