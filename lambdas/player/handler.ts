/**
 * The `player` function: the player site (`/join/{invitation_id}…`), the
 * page and the calls its script makes. No API key reaches it (the pipeline
 * refuses one); its abuse limits count by source IP, and by join link for
 * the calls that prove they hold it (player-possession.ts).
 */
import { createApiHandler } from '../shared/http/pipeline';
import { addMessage, claim, playerPage, viewInvitation } from './player-operations';
import { provePossession } from './player-possession';

export const operations = {
  'player-page': playerPage,
  'player-view': viewInvitation,
  'player-claim': claim,
  'player-message': addMessage,
};

/** What each call proves about its join link, before admission counts it (player-possession.ts). */
export const possession = provePossession;

export const handler = createApiHandler({ operations, possession });
