/**
 * Admission of web-settings calls, with the same decision machinery as the
 * partner API's and the player site's (admission.ts `decide`), from the
 * `settings-*` and `sign-in-*` rows of the limits table:
 *
 * - A signed-in call counts on its account's item (`ACCOUNT#<id>` /
 *   `ACCOUNT`, the item the partner API's account quotas use, under their own
 *   attributes), in one conditional update that also re-checks what ends a
 *   session: the account active, its credential generation and its session
 *   generation the session's (a password change or reset, a deactivation, or
 *   two-factor turned on answers 401 SESSION_REQUIRED from the same write). So a settings call costs the
 *   session read and this write: two sequential round trips, one write unit (a view's reads run beside the
 *   write: settings-pipeline.ts viewReads).
 * - A sign-in counts before the password is checked, by source IP and by the
 *   e-mail address (its SHA-256, known or not: an unknown address is limited
 *   exactly like a real one, so the limits reveal nothing), on items of their
 *   own (`SIGNIN#IP#…`, `SIGNIN#EMAIL#…`, sort key `LIMITS`, `ttl` two days
 *   ahead), both in parallel, the other compensated on refusal. Every attempt
 *   counts, so the limits are exact under any concurrency (a failure-only
 *   count would let a burst of parallel guesses through before any failure
 *   is recorded).
 *
 * Either store not answering fails closed (503 RATE_LIMIT_UNAVAILABLE).
 */
import { createHash } from 'node:crypto';
import { accountKey } from '../shared/identity/access-items';
import type { ItemKey } from '../shared/limits/admission-store';
import { counterItem, decide, planHolderItems, type DecisionDeps } from '../shared/limits/admission';
import type { QuotaHolder, SettingsCategory } from '../shared/limits/limits-table';

export const signInIpKey = (sourceIp: string): ItemKey => ({ pk: `SIGNIN#IP#${sourceIp}`, sk: 'LIMITS' });
export const signInEmailKey = (normalizedEmail: string): ItemKey => ({
  pk: `SIGNIN#EMAIL#${createHash('sha256').update(normalizedEmail).digest('base64url')}`,
  sk: 'LIMITS',
});

/** A holder item beyond the account (a webhook callback's counters, say): counter-only items created on first use. */
export interface SettingsHolderItem {
  readonly holder: QuotaHolder;
  readonly key: ItemKey;
}

export interface SettingsCall {
  readonly category: Exclude<SettingsCategory, 'settings-sign-in'>;
  readonly accountId: string;
  /** The credential generation the session was opened under. */
  readonly credGen: number;
  /** The account's session generation the session was opened under (two-factor turned on ends older sessions). */
  readonly sessionGen: number;
  /** More items counted in the same decision (AdmissionHolders in pipeline.ts). */
  readonly extra?: readonly SettingsHolderItem[];
}

/** Count a signed-in call under every limit of its category, or throw: 429 (Retry-After: the longest wait) or 401 SESSION_REQUIRED. */
export async function admitSettingsCall(call: SettingsCall, deps: DecisionDeps): Promise<void> {
  const items = planHolderItems(
    [
      { holder: 'settings-account', key: accountKey(call.accountId), guard: { kind: 'account', credGen: call.credGen, sessionGen: call.sessionGen } },
      ...(call.extra ?? []).map((item) => counterItem(item.holder, item.key, deps.now)),
    ],
    { category: call.category },
    deps,
  );
  await decide(
    items,
    (item, old) => (item.holder === 'settings-account' && (!old || old.status !== 'active' || old.cred_gen !== call.credGen || (old.session_gen ?? 0) !== call.sessionGen)
        ? 'SESSION_REQUIRED'
        : undefined),
    deps,
  );
}

/** Count a sign-in attempt by source IP and e-mail address (normalized), or throw the 429. */
export async function admitSignIn(attempt: { sourceIp: string; email: string }, deps: DecisionDeps): Promise<void> {
  const items = planHolderItems(
    [counterItem('sign-in-ip', signInIpKey(attempt.sourceIp), deps.now), counterItem('sign-in-email', signInEmailKey(attempt.email), deps.now)],
    { category: 'settings-sign-in' },
    deps,
  );
  await decide(items, () => undefined, deps);
}
