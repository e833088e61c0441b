/** The `tickets` function: `GET /partners/{partner_id}/tickets` and `GET /partners/{partner_id}/tickets/{invitation_id}`. */
import { lazyContracts } from '../shared/http/contract-loading';
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import { listTickets, prefetchTicket, prefetchTicketPage, readTicket } from './ticket-operations';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts). */
const CONTRACTS = lazyContracts(() => import('./ticket-contracts').then((module) => module.TICKET_CONTRACTS));

export const operations = { tickets: listTickets, ticket: readTicket };

/** Both routes' reads start beside their admission (docs/request-pipeline.md). */
export const definition = { operations, contracts: CONTRACTS, prefetch: { tickets: prefetchTicketPage, ticket: prefetchTicket } };

export const handler = createPartnerApiHandler(definition);
