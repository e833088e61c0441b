/**
 * Fixed-window arithmetic of the limits table: windows aligned to UTC, so a
 * daily quota resets at 00:00 UTC, and a Retry-After that is never below 1.
 */
import { describe, expect, it } from 'vitest';
import { covers, edgeLimits, LIMITS, quotaLimits, windowOf } from '../../../lambdas/shared/limits/limits-table';

describe('windowOf', () => {
  it('ends a day window at the next 00:00 UTC and waits until then', () => {
    // Act
    const window = windowOf(86_400, Date.parse('2025-03-01T23:59:30.000Z'));

    // Assess
    expect(window.resetAt).toBe(Date.parse('2025-03-02T00:00:00.000Z') / 1000);
    expect(window.retryAfter).toBe(30);
  });

  it('starts a new minute window at :00 seconds', () => {
    // Act
    const last = windowOf(60, Date.parse('2025-03-01T12:00:59.999Z'));
    const next = windowOf(60, Date.parse('2025-03-01T12:01:00.000Z'));

    // Assess
    expect(next.id).toBe(last.id + 1);
    expect(last.resetAt).toBe(Date.parse('2025-03-01T12:01:00.000Z') / 1000);
  });

  it('rounds Retry-After up and never answers less than 1 second', () => {
    // Act
    const midSecond = windowOf(60, Date.parse('2025-03-01T12:00:58.200Z'));
    const lastMillisecond = windowOf(60, Date.parse('2025-03-01T12:00:59.999Z'));

    // Assess
    expect(midSecond.retryAfter).toBe(2);
    expect(lastMillisecond.retryAfter).toBe(1);
  });
});

describe('covers', () => {
  const byPolicy = (policy: string) => quotaLimits(LIMITS).find((limit) => limit.policy === policy)!;

  it('applies the general quotas to every route and the invitation quotas only to invitation creation', () => {
    // Assess
    expect(covers(byPolicy('key-minute'), undefined)).toBe(true);
    expect(covers(byPolicy('invitation-hour'), 'invitation-create')).toBe(true);
    expect(covers(byPolicy('invitation-hour'), 'ticket')).toBe(false);
    expect(covers(byPolicy('invitation-hour'), undefined)).toBe(false);
    expect(covers(byPolicy('ticket-minute'), 'invitation')).toBe(true);
  });
});

describe('edge rows', () => {
  it('let a Region-wide (location) row count only malformed credentials: one counter over valid keys would let a handful of clients lock every key out', () => {
    // Prepare
    const regionWide = edgeLimits(LIMITS).filter((limit) => limit.aggregate === 'location');

    // Assess
    expect(regionWide.length).toBeGreaterThan(0);
    for (const row of regionWide) expect(row.counts, row.policy).toBe('malformed-credential');
  });
});
