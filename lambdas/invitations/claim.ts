/**
 * A player's claim of an invitation (the player site calls this after it
 * checked the link's token, join-link.ts): the first complete, valid
 * submission wins.
 *
 * When the ticket store answers, the claim is one transaction
 * (`claimAndJoin`): `pending` → `joined` with the player's data, the digest
 * of a fresh credential for their browser's cookie and the digest of the
 * submission's id, the ticket (the bridge's Put: its id derives from the
 * invitation's, so there is never a second), the draft notes erased, the
 * slot released and `invitation.joined`. Exactly one of any number of
 * concurrent submissions passes its condition. With the player site's
 * admission before it (which read the invitation beside its counters), a
 * claim is two round trips and four transaction items.
 *
 * When the ticket store is unavailable, the claim takes the path that needs
 * no ticket yet:
 * 1. `beginClaim`: `pending` → `claiming` under the same kind of condition,
 *    with the same player data and digests;
 * 2. later (`finishClaim`: the claiming browser's next view, the reconciler)
 *    the ticket bridge creates the ticket (idempotent) and `completeClaim`
 *    moves `claiming` → `joined` with the ticket id, the notes erased, the
 *    slot released and `invitation.joined`, in one transaction.
 * The invitation stays `claiming` meanwhile (never reusable, even past its
 * expiry): the player is told their submission is being processed.
 *
 * The claim is resumable. The join page sends a random submission id with its
 * claim (at least 128 bits, kept by the page until it has an answer) and
 * the claim stores its digest. When the claim was applied but its answer lost
 * (every SDK try lost, the function's deadline after the write, a dropped
 * connection), the only copy of the credential was in that answer. A lost
 * answer the function itself sees (every try's) is answered at once: the
 * invitation is read back and, joined with this claim's credential, answered
 * as joined. Otherwise the page submits again with the same id, and
 * `resumeClaim` hands out a fresh credential in place of the undelivered one
 * (`reissueCredential`: a condition on the claim's submission and on the
 * digest read, so exactly one credential is valid) and answers as the first
 * claim would have. The id is useful only with the link's token (the player
 * site checks it first) and only its digest is stored; another browser
 * (another id) is still refused.
 *
 * Player data: player-data.ts.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { logger } from '../shared/observability/logger';
import { TicketServiceUnavailable, type TicketBridge, type TicketRequest } from '../tickets/ticket-bridge';
import type { TicketItem } from '../tickets/ticket-model';
import { credentialDigest, stateAt, type InvitationItem } from './invitation-model';

export { credentialDigest };
import type { ClaimWrite, InvitationStore } from './invitation-store';
import type { PlayerData } from './player-data';


export type ClaimOutcome =
  | { readonly outcome: 'joined'; readonly ticketId: string; readonly ticket: TicketItem; readonly credential: string }
  /** The claim is ours but its ticket is not confirmed yet: the reconciler finishes it. */
  | { readonly outcome: 'claiming'; readonly credential: string }
  /**
   * This submission's claim, made by an earlier request whose answer was lost: its credential issued again. `item`: the
   * invitation as it is now (`joined` with its ticket, or still `claiming` when the ticket store did not answer).
   */
  | { readonly outcome: 'resumed'; readonly item: InvitationItem; readonly credential: string }
  /** The link cannot be claimed (any more): the state says why. */
  | { readonly outcome: 'unavailable'; readonly state: 'claiming' | 'joined' | 'revoked' | 'expired' | 'missing' };

export interface ClaimDependencies {
  readonly invitations: InvitationStore;
  readonly tickets: TicketBridge;
}


/** What the claim stores of its submission id: the id itself would let a reader of the table resume the claim (with the token). */
export const submissionDigest = (submissionId: string) => createHash('sha256').update(`claim-submission/v1\n${submissionId}`).digest('base64url');

/** Whether the invitation was claimed by the submission `submissionId`. */
function claimedBy(item: InvitationItem, submissionId: string): boolean {
  if (!item.submission_digest || (item.state !== 'claiming' && item.state !== 'joined')) return false;
  const expected = Buffer.from(item.submission_digest, 'utf8');
  const digest = Buffer.from(submissionDigest(submissionId), 'utf8');
  return digest.length === expected.length && timingSafeEqual(digest, expected);
}

/**
 * `read`: the invitation as the caller just read it (the player site reads it to check the token). `submissionId`: the
 * submission's id (the join page's), with which a resubmission after a lost answer is answered again.
 */
export async function claimInvitation(
  deps: ClaimDependencies,
  invitationId: string,
  player: PlayerData,
  now: Date,
  read?: InvitationItem,
  submissionId?: string,
): Promise<ClaimOutcome> {
  const credential = randomBytes(32).toString('base64url');
  const claim = { player, credentialDigest: credentialDigest(credential), ...(submissionId === undefined ? {} : { submissionDigest: submissionDigest(submissionId) }) };
  const item = read ?? (await deps.invitations.find(invitationId));
  if (!item || stateAt(item, now) !== 'pending') return refused(deps, item, credential, now, submissionId);
  let made: TicketItem | undefined;
  const ticketFor = (current: InvitationItem) => {
    const creation = deps.tickets.creationFor(ticketRequest(current, player), now);
    made = creation.ticket;
    return creation;
  };
  try {
    // The bridge unavailable: no ticket can be made now (the claim goes on as claiming below).
    ticketFor(item);
  } catch (error) {
    if (!(error instanceof TicketServiceUnavailable)) throw error;
    return claimWithoutTicket(deps, invitationId, claim, credential, now, item, submissionId);
  }
  let joined: Awaited<ReturnType<InvitationStore['claimAndJoin']>>;
  try {
    joined = await deps.invitations.claimAndJoin(item, claim, ticketFor, now);
  } catch (error) {
    // Every try's answer lost (or a failure the SDK could not tell from one): what happened is in the invitation.
    if (!(await appliedAnyway(deps, invitationId, claim.credentialDigest))) throw error;
    logger.warn('claim applied, its answer lost: answered from the invitation', { invitation_id: invitationId });
    return { outcome: 'joined', ticketId: (made as TicketItem).id, ticket: made as TicketItem, credential };
  }
  if ('current' in joined) return refused(deps, joined.current, credential, now, submissionId);
  return { outcome: 'joined', ticketId: (made as TicketItem).id, ticket: made as TicketItem, credential };
}

/** Whether this claim's transaction was applied after all: the invitation joined, holding this claim's credential digest. */
async function appliedAnyway(deps: ClaimDependencies, invitationId: string, digest: string): Promise<boolean> {
  const after = await deps.invitations.find(invitationId).catch(() => undefined);
  return after?.state === 'joined' && after.credential_digest === digest;
}

/** A claim that did not pass: the same submission's claim answered again (resumeClaim), or why the link cannot be claimed. */
function refused(deps: ClaimDependencies, item: InvitationItem | undefined, credential: string, now: Date, submissionId: string | undefined): Promise<ClaimOutcome> | ClaimOutcome {
  // Claimed already, by this submission: an earlier request of it (or one still running) made the claim.
  if (item && submissionId !== undefined && claimedBy(item, submissionId)) return resumeClaim(deps, item, credential, now);
  return { outcome: 'unavailable', state: item ? (stateAt(item, now) as 'claiming' | 'joined' | 'revoked' | 'expired') : 'missing' };
}

/**
 * The claim while the ticket store is unavailable: `pending` → `claiming` (beginClaim), answered `claiming`; the
 * claiming browser's next view or the reconciler finishes it (finishClaim).
 */
async function claimWithoutTicket(
  deps: ClaimDependencies,
  invitationId: string,
  claim: ClaimWrite,
  credential: string,
  now: Date,
  read: InvitationItem,
  submissionId: string | undefined,
): Promise<ClaimOutcome> {
  const begun = await deps.invitations.beginClaim(invitationId, claim, now, read);
  if (!('claimed' in begun)) return refused(deps, begun.current, credential, now, submissionId);
  return { outcome: 'claiming', credential };
}

const ticketRequest = (item: InvitationItem, player: Readonly<Record<string, string>> | undefined): TicketRequest => ({
  invitationId: item.id,
  partnerId: item.partner_id,
  game: item.game,
  notes: item.notes,
  player: { in_game_name: player?.in_game_name ?? '', game_account_id: player?.game_account_id ?? '' },
});

/**
 * The claim of this submission answered again: `credential` replaces the one nobody received, then the claim is
 * finished if it is still claiming (as its first request would have). Refused (`unavailable`) only when another
 * resubmission of the same submission re-issued the credential first.
 */
async function resumeClaim(deps: ClaimDependencies, item: InvitationItem, credential: string, now: Date): Promise<ClaimOutcome> {
  if (!(await deps.invitations.reissueCredential(item, credentialDigest(credential)))) return { outcome: 'unavailable', state: item.state as 'claiming' | 'joined' };
  const reissued = { ...item, credential_digest: credentialDigest(credential) };
  if (item.state !== 'claiming') return { outcome: 'resumed', item: reissued, credential };
  try {
    const ticket = await finishClaim(deps, item, now);
    return { outcome: 'resumed', item: { ...reissued, state: 'joined', ticket_id: ticket.id }, credential };
  } catch (error) {
    if (!(error instanceof TicketServiceUnavailable)) logger.error('claim not finished; the reconciler will', { invitation_id: item.id, error });
    return { outcome: 'resumed', item: reissued, credential };
  }
}

/** Step 2 of the path without a ticket, for a `claiming` invitation: the ticket, then the join; safe to repeat. Returns the ticket. */
export async function finishClaim(deps: ClaimDependencies, item: InvitationItem, now: Date): Promise<TicketItem> {
  const ticket = await deps.tickets.createForInvitation(ticketRequest(item, item.player), now);
  await deps.invitations.completeClaim(item, ticket, now);
  return ticket;
}
