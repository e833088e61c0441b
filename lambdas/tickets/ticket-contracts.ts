/**
 * The contracts of the tickets group's routes (each declared once here, rules and contract: *-routes.ts is generated from them; group `tickets`): the organization's tickets
 * (its joined invitations) and one ticket.
 */
import * as z from 'zod/mini';
import { described, isoTime, named, pageNumberQuery, withErrorCode, type GroupContracts } from '../shared/http/contract';
import type { TICKET_ROUTES } from './ticket-routes';
import { INVITATION_ID_PATTERN } from '../invitations/invitation-model';
import { InvitationSchema } from '../invitations/invitation-contracts';
import { GAME_GROUPS } from '../records/games';
import { TICKET_STATUSES } from './ticket-model';

const TicketPageSchema = named(
  'TicketPage',
  z.object({
    items: described('Joined invitations, newest created first, 20 per page', z.array(InvitationSchema)),
    page_count: described('Pages of 20 the organization has now (0 when none)', z.int()),
  }),
);

/** The spec's Ticket object. */
export const TicketSchema = named(
  'Ticket',
  z.strictObject({
    id: described('Formal ticket id', z.string()),
    invitation_id: z.string().check(z.regex(INVITATION_ID_PATTERN)),
    partner_id: z.string(),
    game: z.enum(GAME_GROUPS),
    status: described('open: waiting for staff; waiting_user: waiting for the player; resolved (says nothing about the screening result)', z.enum(TICKET_STATUSES)),
    created_at: isoTime(),
    updated_at: isoTime(),
    message_count: described('Current visible non-system messages; not strictly monotonic', z.int().check(z.minimum(0))),
  }),
);

export const TICKET_CONTRACTS = {
  tickets: {
    method: 'GET', path: '/partners/{partner_id}/tickets', auth: 'key', scope: 'tickets:read', partnerBound: true, category: 'ticket',
    summary: 'List the organization\u2019s tickets',
    clientMethod: 'listTickets',
    description:
      'Joined invitations only (archived ones included), newest invitation first, 20 per page; id is the invitation id, ticket_id the formal ticket id. No message bodies. Each page costs the same however deep.',
    query: pageNumberQuery(),
    status: 200,
    data: TicketPageSchema,
  },
  ticket: {
    method: 'GET', path: '/partners/{partner_id}/tickets/{invitation_id}', auth: 'key', scope: 'tickets:read', partnerBound: true, category: 'ticket',
    summary: 'One ticket, by its invitation id',
    clientMethod: 'getTicket',
    description:
      'The last path segment is the invitation id, not the formal ticket id. Not yet joined: 409 PLAYER_NOT_JOINED. Missing, another organization\u2019s, or a failed ticket association check: 404 TICKET_NOT_FOUND, with no conversation content.',
    pathParameters: z.object({ partner_id: z.string(), invitation_id: withErrorCode(z.string().check(z.regex(INVITATION_ID_PATTERN)), 'TICKET_NOT_FOUND') }),
    status: 200,
    data: TicketSchema,
    errors: ['TICKET_NOT_FOUND', 'PLAYER_NOT_JOINED', 'PARTNER_ACCESS_FORBIDDEN', 'TICKET_SERVICE_UNAVAILABLE'],
  },
} as const satisfies GroupContracts<typeof TICKET_ROUTES>;
