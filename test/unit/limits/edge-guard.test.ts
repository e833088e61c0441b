/**
 * EdgeGuard: in-process fixed windows for the `edge` rows of the limits
 * table. In a Lambda container it holds only the 10-second bursts WAF cannot
 * express; the local front runs it with every edge row in WAF's place.
 */
import { describe, expect, it } from 'vitest';
import { EdgeGuard, edgeRejectionHeaders, type EdgeRequest } from '../../../lambdas/shared/limits/edge-guard';
import { LIMITS } from '../../../lambdas/shared/limits/limits-table';

/** 12:00:00 UTC: the start of a 10-second and of a minute window. */
const START_MS = Date.parse('2025-03-01T12:00:00.000Z');

function clock(startMs = START_MS) {
  let now = startMs;
  return { now: () => now, set: (ms: number) => void (now = ms) };
}

/** Send `count` requests; the policies of those rejected, in order (undefined when admitted). */
const send = (guard: EdgeGuard, count: number, request: (i: number) => EdgeRequest) =>
  Array.from({ length: count }, (_, i) => guard.check(request(i))?.limit.policy);

const fromIp = (ip: string, authorization?: string): EdgeRequest => ({ surface: 'partner', sourceIp: ip, authorization });

describe('EdgeGuard', () => {
  it('admits 30 requests from one source IP in 10 seconds and rejects the 31st until the window ends', () => {
    // Prepare
    const time = clock(START_MS + 3_200);
    const guard = new EdgeGuard(LIMITS, 'application', time.now);

    // Act
    const first30 = send(guard, 30, () => fromIp('198.51.100.1'));
    const rejection = guard.check(fromIp('198.51.100.1'));

    // Assess
    expect(first30.every((policy) => policy === undefined)).toBe(true);
    expect(rejection?.limit.policy).toBe('edge-ip-burst');
    expect(rejection?.retryAfter).toBe(7);
  });

  it('admits the same source again in the next 10-second window', () => {
    // Prepare
    const time = clock();
    const guard = new EdgeGuard(LIMITS, 'application', time.now);
    send(guard, 31, () => fromIp('198.51.100.1'));

    // Act
    time.set(START_MS + 9_999);
    const stillInWindow = guard.check(fromIp('198.51.100.1'));
    time.set(START_MS + 10_000);
    const nextWindow = guard.check(fromIp('198.51.100.1'));

    // Assess
    expect(stillInWindow?.limit.policy).toBe('edge-ip-burst');
    expect(nextWindow).toBeUndefined();
  });

  it('counts each source IP on its own', () => {
    // Prepare
    const guard = new EdgeGuard(LIMITS, 'application', clock().now);
    send(guard, 30, () => fromIp('198.51.100.1'));

    // Act
    const other = guard.check(fromIp('198.51.100.2'));

    // Assess
    expect(other).toBeUndefined();
  });

  it('rejects the 21st request with one credential in 10 seconds, whatever the source IPs', () => {
    // Prepare
    const guard = new EdgeGuard(LIMITS, 'application', clock().now);

    // Act
    const policies = send(guard, 21, (i) => fromIp(`198.51.100.${i}`, 'Bearer pak_live_unknown'));

    // Assess
    expect(policies.slice(0, 20).every((policy) => policy === undefined)).toBe(true);
    expect(policies[20]).toBe('edge-credential-burst');
  });

  it('ignores requests without Authorization in the credential rules', () => {
    // Prepare
    const guard = new EdgeGuard(LIMITS, 'application', clock().now);

    // Act
    const policies = send(guard, 25, (i) => fromIp(`198.51.100.${i}`));

    // Assess
    expect(policies.every((policy) => policy === undefined)).toBe(true);
  });

  it('counts each credential on its own', () => {
    // Prepare
    const guard = new EdgeGuard(LIMITS, 'application', clock().now);
    send(guard, 20, (i) => fromIp(`198.51.100.${i}`, 'Bearer pak_live_a'));

    // Act
    const other = guard.check(fromIp('198.51.100.99', 'Bearer pak_live_b'));

    // Assess
    expect(other).toBeUndefined();
  });

  it("holds only the 10-second rows in 'application' scope, leaving the minute rows to WAF", () => {
    // Prepare: 20 credentialed requests in each 10-second window of one minute: 120, over the 60 per minute.
    const time = clock();
    const application = new EdgeGuard(LIMITS, 'application', time.now);
    const all = new EdgeGuard(LIMITS, 'all', time.now);
    const rejected: { application: string[]; all: string[] } = { application: [], all: [] };

    // Act
    for (let window = 0; window < 6; window += 1) {
      time.set(START_MS + window * 10_000);
      for (let i = 0; i < 20; i += 1) {
        const request = fromIp(`198.51.100.${window * 20 + i}`, 'Bearer pak_live_busy');
        const a = application.check(request)?.limit.policy;
        const b = all.check(request)?.limit.policy;
        if (a) rejected.application.push(a);
        if (b) rejected.all.push(b);
      }
    }

    // Assess
    expect(rejected.application).toEqual([]);
    expect(rejected.all).toHaveLength(60);
    expect(new Set(rejected.all)).toEqual(new Set(['edge-credential-minute']));
  });

  it("waits until the minute ends when a minute row rejects, in 'all' scope", () => {
    // Prepare: 10 requests with one credential in each 10-second window, 60 in the minute, none over a burst.
    const time = clock();
    const guard = new EdgeGuard(LIMITS, 'all', time.now);
    for (let window = 0; window < 6; window += 1) {
      time.set(START_MS + window * 10_000);
      send(guard, 10, (i) => fromIp(`198.51.100.${window * 10 + i}`, 'Bearer pak_live_busy'));
    }

    // Act
    time.set(START_MS + 55_500);
    const rejection = guard.check(fromIp('203.0.113.1', 'Bearer pak_live_busy'));

    // Assess
    expect(rejection?.limit.policy).toBe('edge-credential-minute');
    expect(rejection?.retryAfter).toBe(5);
  });

  it('names the policy and Retry-After in the rejection headers, and no numbers', () => {
    // Prepare
    const guard = new EdgeGuard(LIMITS, 'application', clock(START_MS + 4_000).now);
    send(guard, 30, () => fromIp('198.51.100.1'));
    const rejection = guard.check(fromIp('198.51.100.1'));

    // Act
    const headers = rejection && edgeRejectionHeaders(rejection);

    // Assess
    expect(headers).toEqual({ 'X-RateLimit-Policy': 'edge-ip-burst', 'Retry-After': '6' });
  });
});

describe('EdgeGuard: one guard, two front doors', () => {
  it('counts the web side and the partner API apart: each surface has its own rules and counters', () => {
    // Prepare: one address, 30 partner requests in one 10-second window (its burst limit).
    const time = clock();
    const guard = new EdgeGuard(LIMITS, 'all', time.now);
    const partnerRejections = send(guard, 30, () => fromIp('198.51.100.7'));

    // Act: the same address on the web side, 31 times in the same window, then once more on the partner API.
    const web = send(guard, 31, () => ({ surface: 'web', sourceIp: '198.51.100.7' }));
    const partnerAgain = guard.check(fromIp('198.51.100.7'))?.limit.policy;

    // Assess
    expect(partnerRejections.filter(Boolean)).toEqual([]);
    expect(web.slice(0, 30).filter(Boolean)).toEqual([]);
    expect(web[30]).toBe('web-ip-burst');
    expect(partnerAgain).toBe('edge-ip-burst');
  });

  it("holds the web side's 60 per minute in 'all' scope (WAF's rule in AWS)", () => {
    const time = clock();
    const guard = new EdgeGuard(LIMITS, 'all', time.now);
    for (let window = 0; window < 6; window += 1) {
      time.set(START_MS + window * 10_000);
      expect(send(guard, 10, () => ({ surface: 'web', sourceIp: '198.51.100.8' })).filter(Boolean)).toEqual([]);
    }
    time.set(START_MS + 59_000);
    expect(guard.check({ surface: 'web', sourceIp: '198.51.100.8' })?.limit.policy).toBe('web-ip-minute');
  });
});

describe('EdgeGuard: rules that cannot be turned against users', () => {
  const KEY = `pak_live_${'ab'.repeat(32)}`;

  it('counts Bearer, bearer, BEARER and extra spaces of one key on one credential counter', () => {
    // Prepare: 20 per 10 seconds per credential.
    const guard = new EdgeGuard(LIMITS, 'application', clock().now);
    const spellings = [`Bearer ${KEY}`, `bearer ${KEY}`, `BEARER ${KEY}`, `Bearer  ${KEY}`, `BeArEr\t${KEY}`];

    // Act: 21 requests, cycling through the spellings, each from its own address.
    const policies = send(guard, 21, (i) => fromIp(`198.51.100.${i}`, spellings[i % spellings.length]));

    // Assess
    expect(policies.slice(0, 20).every((p) => p === undefined)).toBe(true);
    expect(policies[20]).toBe('edge-credential-burst');
  });

  it('lets a few clients flooding junk credentials exhaust the Region-wide rule without ever blocking a well-formed key', () => {
    // Prepare: every edge row, as the local front runs them; limits per client high enough not to interfere.
    const limits = LIMITS.map((l) => (l.kind === 'edge' && l.policy !== 'edge-authentication-minute' ? { ...l, limit: 100_000 } : l));
    const guard = new EdgeGuard(limits, 'all', clock().now);

    // Act: 17 addresses send 180 malformed credentials each (3060 > 3000), then a valid key and an unknown well-formed key arrive.
    const flood = send(guard, 17 * 180, (i) => fromIp(`203.0.113.${i % 17}`, `Bearer junk-${i}`));
    const valid = guard.check(fromIp('198.51.100.7', `Bearer ${KEY}`));
    const unknownWellFormed = guard.check(fromIp('198.51.100.8', `bearer pak_live_${'0'.repeat(64)}`));
    const junk = guard.check(fromIp('198.51.100.9', 'Bearer not-a-key'));

    // Assess
    expect(flood.filter((p) => p === 'edge-authentication-minute')).toHaveLength(17 * 180 - 3000);
    expect(valid).toBeUndefined();
    expect(unknownWellFormed).toBeUndefined();
    expect(junk?.limit.policy).toBe('edge-authentication-minute');
  });
});
