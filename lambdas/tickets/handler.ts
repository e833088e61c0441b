/** The `tickets` function: `GET /partners/{partner_id}/tickets` and `GET /partners/{partner_id}/tickets/{invitation_id}`. */
import { createApiHandler } from '../shared/http/pipeline';
import { listTickets, readTicket } from './ticket-operations';

export const operations = { tickets: listTickets, ticket: readTicket };

export const handler = createApiHandler({ operations });
