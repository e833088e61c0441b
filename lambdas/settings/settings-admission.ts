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
 *   is recorded). A browser that presents a valid device cookie for the
 *   address typed (device-cookie.ts: it signed in to it before) is counted on
 *   its device's item (`SIGNIN#DEVICE#<device id>`) instead of the address's:
 *   strangers who fill the address's rows lock out only browsers that never
 *   signed in to it. The source IP's rows count every attempt alike.
 *
 * Either store not answering fails closed (503 RATE_LIMIT_UNAVAILABLE).
 */
import { createHash } from 'node:crypto';
import { accountKey } from '../shared/identity/access-items';
import type { ItemKey } from '../shared/limits/admission-store';
import { sessionKey } from '../back-office/session-item';
import { counterItem, decide, planHolderItems, type DecisionDeps, type DenialOf } from '../shared/limits/admission';
import { covers, quotaLimits, type Limit, type QuotaHolder, type SettingsCategory } from '../shared/limits/limits-table';

export const signInIpKey = (sourceIp: string): ItemKey => ({ pk: `SIGNIN#IP#${sourceIp}`, sk: 'LIMITS' });
export const signInEmailKey = (normalizedEmail: string): ItemKey => ({
  pk: `SIGNIN#EMAIL#${createHash('sha256').update(normalizedEmail).digest('base64url')}`,
  sk: 'LIMITS',
});
/** A device id is random (device-cookie.ts), never derived from the account or the address. */
export const signInDeviceKey = (deviceId: string): ItemKey => ({ pk: `SIGNIN#DEVICE#${deviceId}`, sk: 'LIMITS' });

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
    [accountItem(call), ...(call.extra ?? []).map((item) => counterItem(item.holder, item.key, deps.now))],
    { category: call.category },
    deps,
  );
  await decide(items, sessionDenial(call), deps);
}

/** The session's own counters (SESSION#<digest> / LIMITS: never the session item itself), created on first use. */
export const sessionLimitsKey = (token: string): ItemKey => ({ pk: sessionKey(token).pk, sk: 'LIMITS' });

/**
 * Whether a category's calls re-check the password (and code), or are a remedy: the rows of the session's own holder
 * cover it (limits-table.ts `settings-session-*`). Such a call is counted on its session before the check, and on the
 * account's change quotas only once the check passed (re-check.ts): a wrong password spends nothing another session needs.
 */
export const isSessionCounted = (category: SettingsCategory, limits: readonly Limit[]): boolean =>
  quotaLimits(limits).some((limit) => limit.holder === 'settings-session' && covers(limit, category));

/**
 * Count a re-checked change (or a remedy) on the session's own item, re-checking the session's standing on the
 * account's item in the same round trip (the two writes in parallel; the account's counters are untouched), or throw
 * 429 (naming the session's row) or 401 SESSION_REQUIRED.
 */
export async function admitSessionCall(call: SettingsCall & { readonly token: string }, deps: DecisionDeps): Promise<void> {
  const items = [
    ...planHolderItems([counterItem('settings-session', sessionLimitsKey(call.token), deps.now)], { category: call.category }, deps),
    // No category: the account item is written for its guard alone (no settings row covers every call).
    ...planHolderItems([accountItem(call)], {}, deps),
  ];
  await decide(items, sessionDenial(call), deps);
}

const accountItem = (call: SettingsCall) => ({
  holder: 'settings-account' as const,
  key: accountKey(call.accountId),
  guard: { kind: 'account' as const, credGen: call.credGen, sessionGen: call.sessionGen },
});

/** The account's item refusing for its guard: the session ended (a password change or reset, two-factor on, a deactivation). */
const sessionDenial = (call: SettingsCall): DenialOf => (item, old) =>
  item.holder === 'settings-account' && (!old || old.status !== 'active' || old.cred_gen !== call.credGen || ((old.session_gen as number | undefined) ?? 0) !== call.sessionGen)
    ? 'SESSION_REQUIRED'
    : undefined;

/**
 * Count a sign-in attempt by source IP and by e-mail address (normalized) or, with `deviceId` (a device cookie valid for
 * that address), by the device instead of the address; or throw the 429.
 */
export async function admitSignIn(attempt: { sourceIp: string; email: string; deviceId?: string }, deps: DecisionDeps): Promise<void> {
  const own = attempt.deviceId === undefined ? counterItem('sign-in-email', signInEmailKey(attempt.email), deps.now) : counterItem('sign-in-device', signInDeviceKey(attempt.deviceId), deps.now);
  const items = planHolderItems([counterItem('sign-in-ip', signInIpKey(attempt.sourceIp), deps.now), own], { category: 'settings-sign-in' }, deps);
  await decide(items, () => undefined, deps);
}
