/**
 * The ticket operations of the API (routes.ts: `tickets`, `ticket`): the
 * organization's joined invitations, and one ticket by its invitation id.
 * Ticket endpoints concern only tickets created through the organization's
 * invitations; the conversation never leaves through them.
 */
import { ApiError } from '../shared/errors';
import { prefetchedOr, type GroupOperations, type GroupPrefetch, type OperationInput, type OperationOf, type Prefetch } from '../shared/http/pipeline';
import type { Principal } from '../shared/identity/principal';
import type { Platform } from '../shared/platform';
import { INVITATION_PAGE_SIZE, toInvitation, type InvitationItem } from '../invitations/invitation-model';
import { isPageOf, pageRead, requestedPage } from '../invitations/invitation-operations';
import { invitationStoreOf } from '../invitations/invitation-store';
import { ticketBridgeOf } from './ticket-bridge';
import { ticketIdFor, toTicket, type TicketItem } from './ticket-model';
import type { TICKET_CONTRACTS } from './ticket-contracts';

/** Each operation is typed by its route's contract (ticket-contracts.ts). */
type Contracts = typeof TICKET_CONTRACTS;

const storesOf = (platform: Platform) => ({ invitations: invitationStoreOf(platform), tickets: ticketBridgeOf(platform) });

const partnerOf = (input: OperationInput) => (input.principal as Principal).partnerId as string;

/** The organization's page of joined invitations the query asks for, started beside the admission. */
export const prefetchTicketPage: Prefetch<Principal> = ({ event, caller, platform }) => {
  const page = requestedPage(event);
  const partnerId = caller.partnerId;
  return page !== undefined && partnerId ? pageRead(page, (p) => invitationStoreOf(platform).joinedPage(partnerId, p)) : undefined;
};

/** GET …/tickets: joined invitations (archived ones included), newest created first, 20 per page. */
export const listTickets: OperationOf<Contracts, 'tickets'> = async (input) => {
  const page = input.query.page === undefined ? 1 : Number(input.query.page);
  const read = (p: number) => storesOf(input.platform).invitations.joinedPage(partnerOf(input), p);
  const { items, total } = await prefetchedOr(input, () => pageRead(page, read), isPageOf(page));
  return { data: { items: items.map((item) => toInvitation(item, input.now)), page_count: Math.ceil(total / INVITATION_PAGE_SIZE) } };
};

/**
 * GET …/tickets/{invitation_id}: the Ticket. Not joined yet: 409
 * PLAYER_NOT_JOINED; missing or another organization's: 404
 * TICKET_NOT_FOUND. The bridge's answer is checked again against the key's
 * organization (403 PARTNER_ACCESS_FORBIDDEN when they differ); a store
 * failure is 503 TICKET_SERVICE_UNAVAILABLE with Retry-After.
 */
export const readTicket: OperationOf<Contracts, 'ticket'> = async (input) => {
  const partnerId = partnerOf(input);
  const { invitation, ticket: read } = await prefetchedOr(input, () => ticketRead(input.platform, input.pathParameters.invitation_id), isTicketRead);
  if (!invitation || invitation.partner_id !== partnerId) throw new ApiError('TICKET_NOT_FOUND');
  if (invitation.state !== 'joined' || !invitation.ticket_id) throw new ApiError('PLAYER_NOT_JOINED');
  // The ticket was read by the id its invitation's derives (ticketIdFor), beside the invitation. A store failure
  // (then, or now) is TicketServiceUnavailable: 503 with Retry-After.
  // Read at the same instant as the invitation, the ticket can be missing only if it was made between the two reads:
  // then it is there now.
  const ticket = (invitation.ticket_id === read.id ? await read.item : undefined) ?? (await storesOf(input.platform).tickets.get(invitation.ticket_id));
  if (!ticket || ticket.invitation_id !== invitation.id) throw new ApiError('TICKET_NOT_FOUND');
  if (ticket.partner_id !== partnerId) throw new ApiError('PARTNER_ACCESS_FORBIDDEN');
  return { data: toTicket(ticket) };
};

/**
 * The invitation of the path and the ticket its id derives (ticketIdFor), read together: the door starts them beside
 * the admission. The ticket's read is kept as a promise: the bridge may be unavailable (503), which matters only once
 * the invitation says it is joined.
 */
interface TicketRead {
  readonly kind: 'ticket-read';
  readonly invitation: InvitationItem | undefined;
  readonly ticket: { readonly id: string; readonly item: Promise<TicketItem | undefined> };
}

const isTicketRead = (value: unknown): value is TicketRead => (value as TicketRead | undefined)?.kind === 'ticket-read';

async function ticketRead(platform: Platform, invitationId: string): Promise<TicketRead> {
  const id = ticketIdFor(invitationId);
  const item = (async () => ticketBridgeOf(platform).get(id))();
  item.catch(() => undefined);
  return { kind: 'ticket-read', invitation: await invitationStoreOf(platform).find(invitationId), ticket: { id, item } };
}

export const prefetchTicket: Prefetch<Principal> = ({ event, platform }) => {
  const id = event.pathParameters.invitation_id;
  return id ? ticketRead(platform, id) : undefined;
};

/** The group's operations by route id: the handler serves this table. */
export const TICKET_OPERATIONS = { tickets: listTickets, ticket: readTicket } satisfies GroupOperations<Contracts>;

/** Both routes' reads start beside their admission (docs/request-pipeline.md). */
export const TICKET_PREFETCH = { tickets: prefetchTicketPage, ticket: prefetchTicket } satisfies GroupPrefetch<Contracts, Principal>;
