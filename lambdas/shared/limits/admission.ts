/**
 * Admission of an authenticated request: one decision, in one DynamoDB round
 * trip for a warm container, on whether the key is still usable and whether
 * every quota and concurrency limit that covers the route has room.
 *
 * For each item that holds limits (key, account, organization) one
 * conditional update re-checks what can revoke the key (revocation, account
 * status and credential generation, organization status, generation and the
 * creator's manager grant), counts the request in each of the item's windows
 * and takes a lease when the route is concurrency-limited. The updates run in
 * parallel, leases included: one round trip, whatever the route.
 * If any item refuses, the others are compensated before answering, so a
 * rejected request leaves every window and slot as if it never came; no
 * window or slot ever admits more than its limit, whatever the interleaving.
 *
 * What one round trip costs in fairness: between a refusal and its compensation (a few milliseconds, one
 * write), the refused request still holds what the other items gave it. A request of another key arriving
 * in that instant can find its organization's or account's slots (or a window's last unit) taken by a
 * request that will not run, and be refused 429 with Retry-After although it would have fitted a moment
 * later. Never the other way: nothing is admitted beyond a limit. Taking the key's slot first and the wider
 * ones after (the earlier design) avoided most of that instant, for one more sequential round trip on every
 * invitation and ticket request; a transaction over the three items would avoid all of it, for twice the
 * write units and a serialized organization item under its own traffic (docs/limits.md, "Concurrency").
 *
 * The key's own admission (its items, and what their old images say of its standing) is key-admission.ts; the web
 * side's are player-admission.ts and settings-admission.ts, over this module's decision. Who the key is
 * (identity/key-authentication.ts), what it may do (identity/authorization.ts), the response headers
 * (rate-limit-headers.ts) and the sampled rejection log (rejection-log.ts) live beside it.
 */
import { randomUUID } from 'node:crypto';
import { ApiError, type ErrorCode } from '../errors';
import { logger } from '../observability/logger';
import { QuotaStoreUnavailable, type AdmissionStore, type CounterPlan, type Guard, type ItemKey, type ItemPlan, type RollingPlan } from './admission-store';
import {
  concurrencyLimits,
  covers,
  LEASE_SECONDS,
  quotaLimits,
  rollingLimits,
  windowOf,
  type Limit,
  type QuotaHolder,
  type QuotaLimit,
  type RollingLimit,
  type RouteCategory,
} from './limits-table';
import { concurrencyRejectionHeaders, quotaRejectionHeaders, rollingRejectionHeaders } from './rate-limit-headers';
import type { WindowMemory } from './window-memory';

export interface AdmissionRoute {
  readonly category?: RouteCategory;
}

/** What a decision over holder items needs (the key's admission here, the player site's in player-admission.ts). */
export interface DecisionDeps {
  readonly store: AdmissionStore;
  readonly windows: WindowMemory;
  readonly limits: readonly Limit[];
  readonly now: Date;
  /** Aborts the store calls when the request's admission deadline passes (then 503). */
  readonly signal?: AbortSignal;
  /** The bound of compensations and lease releases (default CLEANUP_TIMEOUT_MS; the local stack's is longer). */
  readonly cleanupTimeoutMs?: number;
}

/** A decision's dependencies from what a container built once (platform.ts), at `now`, bounded by `signal`. */
export const decisionDepsOf = (
  platform: {
    readonly admissionStore: AdmissionStore;
    readonly windowMemory: WindowMemory;
    readonly limits: readonly Limit[];
    readonly clock: () => Date;
    readonly localSwitches?: { readonly cleanupTimeoutMs?: number };
  },
  signal?: AbortSignal,
): DecisionDeps => ({
  store: platform.admissionStore,
  windows: platform.windowMemory,
  limits: platform.limits,
  now: platform.clock(),
  ...(signal ? { signal } : {}),
  ...(platform.localSwitches?.cleanupTimeoutMs ? { cleanupTimeoutMs: platform.localSwitches.cleanupTimeoutMs } : {}),
});

/**
 * A holder item with nothing to re-check and nothing else on it (the player site's IP and join-link
 * items, the sign-in counters): created on first use, with a `ttl` after every window it holds ended.
 */
export function counterItem(holder: QuotaHolder, key: ItemKey, now: Date): { holder: QuotaHolder; key: ItemKey; guard: Guard; ttl: number } {
  return { holder, key, guard: { kind: 'none' }, ttl: Math.floor(now.getTime() / 1000) + COUNTER_ITEM_LIFETIME_SECONDS };
}

/** Longer than the longest window (a day) by a day: a removed counter item never held a live count. */
export const COUNTER_ITEM_LIFETIME_SECONDS = 2 * 86_400;

const MAX_ATTEMPTS_PER_ITEM = 5;
const MAX_EXPIRED_LEASES_DROPPED = 10;
/**
 * Compensations and lease releases run after the decision, possibly after the
 * admission deadline fired: they get their own short bound. A lease that
 * cannot be released in time expires by itself (LEASE_SECONDS).
 */
export const CLEANUP_TIMEOUT_MS = 1000;

export const counterAttribute = (policy: string) => `q_${policy.replace(/-/g, '_')}`;
/** The map of a rolling limit's entries on its holder's item. */
export const rollingAttribute = (policy: string) => `r_${policy.replace(/-/g, '_')}`;

/**
 * A fresh id per admission, never the request id: a client can choose API Gateway's request id
 * (`X-Amzn-RequestId`), and two requests sharing a lease would hold one slot between them.
 * It names the request's leases and stamps its writes (see admission-store.ts).
 */
const newAdmissionId = () => `r${randomUUID().replace(/-/g, '')}`;

export interface HolderItem {
  readonly holder: QuotaHolder;
  readonly plan: ItemPlan;
  readonly quotas: readonly QuotaLimit[];
  /** On an account's or organization's item: how many slots one key may hold at once (its leases are tagged: leaseTagOf). */
  readonly perKeyLeases?: number;
}

interface QuotaRefusal {
  readonly limit: QuotaLimit;
  readonly windowId: number;
}

type Settled =
  | { readonly kind: 'admitted'; readonly item: HolderItem; readonly plan: ItemPlan; readonly counts: Readonly<Record<string, number>> }
  | { readonly kind: 'denied'; readonly item: HolderItem; readonly code: ErrorCode }
  | { readonly kind: 'quota'; readonly item: HolderItem; readonly refusals: readonly QuotaRefusal[] }
  | { readonly kind: 'concurrency'; readonly item: HolderItem }
  /** A rolling limit is full: `freesAt`, epoch ms, is when its oldest live entry expires. */
  | { readonly kind: 'rolling'; readonly item: HolderItem; readonly limit: RollingLimit; readonly freesAt: number }
  | { readonly kind: 'unavailable'; readonly item: HolderItem; readonly error: unknown };

/** A key's lease tag (key-admission.ts leaseTagOf): its leases on every item are named `<tag>_<admission id>`. */
export interface LeaseTag {
  readonly tag: string;
  /** The key's own slots: no key ever runs more at once. */
  readonly perKey: number;
}

/** Each holder item's counters (every quota of its holder covering the route) and lease (its concurrency limit), under one admission id. */
export function planHolderItems(
  items: readonly { holder: QuotaHolder; key: ItemKey; guard: Guard; ttl?: number }[],
  route: AdmissionRoute,
  deps: DecisionDeps,
  leaseTag?: LeaseTag,
): HolderItem[] {
  const nowMs = deps.now.getTime();
  const admissionId = newAdmissionId();
  const leaseId = leaseTag ? `${leaseTag.tag}_${admissionId}` : admissionId;
  return items.map(({ holder, key, guard, ttl }) => {
    const quotas = quotaLimits(deps.limits).filter((l) => l.holder === holder && covers(l, route.category));
    const concurrency = concurrencyLimits(deps.limits).find((l) => l.holder === holder && covers(l, route.category));
    const counters = quotas.map((limit): CounterPlan => {
      const attribute = counterAttribute(limit.policy);
      const windowId = windowOf(limit.windowSeconds, nowMs).id;
      // Items with nothing to guard (the player site's) are mostly new or idle beyond a window: guess a reset.
      const unknown = guard.kind === 'none' ? 'reset' : 'increment';
      return { attribute, windowId, limit: limit.limit, mode: deps.windows.counterMode(key.pk, attribute, windowId, unknown) };
    });
    const lease = concurrency && {
      leaseId,
      expiresAtMs: nowMs + LEASE_SECONDS * 1000,
      limit: concurrency.limit,
      expired: [],
      mode: deps.windows.hasLeases(key.pk) ? ('add' as const) : ('create' as const),
    };
    const rollingLimit = rollingLimits(deps.limits).find((l) => l.holder === holder && covers(l, route.category));
    // Guessed `add`: a wrong guess (the item's first entry) costs one more write, told by the old image.
    const rolling: RollingPlan | undefined = rollingLimit && {
      attribute: rollingAttribute(rollingLimit.policy),
      entryId: admissionId,
      expiresAtMs: nowMs + rollingLimit.windowSeconds * 1000,
      limit: rollingLimit.limit,
      expired: [],
      mode: 'add',
    };
    return {
      holder,
      quotas,
      ...(lease && leaseTag && holder !== 'key' ? { perKeyLeases: leaseTag.perKey } : {}),
      plan: { admissionId, key, guard, counters, ...(lease ? { lease } : {}), ...(rolling ? { rolling } : {}), ...(ttl !== undefined ? { ttl } : {}) },
    };
  });
}

/**
 * What the old image of a refusing item says about the caller's standing (a key's revocation, say):
 * a code to answer, or undefined when the refusal is about windows and slots. `old` is undefined
 * when the item does not exist.
 */
export type DenialOf = (item: HolderItem, old: Readonly<Record<string, unknown>> | undefined) => ErrorCode | undefined;

/** A store failure on one item is an outcome too, so the items that did admit the request are compensated. */
const settleOrFail = (item: HolderItem, deny: DenialOf, deps: DecisionDeps, request: RequestSettling): Promise<Settled> =>
  settle(item, deny, deps, request)
    .catch((error: unknown) => ({ kind: 'unavailable' as const, item, error }))
    .then((settled) => {
      if (settled.kind !== 'admitted') request.refused = true;
      return settled;
    });

/** What the items of one request share while they settle: whether one of them has refused it already. */
interface RequestSettling {
  refused: boolean;
}

async function settle(item: HolderItem, deny: DenialOf, deps: DecisionDeps, request: RequestSettling): Promise<Settled> {
  let plan = item.plan;
  const nowMs = deps.now.getTime();
  let crowded = 0;
  let writeMs = 0;
  for (let attempt = 0; attempt < MAX_ATTEMPTS_PER_ITEM + crowded; attempt += 1) {
    const sentAt = Date.now();
    const outcome = await deps.store.apply(plan, deps.signal);
    writeMs = Date.now() - sentAt;
    if (outcome.ok) {
      deps.windows.remember(plan);
      return { kind: 'admitted', item, plan, counts: outcome.counts };
    }
    if ('conflict' in outcome) {
      // Another writer's transaction held the item: nothing was written; the same plan again, shortly.
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * (attempt + 1)));
      continue;
    }
    const denial = deny(item, outcome.old);
    if (denial) return { kind: 'denied', item, code: denial };
    const old = outcome.old ?? {};
    deps.windows.learn(plan.key.pk, old);

    // Not the caller's standing: full windows, full slots, or a wrong guess about the item's state.
    // Every full window is collected: the answer names the one that frees up last.
    const refusals: QuotaRefusal[] = [];
    const counters: CounterPlan[] = [];
    for (const counter of plan.counters) {
      const current = old[counter.attribute] as { w?: number; n?: number } | undefined;
      const limit = item.quotas.find((q) => counterAttribute(q.policy) === counter.attribute) as QuotaLimit;
      // A clock behind another container's: count in the newer window.
      const windowId = current?.w !== undefined && current.w > counter.windowId ? current.w : counter.windowId;
      if (current?.w === windowId && (current.n ?? 0) >= counter.limit) refusals.push({ limit, windowId });
      counters.push({ ...counter, windowId, mode: current?.w === windowId ? 'increment' : 'reset' });
    }
    if (refusals.length > 0) return { kind: 'quota', item, refusals };
    let lease = plan.lease;
    if (lease) {
      const held = old.leases as Record<string, number> | undefined;
      if (held === undefined) {
        lease = { ...lease, mode: 'create', expired: [] };
      } else {
        const entries = Object.entries(held);
        const live = entries.filter(([, expiresAt]) => expiresAt > nowMs);
        const expired = entries.filter(([, expiresAt]) => expiresAt <= nowMs).map(([id]) => id).slice(0, MAX_EXPIRED_LEASES_DROPPED);
        lease = { ...lease, mode: 'add', expired };
        if (live.length >= lease.limit) {
          // Full, but some slots are held by requests their key refused, until their compensation lands: ask again,
          // unless another item already refused this request.
          const crowding = request.refused ? undefined : crowdingOf(live, item, deps);
          if ((crowding === 'provable' && crowded < MAX_CROWDED_RETRIES) || (crowding === 'young' && crowded < MAX_YOUNG_RETRIES)) {
            plan = { ...plan, counters, lease };
            // A compensation is one write: wait about as long as this item's own write took, twice as long each time.
            await new Promise((resolve) => setTimeout(resolve, Math.min(200, Math.max(10, writeMs) * 2 ** crowded)));
            crowded += 1;
            continue;
          }
          return { kind: 'concurrency', item };
        }
      }
    }
    let rolling = plan.rolling;
    if (rolling) {
      const held = old[rolling.attribute] as Record<string, number> | undefined;
      if (held === undefined) {
        rolling = { ...rolling, mode: 'create', expired: [] };
      } else {
        const entries = Object.entries(held);
        const live = entries.filter(([, expiresAt]) => expiresAt > nowMs).map(([, expiresAt]) => expiresAt);
        if (live.length >= rolling.limit) {
          const limit = rollingLimits(deps.limits).find((l) => rollingAttribute(l.policy) === (rolling as RollingPlan).attribute) as RollingLimit;
          return { kind: 'rolling', item, limit, freesAt: Math.min(...live) };
        }
        const expired = entries.filter(([, expiresAt]) => expiresAt <= nowMs).map(([id]) => id).slice(0, MAX_EXPIRED_LEASES_DROPPED);
        rolling = { ...rolling, mode: 'add', expired };
      }
    }
    plan = { ...plan, counters, ...(lease ? { lease } : {}), ...(rolling ? { rolling } : {}) };
  }
  throw new QuotaStoreUnavailable(new Error(`No admission decision for ${plan.key.pk} after ${MAX_ATTEMPTS_PER_ITEM} attempts`));
}

/** Asking a provably crowded item again (crowdingOf) waits about one write's time, doubling, 200 ms at most: about 2 s in all. */
const MAX_CROWDED_RETRIES = 13;
/** Asking again an item whose slots may be held by refused requests (young leases, crowdingOf): a few times only. */
const MAX_YOUNG_RETRIES = 3;
/** A lease taken this recently may be a refused request's, about to be taken back by its compensation. */
const YOUNG_LEASE_MS = 1000;

/**
 * Why an account's or organization's full lease map may hold slots of requests that are not running, between their
 * refusal by another item (their key's) and their compensation, a write later:
 * - `provable`: more leases of one key (by its tag) than the key may hold, recently enough that their compensation
 *   may still land (the admission budget, 3 s (http/pipeline.ts ADMISSION_BUDGET_MS), and a compensation's bound),
 *   and without them the item would have room;
 * - `young`: some lease was taken within YOUNG_LEASE_MS: it may be such a request's (a key at its own limit whose
 *   request the organization's item saw first), or a running one's; asked again a few times only, so that a genuinely
 *   full item costs a refused request at most MAX_YOUNG_RETRIES more writes.
 * A refusal these cannot explain is the limit's (docs/limits.md, "Admission").
 */
function crowdingOf(live: readonly (readonly [string, number])[], item: HolderItem, deps: DecisionDeps): 'provable' | 'young' | undefined {
  const perKey = item.perKeyLeases;
  if (perKey === undefined) return undefined;
  const nowMs = deps.now.getTime();
  const takenAt = (expiresAt: number) => expiresAt - LEASE_SECONDS * 1000;
  const takenSince = nowMs - 3000 - (deps.cleanupTimeoutMs ?? CLEANUP_TIMEOUT_MS);
  const byKey = new Map<string, number>();
  for (const [id] of live) {
    const tag = id.includes('_') ? id.slice(0, id.indexOf('_')) : id;
    byKey.set(tag, (byKey.get(tag) ?? 0) + 1);
  }
  const recent = live.some(([, expiresAt]) => takenAt(expiresAt) >= takenSince);
  const surplus = [...byKey.values()].reduce((sum, n) => sum + Math.max(0, n - perKey), 0);
  if (recent && live.length - surplus < (item.plan.lease?.limit ?? 0)) return 'provable';
  return live.some(([, expiresAt]) => takenAt(expiresAt) >= nowMs - YOUNG_LEASE_MS) ? 'young' : undefined;
}

const HOLDER_ORDER: readonly QuotaHolder[] = [
  'key',
  'account',
  'organization',
  'player-ip',
  'join-link',
  'settings-account',
  'sign-in-ip',
  'sign-in-email',
  'sign-in-device',
  'webhook',
  'webhook-organization',
  'webhook-delivery-record',
  'webhook-delivery',
];

/**
 * The answer to a refused request: the key's standing first (401/403/409);
 * then, of every full quota window any item reported, the one that ends last
 * (ties: table order), so that a client obeying Retry-After does not come back
 * to another 429; then concurrency.
 */
function rejectionOf(settled: readonly Settled[], limits: readonly Limit[], now: Date): ApiError | undefined {
  const byHolder = (a: Settled, b: Settled) => HOLDER_ORDER.indexOf(a.item.holder) - HOLDER_ORDER.indexOf(b.item.holder);
  const denied = settled.filter((s): s is Extract<Settled, { kind: 'denied' }> => s.kind === 'denied').sort(byHolder);
  if (denied.length > 0) return new ApiError(denied[0].code);

  const endOf = (r: QuotaRefusal) => (r.windowId + 1) * r.limit.windowSeconds;
  const longest = settled
    .flatMap((s) => (s.kind === 'quota' ? s.refusals : []))
    .sort((a, b) => endOf(b) - endOf(a) || limits.indexOf(a.limit) - limits.indexOf(b.limit))[0];
  if (longest) return new ApiError('RATE_LIMITED', undefined, quotaRejectionHeaders(longest.limit, endOf(longest), now));
  const rolling = settled.filter((s): s is Extract<Settled, { kind: 'rolling' }> => s.kind === 'rolling').sort((a, b) => b.freesAt - a.freesAt)[0];
  if (rolling) return new ApiError('RATE_LIMITED', undefined, rollingRejectionHeaders(rolling.limit, rolling.freesAt, now));

  const concurrency = settled.filter((s) => s.kind === 'concurrency').sort(byHolder)[0];
  if (concurrency) {
    const limit = concurrencyLimits(limits).find((l) => l.holder === concurrency.item.holder);
    return new ApiError(
      'CONCURRENCY_LIMITED',
      `Too many invitation and ticket requests in flight for this ${concurrency.item.holder} (limit ${limit?.limit}); retry after the Retry-After delay.`,
      concurrencyRejectionHeaders(limit),
    );
  }
  return undefined;
}

export interface Decision {
  readonly admitted: readonly Extract<Settled, { kind: 'admitted' }>[];
  /** Free the concurrency leases the request holds (idempotent; never throws). */
  release(): Promise<void>;
}

/**
 * Apply every holder item's plan (in parallel, or the first item then the others when one takes a lease) and
 * decide: admitted, or the ApiError that refuses the request, after the items that admitted it
 * were compensated (nothing then stays counted). A store that does not answer in time is
 * QuotaStoreUnavailable, 503 RATE_LIMIT_UNAVAILABLE. `onRejected` runs before a 429 is thrown.
 */
export async function decide(
  items: readonly HolderItem[],
  deny: DenialOf,
  deps: DecisionDeps,
  onRejected?: (rejection: ApiError) => Promise<void>,
): Promise<Decision> {
  // Every item at once, leases too (see the module header: what a refusal by one item costs the others).
  const request: RequestSettling = { refused: false };
  const settled = await Promise.all(items.map((item) => settleOrFail(item, deny, deps, request)));
  const admitted = settled.filter((s): s is Extract<Settled, { kind: 'admitted' }> => s.kind === 'admitted');
  const compensate = () =>
    Promise.all(admitted.map((a) => deps.store.compensate(a.plan, a.plan.lease !== undefined, AbortSignal.timeout(deps.cleanupTimeoutMs ?? CLEANUP_TIMEOUT_MS)))).catch(
      (error) => logger.error('admission compensation failed', { error }),
    );

  const failed = settled.find((s): s is Extract<Settled, { kind: 'unavailable' }> => s.kind === 'unavailable');
  if (failed) {
    await compensate();
    throw failed.error;
  }
  const rejection = rejectionOf(settled, deps.limits, deps.now);
  if (rejection) {
    await compensate();
    if (rejection.code === 'RATE_LIMITED' || rejection.code === 'CONCURRENCY_LIMITED') await onRejected?.(rejection);
    throw rejection;
  }

  const leased = admitted.filter((a) => a.plan.lease !== undefined);
  let released = false;
  return {
    admitted,
    release: async () => {
      if (released || leased.length === 0) return;
      released = true;
      await Promise.all(
        leased.map((a) => deps.store.release(a.plan.key, (a.plan.lease as { leaseId: string }).leaseId, AbortSignal.timeout(deps.cleanupTimeoutMs ?? CLEANUP_TIMEOUT_MS))),
      ).catch((error) => logger.error('concurrency lease not released; it expires by itself', { error }));
    },
  };
}
