/**
 * One password hash on this machine, against the figure the stage configuration checks the sign-in function's
 * reservation with (PASSWORD_HASH_SECONDS_PER_VCPU: lib/config/stage-config.ts signInPeakConcurrency). A sign-in's
 * verification (or the decoy's, for an unknown address) of a hash at the production cost, timed one at a time in this
 * process while nothing else of the bench runs: scrypt is one thread, so this is one core's time, what Lambda's one
 * vCPU at 1,769 MB gives the sign-in function. Reported, never asserted: a ratio above 1 on a quiet machine says the
 * declared figure, and the reservations checked against it, must rise.
 */
import { hashPassword, PASSWORD_HASH_SECONDS_PER_VCPU, PRODUCTION_PASSWORD_COST, verifyPassword } from '../../lambdas/back-office/passwords';
import { defineScenario, type PasswordHashRow } from '../scenario';
import { median, round } from '../stats';

const SCENARIO = 'password-hash';
const PASSWORD = 'bench-password-hash-1';

export const passwordHash = defineScenario<string>({
  name: SCENARIO,
  description: 'seconds per password verification (scrypt, the production cost), one at a time, against PASSWORD_HASH_SECONDS_PER_VCPU',
  // The stored hash, and one untimed verification (the first pays scrypt's allocation of 128 MiB).
  setup: async () => {
    const stored = await hashPassword(PASSWORD, PRODUCTION_PASSWORD_COST);
    if (!(await verifyPassword(PASSWORD, stored))) throw new Error('password-hash: the stored hash does not verify');
    return stored;
  },
  run: async ({ plan, progress }, stored) => {
    progress(`${plan.passwordHashes} password verifications, one at a time`);
    const runs: number[] = [];
    for (let i = 0; i < plan.passwordHashes; i += 1) {
      const started = performance.now();
      const verified = await verifyPassword(PASSWORD, stored);
      runs.push((performance.now() - started) / 1000);
      if (!verified) throw new Error('password-hash: a verification failed');
    }
    const medianSeconds = median(runs);
    const row: PasswordHashRow = {
      kind: 'password-hash',
      scenario: SCENARIO,
      cost: { ...PRODUCTION_PASSWORD_COST },
      hashes: runs.length,
      median_s: round(medianSeconds, 3),
      min_s: round(Math.min(...runs), 3),
      max_s: round(Math.max(...runs), 3),
      runs_s: runs.map((seconds) => round(seconds, 3)),
      declared_s: PASSWORD_HASH_SECONDS_PER_VCPU,
      ratio: round(medianSeconds / PASSWORD_HASH_SECONDS_PER_VCPU, 2),
    };
    return [row];
  },
});
