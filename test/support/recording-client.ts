/**
 * A document client on DynamoDB Local that records every DynamoDB action it sends, as IAM names it
 * (`dynamodb:GetItem`, each transaction item as its own action), with its table, index and partition key: the data
 * access tests compare a function's real calls with what its synthesized role allows.
 */
import { localDocumentClient } from '../../local/local-stack';

export interface RecordedCall {
  readonly action: string;
  readonly tableName: string;
  readonly indexName?: string;
  readonly pk?: string;
}

const TRANSACT_ACTIONS: Readonly<Record<string, string>> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem', Get: 'GetItem' };
const pkOf = (key: unknown): string | undefined => {
  const pk = (key as { pk?: unknown } | undefined)?.pk;
  return typeof pk === 'string' ? pk : undefined;
};

/** A client whose every call is pushed onto `calls` before it is sent. */
export function recordingClient(endpoint: string, calls: RecordedCall[]) {
  const client = localDocumentClient(endpoint);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const input = args.input as Record<string, any>;
      const command = String(context.commandName).replace(/Command$/, '');
      if (command === 'TransactWriteItems' || command === 'TransactGetItems') {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        for (const item of input.TransactItems as Record<string, any>[]) {
          for (const [kind, body] of Object.entries(item)) {
            calls.push({ action: `dynamodb:${TRANSACT_ACTIONS[kind]}`, tableName: body.TableName, pk: pkOf(body.Key ?? body.Item) });
          }
        }
      } else if (command === 'BatchGetItem' || command === 'BatchWriteItem') {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        for (const [tableName, request] of Object.entries(input.RequestItems as Record<string, any>)) {
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          const keys = Array.isArray(request) ? request.map((r: any) => r.PutRequest?.Item ?? r.DeleteRequest?.Key) : request.Keys;
          for (const key of keys) calls.push({ action: `dynamodb:${command}`, tableName, pk: pkOf(key) });
        }
      } else {
        calls.push({ action: `dynamodb:${command}`, tableName: input.TableName, ...(input.IndexName ? { indexName: input.IndexName } : {}), pk: pkOf(input.Key ?? input.Item) });
      }
      return next(args);
    },
    { step: 'initialize', name: 'recordItems' },
  );
  return client;
}
