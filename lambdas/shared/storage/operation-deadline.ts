/**
 * The deadline of the operation running now (the pipeline's operation step sets it): the DynamoDB client's retry
 * budget (retry-budget.ts) reads it to keep a transaction in progress going no later than the operation can wait, and
 * the password gate to stop waiting in time. Apart from the retry strategy, which only the client loads.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const deadlines = new AsyncLocalStorage<number>();

/**
 * Run an operation whose DynamoDB calls must have answered by `deadlineAt` (epoch ms): inside it, a transaction in
 * progress is retried up to AWS's 5 s mark as long as each try can finish by then. Undefined: no extended budget.
 */
export function withinDeadline<T>(deadlineAt: number | undefined, run: () => Promise<T>): Promise<T> {
  return deadlineAt === undefined ? run() : deadlines.run(deadlineAt, run);
}

/** The deadline of the operation running now, if any. */
export function currentDeadline(): number | undefined {
  return deadlines.getStore();
}
