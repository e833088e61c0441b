/// <reference lib="dom" />
/**
 * Browser code of the join page: sending the player's message so that it is posted once, however often it is sent.
 * An answer can be lost after the message was stored (a 502 or 503, a dropped connection): the player then presses
 * Send again. Each message gets a client message id (16 random bytes from the browser's CSPRNG, base64url) that the
 * page keeps with its text until the message is answered, and sends again with every retry of that text; the service
 * recognizes the id and answers as it did the first time, storing nothing more (docs/player-site.md, "Messages are
 * posted once"). Edited text is another message, with a new id. Kept in memory: after a reload the conversation
 * shows whether the message arrived.
 */
import type * as z from 'zod/mini';
import type { PLAYER_CONTRACTS } from '../player-contracts';
import { call, errorText, type PlayerAnswer } from './player-api';

type MessageBody = z.input<(typeof PLAYER_CONTRACTS)['player-message']['body']>;

/** The message this page sent and has no answer for yet: its text and its id. */
let pending: { readonly text: string; readonly id: string } | undefined;

function newMessageId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** Send `text`: with the id of the same text's earlier try, if it has no answer yet, or a new one. */
export async function sendMessage(text: string): Promise<PlayerAnswer> {
  if (pending?.text !== text) pending = { text, id: newMessageId() };
  const body: MessageBody = { text, client_message_id: pending.id };
  const result = await call('/messages', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (result.ok) pending = undefined;
  return result;
}

/** Why a message failed, to the player. After an error that may follow a stored message, sending again is safe. */
export function messageErrorText(result: Extract<PlayerAnswer, { ok: false }>): string {
  if (result.status === 0 || result.status >= 500) {
    return 'We could not confirm that your message was sent. Please press Send again in a moment: it will not be posted twice.';
  }
  return errorText(result);
}
