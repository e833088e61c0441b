/**
 * The `player` function: the player site (`/join/{invitation_id}…`), the
 * page and the calls its script makes. No API key reaches it (the pipeline
 * refuses one); its abuse limits count by source IP, and by join link for
 * the calls that prove they hold it (player-possession.ts).
 */
import { PLAYER_CONTRACTS } from './player-contracts';
import { createPlayerHandler, type PlayerFunction } from './player-pipeline';
import { lazyOperation } from '../shared/http/pipeline';
import { addMessage, claim, prefetchInvitation, viewInvitation } from './player-operations';
import { provePossession } from './player-possession';

export const operations = {
  // The page's markup and script load on its first call, not at a cold start (the API routes do not need them).
  'player-page': lazyOperation(async () => (await import('./player-page')).playerPage),
  'player-view': viewInvitation,
  'player-claim': claim,
  'player-message': addMessage,
};

/** What each call proves about its join link, before admission counts it (player-possession.ts). */
export const possession = provePossession;

/** The path's invitation, read beside the admission where the possession check did not read it (a token's proof). */
export const prefetch = { 'player-view': prefetchInvitation, 'player-claim': prefetchInvitation, 'player-message': prefetchInvitation };

export const definition: PlayerFunction = { operations, contracts: PLAYER_CONTRACTS, possession, prefetch };

export const handler = createPlayerHandler(definition);
