/**
 * What a player-site call proves about its join link, decided before
 * admission (the pipeline's authentication step for `player` routes): only
 * a call that proves possession spends the link's limits (the `join-*` rows
 * of the limits table); anything else counts by source IP alone. The
 * invitation id is no secret (the link's path, a browser history, a proxy
 * log, a screenshot show it), so counting calls that prove nothing on the
 * link would let anyone who saw the id refuse its holder for the rest of the
 * window, again and again until the invitation expires.
 *
 * Per route, what proves possession:
 * - view: the link's token (`X-Join-Token`) or the claiming browser's
 *   credential (its cookie);
 * - claim: the link's token (the body's `token`). A submission with the token
 *   is counted even when its player data is then refused (422) or the link
 *   was used: `join-claim-hour` counts refused claims of the link's holder;
 * - message: the claiming browser's credential (the token alone is not the
 *   player's).
 *
 * A token is checked locally (an HMAC under the container's cached
 * `invitation-token` secret: no store call). A credential needs the digest
 * the claim stored on the invitation: one consistent read, done only for a
 * cookie value of a credential's shape, and handed to the operation
 * (`invitationRead`), so the call still reads the invitation once.
 */
import type { PlayerOperationInput as OperationInput, PlayerPossession, PossessionCheck } from './player-pipeline';
import { COOKIE_HEADER, JOIN_TOKEN_HEADER } from '../shared/http/credential-headers';
import type { Platform } from '../shared/platform';
import type { InvitationItem } from '../invitations/invitation-model';
import { INVITATION_ID_PATTERN } from '../invitations/invitation-model';
import { findInvitation } from '../invitations/invitation-lookup';
import { requireTable } from '../shared/storage/table-names';
import { isJoinToken, JOIN_TOKEN_PATTERN } from '../invitations/join-link';
import { holdsCredential, presentedCredential } from './player-credential';

/** A credential as the claim hands it out: 32 random bytes, base64url. Other values cannot match a stored digest. */
const CREDENTIAL_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** What the check read: the invitation (undefined when there is none), for the operation. */
interface InvitationRead {
  readonly invitation: InvitationItem | undefined;
}

/** Whether `token` is the link's token (the current, previous or staged secret). */
export async function isLinkToken(platform: Platform, invitationId: string, token: string | undefined): Promise<boolean> {
  if (token === undefined || !JOIN_TOKEN_PATTERN.test(token)) return false;
  return isJoinToken(token, invitationId, await platform.secret('invitation-token').versions());
}

/**
 * The claim's token, read from the raw body before the input step parses it (so that a claim of the link's
 * holder is counted whatever its player data); undefined for a body that is not a JSON object with a string token.
 */
function claimToken(body: Buffer | undefined): string | undefined {
  if (!body || body.length === 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    const token = parsed !== null && typeof parsed === 'object' ? (parsed as { token?: unknown }).token : undefined;
    return typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}

export const provePossession: PossessionCheck = async ({ route, invitationId, headers, body, platform, now }) => {
  // The path's id as sent: a malformed one proves nothing (and no link of its name is counted).
  if (!INVITATION_ID_PATTERN.test(invitationId)) return { proof: 'none' };
  // From here the id is well-formed: every answer names it (admission refuses a call without one).
  const category = route.category;
  if (category === 'player-view' || category === 'player-claim') {
    const token = category === 'player-view' ? headers.get(JOIN_TOKEN_HEADER)?.[0] : claimToken(body);
    if (await isLinkToken(platform, invitationId, token)) return { proof: 'token', invitationId };
  }
  if (category === 'player-view' || category === 'player-message') {
    // Two cookies of the name were refused before (pipeline, authentication): at most one here.
    const presented = presentedCredential(headers.get(COOKIE_HEADER));
    if (presented === undefined || !CREDENTIAL_PATTERN.test(presented)) return { proof: 'none', invitationId };
    const invitation = await findInvitation(platform.documentClient, requireTable(platform.tables, 'domain'), invitationId);
    const read: InvitationRead = { invitation };
    return invitation && holdsCredential(invitation, presented, now) ? { proof: 'credential', invitationId, read } : { proof: 'none', invitationId, read };
  }
  return { proof: 'none', invitationId };
};

/** Whether the call proved possession of its link (see provePossession); a call the check did not see proved nothing. */
export const provedPossession = (input: OperationInput): boolean => (input.possession?.proof ?? 'none') !== 'none';

/** The invitation the possession check read, if it read it (`{ invitation: undefined }`: it read, and there is none). */
export function invitationRead(possession: PlayerPossession | undefined): InvitationRead | undefined {
  const read = possession?.read as InvitationRead | undefined;
  return read && 'invitation' in read ? read : undefined;
}
