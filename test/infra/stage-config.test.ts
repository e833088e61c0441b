import { describe, it, expect } from 'vitest';
import { LONG_LIVED_STAGES, StageConfigError, resolveStageConfig, type ApiThrottleConfig, type StageConfig } from '../../lib/config/stage-config';
import { SURFACES } from '../../lib/config/surfaces';

describe('resolveStageConfig', () => {
  it('gives every ephemeral stage the base unchanged, apart from its name', () => {
    // Prepare
    const names = ['pr-123', 'feature-x', 'sandbox1'];

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
      logRetentionDays: 7,
      apiGatewayAccountLogRole: false,
      alarms: { enabled: false },
    });
  });

  it('keeps dev disposable with 7-day logs and no alarms', () => {
    const dev = resolveStageConfig('dev');

    expect(dev).toMatchObject({
      stage: 'dev',
      longLived: true,
      removalPolicy: 'destroy',
      pointInTimeRecovery: false,
      deletionProtection: false,
      logRetentionDays: 7,
      alarms: { enabled: false },
    });
  });

  it('retains staging data with PITR, 30-day logs and alarms, without deletion protection', () => {
    const staging = resolveStageConfig('staging');

    expect(staging).toMatchObject({
      removalPolicy: 'retain',
      pointInTimeRecovery: true,
      deletionProtection: false,
      logRetentionDays: 30,
      alarms: { enabled: true },
    });
  });

  it('protects prod: retain, PITR, deletion protection, 30-day logs (the spec keeps call logs 30 days), alarms', () => {
    const prod = resolveStageConfig('prod');

    expect(prod).toMatchObject({
      removalPolicy: 'retain',
      pointInTimeRecovery: true,
      deletionProtection: true,
      logRetentionDays: 30,
      alarms: { enabled: true },
    });
  });

  it('merges nested overrides field by field instead of replacing the whole object', () => {
    // prod overrides only alarms.enabled and alarms.p99LatencyMs; the other thresholds come from the base.
    const base = resolveStageConfig('pr-1');
    const prod = resolveStageConfig('prod');

    expect(prod.alarms.p99LatencyMs).not.toBe(base.alarms.p99LatencyMs);
    expect(prod.alarms.api5xxThreshold).toBe(base.alarms.api5xxThreshold);
    expect(prod.alarms.lambdaErrorsThreshold).toBe(base.alarms.lambdaErrorsThreshold);
    expect(prod.lambda).toEqual(base.lambda);
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

  it.each([...LONG_LIVED_STAGES, 'pr-3'])('throttles the %s web stage apart from, and below, the partner API', (name) => {
    const { apiThrottle } = resolveStageConfig(name);

    expect(apiThrottle.web.rateLimit).toBeLessThan(apiThrottle.partner.rateLimit);
    expect(apiThrottle.web.burstLimit).toBeLessThan(apiThrottle.partner.burstLimit);
    expect(apiThrottle.web).not.toBe(apiThrottle.partner);
  });

  it('gives dev the base throttles and prod its own, per front door', () => {
    const base = resolveStageConfig('pr-1');
    const dev = resolveStageConfig('dev');
    const prod = resolveStageConfig('prod');

    // dev overrides no throttle: both entries are the base's.
    expect(dev.apiThrottle).toEqual(base.apiThrottle);
    expect(prod.apiThrottle).toEqual({ partner: { rateLimit: 200, burstLimit: 400 }, web: { rateLimit: 100, burstLimit: 200 } });
    expect(Object.isFrozen(prod.apiThrottle.web)).toBe(true);
  });

  it('keeps every Lambda timeout below the 29 s API Gateway integration timeout', () => {
    for (const name of [...LONG_LIVED_STAGES, 'pr-9']) {
      expect(resolveStageConfig(name).lambda.timeoutSeconds).toBeLessThan(29);
    }
  });

  it('accepts an alarm e-mail and rejects something that is not one', () => {
    expect(resolveStageConfig('prod', { notifyEmail: 'ops@example.com' }).alarms.notifyEmail).toBe('ops@example.com');
    expect(() => resolveStageConfig('prod', { notifyEmail: 'not-an-email' })).toThrow(StageConfigError);
  });

  it('returns a frozen object so a construct cannot change another stage’s view', () => {
    const config = resolveStageConfig('dev');

    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.alarms)).toBe(true);
    expect(resolveStageConfig('dev')).not.toBe(config);
  });

  it.each(['', 'Dev', 'PROD', '1abc', '-pr', 'pr_123', 'pr.123', 'a'.repeat(21), 'pr 1'])(
    'rejects the invalid stage name %j with a clear error',
    (name) => {
      expect(() => resolveStageConfig(name)).toThrow(StageConfigError);
      expect(() => resolveStageConfig(name)).toThrow(/Invalid stage name/);
    },
  );

  it.each(['a', 'pr-123', 'a'.repeat(20), 'x-1-y'])('accepts the valid stage name %j', (name) => {
    expect(resolveStageConfig(name).stage).toBe(name);
  });
});
