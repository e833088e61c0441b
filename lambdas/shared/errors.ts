/**
 * The one error type of the API. Domain and pipeline code throw `ApiError`
 * with a code from the spec's error table; the envelope middleware turns it
 * into the error envelope. Anything else that escapes becomes 500
 * `INTERNAL_ERROR` with a generic message: internals never leak. Two
 * exceptions, both retryable 503s with Retry-After: the function's deadline
 * (`SERVICE_UNAVAILABLE`) and a DynamoDB refusal no operation explained
 * (`WRITE_CONFLICT`).
 */
import { strayRefusalOf } from './storage/conditions';

export const ERROR_CATALOG = {
  HTTPS_REQUIRED: { status: 400, message: 'Only HTTPS requests are accepted.' },
  INVALID_JSON: { status: 400, message: 'The request body must be a JSON object.' },
  CREDENTIALS_IN_URL: { status: 400, message: 'Credentials must be sent in the Authorization header, never in the URL.' },
  BODY_NOT_ALLOWED: { status: 400, message: 'This operation does not accept a request body.' },
  IDEMPOTENCY_KEY_REQUIRED: { status: 400, message: 'A valid Idempotency-Key header is required.' },
  // The web side's credential cookies (lambdas/shared/http/cookies.ts): a second cookie of the name was set by another site.
  DUPLICATE_CREDENTIAL_COOKIE: {
    status: 400,
    message: 'This browser sent two cookies of the same sign-in name; another website may have set one, so the request was refused.',
  },
  // The player site (lambdas/player): it needs no key and takes none; its access is the claiming browser's cookie.
  API_KEY_NOT_ACCEPTED: { status: 400, message: 'The web side (player site and web settings) does not accept API keys.' },
  PLAYER_CREDENTIAL_REQUIRED: { status: 403, message: 'This browser has no access to this ticket.' },
  INVALID_API_KEY: { status: 401, message: 'The API key is missing or invalid.' },
  INSUFFICIENT_SCOPE: { status: 403, message: 'The API key lacks the scope this operation needs.' },
  PARTNER_SCOPE_MISMATCH: { status: 403, message: 'The API key is not bound to this organization.' },
  PARTNER_MANAGER_REQUIRED: { status: 403, message: "The key's creator is no longer an active manager of the organization." },
  PARTNER_ACCESS_FORBIDDEN: { status: 403, message: 'Authorization for this organization is no longer valid.' },
  PERSONAL_KEY_REQUIRED: { status: 403, message: 'This operation needs a personal API key.' },
  RECORD_NOT_FOUND: { status: 404, message: 'No such record.' },
  // 404 on reads, 409 on link retrieval and revoke (the route's contract says which: errorStatus).
  INVITE_UNAVAILABLE: { status: 404, message: 'The invitation is not available.', otherStatuses: [409] },
  TICKET_NOT_FOUND: { status: 404, message: 'No such ticket.' },
  NOT_FOUND: { status: 404, message: 'No such path or method.' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request body was not received in time.' },
  IDEMPOTENCY_CONFLICT: { status: 409, message: 'The Idempotency-Key was already used with a different request.' },
  PLAYER_NOT_JOINED: { status: 409, message: 'The invitation has no ticket yet.' },
  PARTNER_INACTIVE: { status: 409, message: 'The organization is not active.' },
  BODY_TOO_LARGE: { status: 413, message: 'The request body is larger than 4096 bytes.' },
  QUERY_TOO_LONG: { status: 414, message: 'The query string is longer than 2048 characters.' },
  PATH_TOO_LONG: { status: 414, message: 'The path is longer than 512 characters.' },
  JSON_REQUIRED: { status: 415, message: 'The request body must be sent as application/json in UTF-8.' },
  CONTENT_ENCODING_UNSUPPORTED: { status: 415, message: 'Compressed request bodies are not supported.' },
  AUTH_HEADER_TOO_LONG: { status: 431, message: 'The Authorization header is longer than 256 characters.' },
  INVALID_RECORD_UUID: { status: 422, message: 'The record uuid has an invalid format.' },
  INVALID_GAME: { status: 422, message: 'game must be minecraft or fps.' },
  INVALID_FIELD: { status: 422, message: 'A field has an invalid length or characters.' },
  UNKNOWN_FIELD: { status: 422, message: 'The body has an unsupported field.' },
  UNKNOWN_PARAMETER: { status: 422, message: 'The request has an unsupported query parameter.' },
  DUPLICATE_PARAMETER: { status: 422, message: 'A query parameter was given more than once.' },
  INVALID_LIMIT: { status: 422, message: 'limit must be an integer from 1 to 100.' },
  INVALID_PAGE: { status: 422, message: 'page must be an integer from 1 to 10000.' },
  INVALID_CURSOR: { status: 422, message: 'The cursor is invalid.' },
  INVALID_DATE: { status: 422, message: 'The date-time is invalid.' },
  INVALID_RESULT: { status: 422, message: 'result must be clean, warning or cheating.' },
  RATE_LIMITED: { status: 429, message: 'A rate limit is exhausted; retry after the Retry-After delay.' },
  CONCURRENCY_LIMITED: { status: 429, message: 'Too many requests in flight; retry after the Retry-After delay.' },
  TOO_MANY_INVITES: { status: 429, message: 'The organization already holds 50 active invitations.' },
  // Web settings (lambdas/settings): session-based, answered in the web-settings shape (top-level code and message).
  SESSION_REQUIRED: { status: 401, message: 'Sign in to web settings first (the session is missing, expired or ended).' },
  CSRF_CHECK_FAILED: { status: 403, message: 'The request did not come from the settings page (Origin and X-Settings-Request checks).' },
  INVALID_PASSWORD: { status: 401, message: 'The e-mail address or the password is wrong.' },
  INVALID_TWO_FACTOR: { status: 401, message: 'The two-factor code is missing or wrong.' },
  ACCOUNT_INACTIVE: { status: 403, message: 'The account is deactivated.' },
  INVALID_SCOPES: { status: 422, message: 'The scopes are not valid for this kind of key.' },
  INVALID_EXPIRY: { status: 422, message: 'Give a validity of 1 to 365 days, or permanent.' },
  KEY_LIMIT: { status: 409, message: 'The account already has 20 unexpired, unrevoked keys.' },
  KEY_NOT_FOUND: { status: 404, message: 'No such key among yours.' },
  TWO_FACTOR_ENABLED: { status: 409, message: 'Two-factor is already on; disable it first.' },
  SETTINGS_CONFLICT: { status: 409, message: 'The settings changed meanwhile; reload and try again.' },
  // Webhook callbacks (lambdas/webhooks, docs/webhooks.md).
  INVALID_WEBHOOK_URL: { status: 422, message: 'The callback address must be a complete HTTPS URL of a public domain name on port 443, without user, password or fragment.' },
  WEBHOOK_LIMIT_OR_ACCESS_CHANGED: {
    status: 409,
    message: 'The callback cannot be created: 10 callbacks already exist for the account or the organization, or your access to the organization changed.',
  },
  WEBHOOK_NOT_FOUND: { status: 404, message: 'No such webhook callback among yours.' },
  WEBHOOK_INACTIVE: { status: 409, message: 'The webhook callback is deactivated.' },
  WEBHOOK_NOT_VERIFIED: { status: 409, message: 'Verify the webhook callback first.' },
  DELIVERY_NOT_FOUND: { status: 404, message: 'No such delivery of this callback (deliveries are kept 30 days).' },
  DELIVERY_IN_PROGRESS: { status: 409, message: 'The delivery is still being attempted; resend it once it is delivered or finally failed.' },
  INTERNAL_ERROR: { status: 500, message: 'An internal error occurred.' },
  TICKET_SERVICE_UNAVAILABLE: { status: 503, message: 'The ticket service is temporarily unavailable.' },
  RATE_LIMIT_UNAVAILABLE: { status: 503, message: 'Rate protection is unavailable; retry after the Retry-After delay.' },
  // Not in the spec's catalogue (docs/decisions: a deadline is not a bug in the request): the function ran out of time.
  SERVICE_UNAVAILABLE: { status: 503, message: 'The request did not finish in time; retry after the Retry-After delay.' },
  // Not in the spec's catalogue either (docs/request-pipeline.md): a write lost a race no operation explained.
  WRITE_CONFLICT: { status: 503, message: 'A concurrent change kept the request from completing; retry after the Retry-After delay.' },
  // Not in the spec's catalogue either (docs/web-settings.md): the process's password checks were all taken for longer
  // than the request could wait (lambdas/back-office/password-gate.ts); refused before anything was written.
  PASSWORD_CHECK_BUSY: { status: 503, message: 'Too many password checks are running at once; retry after the Retry-After delay.' },
} as const satisfies Record<string, { status: number; message: string; otherStatuses?: readonly number[] }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    /** Extra response headers, e.g. `Retry-After`. */
    readonly headers: Record<string, string> = {},
    options?: { cause?: unknown; status?: number },
  ) {
    super(message ?? ERROR_CATALOG[code].message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    const entry: { status: number; otherStatuses?: readonly number[] } = ERROR_CATALOG[code];
    if (options?.status !== undefined && options.status !== entry.status && !entry.otherStatuses?.includes(options.status)) {
      throw new Error(`${code} is never answered with ${options.status}`);
    }
    this.status = options?.status ?? entry.status;
  }
}

export function apiError(code: ErrorCode, message?: string, headers?: Record<string, string>): ApiError {
  return new ApiError(code, message, headers);
}

/** How long a client waits before retrying a request that ran out of time. */
export const TIMEOUT_RETRY_AFTER_SECONDS = 1;

/** Whether `error` is middy's early timeout: the function neared its deadline before the request finished. */
export function isDeadlineTimeout(error: unknown): boolean {
  const cause = (error as { cause?: { package?: unknown } } | undefined)?.cause;
  return (error as { name?: unknown } | undefined)?.name === 'TimeoutError' && cause?.package === '@middy/core';
}

/** How long a client waits before retrying a request whose write lost a race: the other writer is done by then. */
export const WRITE_CONFLICT_RETRY_AFTER_SECONDS = 1;

/**
 * Map anything thrown to an ApiError: the deadline is a retryable 503 SERVICE_UNAVAILABLE with Retry-After (not a
 * bug in the request); a DynamoDB refusal that reached here unexplained (a failed condition, a cancelled transaction,
 * a transaction still in progress: storage/conditions.ts strayRefusalOf, also as the cause of what a store threw) is a
 * retryable 503 WRITE_CONFLICT with Retry-After, since a try on fresh reads gets the operation's own answer; unknown
 * failures become a generic 500. An operation's own explanation (an ApiError) always wins.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isDeadlineTimeout(error)) return new ApiError('SERVICE_UNAVAILABLE', undefined, { 'Retry-After': String(TIMEOUT_RETRY_AFTER_SECONDS) }, { cause: error });
  if (strayRefusalOf(error)) return new ApiError('WRITE_CONFLICT', undefined, { 'Retry-After': String(WRITE_CONFLICT_RETRY_AFTER_SECONDS) }, { cause: error });
  return new ApiError('INTERNAL_ERROR', undefined, {}, { cause: error });
}
