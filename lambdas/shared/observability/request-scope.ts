/**
 * Per-invocation scope carried through async calls: the request id for logs
 * and the DynamoDB call accounting (calls, sequential round trips, consumed
 * capacity) that the access log and the benchmark report.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

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

export interface RequestScope {
  readonly requestId: string;
  readonly dynamo: DynamoAccounting;
}

const storage = new AsyncLocalStorage<RequestScope>();

export function newDynamoAccounting(): DynamoAccounting {
  return { calls: 0, roundTrips: 0, answeredDepth: 0, inFlight: 0, readUnits: 0, writeUnits: 0, operations: [] };
}

export function runInRequestScope<T>(requestId: string, fn: () => Promise<T>): Promise<T> {
  return storage.run({ requestId, dynamo: newDynamoAccounting() }, fn);
}

export function currentRequestScope(): RequestScope | undefined {
  return storage.getStore();
}
