/**
 * Cross-checks between the limits table and the infrastructure that are not
 * about one construct: a concurrency slot is a lease that frees itself
 * LEASE_SECONDS after it was taken, so it must outlive the longest possible
 * invocation (the function timeout) — otherwise a slot can expire while the
 * request holding it still runs and a third request gets in.
 */
import { describe, it, expect } from 'vitest';
import { LEASE_SECONDS, LIMITS } from '../../lambdas/shared/limits/limits-table';
import { LONG_LIVED_STAGES, resolveStageConfig } from '../../lib/config/stage-config';
import { checkWafExpressible, wafEdgeLimits } from '../../lib/constructs/edge-rate-rules';
import { logicalIdByPath, resources, stage } from './support';

/** Every long-lived stage plus a representative ephemeral one (ephemeral stages all get the base). */
const STAGES = [...LONG_LIVED_STAGES, 'pr1'];

describe('limits table vs. infrastructure', () => {
  it.each(STAGES)('keeps the %s function timeout below the concurrency lease', (name) => {
    const config = resolveStageConfig(name);

    expect(config.lambda.timeoutSeconds).toBeLessThan(LEASE_SECONDS);
  });

  it('synthesizes every function with a timeout below the concurrency lease (dev), but the webhook pipeline\u2019s', () => {
    const { statelessTemplate } = stage('dev');
    // The worker serves no request: it holds a delivery slot for one attempt (8 s), not for its whole invocation (30 s).
    // The fan-out takes no lease at all.
    const worker = logicalIdByPath(statelessTemplate, 'AWS::Lambda::Function', '/Webhooks/Worker/Resource');
    const fanOut = logicalIdByPath(statelessTemplate, 'AWS::Lambda::Function', '/Webhooks/FanOut/Resource');
    const functions = Object.entries(resources(statelessTemplate, 'AWS::Lambda::Function')).filter(([id]) => id !== worker && id !== fanOut);
    expect(functions.length).toBeGreaterThan(0);

    for (const [, fn] of functions) {
      expect(fn.Properties.Timeout as number).toBeLessThan(LEASE_SECONDS);
    }
  });

  it('marks as WAF-enforced only edge rows WAF can express (windows of 60 s or more, limit >= 10)', () => {
    const rows = wafEdgeLimits(LIMITS);
    expect(rows.length).toBeGreaterThan(0);

    for (const row of rows) expect(() => checkWafExpressible(row), row.policy).not.toThrow();
  });
});
