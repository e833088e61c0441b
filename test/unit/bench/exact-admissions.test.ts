/**
 * The bursts' `expected` column: what exact minute quotas that refund a refused request's other
 * counts admit, per phase (bench/scenarios/quota-peers.ts).
 */
import { describe, expect, it } from 'vitest';
import { exactAdmissions } from '../../../bench/scenarios/quota-peers';

const key = (keyId: string, accountId = 'a1') => ({ keyId, accountId, authorization: `Bearer ${keyId}` });
const times = <T>(item: T, n: number) => Array.from({ length: n }, () => item);

describe('exactAdmissions', () => {
  it('admits the organization limit of a burst of many keys', () => {
    // Prepare
    const requests = Array.from({ length: 200 }, (_, i) => key(`k${i % 12}`, `a${i % 4}`));

    // Act
    const admitted = exactAdmissions([requests], 'p1', { 'organization-minute': 50, 'account-minute': 1000, 'key-minute': 1000 });

    // Assess
    expect(admitted).toEqual([50]);
  });

  it("leaves the organization what a key's refused requests did not use", () => {
    // Prepare
    const overLimit = times(key('k0'), 100);
    const others = Array.from({ length: 40 }, (_, i) => key(`k${1 + (i % 5)}`, 'a2'));

    // Act
    const admitted = exactAdmissions([overLimit, others], 'p1', { 'key-minute': 10, 'account-minute': 1000, 'organization-minute': 50 });

    // Assess
    expect(admitted).toEqual([10, 40]);
  });

  it('counts an account over its limit across its keys', () => {
    // Act
    const admitted = exactAdmissions([[key('k1'), key('k2'), key('k3')]], 'p1', { 'account-minute': 2 });

    // Assess
    expect(admitted).toEqual([2]);
  });
});
