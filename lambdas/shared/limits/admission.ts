/**
 * Admission of an authenticated request: one decision, in one DynamoDB round
 * trip for a warm container, on whether the key is still usable and whether
 * every quota and concurrency limit that covers the route has room.
 *
 * For each principal item (key, account, organization) one conditional
 * update re-checks what can revoke the key (revocation, account status and
 * credential generation, organization status, generation and the creator's
 * manager grant), counts the request in each of the item's windows and takes
 * a lease when the route is concurrency-limited. The updates run in parallel
 * (in layer order on concurrency-limited routes, see settleInOrder).
 * If any item refuses, the others are compensated before answering, so a
 * rejected request leaves every window and slot as if it never came; no
 * window ever admits more than its limit, whatever the interleaving.
 *
 * A cold container first reads the key item (what never changes about a key
 * is then cached): two round trips.
 */
import { randomUUID } from 'node:crypto';
import { ApiError, type ErrorCode } from '../errors';
import { apiKeyKey, accountKey, orgKey, toKeyFacts, type ApiKeyItem, type KeyFacts } from '../identity/access-items';
import { digestsEqual, presentedKey } from '../identity/api-keys';
import type { KeyFactsCache, Principal } from '../identity/principal';
import { assessKey, type KeyState } from '../identity/key-standing';
import type { Scope } from '../identity/scopes';
import { logger } from '../observability/logger';
import { QuotaStoreUnavailable, type AdmissionStore, type CounterPlan, type Guard, type ItemKey, type ItemPlan } from './admission-store';
import {
  CONCURRENCY_RETRY_AFTER_SECONDS,
  concurrencyLimits,
  covers,
  HEADLINE_POLICY,
  LEASE_SECONDS,
  quotaLimits,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
  windowOf,
  type Limit,
  type QuotaHolder,
  type QuotaLimit,
  type RouteCategory,
} from './limits-table';

export interface AdmissionRoute {
  readonly scope?: Scope;
  readonly partnerBound?: boolean;
  readonly category?: RouteCategory;
}

export interface Admission {
  readonly principal: Principal;
  /** X-RateLimit-* of the key's minute window, after this request. */
  readonly headers: Record<string, string>;
  /** Free the concurrency leases this request holds (idempotent; never throws). */
  release(): Promise<void>;
}

/** Per-container memory of each item's last seen windows, to plan increments rather than resets. */
export class WindowMemory {
  /** `complete`: the windows come from a whole image of the item, so a missing counter does not exist yet. */
  private readonly items = new Map<string, { windows: Map<string, number>; hasLeases: boolean; complete: boolean }>();

  constructor(private readonly capacity = 5000) {}

  counterMode(pk: string, attribute: string, windowId: number): CounterPlan['mode'] {
    const entry = this.items.get(pk);
    const known = entry?.windows.get(attribute);
    if (known === undefined) return entry?.complete ? 'reset' : 'increment';
    return known < windowId ? 'reset' : 'increment';
  }

  hasLeases(pk: string): boolean {
    return this.items.get(pk)?.hasLeases ?? true;
  }

  learn(pk: string, item: Record<string, unknown>): void {
    const windows = new Map<string, number>();
    for (const [name, value] of Object.entries(item)) {
      const w = (value as { w?: unknown } | null)?.w;
      if (name.startsWith('q_') && typeof w === 'number') windows.set(name, w);
    }
    this.store(pk, windows, item.leases !== undefined, true);
  }

  remember(plan: ItemPlan): void {
    const entry = this.items.get(plan.key.pk);
    const windows = entry?.windows ?? new Map<string, number>();
    for (const counter of plan.counters) windows.set(counter.attribute, counter.windowId);
    this.store(plan.key.pk, windows, plan.lease ? true : (entry?.hasLeases ?? true), entry?.complete ?? false);
  }

  private store(pk: string, windows: Map<string, number>, hasLeases: boolean, complete: boolean) {
    this.items.delete(pk);
    this.items.set(pk, { windows, hasLeases, complete });
    if (this.items.size > this.capacity) this.items.delete(this.items.keys().next().value as string);
  }
}

/** Per-container pre-filter of "one rejection log per key per minute"; the store makes it exact across containers. */
export class RateLogSampler {
  private readonly last = new Map<string, number>();

  shouldTry(keyId: string, minute: number): boolean {
    if (this.last.get(keyId) === minute) return false;
    this.last.set(keyId, minute);
    if (this.last.size > 5000) this.last.delete(this.last.keys().next().value as string);
    return true;
  }
}

export interface AdmissionDeps {
  readonly store: AdmissionStore;
  readonly cache: KeyFactsCache;
  readonly windows: WindowMemory;
  readonly rateLog: RateLogSampler;
  readonly limits: readonly Limit[];
  readonly now: Date;
}

const invalidKey = () => new ApiError('INVALID_API_KEY');
const MAX_ATTEMPTS_PER_ITEM = 5;
const MAX_EXPIRED_LEASES_DROPPED = 10;

export const counterAttribute = (policy: string) => `q_${policy.replace(/-/g, '_')}`;

/**
 * A fresh id per admission, never the request id: a client can choose API Gateway's request id
 * (`X-Amzn-RequestId`), and two requests sharing a lease would hold one slot between them.
 */
const newLeaseId = () => `r${randomUUID().replace(/-/g, '')}`;

interface PrincipalItem {
  readonly principal: QuotaHolder;
  readonly plan: ItemPlan;
  readonly quotas: readonly QuotaLimit[];
}

type Settled =
  | { readonly kind: 'admitted'; readonly item: PrincipalItem; readonly plan: ItemPlan; readonly counts: Readonly<Record<string, number>> }
  | { readonly kind: 'denied'; readonly item: PrincipalItem; readonly code: ErrorCode }
  | { readonly kind: 'quota'; readonly item: PrincipalItem; readonly limit: QuotaLimit; readonly windowId: number }
  | { readonly kind: 'concurrency'; readonly item: PrincipalItem }
  | { readonly kind: 'unavailable'; readonly item: PrincipalItem; readonly error: unknown };

function planItems(facts: KeyFacts, route: AdmissionRoute, deps: AdmissionDeps): PrincipalItem[] {
  const nowMs = deps.now.getTime();
  const leaseId = newLeaseId();
  const items: { principal: QuotaHolder; key: ItemKey; guard: Guard }[] = [
    { principal: 'key', key: apiKeyKey(facts.key_id), guard: { kind: 'key' } },
    { principal: 'account', key: accountKey(facts.account_id), guard: { kind: 'account', credGen: facts.account_gen } },
  ];
  if (facts.partner_id !== null) {
    items.push({
      principal: 'organization',
      key: orgKey(facts.partner_id),
      guard: { kind: 'organization', keyGen: facts.org_gen ?? 0, accountId: facts.account_id, grant: facts.manager_grant ?? '' },
    });
  }
  return items.map(({ principal, key, guard }) => {
    const quotas = quotaLimits(deps.limits).filter((l) => l.holder === principal && covers(l, route.category));
    const concurrency = concurrencyLimits(deps.limits).find((l) => l.holder === principal && covers(l, route.category));
    const counters = quotas.map((limit): CounterPlan => {
      const attribute = counterAttribute(limit.policy);
      const windowId = windowOf(limit.windowSeconds, nowMs).id;
      return { attribute, windowId, limit: limit.limit, mode: deps.windows.counterMode(key.pk, attribute, windowId) };
    });
    const lease = concurrency && {
      leaseId,
      expiresAtMs: nowMs + LEASE_SECONDS * 1000,
      limit: concurrency.limit,
      expired: [],
      mode: deps.windows.hasLeases(key.pk) ? ('add' as const) : ('create' as const),
    };
    return { principal, quotas, plan: { key, guard, counters, ...(lease ? { lease } : {}) } };
  });
}

/** The answer the old image of a refusing item implies for this key, if it is about the key's standing. */
function denialFrom(item: PrincipalItem, old: Record<string, unknown> | undefined, facts: KeyFacts, now: Date): ErrorCode | undefined {
  const passing: KeyState = {
    key: {},
    account: { status: 'active', cred_gen: facts.account_gen },
    org: facts.partner_id === null ? undefined : { status: 'active', key_gen: facts.org_gen ?? 0, managers: { [facts.account_id]: facts.manager_grant ?? '' } },
  };
  const state: KeyState =
    item.principal === 'key'
      ? { ...passing, key: old as KeyState['key'] }
      : item.principal === 'account'
        ? { ...passing, account: old as KeyState['account'] }
        : { ...passing, org: old as KeyState['org'] };
  const standing = assessKey(facts, state, now);
  return standing.usable ? undefined : standing.denial;
}

/** A store failure on one item is an outcome too, so the items that did admit the request are compensated. */
const settleOrFail = (item: PrincipalItem, facts: KeyFacts, deps: AdmissionDeps): Promise<Settled> =>
  settle(item, facts, deps).catch((error: unknown) => ({ kind: 'unavailable' as const, item, error }));

async function settle(item: PrincipalItem, facts: KeyFacts, deps: AdmissionDeps): Promise<Settled> {
  let plan = item.plan;
  const nowMs = deps.now.getTime();
  for (let attempt = 0; attempt < MAX_ATTEMPTS_PER_ITEM; attempt += 1) {
    const outcome = await deps.store.apply(plan);
    if (outcome.ok) {
      deps.windows.remember(plan);
      return { kind: 'admitted', item, plan, counts: outcome.counts };
    }
    const old = outcome.old;
    const denial = denialFrom(item, old, facts, deps.now);
    if (denial) return { kind: 'denied', item, code: denial };
    if (!old) return { kind: 'denied', item, code: 'INVALID_API_KEY' };
    deps.windows.learn(plan.key.pk, old);

    // Not the key's standing: a full window, full slots, or a wrong guess about the item's state.
    const counters: CounterPlan[] = [];
    for (const counter of plan.counters) {
      const current = old[counter.attribute] as { w?: number; n?: number } | undefined;
      const limit = item.quotas.find((q) => counterAttribute(q.policy) === counter.attribute) as QuotaLimit;
      if (current?.w === counter.windowId && (current.n ?? 0) >= counter.limit) {
        return { kind: 'quota', item, limit, windowId: counter.windowId };
      }
      // A clock behind another container's: count in the newer window.
      const windowId = current?.w !== undefined && current.w > counter.windowId ? current.w : counter.windowId;
      counters.push({ ...counter, windowId, mode: current?.w === windowId ? 'increment' : 'reset' });
    }
    let lease = plan.lease;
    if (lease) {
      const held = old.leases as Record<string, number> | undefined;
      if (held === undefined) {
        lease = { ...lease, mode: 'create', expired: [] };
      } else {
        const entries = Object.entries(held);
        const live = entries.filter(([, expiresAt]) => expiresAt > nowMs);
        if (live.length >= lease.limit) return { kind: 'concurrency', item };
        const expired = entries.filter(([, expiresAt]) => expiresAt <= nowMs).map(([id]) => id).slice(0, MAX_EXPIRED_LEASES_DROPPED);
        lease = { ...lease, mode: 'add', expired };
      }
    }
    plan = { ...plan, counters, ...(lease ? { lease } : {}) };
  }
  throw new QuotaStoreUnavailable(new Error(`No admission decision for ${plan.key.pk} after ${MAX_ATTEMPTS_PER_ITEM} attempts`));
}

const PRINCIPAL_ORDER: readonly QuotaHolder[] = ['key', 'account', 'organization'];

/**
 * Concurrency-limited routes (invitations, tickets) take their slots layer by
 * layer, key first, stopping at the first refusal. In parallel, a request
 * refused by its key's two slots would briefly hold organization and account
 * slots until compensated, and could crowd out a request the organization
 * should have admitted; in order, a refused request never touches the layers
 * after the one that refused it. One round trip per layer, on these routes only.
 */
async function settleInOrder(items: readonly PrincipalItem[], facts: KeyFacts, deps: AdmissionDeps): Promise<Settled[]> {
  const settled: Settled[] = [];
  for (const item of items) {
    const outcome = await settleOrFail(item, facts, deps);
    settled.push(outcome);
    if (outcome.kind !== 'admitted') break;
  }
  return settled;
}

function rejectionOf(settled: readonly Settled[], limits: readonly Limit[], now: Date): ApiError | undefined {
  const byPrincipal = (a: Settled, b: Settled) => PRINCIPAL_ORDER.indexOf(a.item.principal) - PRINCIPAL_ORDER.indexOf(b.item.principal);
  const denied = settled.filter((s): s is Extract<Settled, { kind: 'denied' }> => s.kind === 'denied').sort(byPrincipal);
  if (denied.length > 0) return new ApiError(denied[0].code);

  const quota = settled
    .filter((s): s is Extract<Settled, { kind: 'quota' }> => s.kind === 'quota')
    .sort((a, b) => limits.indexOf(a.limit) - limits.indexOf(b.limit))[0];
  if (quota) {
    // The window that refused, which may be one a container with a later clock already opened.
    const resetAt = (quota.windowId + 1) * quota.limit.windowSeconds;
    return new ApiError('RATE_LIMITED', undefined, {
      'X-RateLimit-Limit': String(quota.limit.limit),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(resetAt),
      'X-RateLimit-Policy': quota.limit.policy,
      'Retry-After': String(Math.max(1, Math.ceil(resetAt - now.getTime() / 1000))),
    });
  }
  const concurrency = settled.filter((s) => s.kind === 'concurrency').sort(byPrincipal)[0];
  if (concurrency) {
    const limit = concurrencyLimits(limits).find((l) => l.holder === concurrency.item.principal);
    return new ApiError(
      'CONCURRENCY_LIMITED',
      `Too many invitation and ticket requests in flight for this ${concurrency.item.principal} (limit ${limit?.limit}); retry after the Retry-After delay.`,
      { 'X-RateLimit-Policy': limit?.policy ?? 'ticket-concurrency', 'Retry-After': String(CONCURRENCY_RETRY_AFTER_SECONDS) },
    );
  }
  return undefined;
}

async function logRejectionSample(facts: KeyFacts, error: ApiError, deps: AdmissionDeps): Promise<void> {
  const minute = windowOf(60, deps.now.getTime()).id;
  if (!deps.rateLog.shouldTry(facts.key_id, minute)) return;
  try {
    if (!(await deps.store.claimRateLogSlot(apiKeyKey(facts.key_id), minute))) return;
    logger.warn('rate limit rejection', {
      id: `rate_${randomUUID().replace(/-/g, '')}`,
      key_id: facts.key_id,
      account_id: facts.account_id,
      partner_id: facts.partner_id ?? undefined,
      code: error.code,
      policy: error.headers['X-RateLimit-Policy'],
    });
  } catch (cause) {
    logger.error('rate limit rejection sample not recorded', { error: cause });
  }
}

const unavailable = (cause: unknown) =>
  new ApiError('RATE_LIMIT_UNAVAILABLE', undefined, { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) }, { cause });

export async function admitRequest(
  authorization: string | undefined,
  route: AdmissionRoute,
  pathPartnerId: string | undefined,
  deps: AdmissionDeps,
): Promise<Admission> {
  try {
    return await admit(authorization, route, pathPartnerId, deps);
  } catch (error) {
    if (error instanceof QuotaStoreUnavailable) throw unavailable(error);
    throw error;
  }
}

async function admit(authorization: string | undefined, route: AdmissionRoute, pathPartnerId: string | undefined, deps: AdmissionDeps): Promise<Admission> {
  const presented = presentedKey(authorization);
  let facts = presented.wellFormed ? deps.cache.get(presented.keyId) : undefined;
  if (!facts) {
    // Missing and malformed credentials are looked up as a decoy: the same work and answer as a wrong key.
    const item = await deps.store.read(apiKeyKey(presented.keyId));
    if (!item || !presented.wellFormed) throw invalidKey();
    const found = toKeyFacts(item as unknown as ApiKeyItem);
    if (!digestsEqual(found.digest, presented.digest) || item.revoked_at) throw invalidKey();
    deps.windows.learn(String(item.pk), item);
    deps.cache.set(found);
    facts = found;
  } else if (!digestsEqual(facts.digest, presented.digest)) {
    throw invalidKey();
  }
  if (facts.expires_at !== null && Date.parse(facts.expires_at) <= deps.now.getTime()) throw invalidKey();

  const items = planItems(facts, route, deps);
  const settled = items.some((item) => item.plan.lease)
    ? await settleInOrder(items, facts, deps)
    : await Promise.all(items.map((item) => settleOrFail(item, facts, deps)));
  const admitted = settled.filter((s): s is Extract<Settled, { kind: 'admitted' }> => s.kind === 'admitted');
  const compensate = () =>
    Promise.all(admitted.map((a) => deps.store.compensate(a.plan, a.plan.lease !== undefined))).catch((error) =>
      logger.error('admission compensation failed', { error }),
    );

  const failed = settled.find((s): s is Extract<Settled, { kind: 'unavailable' }> => s.kind === 'unavailable');
  if (failed) {
    await compensate();
    throw failed.error;
  }
  const rejection = rejectionOf(settled, deps.limits, deps.now);
  if (rejection) {
    await compensate();
    if (rejection.code === 'RATE_LIMITED' || rejection.code === 'CONCURRENCY_LIMITED') await logRejectionSample(facts, rejection, deps);
    throw rejection;
  }

  const leased = admitted.filter((a) => a.plan.lease !== undefined);
  let released = false;
  const admission: Admission = {
    principal: {
      keyId: facts.key_id,
      accountId: facts.account_id,
      partnerId: facts.partner_id,
      scopes: facts.scopes,
      expiresAt: facts.expires_at,
    },
    headers: headlineHeaders(admitted, deps),
    release: async () => {
      if (released || leased.length === 0) return;
      released = true;
      await Promise.all(leased.map((a) => deps.store.release(a.plan.key, (a.plan.lease as { leaseId: string }).leaseId))).catch((error) =>
        logger.error('concurrency lease not released; it expires by itself', { error }),
      );
    },
  };

  // Authorization of an admitted request: it counts, as failed business requests do.
  const refused: ErrorCode | undefined =
    route.partnerBound && facts.partner_id !== pathPartnerId
      ? 'PARTNER_SCOPE_MISMATCH'
      : route.scope && !facts.scopes.includes(route.scope)
        ? 'INSUFFICIENT_SCOPE'
        : undefined;
  if (refused) {
    await admission.release();
    throw new ApiError(refused, undefined, admission.headers);
  }
  return admission;
}

function headlineHeaders(admitted: readonly Extract<Settled, { kind: 'admitted' }>[], deps: AdmissionDeps): Record<string, string> {
  const headline = quotaLimits(deps.limits).find((l) => l.policy === HEADLINE_POLICY);
  const keyItem = admitted.find((a) => a.item.principal === 'key');
  if (!headline || !keyItem) return { 'X-RateLimit-Policy': HEADLINE_POLICY };
  const used = keyItem.counts[counterAttribute(headline.policy)] ?? 0;
  return {
    'X-RateLimit-Limit': String(headline.limit),
    'X-RateLimit-Remaining': String(Math.max(0, headline.limit - used)),
    'X-RateLimit-Reset': String(windowOf(headline.windowSeconds, deps.now.getTime()).resetAt),
    'X-RateLimit-Policy': headline.policy,
  };
}
