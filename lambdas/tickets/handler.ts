/** The `tickets` function: `GET /partners/{partner_id}/tickets` and `GET /partners/{partner_id}/tickets/{invitation_id}`. */
import { lazyContracts } from '../shared/http/contract-loading';
import { lazyChunk } from '../shared/http/lazy-chunk';
import { TICKET_ROUTES } from './ticket-routes';
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts, lazy-chunk.ts). */
const CONTRACTS = lazyContracts(() => import('./ticket-contracts').then((module) => module.TICKET_CONTRACTS));
const CODE = lazyChunk(() => import('./ticket-operations'));

export const operations = CODE.routeTable(TICKET_ROUTES, (m) => m.TICKET_OPERATIONS);

/** The routes' reads beside their admission (the chunk's TICKET_PREFETCH). */
const prefetch = CODE.optionalRouteTable(TICKET_ROUTES, (m) => m.TICKET_PREFETCH);

export const definition = { operations, contracts: CONTRACTS, prefetch, routes: TICKET_ROUTES, chunks: [CODE] };

export const handler = createPartnerApiHandler(definition);
