import { describe, it, expect } from 'vitest';
import {
  CALL_LOG_RETENTION_DAYS,
  DELIVERY_QUEUE_HEALTHY_AGE_SECONDS,
  LAMBDA_MB_PER_VCPU,
  LONG_LIVED_STAGES,
  STAGE_RESERVED_CONCURRENCY_MAXIMUM,
  StageConfigError,
  assertValidStageConfig,
  functionMemoryMb,
  hashSeconds,
  resolveStageConfig,
  signInPeakConcurrency,
  type AlarmsConfig,
  type ApiThrottleConfig,
  type LogRetentionDays,
  type StageConfig,
} from '../../lib/config/stage-config';
import { CLAIMING_RECONCILIATION_BOUND_SECONDS } from '../../lambdas/shared/observability/metric-catalog';
import { PASSWORD_HASH_SECONDS_PER_VCPU } from '../../lambdas/back-office/passwords';
import { SURFACES } from '../../lib/config/surfaces';

describe('resolveStageConfig', () => {
  it('gives every ephemeral stage the base unchanged, apart from its name', () => {
    // Prepare
    const names = ['pr123', 'featurex', 'sandbox1'];

    // Act
    const configs = names.map((name) => resolveStageConfig(name));

    // Assess
    for (const config of configs) {
      expect({ ...config, stage: 'x' }).toEqual({ ...configs[0], stage: 'x' });
      expect(config.longLived).toBe(false);
    }
    expect(configs[0]).toMatchObject({
      removalPolicy: 'destroy',
      pointInTimeRecovery: false,
      deletionProtection: false,
      logRetentionDays: 30,
      alarms: { enabled: false },
      dashboard: false,
    });
  });

  it('keeps dev disposable, without alarms, with a dashboard and 30-day logs', () => {
    const dev = resolveStageConfig('dev');

    expect(dev).toMatchObject({
      stage: 'dev',
      longLived: true,
      removalPolicy: 'destroy',
      pointInTimeRecovery: false,
      deletionProtection: false,
      logRetentionDays: 30,
      alarms: { enabled: false },
      dashboard: true,
    });
  });

  it('retains staging data with PITR, 30-day logs, alarms and a dashboard, without deletion protection', () => {
    const staging = resolveStageConfig('staging');

    expect(staging).toMatchObject({
      removalPolicy: 'retain',
      pointInTimeRecovery: true,
      deletionProtection: false,
      logRetentionDays: 30,
      alarms: { enabled: true },
      dashboard: true,
    });
  });

  it('protects prod: retain, PITR, deletion protection, 30-day logs, alarms, a dashboard', () => {
    const prod = resolveStageConfig('prod');

    expect(prod).toMatchObject({
      removalPolicy: 'retain',
      pointInTimeRecovery: true,
      deletionProtection: true,
      logRetentionDays: 30,
      alarms: { enabled: true },
      dashboard: true,
    });
  });

  it.each([...LONG_LIVED_STAGES, 'pr7'])('keeps the %s call logs (the functions’ logs) at least the spec’s 30 days', (name) => {
    expect(CALL_LOG_RETENTION_DAYS).toBe(30);
    expect(resolveStageConfig(name).logRetentionDays).toBeGreaterThanOrEqual(CALL_LOG_RETENTION_DAYS);
  });

  it('merges nested overrides field by field instead of replacing the whole object', () => {
    // prod overrides a few alarm thresholds; the others come from the base.
    const base = resolveStageConfig('pr1');
    const prod = resolveStageConfig('prod');

    expect(prod.alarms.p99LatencyMs).not.toBe(base.alarms.p99LatencyMs);
    expect(prod.alarms.api5xxRatePercent).toBeLessThan(base.alarms.api5xxRatePercent);
    expect(prod.alarms.lambdaErrorsThreshold).toBe(base.alarms.lambdaErrorsThreshold);
    expect(prod.alarms.claimingOldestAgeSeconds).toBe(base.alarms.claimingOldestAgeSeconds);
    expect(prod.lambda).toEqual(base.lambda);
  });

  it.each(['staging', 'prod'])('gives %s alarm thresholds that pass validation, the claiming one at the reconciliation bound', (name) => {
    const config = resolveStageConfig(name);

    expect(() => assertValidStageConfig(config)).not.toThrow();
    expect(config.alarms.claimingOldestAgeSeconds).toBe(CLAIMING_RECONCILIATION_BOUND_SECONDS);
    expect(config.alarms.deliveryQueueOldestAgeSeconds).toBeGreaterThan(DELIVERY_QUEUE_HEALTHY_AGE_SECONDS);
  });

  it('types the stage throttle per front door: one entry for the partner API, one for the web side, nothing else', () => {
    // Prepare
    const config: StageConfig = resolveStageConfig('dev');
    const partner: ApiThrottleConfig = config.apiThrottle.partner;
    const web: ApiThrottleConfig = config.apiThrottle.web;
    // @ts-expect-error: there is no third front door (tsc -p . checks this line)
    const unknown: ApiThrottleConfig | undefined = config.apiThrottle.admin;

    // Assess
    expect(Object.keys(config.apiThrottle).sort()).toEqual([...SURFACES].sort());
    expect(unknown).toBeUndefined();
    for (const throttle of [partner, web]) {
      expect(throttle.rateLimit).toBeGreaterThan(0);
      expect(Number.isInteger(throttle.burstLimit)).toBe(true);
    }
  });

  it.each([...LONG_LIVED_STAGES, 'pr3'])('throttles the %s web stage apart from, and below, the partner API', (name) => {
    const { apiThrottle } = resolveStageConfig(name);

    expect(apiThrottle.web.rateLimit).toBeLessThan(apiThrottle.partner.rateLimit);
    expect(apiThrottle.web.burstLimit).toBeLessThan(apiThrottle.partner.burstLimit);
    expect(apiThrottle.web).not.toBe(apiThrottle.partner);
  });

  it('gives dev the base throttles and prod its own, per front door', () => {
    const base = resolveStageConfig('pr1');
    const dev = resolveStageConfig('dev');
    const prod = resolveStageConfig('prod');

    // dev overrides no throttle: both entries are the base's.
    expect(dev.apiThrottle).toEqual(base.apiThrottle);
    expect(prod.apiThrottle).toEqual({ partner: { rateLimit: 200, burstLimit: 400 }, web: { rateLimit: 100, burstLimit: 200 } });
    expect(Object.isFrozen(prod.apiThrottle.web)).toBe(true);
  });

  it('gives sign-in its own stage throttle per stage, within the web stage\'s, and refuses one above it', () => {
    expect(resolveStageConfig('pr1').signInThrottle).toEqual({ rateLimit: 5, burstLimit: 10 });
    expect(resolveStageConfig('prod').signInThrottle).toEqual({ rateLimit: 25, burstLimit: 25 });
    const prod = resolveStageConfig('prod');
    expect(() => assertValidStageConfig({ ...prod, signInThrottle: { rateLimit: 150, burstLimit: 100 } })).toThrow(/signInThrottle \(150 \/ 100\) must stay within apiThrottle.web/);
    expect(() => assertValidStageConfig({ ...prod, signInThrottle: { rateLimit: 10, burstLimit: 0 } })).toThrow(/signInThrottle needs/);
  });

  it('reserves concurrency for the web side\'s functions on prod, for sign-in on every long-lived stage, within what Lambda leaves reservable', () => {
    expect(resolveStageConfig('prod').reservedConcurrency).toEqual({ player: 40, settings: 20, 'sign-in': 45, webhooks: 10 });
    expect(resolveStageConfig('staging').reservedConcurrency).toEqual({ 'sign-in': 30 });
    expect(resolveStageConfig('dev').reservedConcurrency).toEqual({ 'sign-in': 15 });
    expect(resolveStageConfig('pr1').reservedConcurrency).toEqual({});
    const prod = resolveStageConfig('prod');
    expect(() => assertValidStageConfig({ ...prod, reservedConcurrency: { player: 0 } })).toThrow(/reservedConcurrency.player must be an integer >= 1/);
    expect(() => assertValidStageConfig({ ...prod, reservedConcurrency: { player: 400, settings: 51 } })).toThrow(/reserves 451 in all, above 450/);
  });

  it('times a password hash at the measured full-vCPU figure from 1,769 MB up, and stretches it by the CPU share below', () => {
    expect(hashSeconds(LAMBDA_MB_PER_VCPU)).toBe(PASSWORD_HASH_SECONDS_PER_VCPU);
    expect(hashSeconds(2 * LAMBDA_MB_PER_VCPU)).toBe(PASSWORD_HASH_SECONDS_PER_VCPU);
    expect(hashSeconds(512)).toBeCloseTo((PASSWORD_HASH_SECONDS_PER_VCPU * 1769) / 512, 10);
  });

  it('runs sign-in on a full vCPU on every stage, every other function on the stage\'s memory', () => {
    for (const name of [...LONG_LIVED_STAGES, 'pr1']) {
      const config = resolveStageConfig(name);
      expect(functionMemoryMb(config, 'sign-in'), name).toBe(LAMBDA_MB_PER_VCPU);
      expect(functionMemoryMb(config, 'settings'), name).toBe(config.lambda.memoryMb);
    }
    const dev = resolveStageConfig('dev');
    expect(() => assertValidStageConfig({ ...dev, lambda: { ...dev.lambda, groupMemoryMb: { 'sign-in': 100 } } })).toThrow(/lambda.groupMemoryMb.sign-in must be an integer from 128 to 10240/);
  });

  it.each(LONG_LIVED_STAGES)('keeps what the sign-in throttle of %s lets run at once (burst + rate × hash time) within the sign-in reservation', (name) => {
    // Prepare
    const config = resolveStageConfig(name);
    const { rateLimit, burstLimit } = config.signInThrottle;

    // Act
    const peak = signInPeakConcurrency(config);

    // Assess
    expect(peak).toBe(burstLimit + rateLimit * hashSeconds(functionMemoryMb(config, 'sign-in')));
    expect(peak).toBeLessThanOrEqual(config.reservedConcurrency['sign-in'] as number);
    const total = Object.values(config.reservedConcurrency).reduce<number>((sum, value) => sum + (value ?? 0), 0);
    expect(total).toBeLessThanOrEqual(STAGE_RESERVED_CONCURRENCY_MAXIMUM);
  });

  it('refuses a sign-in throttle that could keep more executions busy than the sign-in reservation', () => {
    // Prepare: prod's 25 / 25 on a full vCPU keeps 25 + 25 × 0.8 = 45 busy, its reservation.
    const prod = resolveStageConfig('prod');
    const saturating: [string, StageConfig][] = [
      // One execution fewer than the peak.
      ['reservation', { ...prod, reservedConcurrency: { ...prod.reservedConcurrency, 'sign-in': 44 } }],
      // A faster refill: 25 + 30 × 0.8 = 49.
      ['rate', { ...prod, signInThrottle: { rateLimit: 30, burstLimit: 25 } }],
      // A deeper bucket: 40 + 25 × 0.8 = 60.
      ['burst', { ...prod, signInThrottle: { rateLimit: 25, burstLimit: 40 } }],
      // Less memory, a slower hash: at 512 MB 25 + 25 × 0.8 × 1769 / 512 ≈ 94.
      ['memory', { ...prod, lambda: { ...prod.lambda, groupMemoryMb: { 'sign-in': 512 } } }],
      // Each bound alone holds (25 × 0.8 = 20 ≤ 25, burst 25 ≤ 25), but a burst on a refilling bucket adds both: 45 > 25.
      ['both terms', { ...prod, reservedConcurrency: { ...prod.reservedConcurrency, 'sign-in': 25 } }],
    ];

    // Act / Assess
    for (const [change, config] of saturating) {
      expect(() => assertValidStageConfig(config), change).toThrow(/signInThrottle \(\d+ \/ \d+\) can keep [\d.]+ sign-in executions busy .* above reservedConcurrency\['sign-in'\] \d+: a flood would meet Lambda's throttle \(5XX\) instead of 429/);
    }
    expect(() => assertValidStageConfig(prod)).not.toThrow();
  });

  it('requires a sign-in reservation on every long-lived stage, not on an ephemeral one', () => {
    const staging = resolveStageConfig('staging');
    expect(() => assertValidStageConfig({ ...staging, reservedConcurrency: {} })).toThrow(/reservedConcurrency\['sign-in'\] is required on a long-lived stage/);
    expect(() => assertValidStageConfig({ ...resolveStageConfig('pr1'), reservedConcurrency: {} })).not.toThrow();
  });

  it('keeps every Lambda timeout below the 29 s API Gateway integration timeout', () => {
    for (const name of [...LONG_LIVED_STAGES, 'pr9']) {
      expect(resolveStageConfig(name).lambda.timeoutSeconds).toBeLessThan(29);
    }
  });

  it('accepts an alarm e-mail and rejects something that is not one', () => {
    expect(resolveStageConfig('prod', { notifyEmail: 'ops@example.com' }).alarms.notifyEmail).toBe('ops@example.com');
    expect(() => resolveStageConfig('prod', { notifyEmail: 'not-an-email' })).toThrow(StageConfigError);
  });

  it.each([1, 7, 14] as LogRetentionDays[])('refuses to keep logs %i days: the spec keeps call logs 30', (days) => {
    const config: StageConfig = { ...resolveStageConfig('pr2'), logRetentionDays: days };

    expect(() => assertValidStageConfig(config)).toThrow(StageConfigError);
    expect(() => assertValidStageConfig(config)).toThrow(/logRetentionDays must be at least 30/);
  });

  it.each<[string, Partial<AlarmsConfig>, RegExp]>([
    ['a 5XX rate of 0 %', { api5xxRatePercent: 0 }, /alarms.api5xxRatePercent/],
    ['a failure rate above 100 %', { webhookFailureRatePercent: 101 }, /alarms.webhookFailureRatePercent/],
    ['a fractional minimum of requests', { api5xxMinRequests: 2.5 }, /alarms.api5xxMinRequests/],
    ['no minimum of ended deliveries', { webhookFailureMinDeliveries: 0 }, /alarms.webhookFailureMinDeliveries/],
    ['a throttle threshold of 0 (always alarming)', { lambdaThrottlesThreshold: 0 }, /alarms.lambdaThrottlesThreshold/],
    ['a claiming age below the reconciliation bound', { claimingOldestAgeSeconds: CLAIMING_RECONCILIATION_BOUND_SECONDS - 1 }, /alarms.claimingOldestAgeSeconds/],
    ['a queue age a healthy delayed retry reaches', { deliveryQueueOldestAgeSeconds: DELIVERY_QUEUE_HEALTHY_AGE_SECONDS }, /alarms.deliveryQueueOldestAgeSeconds/],
  ])('refuses %s', (_, alarms, message) => {
    const base = resolveStageConfig('prod');
    const config: StageConfig = { ...base, alarms: { ...base.alarms, ...alarms } };

    expect(() => assertValidStageConfig(config)).toThrow(message);
  });

  it('returns a frozen object so a construct cannot change another stage’s view', () => {
    const config = resolveStageConfig('dev');

    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.alarms)).toBe(true);
    expect(resolveStageConfig('dev')).not.toBe(config);
  });

  it.each(['', 'Dev', 'PROD', '1abc', '-pr', 'pr_123', 'pr.123', 'a'.repeat(21), 'pr 1', 'pr-123', 'dev-web', 'x-api'])(
    'rejects the invalid stage name %j with a clear error',
    (name) => {
      expect(() => resolveStageConfig(name)).toThrow(StageConfigError);
      expect(() => resolveStageConfig(name)).toThrow(/Invalid stage name/);
    },
  );

  it.each(['a', 'pr123', 'a'.repeat(20), 'x1y'])('accepts the valid stage name %j', (name) => {
    expect(resolveStageConfig(name).stage).toBe(name);
  });

  it('refuses a hyphen, which would let stage "dev-web" claim the names of stage dev’s web side, saying why', () => {
    expect(() => resolveStageConfig('dev-web')).toThrow(/No hyphens: a stage named "dev-web" would claim the names of stage dev's web side/);
  });

  it('refuses "baseline", the account-level stack’s token', () => {
    expect(() => resolveStageConfig('baseline')).toThrow(/reserved for the account-level stack/);
  });

  it('takes the alarm e-mail from the stage’s overrides only (ephemeral and dev stages have no alarms to send)', () => {
    for (const name of ['pr1', ...LONG_LIVED_STAGES]) expect(resolveStageConfig(name).alarms.notifyEmail).toBeUndefined();
  });
});
