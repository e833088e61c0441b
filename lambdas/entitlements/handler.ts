/** The `entitlements` function: `GET /entitlements` and `GET /partners/{partner_id}/entitlements`. */
import { lazyContracts } from '../shared/http/contract-loading';
import { lazyChunk } from '../shared/http/lazy-chunk';
import { ENTITLEMENT_ROUTES } from './entitlement-routes';
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts, lazy-chunk.ts). */
const CONTRACTS = lazyContracts(() => import('./entitlement-contracts').then((module) => module.ENTITLEMENT_CONTRACTS));
const CODE = lazyChunk(() => import('./read-entitlements'));

export const operations = CODE.routeTable(ENTITLEMENT_ROUTES, (m) => m.ENTITLEMENT_OPERATIONS);

export const definition = { operations, contracts: CONTRACTS, routes: ENTITLEMENT_ROUTES, chunks: [CODE] };

export const handler = createPartnerApiHandler(definition);
