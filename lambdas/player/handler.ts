/**
 * The `player` function: the player site (`/join/{invitation_id}…`), the
 * page and the calls its script makes. No API key reaches it (the pipeline
 * refuses one); its abuse limits count by source IP, and by join link for
 * the calls that prove they hold it (player-possession.ts).
 */
import type { RouteOperations } from '../shared/http/pipeline';
import { lazyContracts } from '../shared/http/contract-loading';
import { lazyChunk } from '../shared/http/lazy-chunk';
import { routesExcept } from '../shared/http/routes';
import { PLAYER_ROUTES } from './player-routes';
import { createPlayerHandler, type PlayerFunction } from './player-pipeline';
import { provePossession } from './player-possession';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts, lazy-chunk.ts). */
const CONTRACTS = lazyContracts(() => import('./player-contracts').then((module) => module.PLAYER_CONTRACTS));
const CODE = lazyChunk(() => import('./player-operations'));
/** The page's markup and script load on its first call, not with the API routes (which do not need them). */
const PAGE = lazyChunk(() => import('./player-page'));

export const operations = {
  'player-page': PAGE.fn((m) => m.playerPage),
  ...CODE.routeTable(routesExcept(PLAYER_ROUTES, 'player-page'), (m) => m.PLAYER_OPERATIONS),
} satisfies RouteOperations<typeof PLAYER_ROUTES>;

/** What each call proves about its join link, before admission counts it (player-possession.ts: one read, with the handler). */
export const possession = provePossession;

/** Reads beside the admission, where a route has them (the chunk's PLAYER_PREFETCH). */
export const prefetch = CODE.optionalRouteTable(PLAYER_ROUTES, (m) => m.PLAYER_PREFETCH);

export const definition: PlayerFunction = { operations, contracts: CONTRACTS, routes: PLAYER_ROUTES, chunks: [CODE], possession, prefetch };

export const handler = createPlayerHandler(definition);
