/**
 * The player site's one page (GET /join/{invitation_id}): static HTML, the
 * same for every invitation, with its script and style inline. This module
 * holds the markup; the script and the style are the bundle of the browser
 * code in page/ (TypeScript typed against the player contracts, and CSS),
 * built by scripts/page-bundles.ts into player-page-bundle.generated.ts. The
 * script reads the token from the fragment (`#token=…`, which browsers never
 * send) and talks to the site's JSON routes beside the page: `view`, `claim`,
 * `messages` (page/main.ts).
 *
 * The content security policy allows exactly this script and style (by
 * hash), requests to the page's own origin, and nothing else: no framing,
 * no form posts elsewhere, no base URL change.
 */
import { staticPage } from '../shared/http/static-page';
import type { OperationOf } from '../shared/http/pipeline';
import type { PlayerOperationInput } from './player-pipeline';
import type { PLAYER_CONTRACTS } from './player-contracts';
import { PAGE_SCRIPT, PAGE_STYLE } from './player-page-bundle.generated';

const BODY = `
<main>
  <section id="loading"><p class="muted">Loading your invitation…</p></section>
  <section id="unavailable" hidden>
    <h1 id="unavailable-title"></h1>
    <p id="unavailable-text"></p>
  </section>
  <section id="claim" hidden>
    <h1>You are invited to a screening ticket</h1>
    <p>An organization invited you to open a ticket for <strong id="game"></strong>. Enter your own game details to accept. You need no account; this browser keeps your access for 90 days.</p>
    <form id="claim-form" novalidate>
      <label for="in-game-name">In-game name</label>
      <input id="in-game-name" name="in_game_name" maxlength="40" autocomplete="nickname" required>
      <label for="game-account-id">Game account id</label>
      <input id="game-account-id" name="game_account_id" maxlength="64" autocomplete="off" spellcheck="false" required>
      <p class="muted">Letters, digits and _ . : - (for example your Minecraft UUID or Steam id).</p>
      <div id="claim-error" class="notice error" role="alert" hidden></div>
      <button id="claim-submit" type="submit">Accept invitation</button>
    </form>
  </section>
  <section id="processing" hidden>
    <h1>Your submission was received</h1>
    <div class="notice info">Your ticket is being created. This page updates by itself.</div>
  </section>
  <section id="ticket" hidden>
    <h1>Your ticket</h1>
    <p>Status: <span id="ticket-status" class="status"></span></p>
    <p class="muted">Reference <span id="ticket-id"></span></p>
    <h2>Messages</h2>
    <p id="no-messages" class="muted">No messages yet.</p>
    <ol id="messages" class="messages"></ol>
    <form id="message-form" novalidate>
      <label for="message-text">Add a message</label>
      <textarea id="message-text" name="text" maxlength="1000" required></textarea>
      <div id="message-error" class="notice error" role="alert" hidden></div>
      <button id="message-submit" type="submit">Send message</button>
    </form>
  </section>
</main>`;

const PAGE = staticPage({ title: 'Your invitation', style: PAGE_STYLE, body: BODY, script: PAGE_SCRIPT });

export const PLAYER_PAGE_HTML = PAGE.html;

/** The page's policy: its own script and style (by hash), its own origin, nothing else. */
export const PLAYER_PAGE_HEADERS: Readonly<Record<string, string>> = PAGE.headers;

/** GET /join/{invitation_id}: the page (loaded on its first call: lambdas/player/handler.ts). */
export const playerPage: OperationOf<typeof PLAYER_CONTRACTS, 'player-page', PlayerOperationInput> = async () => ({ data: PLAYER_PAGE_HTML, page: true, headers: { ...PLAYER_PAGE_HEADERS } });
