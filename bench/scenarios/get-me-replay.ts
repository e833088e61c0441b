/**
 * The floor of `GET /me`'s admission: the very UpdateItem requests the service sends for one warm `GET /me` (the same
 * table, keys, update and condition expressions and values: the key's standing re-checked, the minute and day windows
 * counted), captured off the platform's own document client, then replayed in parallel from a plain DynamoDBClient,
 * no HTTP and no handler. DynamoDB Local's cost of those expressions is then the floor the GET /me rows are read
 * against (`replay_ratio`); the bare `ADD` writes of dynamo-update-item.ts stay beside it (`floor_ratio`).
 *
 * The replayed windows are the captured minute's: the counters keep growing past it, the quotas are out of reach, so
 * every replayed condition holds as the captured one did (a refused replay fails the run). The one value that differs
 * per request, the admission's retry stamp, is made anew for each replay, as the service makes it per request.
 */
import { randomBytes } from 'node:crypto';
import { UpdateItemCommand, type UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { localDynamoClient } from '../../local/dynamo-local';
import { summarizeDynamo } from '../dynamo-per-request';
import { runLoad } from '../load';
import { defineScenario, type BenchContext, type LatencyRow } from '../scenario';
import { summarizeLatency } from '../stats';
import { GET_ITEM_SCENARIO } from './dynamo-get-item';

export const GET_ME_REPLAY_SCENARIO = 'get-me-replay';
export const replayVariant = (kind: 'organization' | 'personal') => `${kind} key, replayed ×${kind === 'organization' ? 3 : 2} parallel`;

/** The UpdateItem inputs (wire format) the handlers' client sends during `send()`. */
async function captureUpdates(context: BenchContext, send: () => Promise<void>): Promise<UpdateItemCommandInput[]> {
  const captured: UpdateItemCommandInput[] = [];
  const name = `benchReplayCapture${Date.now()}`;
  const stack = context.platform.documentClient.middlewareStack;
  stack.add(
    (next, middlewareContext) => async (args) => {
      // At `serialize` the document client has marshalled its input into DynamoDB's wire types.
      if (/^Update(Item)?Command$/.test(String(middlewareContext.commandName))) captured.push(structuredClone(args.input as UpdateItemCommandInput));
      return next(args);
    },
    { step: 'serialize', priority: 'high', name },
  );
  try {
    await send();
  } finally {
    stack.remove(name);
  }
  return captured;
}

/**
 * A captured request as the wire would carry it (the document client's values marshalled), with its one per-request
 * value, the admission's retry stamp (`adm`, which a write may not set twice: its condition), made anew per replay.
 */
function replayOf(input: UpdateItemCommandInput): (stamp: string) => UpdateItemCommandInput {
  const stampName = Object.entries(input.ExpressionAttributeNames ?? {}).find(([, name]) => name === 'adm')?.[0];
  const stampValue = stampName ? new RegExp(`${stampName} = (:v\\d+)`).exec(input.UpdateExpression ?? '')?.[1] : undefined;
  const values = marshall(input.ExpressionAttributeValues as Record<string, unknown>);
  const key = marshall(input.Key as Record<string, unknown>);
  return (stamp) => ({ ...input, Key: key, ExpressionAttributeValues: stampValue ? { ...values, [stampValue]: { S: `r${stamp}` } } : values });
}

export const getMeReplay = defineScenario({
  name: GET_ME_REPLAY_SCENARIO,
  description: "GET /me's own admission writes (captured from one warm request), replayed in parallel from a plain client: the floor of its DynamoDB work",
  run: async (context) => {
    const { plan, progress, stack } = context;
    const client = localDynamoClient(stack.dynamoEndpoint);
    const rows: LatencyRow[] = [];
    try {
      for (const kind of ['organization', 'personal'] as const) {
        const key = kind === 'organization' ? context.demo.organization_key : context.demo.personal_key;
        const get = async () => {
          const response = await fetch(`${stack.baseUrl}/me`, { headers: { Authorization: `Bearer ${key}` } });
          if (response.status !== 200) throw new Error(`GET /me answered ${response.status}: ${await response.text()}`);
        };
        await get(); // warm: the key's facts cached, so the capture is the warm request's writes only
        const inputs = await captureUpdates(context, get);
        const items = kind === 'organization' ? 3 : 2;
        if (inputs.length !== items) throw new Error(`GET /me (${kind} key) sent ${inputs.length} UpdateItem requests, expected ${items}`);
        const replays = inputs.map(replayOf);
        for (const concurrency of plan.concurrencies) {
          progress(`GET /me's ${items} writes replayed (${kind} key) at ${concurrency} concurrent`);
          const phase = await runLoad({
            concurrency,
            warmup: plan.warmupRequests,
            requests: plan.measuredRequests,
            operation: async () => {
              const stamp = randomBytes(16).toString('hex');
              await Promise.all(replays.map((replay) => client.send(new UpdateItemCommand(replay(stamp)))));
            },
          });
          rows.push({
            kind: 'latency',
            scenario: GET_ME_REPLAY_SCENARIO,
            label: `GET /me's admission writes, replayed (${kind} key)`,
            variant: replayVariant(kind),
            concurrency,
            ...summarizeLatency(phase.durationsMs, phase.elapsedMs),
            dynamo: summarizeDynamo([{ calls: items, round_trips: 1, rcu: 0, wcu: items }], 'probe', { logged: 0 }),
            baseline: { scenario: GET_ITEM_SCENARIO, variant: 'raw' },
          });
        }
      }
    } finally {
      client.destroy();
    }
    return rows;
  },
});
