/**
 * API key material: the live-key format, generation, the irreversible digest
 * that is the only thing stored, and the key id derived from it.
 *
 * A key is `pak_live_` followed by 64 random hex characters (256 bits). With
 * that much entropy a plain SHA-256 is irreversible; the key id is the first
 * 96 bits of the digest, so the stored item can be found from the presented
 * key alone, and the full digest is compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const LIVE_KEY_PREFIX = 'pak_live_';
/** Hex characters after the prefix: 32 random bytes. */
export const LIVE_KEY_HEX_CHARS = 64;
export const LIVE_KEY_PATTERN = /^pak_live_[0-9a-f]{64}$/;
/**
 * Anything that looks like a live key, anywhere in a string, in any letter
 * case (used to refuse credentials in URLs and bodies; WAF matches the prefix
 * after lowercasing, see lib/constructs/edge-protection.ts).
 */
export const LIVE_KEY_SEARCH = /pak_live_[0-9a-f]{16,}/i;

/**
 * The form of an Authorization header that edge counters key on: white space
 * runs collapsed to one space, then lowercased. `Bearer`, `bearer` and
 * `BEARER` are one scheme (RFC 9110), so spellings of one credential share
 * one counter; live keys are lowercase hex, so lowercasing merges nothing
 * else. WAF applies the same text transformations (COMPRESS_WHITE_SPACE, then
 * LOWERCASE) to the header (lib/constructs/edge-rate-rules.ts).
 */
export function normalizeCredential(authorization: string): string {
  return authorization.replace(/\s+/g, ' ').toLowerCase();
}

/** A normalized Authorization header that is a well-formed live key (whether or not such a key exists). */
export const WELL_FORMED_CREDENTIAL = /^bearer pak_live_[0-9a-f]{64}$/;

export const isWellFormedCredential = (authorization: string) => WELL_FORMED_CREDENTIAL.test(normalizeCredential(authorization));

export function generateApiKey(): string {
  return LIVE_KEY_PREFIX + randomBytes(32).toString('hex');
}

export function digestApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function keyIdFromDigest(digest: string): string {
  return `key_${digest.slice(0, 24)}`;
}

export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}


export interface PresentedKey {
  readonly wellFormed: boolean;
  readonly digest: string;
  readonly keyId: string;
}

/**
 * Parse an Authorization header value. Always returns a digest and key id to
 * look up, a decoy one when the header is missing or malformed, so that every
 * failure costs the same work and yields the same answer.
 *
 * The decoy is the digest of a fresh random key, not a fixed one: one fixed
 * decoy item would be read by every unauthenticated request, a hot partition
 * an attacker could heat at will. A random decoy costs exactly what a
 * well-formed unknown key costs (one SHA-256, one read of an item that does
 * not exist) and spreads those reads over the whole key space.
 */
export function presentedKey(authorization: string | undefined): PresentedKey {
  // The auth scheme is case-insensitive and followed by one or more spaces (RFC 9110 §11.1, §11.4); the key itself is
  // case-sensitive. Exactly the spellings normalizeCredential (the edge's counters) merges into `bearer <key>`.
  const match = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization.trim()) : null;
  const candidate = match?.[1];
  if (candidate && LIVE_KEY_PATTERN.test(candidate)) {
    const digest = digestApiKey(candidate);
    return { wellFormed: true, digest, keyId: keyIdFromDigest(digest) };
  }
  const decoy = digestApiKey(generateApiKey());
  return { wellFormed: false, digest: decoy, keyId: keyIdFromDigest(decoy) };
}
