/** The `tickets` function: `GET /partners/{partner_id}/tickets` and `GET /partners/{partner_id}/tickets/{invitation_id}`. */
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import { TICKET_CONTRACTS } from './ticket-contracts';
import { listTickets, readTicket } from './ticket-operations';

export const operations = { tickets: listTickets, ticket: readTicket };

export const definition = { operations, contracts: TICKET_CONTRACTS };

export const handler = createPartnerApiHandler(definition);
