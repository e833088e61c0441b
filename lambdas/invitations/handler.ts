/**
 * The `invitations` function: create, list, read, link and revoke an
 * organization's invitations (`/partners/{partner_id}/invitations…`).
 */
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import { lazyContracts } from '../shared/http/contract-loading';
import { lazyChunk } from '../shared/http/lazy-chunk';
import { INVITATION_ROUTES } from './invitation-routes';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts, lazy-chunk.ts). */
const CONTRACTS = lazyContracts(() => import('./invitation-contracts').then((module) => module.INVITATION_CONTRACTS));
const CODE = lazyChunk(() => import('./invitation-operations'));

export const operations = CODE.routeTable(INVITATION_ROUTES, (m) => m.INVITATION_OPERATIONS);

/** Every route's reads beside its admission, where it has them (the chunk's INVITATION_PREFETCH). */
const prefetch = CODE.optionalRouteTable(INVITATION_ROUTES, (m) => m.INVITATION_PREFETCH);

export const definition = { operations, contracts: CONTRACTS, prefetch, routes: INVITATION_ROUTES, chunks: [CODE] };

export const handler = createPartnerApiHandler(definition);
