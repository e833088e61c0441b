/**
 * The ticket operations of the API (routes.ts: `tickets`, `ticket`): the
 * organization's joined invitations, and one ticket by its invitation id.
 * Ticket endpoints concern only tickets created through the organization's
 * invitations; the conversation never leaves through them.
 */
import { ApiError } from '../shared/errors';
import type { Operation, OperationInput } from '../shared/http/pipeline';
import type { Principal } from '../shared/identity/principal';
import type { Platform } from '../shared/platform';
import { INVITATION_PAGE_SIZE, toInvitation } from '../invitations/invitation-model';
import { invitationStoreOf } from '../invitations/invitation-store';
import { ticketBridgeOf } from './ticket-bridge';
import { toTicket } from './ticket-model';

const storesOf = (platform: Platform) => ({ invitations: invitationStoreOf(platform), tickets: ticketBridgeOf(platform) });

const partnerOf = (input: OperationInput) => (input.principal as Principal).partnerId as string;

/** GET …/tickets: joined invitations (archived ones included), newest created first, 20 per page. */
export const listTickets: Operation = async (input) => {
  const page = input.query.page === undefined ? 1 : Number(input.query.page);
  const { items, total } = await storesOf(input.platform).invitations.joinedPage(partnerOf(input), page);
  return { data: { items: items.map((item) => toInvitation(item, input.now)), page_count: Math.ceil(total / INVITATION_PAGE_SIZE) } };
};

/**
 * GET …/tickets/{invitation_id}: the Ticket. Not joined yet: 409
 * PLAYER_NOT_JOINED; missing or another organization's: 404
 * TICKET_NOT_FOUND. The bridge's answer is checked again against the key's
 * organization (403 PARTNER_ACCESS_FORBIDDEN when they differ); a store
 * failure is 503 TICKET_SERVICE_UNAVAILABLE with Retry-After.
 */
export const readTicket: Operation = async (input) => {
  const partnerId = partnerOf(input);
  const { invitations, tickets } = storesOf(input.platform);
  const invitation = await invitations.get(partnerId, String(input.pathParameters.invitation_id));
  if (!invitation) throw new ApiError('TICKET_NOT_FOUND');
  if (invitation.state !== 'joined' || !invitation.ticket_id) throw new ApiError('PLAYER_NOT_JOINED');
  // A store failure is TicketServiceUnavailable: 503 with Retry-After.
  const ticket = await tickets.get(invitation.ticket_id);
  if (!ticket || ticket.invitation_id !== invitation.id) throw new ApiError('TICKET_NOT_FOUND');
  if (ticket.partner_id !== partnerId) throw new ApiError('PARTNER_ACCESS_FORBIDDEN');
  return { data: toTicket(ticket) };
};
