/**
 * Who is calling: the presented API key, recognized from its digest.
 *
 * A warm container knows what never changes about a key (its account,
 * organization, scopes, expiry, generations and grant) from KeyFactsCache; a
 * cold one reads the key item once (consistent GetItem) and caches those
 * facts. What can change about a key is not decided here: admission re-checks
 * it inside the writes that count the request (limits/admission.ts).
 *
 * Missing and malformed credentials are looked up like a well-formed key
 * (presentedKey's decoy), so every invalid credential costs the same work and
 * gets the same 401.
 */
import { ApiError } from '../errors';
import { apiKeyKey, toKeyFacts, type ApiKeyItem, type KeyFacts } from './access-items';
import { digestsEqual, presentedKey } from './api-keys';

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

export interface KeyItemReader {
  read(key: { readonly pk: string; readonly sk: string }, signal?: AbortSignal): Promise<Record<string, unknown> | undefined>;
}

export interface AuthenticatedKey {
  readonly facts: KeyFacts;
  /** The key item as a cold container read it (admission learns the item's windows from it); absent when warm. */
  readonly coldImage?: Record<string, unknown>;
}

export interface KeyAuthenticationDeps {
  readonly reader: KeyItemReader;
  readonly cache: KeyFactsCache;
  readonly now: Date;
  readonly signal?: AbortSignal;
}

const invalidKey = () => new ApiError('INVALID_API_KEY');

/** The key behind an Authorization header, or 401 INVALID_API_KEY. */
export async function authenticateKey(authorization: string | undefined, deps: KeyAuthenticationDeps): Promise<AuthenticatedKey> {
  const presented = presentedKey(authorization);
  let facts = presented.wellFormed ? deps.cache.get(presented.keyId) : undefined;
  let coldImage: Record<string, unknown> | undefined;
  if (!facts) {
    const item = await deps.reader.read(apiKeyKey(presented.keyId), deps.signal);
    if (!item || !presented.wellFormed) throw invalidKey();
    const found = toKeyFacts(item as unknown as ApiKeyItem);
    if (!digestsEqual(found.digest, presented.digest) || item.revoked_at) throw invalidKey();
    deps.cache.set(found);
    facts = found;
    coldImage = item;
  } else if (!digestsEqual(facts.digest, presented.digest)) {
    throw invalidKey();
  }
  if (facts.expires_at !== null && Date.parse(facts.expires_at) <= deps.now.getTime()) throw invalidKey();
  return coldImage ? { facts, coldImage } : { facts };
}
