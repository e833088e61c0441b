/**
 * The `player` function: the player site (`/join/{invitation_id}…`), the
 * page and the calls its script makes. No API key reaches it (the pipeline
 * refuses one); its abuse limits count by source IP, and by join link for
 * the calls that prove they hold it (player-possession.ts).
 */
import { lazyContracts } from '../shared/http/contract-loading';
import { createPlayerHandler, type PlayerFunction } from './player-pipeline';
import { lazyOperation } from '../shared/http/pipeline';
import { addMessage, claim, prefetchInvitation, prefetchPlayerReads, prefetchTicket, viewInvitation } from './player-operations';
import { provePossession } from './player-possession';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts). */
const CONTRACTS = lazyContracts(() => import('./player-contracts').then((module) => module.PLAYER_CONTRACTS));

export const operations = {
  // The page's markup and script load on its first call, not at a cold start (the API routes do not need them).
  'player-page': lazyOperation(async () => (await import('./player-page')).playerPage),
  'player-view': viewInvitation,
  'player-claim': claim,
  'player-message': addMessage,
};

/** What each call proves about its join link, before admission counts it (player-possession.ts). */
export const possession = provePossession;

/**
 * Reads beside the admission: for the claiming browser's credential, its ticket and conversation (the possession check
 * read the invitation); for a token's proof, the invitation.
 */
export const prefetch = { 'player-view': prefetchPlayerReads, 'player-claim': prefetchInvitation, 'player-message': prefetchTicket };

export const definition: PlayerFunction = { operations, contracts: CONTRACTS, possession, prefetch };

export const handler = createPlayerHandler(definition);
