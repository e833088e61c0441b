/**
 * The contracts of the web settings' routes (each declared once here, rules and contract: *-routes.ts is generated from them; group `settings`):
 * what the settings page's script sends and receives. Input is parsed by the
 * same pipeline step as the partner API's; successes are the JSON objects
 * below as they are and errors the spec's web-settings shape (top-level
 * `code`, `message`, `request_id`), not the API envelope. They are rendered
 * in an OpenAPI document of their own (docs/settings-openapi.json), apart
 * from the partner API's. Signing in has its own function and contract
 * (lambdas/sign-in/sign-in-contracts.ts).
 */
import * as z from 'zod/mini';
import { AUDIT_ACTIONS } from '../back-office/audit-actions';
import { ORGANIZATION_SCOPES } from '../shared/identity/scopes';
import { withErrorCode, type GroupContracts } from '../shared/http/contract';
import type { SETTINGS_ROUTES } from './settings-routes';

const text = (max: number) => z.string().check(z.maxLength(max));

export const SettingsSessionSchema = z.strictObject({
  account_id: z.string(),
  name: z.string(),
  email: z.string(),
  /** `pending`: enrolled, not yet confirmed with a code. */
  two_factor: z.enum(['off', 'pending', 'on']),
  /** The session's absolute end (it also ends after 30 minutes without a request). */
  session_expires_at: z.string(),
});

export const SettingsKeySchema = z.strictObject({
  key_id: z.string(),
  name: z.string(),
  /** The organization an organization key is bound to; null for a personal key. */
  partner_id: z.nullable(z.string()),
  scopes: z.array(z.enum(ORGANIZATION_SCOPES)),
  created_at: z.string(),
  /** Null: permanent. */
  expires_at: z.nullable(z.string()),
  status: z.enum(['active', 'expired', 'revoked']),
  /** Why a key is no longer usable (revoked, password changed, manager role lost, …). */
  reason: z.optional(z.string()),
});

export const AuditEntrySchema = z.strictObject({
  at: z.string(),
  action: z.enum(AUDIT_ACTIONS),
  /** `settings`: the account in web settings; `operator`: the admin CLI. */
  via: z.enum(['settings', 'operator']),
  source_ip: z.nullable(z.string()),
  key_id: z.optional(z.string()),
  webhook_id: z.optional(z.string()),
  delivery_id: z.optional(z.string()),
  partner_id: z.optional(z.string()),
  role: z.optional(z.string()),
  /** The route a failed re-check was made on, as `POST /settings/api/keys` (`reauth.failed`, `session.ended`). */
  route: z.optional(z.string()),
  /** How many sign-in attempts were refused since the last sign-in (`sign_in.refused_attempts`). */
  count: z.optional(z.number()),
});

const password = withErrorCode(text(1024), 'INVALID_FIELD');
const twoFactorCode = withErrorCode(text(16), 'INVALID_FIELD');

export const SETTINGS_CONTRACTS = {
  'settings-page': {
    method: 'GET', path: '/settings', auth: 'web',
    summary: 'The settings page (HTML)',
    status: 200,
    data: z.string(),
    errors: ['API_KEY_NOT_ACCEPTED'],
  },
  'settings-sign-out': {
    method: 'DELETE', path: '/settings/api/session', auth: 'web',
    summary: 'Sign out: ends the session and clears the cookie (also when there is none)',
    status: 200,
    data: z.strictObject({ signed_out: z.literal(true) }),
    errors: ['CSRF_CHECK_FAILED', 'API_KEY_NOT_ACCEPTED', 'DUPLICATE_CREDENTIAL_COOKIE'],
  },
  'settings-session': {
    method: 'GET', path: '/settings/api/session', auth: 'session', category: 'settings-view',
    summary: 'Who is signed in',
    status: 200,
    data: SettingsSessionSchema,
    errors: ['SESSION_REQUIRED', 'RATE_LIMIT_UNAVAILABLE', 'API_KEY_NOT_ACCEPTED', 'DUPLICATE_CREDENTIAL_COOKIE'],
  },
  'settings-organizations': {
    method: 'GET', path: '/settings/api/organizations', auth: 'session', category: 'settings-view',
    summary: 'The organizations you belong to, with your role: organization keys are for the ones you manage (and that are active)',
    status: 200,
    data: z.strictObject({
      organizations: z.array(z.strictObject({ partner_id: z.string(), name: z.string(), status: z.enum(['active', 'archived']), role: z.enum(['member', 'manager']) })),
    }),
    errors: ['SESSION_REQUIRED', 'RATE_LIMIT_UNAVAILABLE', 'API_KEY_NOT_ACCEPTED', 'DUPLICATE_CREDENTIAL_COOKIE'],
  },
  'settings-keys': {
    method: 'GET', path: '/settings/api/keys', auth: 'session', category: 'settings-view',
    summary: "The signed-in account's API keys (never a key value)",
    status: 200,
    data: z.strictObject({ keys: z.array(SettingsKeySchema) }),
    errors: ['SESSION_REQUIRED', 'RATE_LIMIT_UNAVAILABLE', 'API_KEY_NOT_ACCEPTED', 'DUPLICATE_CREDENTIAL_COOKIE'],
  },
  'settings-key-create': {
    method: 'POST', path: '/settings/api/keys', auth: 'session', category: 'settings-key-create',
    summary: 'Create an API key: its value is in this answer only',
    description:
      'Needs your password and, when two-factor is on, a current code (401 INVALID_PASSWORD / INVALID_TWO_FACTOR): a session alone does not mint a key. A personal key (no partner_id: public:read, entitlements:read) or an organization key (partner_id: the account must be an active manager of it). Validity `days` 1–365 (default 90) or `permanent: true`. At most 20 unexpired, unrevoked keys per account. ' +
      'Send an `Idempotency-Key` header (16–128 of A–Z a–z 0–9 _ -; the settings page sends one per submission) and send it again when you retry after an error: the first attempt that got through created the key, and a retry with the same key and the same request answers 200 with that key, `replayed: true` and `key: null` (the value is shown once and stored nowhere: if you never saw it, revoke the key and create a new one). A replay is answered before the password and code are checked, so it needs no second two-factor code. The same Idempotency-Key with another request is 409 IDEMPOTENCY_CONFLICT; a malformed one 400 IDEMPOTENCY_KEY_REQUIRED. Without the header a retry may create a second key.',
    body: z.strictObject({
      name: withErrorCode(z.optional(text(64)), 'INVALID_FIELD'),
      partner_id: withErrorCode(z.optional(z.string().check(z.minLength(1), z.maxLength(128))), 'INVALID_FIELD'),
      scopes: withErrorCode(z.array(z.string().check(z.maxLength(64))).check(z.maxLength(16)), 'INVALID_SCOPES'),
      // The code sits on the field as the object declares it (the optional wrapper), where parseInput looks.
      days: withErrorCode(z.optional(z.number()), 'INVALID_EXPIRY'),
      permanent: withErrorCode(z.optional(z.boolean()), 'INVALID_EXPIRY'),
      password,
      two_factor_code: withErrorCode(z.optional(text(16)), 'INVALID_FIELD'),
    }),
    status: 201,
    replayStatus: 200,
    data: z.strictObject({
      key_id: z.string(),
      /** The key itself: shown this once, stored nowhere (only its digest); null on a replay. */
      key: z.nullable(z.string()),
      name: z.string(),
      partner_id: z.nullable(z.string()),
      scopes: z.array(z.enum(ORGANIZATION_SCOPES)),
      created_at: z.string(),
      expires_at: z.nullable(z.string()),
      /** True: an earlier attempt with this Idempotency-Key created the key (200), and its value is not shown again. */
      replayed: z.boolean(),
    }),
    errors: [
      'SESSION_REQUIRED',
      'CSRF_CHECK_FAILED',
      'IDEMPOTENCY_KEY_REQUIRED',
      'IDEMPOTENCY_CONFLICT',
      'INVALID_PASSWORD',
      'INVALID_TWO_FACTOR',
      'INVALID_SCOPES',
      'INVALID_EXPIRY',
      'INVALID_FIELD',
      'KEY_LIMIT',
      'PARTNER_MANAGER_REQUIRED',
      'PARTNER_INACTIVE',
      'SETTINGS_CONFLICT',
      'RATE_LIMIT_UNAVAILABLE',
      'API_KEY_NOT_ACCEPTED',
      'DUPLICATE_CREDENTIAL_COOKIE',
      'PASSWORD_CHECK_BUSY',
    ],
  },
  'settings-key-revoke': {
    method: 'POST', path: '/settings/api/keys/{key_id}/revoke', auth: 'session', category: 'settings-revoke',
    summary: 'Revoke one of your keys (for good)',
    description: 'Only the creator revokes a key: another account\u2019s key answers 404 KEY_NOT_FOUND, as a missing one. Revoking a revoked key answers its revocation again.',
    pathParameters: z.object({ key_id: withErrorCode(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/)), 'KEY_NOT_FOUND') }),
    status: 200,
    data: z.strictObject({ key_id: z.string(), revoked_at: z.string() }),
    errors: ['SESSION_REQUIRED', 'CSRF_CHECK_FAILED', 'KEY_NOT_FOUND', 'SETTINGS_CONFLICT', 'RATE_LIMIT_UNAVAILABLE', 'API_KEY_NOT_ACCEPTED', 'DUPLICATE_CREDENTIAL_COOKIE'],
  },
  'settings-password': {
    method: 'POST', path: '/settings/api/password', auth: 'session', category: 'settings-remedy',
    summary: 'Change the password: revokes every key of the account for good and ends its other sessions',
    description:
      'Every other session of the account ends; this browser gets a new session cookie. The new password has 10–128 characters (422 INVALID_FIELD otherwise). The same change sent again within 15 minutes of being made (its answer was lost; signed in again with the new password) answers 200 `password_changed` without changing anything or setting a cookie.',
    body: z.strictObject({ current_password: password, new_password: password }),
    status: 200,
    data: z.strictObject({ password_changed: z.literal(true), session_expires_at: z.string() }),
    errors: ['SESSION_REQUIRED', 'CSRF_CHECK_FAILED', 'INVALID_PASSWORD', 'INVALID_FIELD', 'RATE_LIMIT_UNAVAILABLE', 'API_KEY_NOT_ACCEPTED', 'DUPLICATE_CREDENTIAL_COOKIE', 'PASSWORD_CHECK_BUSY'],
  },
  'settings-two-factor-enrol': {
    method: 'POST', path: '/settings/api/two-factor/enrol', auth: 'session', category: 'settings-change',
    summary: 'Start two-factor: a new secret and its otpauth:// URI, shown this once',
    description: 'Needs your password (401 INVALID_PASSWORD).',
    body: z.strictObject({ password }),
    status: 200,
    data: z.strictObject({ secret: z.string(), otpauth_uri: z.string() }),
    errors: ['SESSION_REQUIRED', 'CSRF_CHECK_FAILED', 'INVALID_PASSWORD', 'TWO_FACTOR_ENABLED', 'SETTINGS_CONFLICT', 'RATE_LIMIT_UNAVAILABLE', 'API_KEY_NOT_ACCEPTED', 'DUPLICATE_CREDENTIAL_COOKIE', 'PASSWORD_CHECK_BUSY'],
  },
  'settings-two-factor-confirm': {
    method: 'POST', path: '/settings/api/two-factor/confirm', auth: 'session', category: 'settings-remedy',
    summary: 'Turn two-factor on with your password and a first code of the enrolled secret: ends every other session',
    description:
      'Every session of the account ends (401 SESSION_REQUIRED on its next call); this browser gets a new session cookie. Keys stay. The same confirmation sent again within 15 minutes (its answer was lost; signed in again with a code) answers 200 without changing anything or setting a cookie.',
    body: z.strictObject({ password, code: twoFactorCode }),
    status: 200,
    data: z.strictObject({ two_factor: z.literal('on'), session_expires_at: z.string() }),
    errors: ['SESSION_REQUIRED', 'CSRF_CHECK_FAILED', 'INVALID_PASSWORD', 'INVALID_TWO_FACTOR', 'SETTINGS_CONFLICT', 'RATE_LIMIT_UNAVAILABLE', 'API_KEY_NOT_ACCEPTED', 'DUPLICATE_CREDENTIAL_COOKIE', 'PASSWORD_CHECK_BUSY'],
  },
  'settings-two-factor-disable': {
    method: 'POST', path: '/settings/api/two-factor/disable', auth: 'session', category: 'settings-change',
    summary: 'Turn two-factor off (the password and a current code)',
    body: z.strictObject({ password, code: twoFactorCode }),
    status: 200,
    data: z.strictObject({ two_factor: z.literal('off') }),
    errors: ['SESSION_REQUIRED', 'CSRF_CHECK_FAILED', 'INVALID_PASSWORD', 'INVALID_TWO_FACTOR', 'SETTINGS_CONFLICT', 'RATE_LIMIT_UNAVAILABLE', 'API_KEY_NOT_ACCEPTED', 'DUPLICATE_CREDENTIAL_COOKIE', 'PASSWORD_CHECK_BUSY'],
  },
  'settings-sign-out-everywhere': {
    method: 'POST', path: '/settings/api/sign-out-everywhere', auth: 'session', category: 'settings-remedy',
    summary: 'Sign out everywhere: every session of the account ends, this one too (the cookie is cleared); keys stay',
    description:
      'Needs no password: it ends the caller’s own session with the others, so a stolen session gains nothing by it. Counted on the session only (`settings-session-change-minute`), never on the account’s quotas, so no other session can spend what it needs.',
    status: 200,
    data: z.strictObject({ signed_out: z.literal(true) }),
    errors: ['SESSION_REQUIRED', 'CSRF_CHECK_FAILED', 'RATE_LIMIT_UNAVAILABLE', 'API_KEY_NOT_ACCEPTED', 'DUPLICATE_CREDENTIAL_COOKIE'],
  },
  'settings-audit': {
    method: 'GET', path: '/settings/api/audit', auth: 'session', category: 'settings-view',
    summary: "The account's audit trail of the last 30 days (time and source IP), newest first, 100 a page",
    description:
      'Settings changes, sign-ins, webhook actions and the operator\u2019s changes to the account and its organizations. Page with `cursor` = the previous page\u2019s `next_cursor` (absent on the last page); every page costs one Query however deep. A cursor this view did not give answers 422 INVALID_CURSOR.',
    query: z.object({
      cursor: withErrorCode(z.optional(z.string().check(z.minLength(1), z.maxLength(200))), 'INVALID_CURSOR'),
    }),
    status: 200,
    data: z.strictObject({ entries: z.array(AuditEntrySchema), next_cursor: z.optional(z.string()) }),
    errors: ['SESSION_REQUIRED', 'INVALID_CURSOR', 'RATE_LIMIT_UNAVAILABLE', 'API_KEY_NOT_ACCEPTED', 'DUPLICATE_CREDENTIAL_COOKIE'],
  },
} as const satisfies GroupContracts<typeof SETTINGS_ROUTES>;
