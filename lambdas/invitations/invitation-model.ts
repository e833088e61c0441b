/**
 * Invitations: the stored item, the spec's Invitation object, the state it
 * is in at an instant, and the idempotency scope.
 *
 * - State: `pending` → `claiming` → `joined`; `pending` → `revoked`;
 *   `pending` → `expired` at `expires_at` (creation + 7 days, fixed). Expiry
 *   is never written: an invitation is expired from that instant on, by its
 *   time attribute (a sweeper or TTL that runs late changes nothing).
 *   `claiming` stays `claiming` past `expires_at` (the claim is verified
 *   first, never reopened).
 * - Idempotency: the scope is key id + organization + Idempotency-Key, and
 *   the invitation's id is derived from it (`invitationIdFor`), so the
 *   invitation item is its own idempotency record: kept as long as the
 *   invitation (that is, for good), a key is never reused for a new
 *   invitation after join, revoke or expiry, and a replay is one read.
 * - Conflict detection uses `request_fp`, a SHA-256 of the game and the
 *   normalized notes, kept after a claim erases the notes.
 */
import { createHash } from 'node:crypto';
import type * as z from 'zod/mini';
import type { GameGroup } from '../records/games';
import type { INVITATION_CONTRACTS, InvitationSchema } from './invitation-contracts';

export const INVITATION_LIFETIME_MS = 7 * 86_400_000;
/** Active (pending or claiming) invitations an organization may hold. */
export const ACTIVE_INVITATION_LIMIT = 50;
/** X-RateLimit-Policy of 429 TOO_MANY_INVITES (docs/invitations.md, "Too many invitations"). */
export const ACTIVE_INVITATIONS_POLICY = 'organization-active-invitations';
/**
 * Retry-After of TOO_MANY_INVITES when every slot is held by a claim in progress: a claim settles in seconds, or at the
 * claim-reconciler's next run (every minute) when its browser went away.
 */
export const CLAIMING_RETRY_AFTER_SECONDS = 60;
export const INVITATION_PAGE_SIZE = 20;
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

export type StoredState = 'pending' | 'claiming' | 'joined' | 'revoked';
export type InvitationState = StoredState | 'expired';

export interface InvitationItem {
  readonly id: string;
  readonly partner_id: string;
  /** The creating key (the idempotency scope). */
  readonly key_id: string;
  readonly game: GameGroup;
  /** Draft notes for the ticket; erased at claim. Never in a response or an event. */
  readonly notes?: string;
  readonly request_fp: string;
  readonly state: StoredState;
  readonly created_at: string;
  readonly expires_at: string;
  readonly archived_at: string | null;
  readonly ticket_id: string | null;
  readonly revoked_at?: string;
  /** Position in the organization's creation order (1, 2, …): the list's pages. */
  readonly seq: number;
  /** The claiming player's data (in-game name, game account id). Never in a read of the API. */
  readonly player?: Readonly<Record<string, string>>;
  /** SHA-256 of the credential in the claiming browser's cookie. */
  readonly credential_digest?: string;
  /** SHA-256 of the claim's submission id (the join page's, claim.ts): its resubmission is answered again. */
  readonly submission_digest?: string;
  /** When the claim started, and the hour bucket of its marker (removed when it completes). */
  readonly claim_started_at?: string;
  readonly claim_bucket?: string;
}

/** The spec's Invitation object (reads carry no `link` and no `replayed`), as its contract's schema declares it. */
export type Invitation = z.input<typeof InvitationSchema>;

/** A creation's request as its contract parses it: what the store creates an invitation from. */
export type InvitationRequest = z.output<(typeof INVITATION_CONTRACTS)['invitation-create']['body']>;

/** The state at `now`: a pending invitation whose time is up is expired. */
export function stateAt(item: Pick<InvitationItem, 'state' | 'expires_at'>, now: Date): InvitationState {
  return item.state === 'pending' && Date.parse(item.expires_at) <= now.getTime() ? 'expired' : item.state;
}

/** Whether the invitation holds one of the organization's active slots at `now`. */
export function isActiveAt(item: Pick<InvitationItem, 'state' | 'expires_at'>, now: Date): boolean {
  const state = stateAt(item, now);
  return state === 'pending' || state === 'claiming';
}

/** Field by field: notes, the request fingerprint, the key and the token never leave. */
export function toInvitation(item: InvitationItem, now: Date): Invitation {
  return {
    id: item.id,
    game: item.game,
    state: stateAt(item, now),
    ticket_id: item.ticket_id,
    created_at: item.created_at,
    expires_at: item.expires_at,
    archived_at: item.archived_at,
  };
}

/** Notes as compared for idempotency: Unicode NFC, surrounding whitespace trimmed; absent and empty are the same. */
export const normalizeNotes = (notes: string | undefined) => (notes ?? '').normalize('NFC').trim();

/** The irreversible fingerprint of a creation request (game and normalized notes). */
export function requestFingerprint(game: GameGroup, notes: string | undefined): string {
  return createHash('sha256').update(`invitation-request/v1\n${game}\n${normalizeNotes(notes)}`).digest('base64url');
}

/**
 * The invitation id of an idempotency scope: a UUID (RFC 9562 version 8,
 * name-based) from SHA-256 of key id, organization and Idempotency-Key. The
 * same scope always names the same invitation; a rotated key is a new scope.
 */
export function invitationIdFor(keyId: string, partnerId: string, idempotencyKey: string): string {
  const bytes = createHash('sha256').update(`invitation-scope/v1\n${keyId}\n${partnerId}\n${idempotencyKey}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const INVITATION_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What an invitation stores of its claiming browser's credential (the cookie's value never is). */
export const credentialDigest = (credential: string) => createHash('sha256').update(`player-credential/v1\n${credential}`).digest('base64url');
