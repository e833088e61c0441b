/**
 * The player's credential: a random value the claim hands to the claiming
 * browser in a cookie, of which the invitation keeps only a digest
 * (claim.ts `credentialDigest`). The cookie is `HttpOnly` (no script reads
 * it), `Secure`, `SameSite=Strict` (no other site's page sends it), scoped
 * to the invitation's own path (`/<stage>/join/<id>`: one cookie per
 * invitation, never sent to the partner API) and valid 90 days, which the
 * server enforces too, counted from the claim.
 */
import { timingSafeEqual } from 'node:crypto';
import { credentialCookie } from '../shared/http/cookies';
import { credentialDigest, type InvitationItem } from '../invitations/invitation-model';

export const PLAYER_COOKIE = 'player_credential';
export const PLAYER_CREDENTIAL_DAYS = 90;
const CREDENTIAL_MS = PLAYER_CREDENTIAL_DAYS * 86_400_000;

/** The Set-Cookie value for the claiming browser; `invitationPath` is the page's path as the client addressed it. */
export function playerCookie(credential: string, invitationPath: string): string {
  return `${PLAYER_COOKIE}=${credential}; Path=${invitationPath}; Max-Age=${CREDENTIAL_MS / 1000}; HttpOnly; Secure; SameSite=Strict`;
}

/**
 * The credential the request's Cookie headers carry under the player cookie's name, if any. One browser holds one
 * per invitation path, so two in one request were not both set here: refused (400 DUPLICATE_CREDENTIAL_COOKIE).
 */
export const presentedCredential = (cookieHeaders: readonly string[] | undefined): string | undefined => credentialCookie(cookieHeaders, PLAYER_COOKIE);

/** Whether the presented credential is the claiming browser's, within its 90 days. */
export function holdsCredential(item: InvitationItem, presented: string | undefined, now: Date): boolean {
  if (presented === undefined || !item.credential_digest || !item.claim_started_at) return false;
  if (now.getTime() >= Date.parse(item.claim_started_at) + CREDENTIAL_MS) return false;
  const expected = Buffer.from(item.credential_digest, 'utf8');
  const digest = Buffer.from(credentialDigest(presented), 'utf8');
  return digest.length === expected.length && timingSafeEqual(digest, expected);
}
