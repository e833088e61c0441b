/**
 * The player site's operations (routes.ts, group `player`): the page, what
 * the link or the claiming browser may see, the claim, and the player's
 * messages. Who the caller is, is decided here, per invitation:
 *
 * - the claiming browser: its cookie's credential matches the digest the
 *   claim stored (player-credential.ts) → the ticket and its conversation;
 * - a holder of the link: the `X-Join-Token` header (or the claim's
 *   `token`) is the invitation's token (join-link.ts) → the invitation's
 *   game and state, nothing of the player or the ticket;
 * - anyone else: 404 INVITE_UNAVAILABLE, the same for a missing invitation
 *   and a wrong token.
 *
 * The pipeline decided before admission what the call proves
 * (player-possession.ts: the link's rows of the limits table count only
 * proven calls); an operation answers nothing but its refusal to a call that
 * proved nothing, so a call the link's limits did not count never gets
 * further. The invitation the check read is reused: one read per call.
 *
 * Opening the page or the view changes nothing (a preview occupies no slot
 * and creates nothing); only the claim writes. A claiming invitation seen by
 * its own browser is finished on the spot when the ticket store answers
 * again (finishClaim is safe to repeat; the reconciler does the same every
 * minute), so the page's polling recovers as soon as the store does.
 *
 * Every claim submission is counted by outcome (Claims): claimed,
 * ticket_deferred (ours, its ticket to follow), already_claimed, unavailable
 * (revoked, expired), invalid_link (no such invitation, or a wrong token),
 * resubmitted (the claiming browser again) and resumed (the submission that
 * claimed the link again, its first answer lost: a new credential).
 */
import { ApiError } from '../shared/errors';
import type { PlayerOperationInput as OperationInput, PlayerPossession } from './player-pipeline';
import { prefetchedOr, type GroupOperations, type GroupPrefetch, type InputWithPath, type OperationOf, type Prefetch } from '../shared/http/pipeline';
import type { PLAYER_CONTRACTS, PlayerView } from './player-contracts';
import { API_STAGE_NAME } from '../shared/http/routes';
import { METRICS } from '../shared/observability/metric-catalog';
import { recordMetric } from '../shared/observability/metrics';
import type { Platform } from '../shared/platform';
import { claimInvitation, finishClaim, type ClaimOutcome } from '../invitations/claim';
import { stateAt, type InvitationItem } from '../invitations/invitation-model';
import { invitationStoreOf } from '../invitations/invitation-store';
import { ticketBridgeOf, TicketServiceUnavailable, type ConversationEntry, type DynamoTicketBridge, type TicketRead } from '../tickets/ticket-bridge';
import type { TicketItem } from '../tickets/ticket-model';
import { holdsCredential, playerCookie, presentedCredential } from './player-credential';
import { invitationRead, isLinkToken, provedPossession } from './player-possession';
import { COOKIE_HEADER, JOIN_TOKEN_HEADER } from '../shared/http/credential-headers';
import { repeatableRequest } from '../shared/storage/repeatable-requests';

/** Each operation is typed by its route's contract (player-contracts.ts): its parsed input, the data it may answer. */
type Contracts = typeof PLAYER_CONTRACTS;

/** Conversation entries the page shows: the latest ones. */
export const VISIBLE_ENTRIES = 50;

const storesOf = (platform: Platform) => ({ invitations: invitationStoreOf(platform), tickets: ticketBridgeOf(platform) });

/** Every player route's path names its invitation. */
type PathInput = InputWithPath<'invitation_id', OperationInput>;

const invitationIdOf = (input: PathInput) => input.pathParameters.invitation_id;

const isLinkHolder = (input: OperationInput, item: InvitationItem, token: string | undefined) => isLinkToken(input.platform, item.id, token);

/** An invitation read beside the admission (prefetchInvitation). */
interface PrefetchedInvitation {
  readonly kind: 'player-invitation';
  readonly id: string;
  readonly item: InvitationItem | undefined;
}
const isPrefetchedInvitation = (value: unknown): value is PrefetchedInvitation => (value as PrefetchedInvitation | undefined)?.kind === 'player-invitation';

/**
 * The path's invitation read beside the admission, when the possession check did not read it already (a token proof:
 * the view's and the claim's): the player door starts it (pipeline.ts Prefetch), so the read costs no round trip of its own.
 */
export const prefetchInvitation: Prefetch<PlayerPossession> = ({ caller, platform }) => {
  const id = caller.invitationId;
  if (caller.proof !== 'token' || id === undefined || invitationRead(caller)) return undefined;
  return invitationStoreOf(platform)
    .find(id)
    .then((item): PrefetchedInvitation => ({ kind: 'player-invitation', id, item }));
};

/** The claiming browser's ticket and the page of its conversation the view shows, read beside the admission (prefetchTicket). */
interface PrefetchedTicket {
  readonly kind: 'player-ticket';
  readonly read: TicketRead;
}
const isPrefetchedTicket = (value: unknown): value is PrefetchedTicket => (value as PrefetchedTicket | undefined)?.kind === 'player-ticket';

/**
 * The claiming browser's ticket and its visible conversation, read beside the admission: the possession check already
 * read the invitation (its credential's digest), which names the ticket once joined. The view answers from this read;
 * a message starts its change from it and answers from it with the new entry (ticket-bridge.ts `change`), so neither
 * reads after the admission. Nothing for a claim not yet joined (no ticket to read).
 */
export const prefetchTicket: Prefetch<PlayerPossession> = ({ caller, platform }) => {
  const item = caller.proof === 'credential' ? invitationRead(caller)?.invitation : undefined;
  if (item?.state !== 'joined' || !item.ticket_id) return undefined;
  return ticketBridgeOf(platform)
    .read(item.ticket_id, VISIBLE_ENTRIES)
    .then((read): PrefetchedTicket => ({ kind: 'player-ticket', read }));
};

/** The reads a player call starts beside its admission: the ticket for the claiming browser's credential, else the invitation for a token. */
export const prefetchPlayerReads: Prefetch<PlayerPossession> = (request) => prefetchTicket(request) ?? prefetchInvitation(request);

/** The ticket's read made beside the admission, when it was made and is of this ticket; undefined otherwise. */
async function prefetchedTicket(input: OperationInput, ticketId: string): Promise<TicketRead | undefined> {
  const prefetched = await prefetchedOr(input, async () => undefined, isPrefetchedTicket);
  return prefetched?.read.ticketId === ticketId ? prefetched.read : undefined;
}

/** The path's invitation: as the possession check read it, as read beside the admission, or read now. */
async function findInvitation(input: PathInput): Promise<InvitationItem | undefined> {
  const read = invitationRead(input.possession);
  if (read) return read.invitation;
  const id = invitationIdOf(input);
  const prefetched = await prefetchedOr(input, async () => undefined, isPrefetchedInvitation);
  return prefetched?.id === id ? prefetched.item : invitationStoreOf(input.platform).find(id);
}

const isClaimingBrowser = (input: OperationInput, item: InvitationItem) => holdsCredential(item, presentedCredential(input.headers.get(COOKIE_HEADER)), input.now);

/**
 * What the claiming browser sees: its ticket and the visible conversation (staff and its own messages), once joined;
 * from `read` when given (what was read beside the admission), else read now (the ticket and the page side by side).
 */
async function playerView(input: OperationInput, item: InvitationItem, tickets: DynamoTicketBridge, read?: TicketRead): Promise<PlayerView> {
  if (item.state !== 'joined' || !item.ticket_id) return { invitation: invitationOf(input, item), access: 'player', ticket: null };
  const { ticket, entries } = read ?? (await tickets.read(item.ticket_id, VISIBLE_ENTRIES));
  return viewOf(input, item, ticket, entries);
}

const invitationOf = (input: OperationInput, item: InvitationItem) => ({ id: item.id, game: item.game, state: stateAt(item, input.now) });

/** The joined invitation's view from its ticket and the latest entries of its conversation (a ticket of another invitation shows nothing). */
function viewOf(input: OperationInput, item: InvitationItem, ticket: TicketItem | undefined, entries: readonly ConversationEntry[]): PlayerView {
  if (!ticket || ticket.invitation_id !== item.id) throw new ApiError('INVITE_UNAVAILABLE');
  const messages = entries.flatMap((entry) =>
    entry.author === 'staff' || entry.author === 'user' ? [{ author: entry.author === 'user' ? ('player' as const) : ('staff' as const), text: entry.text, at: entry.at }] : [],
  );
  return { invitation: invitationOf(input, item), access: 'player', ticket: { id: ticket.id, status: ticket.status, updated_at: ticket.updated_at, messages } };
}


/** GET /join/{invitation_id}/view: the claiming browser's ticket, or to the link's holder the invitation's game and state. */
export const viewInvitation: OperationOf<Contracts, 'player-view', OperationInput> = async (input) => {
  if (!provedPossession(input)) throw new ApiError('INVITE_UNAVAILABLE');
  const { tickets } = storesOf(input.platform);
  let item = await findInvitation(input);
  if (!item) throw new ApiError('INVITE_UNAVAILABLE');
  if (isClaimingBrowser(input, item)) {
    if (item.state === 'claiming') item = await finishIfPossible(input, item);
    return { data: await playerView(input, item, tickets, item.ticket_id ? await prefetchedTicket(input, item.ticket_id) : undefined) };
  }
  if (!(await isLinkHolder(input, item, input.headers.get(JOIN_TOKEN_HEADER)?.[0]))) throw new ApiError('INVITE_UNAVAILABLE');
  const view: PlayerView = { invitation: invitationOf(input, item), access: 'link', ticket: null };
  return { data: view };
};

/** The claim's ticket, created now if the store answers; otherwise the invitation stays claiming (the reconciler's job). */
async function finishIfPossible(input: OperationInput, item: InvitationItem): Promise<InvitationItem> {
  try {
    const ticket = await finishClaim(storesOf(input.platform), item, input.now);
    return { ...item, state: 'joined', ticket_id: ticket.id };
  } catch (error) {
    if (error instanceof TicketServiceUnavailable) return item;
    throw error;
  }
}

/**
 * POST /join/{invitation_id}/claim: the first complete valid submission wins (claim.ts). 201 joined,
 * 202 while the ticket is being created; either way the browser gets its credential. A link that
 * was used, revoked or expired (or a wrong token) is 409 INVITE_UNAVAILABLE. Resumable: the page's
 * submission id, sent again after a lost answer, gets the claim it made answered again with a new
 * credential (claim.ts); only with the link's token, checked first.
 */
export const claim: OperationOf<Contracts, 'player-claim', OperationInput> = async (input) => {
  const { body } = input;
  const stores = storesOf(input.platform);
  // Only the link's token proves a claim (and counted it on the link); then the invitation is read.
  const item = input.possession?.proof === 'token' ? await findInvitation(input) : undefined;
  if (!item || !(await isLinkHolder(input, item, body.token))) {
    recordMetric(METRICS.claims, { outcome: 'invalid_link' });
    throw new ApiError('INVITE_UNAVAILABLE', 'This link is not valid.');
  }
  // The claiming browser submitting again (a retry after a lost answer): its view, nothing claimed twice.
  if (isClaimingBrowser(input, item)) {
    recordMetric(METRICS.claims, { outcome: 'resubmitted' });
    return { data: await playerView(input, item, stores.tickets) };
  }
  const player = { in_game_name: body.in_game_name, game_account_id: body.game_account_id };
  const outcome = await claimInvitation(stores, item.id, player, input.now, item, body.submission_id);
  recordMetric(METRICS.claims, { outcome: claimMetricOutcome(outcome) });
  if (outcome.outcome === 'unavailable') throw new ApiError('INVITE_UNAVAILABLE', UNAVAILABLE_MESSAGES[outcome.state]);
  const headers = { 'Set-Cookie': playerCookie(outcome.credential, cookiePathOf(input)) };
  // The same submission again (its first answer was lost): answered as the first would have been, with its view as it is now.
  if (outcome.outcome === 'resumed') return { status: outcome.item.state === 'joined' ? 201 : 202, data: await playerView(input, outcome.item, stores.tickets), headers };
  const invitation = { id: item.id, game: item.game, state: outcome.outcome === 'joined' ? ('joined' as const) : ('claiming' as const) };
  // Answered from what the claim wrote: a new ticket's conversation holds at most the organization's notes, which the player does not see.
  const ticket = outcome.outcome === 'joined' ? { id: outcome.ticket.id, status: outcome.ticket.status, updated_at: outcome.ticket.updated_at, messages: [] } : null;
  const view: PlayerView = { invitation, access: 'player', ticket };
  return { status: outcome.outcome === 'joined' ? 201 : 202, data: view, headers };
};

function claimMetricOutcome(outcome: ClaimOutcome): string {
  if (outcome.outcome === 'joined') return 'claimed';
  if (outcome.outcome === 'claiming') return 'ticket_deferred';
  if (outcome.outcome === 'resumed') return 'resumed';
  return outcome.state === 'claiming' || outcome.state === 'joined' ? 'already_claimed' : 'unavailable';
}

/** The invitation's path as the client addressed it (`/v1/join/<id>`): the cookie goes to that page and its calls only. */
function cookiePathOf(input: PathInput): string {
  const addressed = input.fullPath.replace(/\/claim\/?$/, '');
  return /^[A-Za-z0-9/_.-]+$/.test(addressed) ? addressed : `/${API_STAGE_NAME}/join/${invitationIdOf(input)}`;
}

const UNAVAILABLE_MESSAGES = {
  claiming: 'This link has already been used.',
  joined: 'This link has already been used.',
  revoked: 'This invitation was withdrawn.',
  expired: 'This invitation has expired.',
  missing: 'This link is not valid.',
} as const;

/**
 * POST /join/{invitation_id}/messages: the claiming browser adds a message to its ticket (ticket.message.created). The
 * page's client message id makes its resubmission (after a lost answer) the same message: answered as the first was,
 * stored once; another text under that id is 409 IDEMPOTENCY_CONFLICT (ticket-bridge.ts `change`). The id counts on
 * its ticket only: no other browser can spend it.
 *
 * Three round trips: the invitation's read (the credential), the admission with the ticket and its conversation read
 * beside it (prefetchTicket), the change's transaction; the answer is that read with the new entry. A lost race, a
 * resubmission (`replayed`) or a read that did not come reads the view again after the write (a round trip more).
 */
export const addMessage: OperationOf<Contracts, 'player-message', OperationInput> = async (input) => {
  if (input.possession?.proof !== 'credential') throw new ApiError('PLAYER_CREDENTIAL_REQUIRED');
  const { tickets } = storesOf(input.platform);
  const item = await findInvitation(input);
  if (!item || !isClaimingBrowser(input, item)) throw new ApiError('PLAYER_CREDENTIAL_REQUIRED');
  if (item.state !== 'joined' || !item.ticket_id) throw new ApiError('PLAYER_NOT_JOINED');
  const { body } = input;
  const request = body.client_message_id === undefined ? undefined : repeatableRequest(`player message ${item.ticket_id}`, body.client_message_id, { text: body.text });
  const read = await prefetchedTicket(input, item.ticket_id);
  const changed = await tickets.change(item.ticket_id, { kind: 'message', author: 'user', text: body.text }, input.now, request, read);
  if (!changed) throw new ApiError('INVITE_UNAVAILABLE');
  // A replay answers the view as it is now (what the first answer would show, and what came after it).
  if (changed.replayed || !changed.conversation) return { status: 201, data: await playerView(input, item, tickets) };
  return { status: 201, data: viewOf(input, item, changed.ticket, changed.conversation) };
};

/** The group's operations by route id but the page (its own chunk, player-page.ts): the handler serves this table, loaded off the cold start. */
export const PLAYER_OPERATIONS = {
  'player-view': viewInvitation,
  'player-claim': claim,
  'player-message': addMessage,
} satisfies GroupOperations<Omit<Contracts, 'player-page'>, OperationInput>;

/**
 * Reads beside the admission: for the claiming browser's credential, its ticket and conversation (the possession check
 * read the invitation); for a token's proof, the invitation.
 */
export const PLAYER_PREFETCH = {
  'player-view': prefetchPlayerReads,
  'player-claim': prefetchInvitation,
  'player-message': prefetchTicket,
} satisfies GroupPrefetch<Contracts, PlayerPossession>;
