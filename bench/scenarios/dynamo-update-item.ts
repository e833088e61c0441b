/**
 * Floors to read the admission figures by: a conditional UpdateItem that
 * counts on one item (`ADD n :one` if `n < :limit`, returning the new value),
 * as each of admission's writes does, and two and three of them in parallel
 * on as many items, as admission does for a personal and an organization key:
 * from a plain DynamoDBClient to DynamoDB Local, no HTTP, no handler. Their
 * ratios are against GetItem, like every request row, which stays the
 * reference; the GET /me rows also show their p50 over the parallel writes
 * of the same width (what the service adds over its own DynamoDB work).
 */
import { PutItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localDynamoClient } from '../../local/dynamo-local';
import { probeFigures, summarizeDynamo } from '../dynamo-per-request';
import { runLoad } from '../load';
import { OUT_OF_REACH } from '../platform';
import { defineScenario, type LatencyRow } from '../scenario';
import { summarizeLatency } from '../stats';
import { GET_ITEM_SCENARIO } from './dynamo-get-item';

export const UPDATE_ITEM_SCENARIO = 'dynamodb-update-item';

/** Items of the bench's own in the access table (no handler reads them). */
const counterKey = (i: number) => ({ pk: { S: `BENCH#update-item-baseline-${i}` }, sk: { S: 'COUNTER' } });

/** The variant of `items` writes in parallel. */
export const parallelUpdates = (items: number) => (items === 1 ? 'raw' : `raw ×${items} parallel`);

/** One write, and as many in parallel as a personal and an organization key's admission makes. */
const VARIANTS = [1, 2, 3].map((items) => ({
  variant: parallelUpdates(items),
  label: items === 1 ? 'DynamoDB UpdateItem (conditional ADD)' : `DynamoDB ${items} × UpdateItem in parallel`,
  items,
}));

interface State {
  readonly client: DynamoDBClient;
  readonly commands: readonly UpdateItemCommand[];
  readonly probe: LatencyRow['dynamo'];
}

export const dynamoUpdateItem = defineScenario<State>({
  name: UPDATE_ITEM_SCENARIO,
  description: 'raw conditional UpdateItem (ADD counter if below a limit): one, and three in parallel on three items',
  setup: async ({ stack }) => {
    const client = localDynamoClient(stack.dynamoEndpoint);
    const items = Math.max(...VARIANTS.map((v) => v.items));
    const commands: UpdateItemCommand[] = [];
    for (let i = 0; i < items; i += 1) {
      await client.send(new PutItemCommand({ TableName: stack.tables.access, Item: { ...counterKey(i), n: { N: '0' } } }));
      commands.push(
        new UpdateItemCommand({
          TableName: stack.tables.access,
          Key: counterKey(i),
          UpdateExpression: 'ADD n :one',
          ConditionExpression: 'n < :limit',
          ExpressionAttributeValues: { ':one': { N: '1' }, ':limit': { N: String(OUT_OF_REACH) } },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
    }
    // The timed commands leave ReturnConsumedCapacity unset; one untimed probe reports the units.
    const { ConsumedCapacity } = await client.send(new UpdateItemCommand({ ...commands[0].input, ReturnConsumedCapacity: 'TOTAL' }));
    return { client, commands, probe: probeFigures('write', ConsumedCapacity) };
  },
  run: async ({ plan, progress }, { client, commands, probe }) => {
    const rows: LatencyRow[] = [];
    for (const { variant, label, items } of VARIANTS) {
      const batch = commands.slice(0, items);
      for (const concurrency of plan.concurrencies) {
        progress(`${label} at ${concurrency} concurrent`);
        const phase = await runLoad({
          concurrency,
          warmup: plan.warmupRequests,
          requests: plan.measuredRequests,
          operation: async () => {
            const outputs = await Promise.all(batch.map((command) => client.send(command)));
            if (outputs.some((o) => !o.Attributes?.n)) throw new Error('UpdateItem returned no counter');
          },
        });
        const dynamo =
          probe &&
          summarizeDynamo([{ calls: items, round_trips: 1, rcu: 0, wcu: probe.wcu * items }], 'probe', { logged: 0 });
        rows.push({
          kind: 'latency',
          scenario: UPDATE_ITEM_SCENARIO,
          label,
          variant,
          concurrency,
          ...summarizeLatency(phase.durationsMs, phase.elapsedMs),
          dynamo,
          baseline: { scenario: GET_ITEM_SCENARIO, variant: 'raw' },
        });
      }
    }
    return rows;
  },
  teardown: async (_context, state) => state?.client.destroy(),
});
