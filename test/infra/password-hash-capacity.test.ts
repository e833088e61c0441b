/**
 * Every function that hashes passwords has what one of its requests needs (lib/config/password-hashing.ts), read off
 * each stage's synthesized template: memory for one hash (128 MiB) beside the process (128 MB), since a Lambda
 * execution serves one request and a request hashes one password after another, and time within the function's
 * timeout for the most hashes one request does, at the CPU share its memory gives. A stage configuration that breaks
 * either is refused at synthesis (assertValidStageConfig).
 */
import { describe, expect, it } from 'vitest';
import { hashesInMemory } from '../../lambdas/back-office/password-gate';
import { PASSWORD_HASHES_PER_REQUEST } from '../../lib/config/password-hashing';
import { assertValidStageConfig, hashSeconds, LONG_LIVED_STAGES, resolveStageConfig } from '../../lib/config/stage-config';
import type { EndpointGroup } from '../../lambdas/shared/http/routes';
import { functionLogicalId, resources, stage } from './support';

const FUNCTION = 'AWS::Lambda::Function';

describe('password hashes and the functions\u2019 memory', () => {
  it('declares the functions that hash: sign-in once a request, settings up to 3 (a password change\u2019s retry check), webhooks once', () => {
    expect(PASSWORD_HASHES_PER_REQUEST).toEqual({ 'sign-in': 1, settings: 3, webhooks: 1 });
  });

  it.each([...LONG_LIVED_STAGES, 'pr1'])('%s: each hashing function has memory for a hash and time for its requests\u2019 hashes, as deployed', (name) => {
    // Prepare
    const { statelessTemplate } = stage(name);
    const functions = resources(statelessTemplate, FUNCTION);

    for (const [group, hashes] of Object.entries(PASSWORD_HASHES_PER_REQUEST) as [EndpointGroup, number][]) {
      // Act: the deployed memory and timeout.
      const { MemorySize: memoryMb, Timeout: timeoutSeconds } = functions[functionLogicalId(statelessTemplate, group)].Properties as { MemorySize: number; Timeout: number };

      // Assess
      expect(hashesInMemory(memoryMb), `${name} ${group}`).toBeGreaterThanOrEqual(1);
      expect(hashes * hashSeconds(memoryMb), `${name} ${group}`).toBeLessThanOrEqual(timeoutSeconds);
    }
  });

  it('refuses a stage whose hashing function has no room for a hash, or no time for its requests\u2019 hashes', () => {
    // Prepare
    const dev = resolveStageConfig('dev');

    // Act / Assess: 200 MB leaves no 128 MiB beside the process's 128 MB.
    expect(() => assertValidStageConfig({ ...dev, lambda: { ...dev.lambda, groupMemoryMb: { ...dev.lambda.groupMemoryMb, webhooks: 200 } } })).toThrow(
      /the webhooks function's 200 MB has no room for a password hash/,
    );
    // 3 hashes at 512 MB (0.8 s × 1769 / 512 each: 8.29 s) do not fit in 6 s.
    expect(() => assertValidStageConfig({ ...dev, lambda: { ...dev.lambda, timeoutSeconds: 6 } })).toThrow(/the settings function's requests hash up to 3 passwords, 8.29 s at 512 MB, beyond lambda.timeoutSeconds 6/);
  });
});
