/**
 * Which deployed function the local stack is running right now. In AWS each function is its own
 * container with its own role; here every handler shares one process and one platform, so each
 * invocation runs inside a scope naming its function, and what stands in for a role's permissions
 * (the sealer's key uses: local/sealing.ts) reads it. The local front's handlers, the webhook
 * pipeline's entries and the scheduled jobs each enter theirs (local/local-stack.ts,
 * local/webhook-pipeline.ts). Code outside every scope is the operator's: the back office run by the
 * admin CLI, the seed or a test.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EndpointGroup } from '../lambdas/shared/http/routes';

/** A function of the stack: an API group's, the webhook pipeline's or a scheduled job's (lib/stateless-stack.ts). */
export type LocalFunctionName = EndpointGroup | 'webhook-fanout' | 'webhook-delivery' | 'webhook-sweeper' | 'entitlement-periods' | 'claim-reconciler';

const invocation = new AsyncLocalStorage<LocalFunctionName>();

/**
 * `entry` as the function `name` runs it: each call, and everything it awaits or starts, is that function's. A
 * scope entered inside another replaces it (a queue consumer started by a timer a request set is the worker).
 */
export function asFunction<A extends unknown[], R>(name: LocalFunctionName, entry: (...args: A) => R): (...args: A) => R {
  return (...args) => invocation.run(name, () => entry(...args));
}

/** The function whose invocation is running (undefined outside every function: the operator). */
export const currentFunction = (): LocalFunctionName | undefined => invocation.getStore();
