/**
 * The record list's cursor: opaque to clients, tamper-evident, and bound to
 * the organization and filters it was made with.
 *
 * A cursor is `<position>.<mac>`, both base64url: the position is where the
 * next page starts (exclusive, a list-order key `<updated_at>#<id>` or a bare
 * `<updated_at>` mark), the MAC an HMAC-SHA256 (first 16 bytes) of the
 * position and the binding (organization and normalized filters) under the
 * stage's `record-cursor` secret (lambdas/shared/secrets.ts). A changed
 * filter, another organization, an edited position or a cursor from another
 * stage fails the MAC: INVALID_CURSOR. `limit` is not bound: it may change
 * from page to page.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { verificationKeys, type SecretVersions } from '../shared/secrets';

/** Longest cursor accepted (a position is at most ~70 characters; base64 and the MAC add ~60). */
export const MAX_CURSOR_LENGTH = 256;

const MAC_BYTES = 16;
const CURSOR_PATTERN = /^([A-Za-z0-9_-]{1,200})\.([A-Za-z0-9_-]{22})$/;
/** `<ISO 8601 UTC, ms>` optionally followed by `#<record id>`. */
const POSITION_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z(#rec_[0-9a-f]{1,64})?$/;

function mac(key: Buffer, binding: string, position: string): Buffer {
  return createHmac('sha256', key).update(`record-cursor/v1\n${binding}\n${position}`).digest().subarray(0, MAC_BYTES);
}

export function signCursor(key: Buffer, binding: string, position: string): string {
  return `${Buffer.from(position, 'utf8').toString('base64url')}.${mac(key, binding, position).toString('base64url')}`;
}

/**
 * The position a cursor carries, if it was signed for this binding with the
 * current, the previous or the staged next secret; undefined for anything else.
 */
export function verifyCursor(cursor: string, binding: string, secrets: SecretVersions): string | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH) return undefined;
  const parts = CURSOR_PATTERN.exec(cursor);
  if (!parts) return undefined;
  const position = Buffer.from(parts[1], 'base64url').toString('utf8');
  const presented = Buffer.from(parts[2], 'base64url');
  if (presented.length !== MAC_BYTES) return undefined;
  const valid = verificationKeys(secrets).some((key) => timingSafeEqual(presented, mac(key, binding, position)));
  // A valid MAC over a malformed position cannot happen unless the secret leaked: refuse it all the same.
  return valid && POSITION_PATTERN.test(position) ? position : undefined;
}
