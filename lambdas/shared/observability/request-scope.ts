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
  return { calls: 0, roundTrips: 0, answeredDepth: 0, inFlight: 0, readUnits: 0, writeUnits: 0, operations: [] };
}

export function runInRequestScope<T>(requestId: string, fn: () => Promise<T>): Promise<T> {
  return storage.run({ requestId, dynamo: newDynamoAccounting(), metrics: [] }, fn);
}

export function currentRequestScope(): RequestScope | undefined {
  return storage.getStore();
}
