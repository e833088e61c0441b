/**
 * In-process edge protection: fixed-window counters by source IP, by
 * credential (a digest of the normalized Authorization header, so unknown
 * but well-formed credentials count too) and overall for malformed
 * credentials, from the `edge` rows of the limits table.
 *
 * In AWS, WAF enforces the minute rules and this guard, inside each Lambda
 * container, the 10-second bursts WAF cannot express (approximate, as the
 * spec's "about" says: per container, like WAF's counts are per location).
 * The local front runs it with every edge rule, standing in for WAF.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../errors';
import { isWellFormedCredential, normalizeCredential } from '../identity/api-keys';
import { edgeLimits, windowOf, type EdgeLimit, type Limit } from './limits-table';

export interface EdgeRequest {
  /** The front door the request came through: only that surface's rules count it. */
  readonly surface: 'partner' | 'web';
  readonly sourceIp?: string;
  readonly authorization?: string;
}

export interface EdgeRejection {
  readonly limit: EdgeLimit;
  readonly retryAfter: number;
}

export class EdgeGuard {
  private readonly rules: readonly EdgeLimit[];
  private readonly counters = new Map<string, { window: number; count: number }>();

  constructor(
    limits: readonly Limit[],
    scope: 'application' | 'all',
    private readonly nowMs: () => number = Date.now,
  ) {
    this.rules = edgeLimits(limits).filter((rule) => scope === 'all' || rule.enforcedBy === 'application');
  }

  /** Count the request under every rule that applies; the first rule over its limit rejects it. */
  check(request: EdgeRequest): EdgeRejection | undefined {
    const now = this.nowMs();
    let rejection: EdgeRejection | undefined;
    for (const rule of this.rules) {
      if (rule.surface !== request.surface) continue;
      const subject = this.subject(rule, request);
      if (subject === undefined) continue;
      const window = windowOf(rule.windowSeconds, now);
      const key = `${rule.policy}|${subject}`;
      const counter = this.counters.get(key);
      const count = counter && counter.window === window.id ? counter.count + 1 : 1;
      this.counters.set(key, { window: window.id, count });
      if (count > rule.limit && !rejection) rejection = { limit: rule, retryAfter: window.retryAfter };
    }
    if (this.counters.size > 50_000) this.prune(now);
    return rejection;
  }

  private subject(rule: EdgeLimit, request: EdgeRequest): string | undefined {
    const { authorization } = request;
    if (rule.counts !== 'all' && !authorization) return undefined;
    if (rule.counts === 'malformed-credential' && authorization && isWellFormedCredential(authorization)) return undefined;
    switch (rule.aggregate) {
      case 'ip':
        return request.sourceIp ?? 'unknown';
      case 'credential':
        // Normalized as WAF's custom key is: `Bearer`/`bearer` spellings of one key share a counter.
        return createHash('sha256').update(normalizeCredential(authorization ?? '')).digest('base64url').slice(0, 22);
      case 'location':
        return 'all';
    }
  }

  private prune(now: number): void {
    for (const [key, counter] of this.counters) {
      const rule = this.rules.find((r) => key.startsWith(`${r.policy}|`));
      if (!rule || counter.window < windowOf(rule.windowSeconds, now).id) this.counters.delete(key);
    }
  }
}

/** Headers of an edge rejection: the policy and Retry-After (edge rejections guarantee only these). */
export function edgeRejectionHeaders(rejection: EdgeRejection): Record<string, string> {
  return { 'X-RateLimit-Policy': rejection.limit.policy, 'Retry-After': String(rejection.retryAfter) };
}

/** The 429 an edge rejection answers, wherever the guard runs (Lambda pipeline or local front). */
export function edgeRejection(rejection: EdgeRejection): ApiError {
  return new ApiError('RATE_LIMITED', undefined, edgeRejectionHeaders(rejection));
}
