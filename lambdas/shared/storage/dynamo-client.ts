/**
 * The DynamoDB document client, created once per Lambda container. Every
 * call asks for its consumed capacity (free) and is accounted to the current
 * request scope, so the access log and the benchmark can report calls,
 * sequential round trips and capacity units per request.
 *
 * The endpoint comes from the SDK's own `AWS_ENDPOINT_URL_DYNAMODB` variable,
 * which the local stack sets to DynamoDB Local.
 *
 * In Lambda the client's calls are also traced (X-Ray subsegments,
 * observability/tracer.ts); the per-request accounting stays here, the one
 * thing about DynamoDB calls Powertools does not do.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { currentRequestScope } from '../observability/request-scope';
import { traceAwsClient } from '../observability/tracer';
import { DynamoRetryStrategy } from './retry-budget';

interface CapacityEntry {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/** Document-client command names, mapped to the DynamoDB API operation they call. */
const DOCUMENT_OPERATIONS: Record<string, string> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
  TransactGet: 'TransactGetItems',
  TransactWrite: 'TransactWriteItems',
};

/** The DynamoDB API operation a client command calls (`UpdateCommand` and `UpdateItemCommand`: `UpdateItem`). */
export function dynamoOperationOf(commandName: unknown): string {
  const name = String(commandName ?? 'unknown').replace(/Command$/, '');
  return DOCUMENT_OPERATIONS[name] ?? name;
}

const READ_OPERATIONS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

/** With `TOTAL`, DynamoDB reports only the aggregate `CapacityUnits`: attribute it by the operation's kind. */
function sumCapacity(operation: string, consumed: unknown): { read: number; write: number } {
  const entries = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as CapacityEntry[];
  const isRead = READ_OPERATIONS.has(operation);
  let read = 0;
  let write = 0;
  for (const entry of entries) {
    const total = entry.CapacityUnits ?? 0;
    read += entry.ReadCapacityUnits ?? (isRead ? total : 0);
    write += entry.WriteCapacityUnits ?? (isRead ? 0 : total);
  }
  return { read, write };
}

/** Adds ReturnConsumedCapacity and per-request accounting to a client. */
export function instrumentDynamoClient(client: DynamoDBClient): DynamoDBClient {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const scope = currentRequestScope();
      const accounting = scope?.dynamo;
      const operation = dynamoOperationOf(context.commandName);
      // This call starts one step after the deepest call that has already answered.
      const depth = (accounting?.answeredDepth ?? 0) + 1;
      if (accounting) {
        accounting.calls += 1;
        accounting.operations.push(operation);
        accounting.inFlight += 1;
        accounting.roundTrips = Math.max(accounting.roundTrips, depth);
      }
      const transactionItems = operation === 'TransactWriteItems' ? ((input.TransactItems as unknown[] | undefined)?.length ?? 0) : 0;
      try {
        const result = await next(args);
        if (accounting) {
          const output = result.output as { ConsumedCapacity?: unknown };
          const units = sumCapacity(operation, output.ConsumedCapacity);
          accounting.readUnits += units.read;
          accounting.writeUnits += units.write;
          accounting.transactionItems += transactionItems;
          if (transactionItems > 0) accounting.transactionWriteUnits += units.write;
        }
        return result;
      } catch (error) {
        // Refused conditions are billed too, and answer no consumed capacity.
        const name = (error as { name?: unknown } | undefined)?.name;
        if (accounting && name === 'ConditionalCheckFailedException') accounting.failedConditionalWrites += 1;
        if (accounting && name === 'TransactionCanceledException') accounting.cancelledTransactionItems += transactionItems;
        throw error;
      } finally {
        if (accounting) {
          accounting.inFlight -= 1;
          accounting.answeredDepth = Math.max(accounting.answeredDepth, depth);
        }
      }
    },
    { step: 'initialize', name: 'partnerApiDynamoAccounting' },
  );
  return client;
}

/**
 * Bounded waits, so that every store call answers or fails well inside the
 * function timeout (admission then fails closed: 503 RATE_LIMIT_UNAVAILABLE):
 * - `throwOnRequestTimeout`: without it the locked @smithy/node-http-handler
 *   only logs a warning when `requestTimeout` passes and keeps waiting;
 * - at most 3 attempts (the SDK retries throttling, timeouts and transient
 *   errors with backoff): 3 × 1 s plus backoff stays under the admission's
 *   own deadline (http/pipeline.ts), which aborts whatever is still running;
 * - the retry strategy (storage/retry-budget.ts) applies those 3 tries, and inside an operation keeps a transaction
 *   DynamoDB reports in progress going past AWS's 5 s mark, each try within the operation's deadline (docs/faults.md
 *   "Retry budget"). A getter: each client built from a spread of this config gets a strategy (and retry quota) of its
 *   own, as with the SDK's default; `maxAttempts` is the strategy's.
 * DynamoDB answers in milliseconds: a second without an answer is a failure.
 */
const MAX_ATTEMPTS = 3;
const REQUEST_TIMEOUT_MS = 1000;

export const DYNAMO_CLIENT_CONFIG = {
  maxAttempts: MAX_ATTEMPTS,
  requestHandler: { connectionTimeout: 1000, requestTimeout: REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true },
  get retryStrategy(): DynamoRetryStrategy {
    return new DynamoRetryStrategy({ maxAttempts: MAX_ATTEMPTS, tryTimeoutMs: REQUEST_TIMEOUT_MS });
  },
} as const;

export function createDocumentClient(client = new DynamoDBClient({ ...DYNAMO_CLIENT_CONFIG })): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(instrumentDynamoClient(traceAwsClient(client)), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/** Where the stores have always found them (table-names.ts holds them, without the SDK). */
export { requireTable, tableNamesFromEnv, type TableNames } from './table-names';
