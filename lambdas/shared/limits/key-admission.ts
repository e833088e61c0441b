/**
 * The partner API key's admission (docs/limits.md): the key's, its creating account's and its organization's items in
 * one decision (admission.ts `decide`), each write re-checking the key's standing (key revoked, account deactivated,
 * organization key generation raised, manager grant replaced) in its condition, so a revoked key is refused by the
 * same round trip that would have counted it. Apart from the decision's machinery, which the web side's admissions
 * share (player-admission.ts, settings-admission.ts) without the key's standing rules.
 */
import { createHash } from 'node:crypto';
import type { ErrorCode } from '../errors';
import { accountKey, apiKeyKey, orgKey, type KeyFacts } from '../identity/access-items';
import type { AuthenticatedKey } from '../identity/key-authentication';
import { assessKey, type KeyState } from '../identity/key-standing';
import { principalOf, type Principal } from '../identity/principal';
import { CLEANUP_TIMEOUT_MS, counterAttribute, decide, planHolderItems, type AdmissionRoute, type DecisionDeps, type HolderItem, type LeaseTag } from './admission';
import type { Guard, ItemKey } from './admission-store';
import { concurrencyLimits, covers, HEADLINE_POLICY, quotaLimits, type Limit, type QuotaHolder } from './limits-table';
import { headlineHeaders } from './rate-limit-headers';
import { logRejectionSample, type RateLogSampler } from './rejection-log';

export interface Admission {
  readonly principal: Principal;
  /** X-RateLimit-* of the key's minute window, after this request. */
  readonly headers: Record<string, string>;
  /** Free the concurrency leases this request holds (idempotent; never throws). */
  release(): Promise<void>;
}

export interface AdmissionDeps extends DecisionDeps {
  readonly rateLog: RateLogSampler;
}

function planItems(facts: KeyFacts, route: AdmissionRoute, deps: DecisionDeps): HolderItem[] {
  const items: { holder: QuotaHolder; key: ItemKey; guard: Guard }[] = [
    { holder: 'key', key: apiKeyKey(facts.key_id), guard: { kind: 'key' } },
    { holder: 'account', key: accountKey(facts.account_id), guard: { kind: 'account', credGen: facts.account_gen } },
  ];
  if (facts.partner_id !== null) {
    items.push({
      holder: 'organization',
      key: orgKey(facts.partner_id),
      guard: { kind: 'organization', keyGen: facts.org_gen ?? 0, accountId: facts.account_id, grant: facts.manager_grant ?? '' },
    });
  }
  return planHolderItems(items, route, deps, leaseTagOf(facts.key_id, route, deps.limits));
}

/**
 * A key's leases are named `<tag>_<admission id>` on every item (tag: 8 hex digits of the key id's digest), so that
 * an account's or organization's item shows how many of its slots each key holds (crowdingOf). Undefined on routes
 * without a per-key slot limit.
 */
function leaseTagOf(keyId: string, route: AdmissionRoute, limits: readonly Limit[]): LeaseTag | undefined {
  const perKey = concurrencyLimits(limits).find((l) => l.holder === 'key' && covers(l, route.category));
  return perKey && { tag: createHash('sha256').update(keyId).digest('hex').slice(0, 8), perKey: perKey.limit };
}

/** The answer the old image of a refusing item implies for this key, if it is about the key's standing. */
function denialFrom(item: HolderItem, old: Readonly<Record<string, unknown>> | undefined, facts: KeyFacts, now: Date): ErrorCode | undefined {
  if (!old) return 'INVALID_API_KEY';
  const passing: KeyState = {
    key: {},
    account: { status: 'active', cred_gen: facts.account_gen },
    org: facts.partner_id === null ? undefined : { status: 'active', key_gen: facts.org_gen ?? 0, managers: { [facts.account_id]: facts.manager_grant ?? '' } },
  };
  const state: KeyState =
    item.holder === 'key'
      ? { ...passing, key: old as KeyState['key'] }
      : item.holder === 'account'
        ? { ...passing, account: old as KeyState['account'] }
        : { ...passing, org: old as KeyState['org'] };
  const standing = assessKey(facts, state, now);
  return standing.usable ? undefined : standing.denial;
}

/**
 * Admit the authenticated key's request, or throw the ApiError that refuses
 * it (nothing then stays counted); a store that does not answer in time is
 * QuotaStoreUnavailable, 503 RATE_LIMIT_UNAVAILABLE.
 */
export async function admitRequest({ facts, coldImage }: AuthenticatedKey, route: AdmissionRoute, deps: AdmissionDeps): Promise<Admission> {
  if (coldImage) deps.windows.learn(String(coldImage.pk), coldImage);
  const decision = await decide(
    planItems(facts, route, deps),
    (item, old) => denialFrom(item, old, facts, deps.now),
    deps,
    (rejection) => logRejectionSample(facts, rejection, { ...deps, signal: AbortSignal.timeout(deps.cleanupTimeoutMs ?? CLEANUP_TIMEOUT_MS) }),
  );
  const headline = quotaLimits(deps.limits).find((l) => l.policy === HEADLINE_POLICY);
  const keyItem = decision.admitted.find((a) => a.item.holder === 'key');
  return {
    principal: principalOf(facts),
    headers: headlineHeaders(headline, headline && keyItem ? (keyItem.counts[counterAttribute(headline.policy)] ?? 0) : undefined, deps.now),
    release: decision.release,
  };
}
