/**
 * The join link of an invitation: `<player site>/join/<id>#token=<TOKEN>`.
 * The token is only in the fragment, which browsers never send, so it never
 * reaches a server or CDN log. It is an HMAC-SHA256 of the invitation id
 * under the stage's `invitation-token` secret (lambdas/shared/secrets.ts):
 * nothing of it is stored, the link can be given again while the
 * invitation is usable (GET …/link), and the player site verifies a token
 * by computing it again (the previous secret version too, after a
 * rotation).
 *
 * The player site's address: PLAYER_SITE_URL, which the stack sets to the
 * web side's REST API (`<WebBaseUrl>/join`, lib/constructs) and the local
 * stack to its front; without it (nothing set it), the request's own host
 * and stage.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { API_STAGE_NAME } from '../shared/http/routes';
import { verificationKeys, type SecretVersions } from '../shared/secrets';

/** A join token as join links carry it (base64url of an HMAC-SHA256): anything else is an invalid link. */
export const JOIN_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function joinToken(key: Buffer, invitationId: string): string {
  return createHmac('sha256', key).update(`invitation-token/v1\n${invitationId}`).digest('base64url');
}

/** Whether `token` is the token of the invitation under the current, the previous or the staged next secret. */
export function isJoinToken(token: string, invitationId: string, secrets: SecretVersions): boolean {
  const presented = Buffer.from(token, 'utf8');
  return verificationKeys(secrets).some((key) => {
    const expected = Buffer.from(joinToken(key, invitationId), 'utf8');
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  });
}

export function playerSiteBase(env: NodeJS.ProcessEnv, host: string | undefined): string {
  const configured = env.PLAYER_SITE_URL;
  if (configured) return configured.replace(/\/+$/, '');
  return `https://${host ?? 'localhost'}/${API_STAGE_NAME}/join`;
}

export function joinLink(base: string, invitationId: string, token: string): string {
  return `${base}/${invitationId}#token=${token}`;
}
