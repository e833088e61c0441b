/**
 * Per-invocation scope carried through async calls: what every log line of
 * the request carries (its request id, its route, the Lambda invocation),
 * the DynamoDB call accounting (calls, sequential round trips, consumed
 * capacity) that the call log and the benchmark report, and the metric
 * points the invocation records until its one flush (metrics.ts).
 *
 * Why a scope and not the shared Powertools instances' own keys: the local
 * stack and the tests run many requests at once in one process, so anything
 * per request set on a shared logger or metrics buffer would be mixed
 * between them. In Lambda one container runs one invocation at a time, and
 * the scope costs the same.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { MetricSpec } from './metric-catalog';

export interface DynamoAccounting {
  calls: number;
  /**
   * Sequential round trips: the longest chain of calls each started after the previous one
   * answered (parallel calls share a step; a retry after one of them is one step more).
   */
  roundTrips: number;
  /** Deepest step among the calls that have answered so far. */
  answeredDepth: number;
  inFlight: number;
  readUnits: number;
  writeUnits: number;
  /**
   * What a cost model needs beyond the reported units (bench/cost): the items of the write transactions (ConditionCheck
   * items included), the units reported for those transactions, conditional single writes refused, and the items of
   * write transactions cancelled. AWS bills each of these; DynamoDB Local leaves some out of its report.
   */
  transactionItems: number;
  transactionWriteUnits: number;
  failedConditionalWrites: number;
  cancelledTransactionItems: number;
  operations: string[];
}

/** The Lambda invocation running the request (from its context), for the log lines. */
export interface InvocationFacts {
  readonly functionName?: string;
  readonly functionRequestId?: string;
  readonly coldStart: boolean;
}

/** One value of a metric of the catalog, with its own dimensions' values, waiting for the invocation's flush. */
export interface MetricPoint {
  readonly metric: MetricSpec;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface RequestScope {
  readonly requestId: string;
  readonly dynamo: DynamoAccounting;
  /** The route id, once routing found it. */
  route?: string;
  /** The account a call concerns when only its operation learns it (signing in: the address's account, whatever the outcome). */
  accountId?: string;
  invocation?: InvocationFacts;
  readonly metrics: MetricPoint[];
}

const storage = new AsyncLocalStorage<RequestScope>();

export function newDynamoAccounting(): DynamoAccounting {
  return {
    calls: 0,
    roundTrips: 0,
    answeredDepth: 0,
    inFlight: 0,
    readUnits: 0,
    writeUnits: 0,
    transactionItems: 0,
    transactionWriteUnits: 0,
    failedConditionalWrites: 0,
    cancelledTransactionItems: 0,
    operations: [],
  };
}

/**
 * The `dynamo` field of a request's log line: calls, sequential round trips and reported units, and the cost model's
 * extra counts only when a request has any (most have none: the line stays short).
 */
export function dynamoFigures(dynamo: DynamoAccounting): Record<string, number> {
  return {
    calls: dynamo.calls,
    round_trips: dynamo.roundTrips,
    rcu: dynamo.readUnits,
    wcu: dynamo.writeUnits,
    ...(dynamo.transactionItems > 0 ? { tx_items: dynamo.transactionItems, tx_wcu: dynamo.transactionWriteUnits } : {}),
    ...(dynamo.failedConditionalWrites > 0 ? { failed_conditions: dynamo.failedConditionalWrites } : {}),
    ...(dynamo.cancelledTransactionItems > 0 ? { cancelled_tx_items: dynamo.cancelledTransactionItems } : {}),
  };
}

export function runInRequestScope<T>(requestId: string, fn: () => Promise<T>): Promise<T> {
  return storage.run({ requestId, dynamo: newDynamoAccounting(), metrics: [] }, fn);
}

/** Run `fn` in `scope` (outside any when undefined): a write that waited runs in the scope it was asked in (deferred-output.ts). */
export function runWithScope<T>(scope: RequestScope | undefined, fn: () => T): T {
  return scope ? storage.run(scope, fn) : storage.exit(fn);
}

export function currentRequestScope(): RequestScope | undefined {
  return storage.getStore();
}
