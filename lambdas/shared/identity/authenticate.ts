/**
 * Authentication and authorization of a request: who holds the key, and may
 * they call this route. Every invalid credential (missing, malformed, wrong,
 * expired, revoked, deactivated account) takes the same path and yields the
 * same 401, so neither the answer nor the work done tells them apart.
 *
 * Round trips: a warm Lambda knows a key's immutable facts (account,
 * organization, scopes, expiry, generations) from an earlier request and
 * spends one BatchGetItem on what can change; a cold one first reads the key.
 */
import { ApiError } from '../http/errors';
import type { KeyFacts } from './access-items';
import { digestsEqual, presentedKey } from './api-keys';
import type { IdentityReader } from './identity-store';
import { assessKey } from './key-standing';
import type { Scope } from './scopes';

export interface Principal {
  readonly keyId: string;
  readonly accountId: string;
  /** The bound organization; null for personal keys. */
  readonly partnerId: string | null;
  readonly scopes: readonly string[];
  readonly expiresAt: string | null;
}

export interface AccessRequirement {
  readonly scope?: Scope;
  /** The `{partner_id}` of the path, for organization routes. */
  readonly partnerId?: string;
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

const invalidKey = () => new ApiError('INVALID_API_KEY');

export async function authenticate(
  authorization: string | undefined,
  requirement: AccessRequirement,
  deps: { reader: IdentityReader; cache: KeyFactsCache; now: Date },
): Promise<Principal> {
  const presented = presentedKey(authorization);
  const { reader, cache, now } = deps;

  let facts = presented.wellFormed ? cache.get(presented.keyId) : undefined;
  let state;
  if (facts) {
    state = await reader.readKeyState(facts, { includeKey: true });
  } else {
    const found = await reader.readKey(presented.keyId);
    if (!found || !presented.wellFormed) throw invalidKey();
    facts = found.facts;
    state = await reader.readKeyState(facts, { includeKey: false });
    state = { ...state, key: { revoked_at: found.revokedAt } };
  }
  if (!digestsEqual(facts.digest, presented.digest)) throw invalidKey();
  cache.set(facts);

  const standing = assessKey(facts, state, now);
  if (!standing.usable) throw new ApiError(standing.denial);

  if (requirement.partnerId !== undefined && facts.partner_id !== requirement.partnerId) {
    throw new ApiError('PARTNER_SCOPE_MISMATCH');
  }
  if (requirement.scope && !facts.scopes.includes(requirement.scope)) {
    throw new ApiError('INSUFFICIENT_SCOPE');
  }
  return {
    keyId: facts.key_id,
    accountId: facts.account_id,
    partnerId: facts.partner_id,
    scopes: facts.scopes,
    expiresAt: facts.expires_at,
  };
}
