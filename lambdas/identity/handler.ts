/** The `identity` function: `GET /me`. */
import { lazyContracts } from '../shared/http/contract-loading';
import { lazyChunk } from '../shared/http/lazy-chunk';
import { IDENTITY_ROUTES } from './identity-routes';
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts, lazy-chunk.ts). */
const CONTRACTS = lazyContracts(() => import('./identity-contracts').then((module) => module.IDENTITY_CONTRACTS));
const CODE = lazyChunk(() => import('./describe-key'));

export const operations = CODE.routeTable(IDENTITY_ROUTES, (m) => m.IDENTITY_OPERATIONS);

export const definition = { operations, contracts: CONTRACTS, routes: IDENTITY_ROUTES, chunks: [CODE] };

export const handler = createPartnerApiHandler(definition);
