/**
 * The `records` function: `GET /records/{uuid}`, `GET /partners/{partner_id}/records`
 * and `GET /partners/{partner_id}/records/{record_id}`.
 */
import { lazyContracts } from '../shared/http/contract-loading';
import { lazyChunk } from '../shared/http/lazy-chunk';
import { RECORD_ROUTES } from './record-routes';
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts, lazy-chunk.ts). */
const CONTRACTS = lazyContracts(() => import('./record-contracts').then((module) => module.RECORD_CONTRACTS));
const CODE = lazyChunk(() => import('./record-operations'));

export const operations = CODE.routeTable(RECORD_ROUTES, (m) => m.RECORD_OPERATIONS);

export const definition = { operations, contracts: CONTRACTS, routes: RECORD_ROUTES, chunks: [CODE] };

export const handler = createPartnerApiHandler(definition);
