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
import { credentialDigest } from '../invitations/claim';
import { cookieValues } from '../shared/http/cookies';
import type { InvitationItem } from '../invitations/invitation-model';

export const PLAYER_COOKIE = 'player_credential';
export const PLAYER_CREDENTIAL_DAYS = 90;
const CREDENTIAL_MS = PLAYER_CREDENTIAL_DAYS * 86_400_000;

/** The Set-Cookie value for the claiming browser; `invitationPath` is the page's path as the client addressed it. */
export function playerCookie(credential: string, invitationPath: string): string {
  return `${PLAYER_COOKIE}=${credential}; Path=${invitationPath}; Max-Age=${CREDENTIAL_MS / 1000}; HttpOnly; Secure; SameSite=Strict`;
}

/** The credential values the request's Cookie headers carry under the player cookie's name. */
export const presentedCredentials = (cookieHeaders: readonly string[] | undefined): string[] => cookieValues(cookieHeaders, PLAYER_COOKIE);

/** Whether one of the presented credentials is the claiming browser's, within its 90 days. */
export function holdsCredential(item: InvitationItem, presented: readonly string[], now: Date): boolean {
  if (!item.credential_digest || !item.claim_started_at) return false;
  if (now.getTime() >= Date.parse(item.claim_started_at) + CREDENTIAL_MS) return false;
  const expected = Buffer.from(item.credential_digest, 'utf8');
  return presented.some((credential) => {
    const digest = Buffer.from(credentialDigest(credential), 'utf8');
    return digest.length === expected.length && timingSafeEqual(digest, expected);
  });
}
