/**
 * The floor every request-path figure is compared with: one strongly
 * consistent GetItem of the demo key's item, from a plain DynamoDBClient
 * (no accounting middleware) straight to DynamoDB Local, in this process.
 */
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localDynamoClient } from '../../local/dynamo-local';
import { apiKeyKey } from '../../lambdas/shared/identity/access-items';
import { presentedKey } from '../../lambdas/shared/identity/api-keys';
import { probeFigures } from '../dynamo-per-request';
import { runLoad } from '../load';
import { defineScenario, type LatencyRow } from '../scenario';
import { summarizeLatency } from '../stats';

export const GET_ITEM_SCENARIO = 'dynamodb-get-item';

interface State {
  readonly client: DynamoDBClient;
  readonly command: GetItemCommand;
  readonly dynamo: LatencyRow['dynamo'];
}

export const dynamoGetItem = defineScenario<State>({
  name: GET_ITEM_SCENARIO,
  description: 'raw GetItem (ConsistentRead) of the demo key item, plain DynamoDBClient',
  setup: async ({ stack, demo }) => {
    const { pk, sk } = apiKeyKey(presentedKey(`Bearer ${demo.organization_key}`).keyId);
    const command = new GetItemCommand({
      TableName: stack.tables.access,
      Key: { pk: { S: pk }, sk: { S: sk } },
      ConsistentRead: true,
    });
    const client = localDynamoClient(stack.dynamoEndpoint);
    // The timed command leaves ReturnConsumedCapacity unset, as before; one untimed probe reports the units.
    const { Item, ConsumedCapacity } = await client.send(new GetItemCommand({ ...command.input, ReturnConsumedCapacity: 'TOTAL' }));
    if (!Item) throw new Error(`The demo key item ${pk} is not in ${stack.tables.access}`);
    return { client, command, dynamo: probeFigures('read', ConsumedCapacity) };
  },
  run: async ({ plan, progress }, { client, command, dynamo }) => {
    const rows: LatencyRow[] = [];
    for (const concurrency of plan.concurrencies) {
      progress(`GetItem at ${concurrency} concurrent`);
      const phase = await runLoad({
        concurrency,
        warmup: plan.warmupRequests,
        requests: plan.measuredRequests,
        operation: async () => {
          const { Item } = await client.send(command);
          if (!Item) throw new Error('GetItem found no item');
        },
      });
      rows.push({
        kind: 'latency',
        scenario: GET_ITEM_SCENARIO,
        label: 'DynamoDB GetItem',
        variant: 'raw',
        concurrency,
        ...summarizeLatency(phase.durationsMs, phase.elapsedMs),
        dynamo,
      });
    }
    return rows;
  },
  teardown: async (_context, state) => state?.client.destroy(),
});
