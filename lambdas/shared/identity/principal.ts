/**
 * Who a request acts as, and the per-container cache of what never changes
 * about a key (its account, organization, scopes, expiry, generations and
 * grant). What can change is re-checked on every request by admission.
 */
import type { KeyFacts } from './access-items';

export interface Principal {
  readonly keyId: string;
  readonly accountId: string;
  /** The bound organization; null for personal keys. */
  readonly partnerId: string | null;
  readonly scopes: readonly string[];
  readonly expiresAt: string | null;
}

/** Immutable key facts of keys this container has seen; bounded, oldest evicted first. */
export class KeyFactsCache {
  private readonly entries = new Map<string, KeyFacts>();

  constructor(private readonly capacity = 1000) {}

  get(keyId: string): KeyFacts | undefined {
    return this.entries.get(keyId);
  }

  set(facts: KeyFacts): void {
    this.entries.delete(facts.key_id);
    this.entries.set(facts.key_id, facts);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
