/**
 * The `player` function: the player site (`/join/{invitation_id}…`), the
 * page and the calls its script makes. No API key reaches it (the pipeline
 * refuses one); its abuse limits count by source IP and join link.
 */
import { createApiHandler } from '../shared/http/pipeline';
import { addMessage, claim, playerPage, viewInvitation } from './player-operations';

export const operations = {
  'player-page': playerPage,
  'player-view': viewInvitation,
  'player-claim': claim,
  'player-message': addMessage,
};

export const handler = createApiHandler({ operations });
