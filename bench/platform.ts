/**
 * The handlers the benchmark's local fronts call: the deployed pipeline
 * (lambdas/service/functions.ts) and operations, on a platform of the bench's own, so the
 * limits can be set per run while every DynamoDB call stays the deployed one.
 *
 * - Latency runs: every quota and concurrency limit raised out of reach. The
 *   same policies cover the same routes, so admission writes the same items,
 *   counters, leases and conditions as deployed (only the numbers in
 *   `n < limit` differ), and thousands of requests of one key in a minute,
 *   up to 8 at once, are all admitted. The player site's limits too (by
 *   source IP and join link: 30 calls a minute per IP, 10 claims an hour per
 *   link as deployed), which the bench's claims and views from 127.0.0.1
 *   would cross after a second.
 * - Hot organization: a few quotas lowered so a burst of a couple of hundred
 *   requests crosses them.
 * Edge protection is off in both: the bench's load comes from one IP and one
 * credential, and the 10-second burst limits would reject it before the
 * handler (the fronts have no edge check and the platforms no edge guard).
 */
import { FUNCTION_BUILDERS } from '../lambdas/service/functions';
import type { ApiHandler } from '../lambdas/shared/http/pipeline';
import type { EndpointGroup } from '../lambdas/shared/http/routes';
import { LIMITS, type Limit } from '../lambdas/shared/limits/limits-table';
import { createPlatform, type Platform } from '../lambdas/shared/platform';
import { createDocumentClient } from '../lambdas/shared/storage/dynamo-client';
import { HANDLERS } from '../local/handlers';

/** Quotas no bench run can reach. */
export const OUT_OF_REACH = 1_000_000_000;

/** The limits table with the given quota policies set to new numbers (unknown policies are an error). */
export function limitsWith(quotas: Readonly<Record<string, number>>): Limit[] {
  for (const policy of Object.keys(quotas)) {
    if (!LIMITS.some((l) => l.kind === 'quota' && l.policy === policy)) throw new Error(`No quota policy ${policy} in the limits table`);
  }
  return LIMITS.map((l) => (l.kind === 'quota' && quotas[l.policy] !== undefined ? { ...l, limit: quotas[l.policy] } : l));
}

/**
 * Every quota and every concurrency limit raised out of reach: what the latency runs use. The
 * concurrency-limited routes (invitations) still take and release their leases, with the same
 * writes; only the number of leases an item may hold differs.
 */
export const latencyLimits = (): Limit[] =>
  limitsWith(Object.fromEntries(LIMITS.filter((l) => l.kind === 'quota').map((l) => [l.policy, OUT_OF_REACH]))).map((l) =>
    l.kind === 'concurrency' ? { ...l, limit: OUT_OF_REACH } : l,
  );

/**
 * A platform as the deployed container builds it (document client and table
 * names from the environment the local stack set), with these limits and no
 * in-process edge guard. Create it after the local stack is up.
 */
export const benchPlatform = (limits: readonly Limit[], overrides: Partial<Platform> = {}): Platform =>
  // The client built now, as the deployed functions' stores would (a deployed platform builds it on first use): the
  // scenarios add middleware to it and destroy it.
  createPlatform({ limits, edgeGuard: undefined, documentClient: createDocumentClient(), ...overrides });

/**
 * The deployed handlers by endpoint group, each rebuilt on the given platform (lambdas/service/functions.ts: each
 * group's own definition behind its front door): every group, so that one added later (sign-in was) counts its limits
 * on the bench's platform too, not the deployed table's.
 */
export function benchHandlers(platform: () => Platform): Record<string, ApiHandler> {
  const rebuilt = Object.keys(FUNCTION_BUILDERS) as EndpointGroup[];
  return { ...HANDLERS, ...Object.fromEntries(rebuilt.map((group) => [group, FUNCTION_BUILDERS[group](platform)])) };
}
