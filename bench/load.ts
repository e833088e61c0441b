/**
 * Closed-loop load: `concurrency` clients, each sending its next request as
 * soon as the previous one answered, until the phase's request count is
 * spent. A warmup phase at the same concurrency runs first and is discarded
 * (JIT in both Node and the DynamoDB Local JVM, connection pools filled).
 */
import { performance } from 'node:perf_hooks';

export interface LoadPhase<T> {
  /** Per-request results in request order, e.g. the request id to look up in the access log. */
  readonly values: T[];
  readonly durationsMs: number[];
  readonly elapsedMs: number;
}

export interface LoadOptions<T> {
  readonly concurrency: number;
  readonly warmup: number;
  readonly requests: number;
  /** One timed operation. */
  readonly operation: () => Promise<T>;
  /** Runs before each operation, outside the timed span (e.g. empty a cache). */
  readonly prepare?: () => void;
}

async function closedLoop<T>(concurrency: number, count: number, operation: () => Promise<T>, prepare?: () => void): Promise<LoadPhase<T>> {
  const values = new Array<T>(count);
  const durationsMs = new Array<number>(count);
  let next = 0;
  const client = async () => {
    while (next < count) {
      const index = next++;
      prepare?.();
      const started = performance.now();
      try {
        values[index] = await operation();
      } catch (error) {
        next = count; // the other clients stop too: a phase with a failed request measures nothing
        throw error;
      }
      durationsMs[index] = performance.now() - started;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, client));
  return { values, durationsMs, elapsedMs: performance.now() - started };
}

export async function runLoad<T>(options: LoadOptions<T>): Promise<LoadPhase<T>> {
  await closedLoop(options.concurrency, options.warmup, options.operation, options.prepare);
  return closedLoop(options.concurrency, options.requests, options.operation, options.prepare);
}
