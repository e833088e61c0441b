/** The `tickets` function: `GET /partners/{partner_id}/tickets` and `GET /partners/{partner_id}/tickets/{invitation_id}`. */
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import { TICKET_CONTRACTS } from './ticket-contracts';
import { listTickets, prefetchTicket, prefetchTicketPage, readTicket } from './ticket-operations';

export const operations = { tickets: listTickets, ticket: readTicket };

/** Both routes' reads start beside their admission (docs/request-pipeline.md). */
export const definition = { operations, contracts: TICKET_CONTRACTS, prefetch: { tickets: prefetchTicketPage, ticket: prefetchTicket } };

export const handler = createPartnerApiHandler(definition);
