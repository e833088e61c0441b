/**
 * KeyFactsCache: the per-container memory of what never changes about a
 * key, bounded so a container serving many keys does not grow without end.
 */
import { describe, expect, it } from 'vitest';
import { toKeyFacts, type ApiKeyItem } from '../../../lambdas/shared/identity/access-items';
import { KeyFactsCache } from '../../../lambdas/shared/identity/key-authentication';
import { issueKey } from '../support/identity-fixtures';

const facts = (keyId: string) => toKeyFacts({ ...issueKey().item, key_id: keyId } as ApiKeyItem);

describe('KeyFactsCache', () => {
  it('evicts the oldest entry beyond its capacity', () => {
    // Prepare
    const cache = new KeyFactsCache(2);

    // Act
    cache.set(facts('key_a'));
    cache.set(facts('key_b'));
    cache.set(facts('key_c'));

    // Assess
    expect(cache.get('key_a')).toBeUndefined();
    expect(cache.get('key_b')?.key_id).toBe('key_b');
    expect(cache.get('key_c')?.key_id).toBe('key_c');
  });

  it('treats a key set again as the newest', () => {
    // Prepare
    const cache = new KeyFactsCache(2);
    cache.set(facts('key_a'));
    cache.set(facts('key_b'));

    // Act
    cache.set(facts('key_a'));
    cache.set(facts('key_c'));

    // Assess
    expect(cache.get('key_a')?.key_id).toBe('key_a');
    expect(cache.get('key_b')).toBeUndefined();
  });
});
