/**
 * A player's claim of an invitation (the player site calls this after it
 * checked the link's token, join-link.ts): the first complete, valid
 * submission wins.
 *
 * 1. `beginClaim`: `pending` → `claiming` under a condition (exactly one of
 *    any number of concurrent submissions passes), with the player's data
 *    and the digest of a fresh credential for their browser's cookie.
 * 2. The ticket bridge creates the invitation's ticket (idempotent: its id
 *    derives from the invitation's).
 * 3. `completeClaim`: `claiming` → `joined` with the ticket id, the draft
 *    notes erased, the slot released and `invitation.joined`, in one
 *    transaction.
 *
 * When step 2 or 3 fails, the invitation stays `claiming` (never reusable,
 * even past its expiry) and `finishClaim`, run again, finishes it, confirming
 * or creating the ticket (never a second one): the player is told their
 * submission is being processed.
 *
 * Player data: player-data.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { logger } from '../shared/observability/logger';
import { TicketServiceUnavailable, type TicketBridge } from '../tickets/ticket-bridge';
import type { TicketItem } from '../tickets/ticket-model';
import { stateAt, type InvitationItem } from './invitation-model';
import type { InvitationStore } from './invitation-store';
import type { PlayerData } from './player-data';


export type ClaimOutcome =
  | { readonly outcome: 'joined'; readonly ticketId: string; readonly ticket: TicketItem; readonly credential: string }
  /** The claim is ours but its ticket is not confirmed yet: the reconciler finishes it. */
  | { readonly outcome: 'claiming'; readonly credential: string }
  /** The link cannot be claimed (any more): the state says why. */
  | { readonly outcome: 'unavailable'; readonly state: 'claiming' | 'joined' | 'revoked' | 'expired' | 'missing' };

export interface ClaimDependencies {
  readonly invitations: InvitationStore;
  readonly tickets: TicketBridge;
}

export const credentialDigest = (credential: string) => createHash('sha256').update(`player-credential/v1\n${credential}`).digest('base64url');

/** `read`: the invitation as the caller just read it (the player site reads it to check the token). */
export async function claimInvitation(deps: ClaimDependencies, invitationId: string, player: PlayerData, now: Date, read?: InvitationItem): Promise<ClaimOutcome> {
  const credential = randomBytes(32).toString('base64url');
  const begun = await deps.invitations.beginClaim(invitationId, { player, credentialDigest: credentialDigest(credential) }, now, read);
  if (!('claimed' in begun)) {
    const item = begun.current;
    return { outcome: 'unavailable', state: item ? (stateAt(item, now) as 'claiming' | 'joined' | 'revoked' | 'expired') : 'missing' };
  }
  try {
    const ticket = await finishClaim(deps, begun.claimed, now);
    return { outcome: 'joined', ticketId: ticket.id, ticket, credential };
  } catch (error) {
    // The claim is this submission's: whatever failed after it, the browser must get its credential. The
    // invitation stays claiming and is finished by the reconciler (or the player's next view).
    if (!(error instanceof TicketServiceUnavailable)) logger.error('claim not finished; the reconciler will', { invitation_id: invitationId, error });
    return { outcome: 'claiming', credential };
  }
}

/** Steps 2 and 3 for a `claiming` invitation; safe to repeat. Returns the ticket. */
export async function finishClaim(deps: ClaimDependencies, item: InvitationItem, now: Date): Promise<TicketItem> {
  const ticket = await deps.tickets.createForInvitation(
    { invitationId: item.id, partnerId: item.partner_id, game: item.game, notes: item.notes, player: { in_game_name: item.player?.in_game_name ?? '', game_account_id: item.player?.game_account_id ?? '' } },
    now,
  );
  await deps.invitations.completeClaim(item, ticket, now);
  return ticket;
}
