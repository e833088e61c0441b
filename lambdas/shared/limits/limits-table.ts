/**
 * Every limit of the spec's "Rate and quota limits" table, declared once.
 * The quota checks (admission.ts), the response headers, the WAF rules of
 * the edge-protection construct, the local front's edge guard and the
 * README's limits table are all derived from this list.
 *
 * Quota windows are fixed and aligned to UTC: a minute starts at :00 seconds, an
 * hour at :00 minutes, a day at 00:00 UTC (window id = floor(epoch / length)).
 * A rolling limit holds in every window of its length, wherever it starts (the
 * webhook pipeline's "at most 10 starts per round": a fixed minute would let 20
 * through around a minute's boundary).
 */

/**
 * What a route counts toward beyond the general quotas: the partner API's invitation and ticket
 * routes, the player site's routes (which need no key: they count by source IP and join link),
 * and web settings (by the signed-in account; signing in by source IP and e-mail address).
 */
export type RouteCategory = 'invitation-create' | 'invitation' | 'ticket' | PlayerCategory | SettingsCategory | 'webhook-attempt';
export type PlayerCategory = 'player-view' | 'player-claim' | 'player-message';
export const isPlayerCategory = (category: RouteCategory | undefined): category is PlayerCategory => category?.startsWith('player-') ?? false;
export type SettingsCategory =
  | 'settings-view'
  | 'settings-change'
  /** Password change, two-factor confirm, sign out everywhere: what ends another session's access (counted per session only). */
  | 'settings-remedy'
  | 'settings-key-create'
  | 'settings-revoke'
  | 'settings-sign-in'
  | 'settings-webhook-create'
  | 'settings-webhook-check'
  | 'settings-webhook-resend';
export const isSettingsCategory = (category: RouteCategory | undefined): category is SettingsCategory => category?.startsWith('settings-') ?? false;

/**
 * The item whose counters and leases a limit lives on: the key, its creating account, or its
 * organization (partner API); the source IP or the join link (player site); the signed-in account
 * (web settings), or the source IP and the e-mail address (or the browser's device) of a sign-in.
 */
export type QuotaHolder = KeyHolder | PlayerHolder | SettingsHolder;
export type KeyHolder = 'key' | 'account' | 'organization';
export type PlayerHolder = 'player-ip' | 'join-link';
/** `sign-in-device`: a browser that signed in to the address before (its device cookie: lambdas/sign-in/device-cookie.ts). */
export type SettingsHolder = 'settings-account' | 'settings-session' | 'sign-in-ip' | 'sign-in-email' | 'sign-in-device' | WebhookHolder;
/**
 * Webhook limits beyond the signed-in account's: per callback, per organization (all its callbacks), per delivery
 * (manual resends), and the delivery pipeline's own per-callback slots and starts (`webhook-delivery`, on the callback item).
 */
export type WebhookHolder = 'webhook' | 'webhook-organization' | 'webhook-delivery-record' | 'webhook-delivery';

export interface QuotaLimit {
  readonly kind: 'quota';
  /** Name reported in X-RateLimit-Policy. */
  readonly policy: string;
  readonly holder: QuotaHolder;
  readonly windowSeconds: 60 | 3600 | 86_400;
  readonly limit: number;
  /** `all`: every authenticated request; otherwise the route categories it covers. */
  readonly covers: 'all' | readonly RouteCategory[];
}

export interface ConcurrencyLimit {
  readonly kind: 'concurrency';
  readonly policy: string;
  readonly holder: QuotaHolder;
  /** Requests in flight at once. */
  readonly limit: number;
  readonly covers: readonly RouteCategory[];
}

/**
 * At most `limit` admissions in any `windowSeconds` (a sliding window, exact): each admission leaves
 * an entry on the holder's item that lives `windowSeconds`, and one is admitted only while fewer
 * than `limit` entries live (admission-store.ts, the same conditional write as the counters).
 */
export interface RollingLimit {
  readonly kind: 'rolling';
  readonly policy: string;
  readonly holder: QuotaHolder;
  readonly windowSeconds: 60;
  readonly limit: number;
  readonly covers: readonly RouteCategory[];
}

export type EdgeAggregate = 'ip' | 'credential' | 'location';

export type EdgeCounting = 'all' | 'credentialed' | 'malformed-credential';

export interface EdgeLimit {
  readonly kind: 'edge';
  readonly policy: string;
  /** The front door whose web ACL (and in-process guard) enforces the rule: the partner API or the web side. */
  readonly surface: 'partner' | 'web';
  readonly aggregate: EdgeAggregate;
  readonly windowSeconds: 10 | 60;
  readonly limit: number;
  /**
   * Which requests the rule counts (and so can block):
   * - `all`: every request;
   * - `credentialed`: requests carrying an Authorization header;
   * - `malformed-credential`: requests carrying an Authorization header that
   *   is not a well-formed live key (`Bearer pak_live_` + 64 hex, after
   *   normalization): such a rule can never block a valid key.
   */
  readonly counts: EdgeCounting;
  /**
   * `waf`: an AWS WAF rate-based rule (WAF's shortest window is 60 s).
   * `application`: 10-second bursts, below WAF's resolution, enforced in
   * process (the Lambda pipeline per container, and the local front).
   */
  readonly enforcedBy: 'waf' | 'application';
}

export type Limit = QuotaLimit | ConcurrencyLimit | RollingLimit | EdgeLimit;

const INVITATION_AND_TICKET: readonly RouteCategory[] = ['invitation-create', 'invitation', 'ticket'];
const PLAYER_CALLS: readonly RouteCategory[] = ['player-view', 'player-claim', 'player-message'];
/** Changes counted on the account's quotas, once their password (and code) re-check passed (lambdas/settings/re-check.ts). */
const SETTINGS_CHANGES: readonly RouteCategory[] = ['settings-change', 'settings-key-create', 'settings-webhook-create'];
/** Everything that re-checks the password, and the remedies: counted on the session's own item, before the check. */
const SESSION_CHANGES: readonly RouteCategory[] = [...SETTINGS_CHANGES, 'settings-remedy'];

const ROWS = [
  { kind: 'quota', policy: 'key-minute', holder: 'key', windowSeconds: 60, limit: 60, covers: 'all' },
  { kind: 'quota', policy: 'key-day', holder: 'key', windowSeconds: 86_400, limit: 5000, covers: 'all' },
  { kind: 'quota', policy: 'account-minute', holder: 'account', windowSeconds: 60, limit: 300, covers: 'all' },
  { kind: 'quota', policy: 'account-day', holder: 'account', windowSeconds: 86_400, limit: 20_000, covers: 'all' },
  { kind: 'quota', policy: 'organization-minute', holder: 'organization', windowSeconds: 60, limit: 300, covers: 'all' },
  { kind: 'quota', policy: 'organization-day', holder: 'organization', windowSeconds: 86_400, limit: 20_000, covers: 'all' },
  { kind: 'quota', policy: 'invitation-minute', holder: 'organization', windowSeconds: 60, limit: 10, covers: ['invitation-create'] },
  { kind: 'quota', policy: 'invitation-hour', holder: 'organization', windowSeconds: 3600, limit: 60, covers: ['invitation-create'] },
  { kind: 'quota', policy: 'invitation-day', holder: 'organization', windowSeconds: 86_400, limit: 200, covers: ['invitation-create'] },
  { kind: 'quota', policy: 'ticket-minute', holder: 'organization', windowSeconds: 60, limit: 60, covers: INVITATION_AND_TICKET },
  { kind: 'concurrency', policy: 'ticket-concurrency', holder: 'key', limit: 2, covers: INVITATION_AND_TICKET },
  { kind: 'concurrency', policy: 'ticket-concurrency', holder: 'organization', limit: 4, covers: INVITATION_AND_TICKET },
  { kind: 'concurrency', policy: 'ticket-concurrency', holder: 'account', limit: 6, covers: INVITATION_AND_TICKET },
  { kind: 'quota', policy: 'player-ip-minute', holder: 'player-ip', windowSeconds: 60, limit: 30, covers: PLAYER_CALLS },
  { kind: 'quota', policy: 'player-ip-hour', holder: 'player-ip', windowSeconds: 3600, limit: 300, covers: PLAYER_CALLS },
  { kind: 'quota', policy: 'join-link-minute', holder: 'join-link', windowSeconds: 60, limit: 20, covers: PLAYER_CALLS },
  { kind: 'quota', policy: 'join-claim-hour', holder: 'join-link', windowSeconds: 3600, limit: 10, covers: ['player-claim'] },
  { kind: 'quota', policy: 'join-message-hour', holder: 'join-link', windowSeconds: 3600, limit: 20, covers: ['player-message'] },
  { kind: 'quota', policy: 'join-message-day', holder: 'join-link', windowSeconds: 86_400, limit: 100, covers: ['player-message'] },
  { kind: 'quota', policy: 'settings-view-minute', holder: 'settings-account', windowSeconds: 60, limit: 30, covers: ['settings-view'] },
  { kind: 'quota', policy: 'settings-change-minute', holder: 'settings-account', windowSeconds: 60, limit: 10, covers: SETTINGS_CHANGES },
  { kind: 'quota', policy: 'settings-change-hour', holder: 'settings-account', windowSeconds: 3600, limit: 60, covers: SETTINGS_CHANGES },
  { kind: 'quota', policy: 'settings-change-day', holder: 'settings-account', windowSeconds: 86_400, limit: 200, covers: SETTINGS_CHANGES },
  { kind: 'quota', policy: 'settings-session-change-minute', holder: 'settings-session', windowSeconds: 60, limit: 5, covers: SESSION_CHANGES },
  { kind: 'quota', policy: 'settings-revoke-minute', holder: 'settings-account', windowSeconds: 60, limit: 10, covers: ['settings-revoke'] },
  { kind: 'quota', policy: 'settings-key-create-hour', holder: 'settings-account', windowSeconds: 3600, limit: 20, covers: ['settings-key-create'] },
  { kind: 'quota', policy: 'settings-key-create-day', holder: 'settings-account', windowSeconds: 86_400, limit: 50, covers: ['settings-key-create'] },
  { kind: 'quota', policy: 'webhook-create-hour', holder: 'settings-account', windowSeconds: 3600, limit: 5, covers: ['settings-webhook-create'] },
  { kind: 'quota', policy: 'webhook-create-day', holder: 'settings-account', windowSeconds: 86_400, limit: 20, covers: ['settings-webhook-create'] },
  { kind: 'quota', policy: 'webhook-check-callback-minute', holder: 'webhook', windowSeconds: 60, limit: 1, covers: ['settings-webhook-check'] },
  { kind: 'quota', policy: 'webhook-check-minute', holder: 'settings-account', windowSeconds: 60, limit: 3, covers: ['settings-webhook-check'] },
  { kind: 'quota', policy: 'webhook-check-hour', holder: 'settings-account', windowSeconds: 3600, limit: 30, covers: ['settings-webhook-check'] },
  { kind: 'quota', policy: 'webhook-check-organization-hour', holder: 'webhook-organization', windowSeconds: 3600, limit: 60, covers: ['settings-webhook-check'] },
  { kind: 'quota', policy: 'webhook-resend-callback-minute', holder: 'webhook', windowSeconds: 60, limit: 5, covers: ['settings-webhook-resend'] },
  { kind: 'quota', policy: 'webhook-resend-hour', holder: 'settings-account', windowSeconds: 3600, limit: 10, covers: ['settings-webhook-resend'] },
  { kind: 'quota', policy: 'webhook-resend-organization-hour', holder: 'webhook-organization', windowSeconds: 3600, limit: 20, covers: ['settings-webhook-resend'] },
  { kind: 'quota', policy: 'webhook-resend-delivery-day', holder: 'webhook-delivery-record', windowSeconds: 86_400, limit: 3, covers: ['settings-webhook-resend'] },
  { kind: 'rolling', policy: 'webhook-delivery-starts-minute', holder: 'webhook-delivery', windowSeconds: 60, limit: 10, covers: ['webhook-attempt'] },
  { kind: 'concurrency', policy: 'webhook-delivery-concurrency', holder: 'webhook-delivery', limit: 3, covers: ['webhook-attempt'] },
  { kind: 'quota', policy: 'sign-in-email-minute', holder: 'sign-in-email', windowSeconds: 60, limit: 5, covers: ['settings-sign-in'] },
  { kind: 'quota', policy: 'sign-in-email-hour', holder: 'sign-in-email', windowSeconds: 3600, limit: 20, covers: ['settings-sign-in'] },
  { kind: 'quota', policy: 'sign-in-device-minute', holder: 'sign-in-device', windowSeconds: 60, limit: 5, covers: ['settings-sign-in'] },
  { kind: 'quota', policy: 'sign-in-device-hour', holder: 'sign-in-device', windowSeconds: 3600, limit: 20, covers: ['settings-sign-in'] },
  { kind: 'quota', policy: 'sign-in-ip-minute', holder: 'sign-in-ip', windowSeconds: 60, limit: 10, covers: ['settings-sign-in'] },
  { kind: 'quota', policy: 'sign-in-ip-hour', holder: 'sign-in-ip', windowSeconds: 3600, limit: 60, covers: ['settings-sign-in'] },
  { kind: 'edge', policy: 'edge-ip-burst', surface: 'partner', aggregate: 'ip', windowSeconds: 10, limit: 30, counts: 'all', enforcedBy: 'application' },
  { kind: 'edge', policy: 'edge-ip-minute', surface: 'partner', aggregate: 'ip', windowSeconds: 60, limit: 180, counts: 'all', enforcedBy: 'waf' },
  { kind: 'edge', policy: 'edge-credential-burst', surface: 'partner', aggregate: 'credential', windowSeconds: 10, limit: 20, counts: 'credentialed', enforcedBy: 'application' },
  { kind: 'edge', policy: 'edge-credential-minute', surface: 'partner', aggregate: 'credential', windowSeconds: 60, limit: 60, counts: 'credentialed', enforcedBy: 'waf' },
  { kind: 'edge', policy: 'edge-authentication-minute', surface: 'partner', aggregate: 'location', windowSeconds: 60, limit: 3000, counts: 'malformed-credential', enforcedBy: 'waf' },
  { kind: 'edge', policy: 'web-ip-burst', surface: 'web', aggregate: 'ip', windowSeconds: 10, limit: 30, counts: 'all', enforcedBy: 'application' },
  { kind: 'edge', policy: 'web-ip-minute', surface: 'web', aggregate: 'ip', windowSeconds: 60, limit: 60, counts: 'all', enforcedBy: 'waf' },
] as const satisfies readonly Limit[];

export const LIMITS: readonly Limit[] = ROWS;

/** The rows as declared (their literal policies and holders: limit-descriptions.ts keys its words by them). */
export type LimitRow = (typeof ROWS)[number];

/**
 * A concurrency slot is a lease: a Lambda that crashes or times out never
 * releases it, so it frees itself this long after it was taken. It must
 * outlast the function timeout (checked by the infrastructure tests).
 */
export const LEASE_SECONDS = 15;

/** Retry-After of a concurrency rejection, and of a 503 when the quota store cannot answer. */
export const CONCURRENCY_RETRY_AFTER_SECONDS = 2;
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

/** The policy whose numbers fill X-RateLimit-* on admitted requests. */
export const HEADLINE_POLICY = 'key-minute';

export const quotaLimits = (limits: readonly Limit[] = LIMITS) => limits.filter((l): l is QuotaLimit => l.kind === 'quota');
export const concurrencyLimits = (limits: readonly Limit[] = LIMITS) => limits.filter((l): l is ConcurrencyLimit => l.kind === 'concurrency');
export const rollingLimits = (limits: readonly Limit[] = LIMITS) => limits.filter((l): l is RollingLimit => l.kind === 'rolling');
export const edgeLimits = (limits: readonly Limit[] = LIMITS) => limits.filter((l): l is EdgeLimit => l.kind === 'edge');

export function covers(limit: QuotaLimit | ConcurrencyLimit | RollingLimit, category: RouteCategory | undefined): boolean {
  if (limit.covers === 'all') return true;
  return category !== undefined && limit.covers.includes(category);
}

/** Fixed window arithmetic (UTC-aligned). */
export function windowOf(windowSeconds: number, nowMs: number) {
  const id = Math.floor(nowMs / 1000 / windowSeconds);
  const resetAt = (id + 1) * windowSeconds;
  return { id, resetAt, retryAfter: Math.max(1, Math.ceil(resetAt - nowMs / 1000)) };
}
