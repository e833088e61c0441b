/** Password hashes: scrypt with a random salt in a self-describing string, verified in constant time; the rules. */
import { describe, expect, it, vi } from 'vitest';
import {
  hashPassword,
  isAcceptablePassword,
  passwordCostInUse,
  PRODUCTION_PASSWORD_COST,
  TEST_PASSWORD_COST,
  verifyAgainstDecoy,
  verifyPassword,
} from '../../../lambdas/back-office/passwords';

describe('password hashes', () => {
  it('use scrypt N = 2^17, r = 8, p = 1 wherever the code runs outside the test suite; the suite alone switches to its own cost', async () => {
    expect(PRODUCTION_PASSWORD_COST).toEqual({ logN: 17, r: 8, p: 1 });
    // This process ran the suite's setup file.
    expect(passwordCostInUse()).toEqual(TEST_PASSWORD_COST);
    // A fresh copy of the module, as a deployed function or the local stack loads it: production.
    vi.resetModules();
    const fresh = await import('../../../lambdas/back-office/passwords');
    expect(fresh.passwordCostInUse()).toEqual(PRODUCTION_PASSWORD_COST);
    // Outside Vitest the switch refuses.
    vi.stubEnv('VITEST', '');
    try {
      expect(() => fresh.usePasswordCostForTests()).toThrow(/test suite only/);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(fresh.passwordCostInUse()).toEqual(PRODUCTION_PASSWORD_COST);
  });

  it('store scrypt (N = 2^17, r = 8, p = 1) with a fresh salt, never the password', async () => {
    const [first, second] = await Promise.all([hashPassword('correct horse battery', PRODUCTION_PASSWORD_COST), hashPassword('correct horse battery', PRODUCTION_PASSWORD_COST)]);
    expect(first).toMatch(/^scrypt\$1\$17\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('horse');
  });

  it('verify the password, not another one, and nothing against a malformed or hostile stored value', async () => {
    const stored = await hashPassword('correct horse battery', PRODUCTION_PASSWORD_COST);
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
    expect(await verifyPassword('correct horse battery', stored.replace('$17$', '$30$'))).toBe(false);
    expect(await verifyPassword('correct horse battery', 'plain')).toBe(false);
    expect(await verifyPassword('correct horse battery', undefined)).toBe(false);
    expect(await verifyAgainstDecoy('correct horse battery')).toBe(false);
  });

  it('compare passwords as NFC, so one spelling of an accented password is not two', async () => {
    const stored = await hashPassword('caf\u00e9 au lait 42');
    expect(await verifyPassword('cafe\u0301 au lait 42', stored)).toBe(true);
  });

  it.each([
    ['123456789', false],
    ['1234567890', true],
    [' '.repeat(12), false],
    ['x'.repeat(128), true],
    ['x'.repeat(129), false],
    ['\u{1F600}'.repeat(10), true],
    [42, false],
  ])('accepts %j: %s', (password, accepted) => {
    expect(isAcceptablePassword(password)).toBe(accepted);
  });
});
