/**
 * The spec's rate-limit response headers, formatted in one place: the
 * headline window on admitted requests, the refusing quota on a 429, the
 * policy and Retry-After of a concurrency rejection, Retry-After of a 503.
 */
import {
  CONCURRENCY_RETRY_AFTER_SECONDS,
  HEADLINE_POLICY,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
  windowOf,
  type ConcurrencyLimit,
  type QuotaLimit,
  type RollingLimit,
} from './limits-table';

const retryAfter = (resetAtSeconds: number, now: Date) => Math.max(1, Math.ceil(resetAtSeconds - now.getTime() / 1000));

/** X-RateLimit-* of the headline quota (the key's minute) after an admitted request that brought it to `used`. */
export function headlineHeaders(headline: QuotaLimit | undefined, used: number | undefined, now: Date): Record<string, string> {
  if (!headline || used === undefined) return { 'X-RateLimit-Policy': HEADLINE_POLICY };
  return {
    'X-RateLimit-Limit': String(headline.limit),
    'X-RateLimit-Remaining': String(Math.max(0, headline.limit - used)),
    'X-RateLimit-Reset': String(windowOf(headline.windowSeconds, now.getTime()).resetAt),
    'X-RateLimit-Policy': headline.policy,
  };
}

/** The quota that refused, in the window that refused (Reset = its end, Unix seconds). */
export function quotaRejectionHeaders(limit: QuotaLimit | RollingLimit, resetAt: number, now: Date): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(limit.limit),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': String(resetAt),
    'X-RateLimit-Policy': limit.policy,
    'Retry-After': String(retryAfter(resetAt, now)),
  };
}

/** A full rolling limit: Reset and Retry-After when its oldest live entry expires (`freesAtMs`), the first moment one more fits. */
export function rollingRejectionHeaders(limit: RollingLimit, freesAtMs: number, now: Date): Record<string, string> {
  return quotaRejectionHeaders(limit, Math.ceil(freesAtMs / 1000), now);
}

/** Concurrency rejections guarantee only the policy and Retry-After. */
export function concurrencyRejectionHeaders(limit: ConcurrencyLimit | undefined): Record<string, string> {
  return { 'X-RateLimit-Policy': limit?.policy ?? 'ticket-concurrency', 'Retry-After': String(CONCURRENCY_RETRY_AFTER_SECONDS) };
}

export const UNAVAILABLE_HEADERS: Readonly<Record<string, string>> = { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) };
