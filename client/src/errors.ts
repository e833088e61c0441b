/** Every failed answer of the partner API, as one typed error: its code, status and request id, and the rate-limit headers. */
export interface RateLimitInfo {
  readonly limit?: number;
  readonly remaining?: number;
  /** Window end, Unix seconds. */
  readonly reset?: number;
  readonly policy?: string;
}

export class PartnerApiError extends Error {
  override readonly name = 'PartnerApiError';

  constructor(
    /** The spec's `error.code` (`RATE_LIMITED`, `INVALID_API_KEY`, …); `NETWORK_ERROR` or `DEADLINE_EXCEEDED` when no answer came. */
    readonly code: string,
    message: string,
    /** HTTP status; 0 when no answer came. */
    readonly status: number,
    readonly requestId: string | undefined,
    readonly rateLimit: RateLimitInfo,
    /** Seconds to wait before trying again (the Retry-After header), when the service gave one. */
    readonly retryAfter: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Whether the spec lets a client try the same request again (after `retryAfter`). */
  get retryable(): boolean {
    return this.status === 0 || this.status === 408 || this.status === 429 || this.status === 502 || this.status === 503 || this.status === 504;
  }
}

const integer = (value: string | null): number | undefined => {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
};

export function rateLimitOf(headers: Headers): RateLimitInfo {
  return {
    limit: integer(headers.get('x-ratelimit-limit')),
    remaining: integer(headers.get('x-ratelimit-remaining')),
    reset: integer(headers.get('x-ratelimit-reset')),
    policy: headers.get('x-ratelimit-policy') ?? undefined,
  };
}

/** Retry-After in seconds: an integer, or an HTTP date. */
export function retryAfterOf(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = integer(value);
  if (seconds !== undefined) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The error an error answer carries: its parsed body (the envelope; web-side gateway bodies carry `code` on top too). */
export function errorOf(response: Response, body: unknown): PartnerApiError {
  const parsed = (typeof body === 'object' && body !== null ? body : {}) as { error?: { code?: string; message?: string }; code?: string; message?: string; request_id?: string };
  return new PartnerApiError(
    parsed.error?.code ?? parsed.code ?? `HTTP_${response.status}`,
    parsed.error?.message ?? parsed.message ?? (response.statusText || 'The request failed.'),
    response.status,
    parsed.request_id ?? response.headers.get('x-request-id') ?? response.headers.get('x-amzn-requestid') ?? undefined,
    rateLimitOf(response.headers),
    retryAfterOf(response.headers),
  );
}
