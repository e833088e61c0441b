/**
 * The player site's one page (GET /join/{invitation_id}): static HTML with
 * its style and script inline, the same for every invitation. The script
 * reads the token from the fragment (`#token=…`, which browsers never send)
 * and talks to the site's JSON routes beside the page: `view` (what the link
 * or the claiming browser may see), `claim`, `messages`. Everything the
 * server says is put into the page as text (textContent), never as markup.
 *
 * The content security policy allows exactly this script and style (by
 * hash), requests to the page's own origin, and nothing else: no framing,
 * no form posts elsewhere, no base URL change.
 */
import { staticPage } from '../shared/http/static-page';

const STYLE = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
body { margin: 0; background: #f4f5f7; color: #1d2330; }
main { max-width: 34rem; margin: 3rem auto; background: #fff; border-radius: 12px; padding: 2rem 2.25rem; box-shadow: 0 1px 3px rgba(0,0,0,.08); }
h1 { font-size: 1.35rem; margin: 0 0 .75rem; }
h2 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
p { line-height: 1.5; margin: .5rem 0; }
.muted { color: #5b6474; font-size: .9rem; }
label { display: block; font-weight: 600; margin: 1rem 0 .3rem; }
input, textarea { box-sizing: border-box; width: 100%; padding: .6rem .7rem; border: 1px solid #c5cad3; border-radius: 8px; font: inherit; }
textarea { min-height: 5rem; resize: vertical; }
button { margin-top: 1.1rem; padding: .65rem 1.2rem; border: 0; border-radius: 8px; background: #2456d3; color: #fff; font: inherit; font-weight: 600; cursor: pointer; }
button[disabled] { background: #8ea6e6; cursor: default; }
.notice { padding: .75rem 1rem; border-radius: 8px; margin: 1rem 0; }
.notice.error { background: #fdecec; color: #8a1c1c; }
.notice.info { background: #eaf1fe; color: #1d3f8f; }
.status { display: inline-block; padding: .15rem .6rem; border-radius: 999px; background: #e7ebf3; font-weight: 600; }
ol.messages { list-style: none; padding: 0; margin: 1rem 0; }
ol.messages li { padding: .6rem .8rem; border-radius: 8px; margin: .4rem 0; background: #f1f3f6; white-space: pre-wrap; overflow-wrap: anywhere; }
ol.messages li.player { background: #e6f4ea; }
ol.messages .who { display: block; font-size: .8rem; color: #5b6474; margin-bottom: .2rem; }
[hidden] { display: none !important; }
`;

const SCRIPT = `
(() => {
  const $ = (id) => document.getElementById(id);
  const base = location.pathname.replace(/\\/+$/, '');
  const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
  const GAMES = { minecraft: 'Minecraft', fps: 'FPS games' };
  const STATUS = { open: 'Open: waiting for staff', waiting_user: 'Waiting for your reply', resolved: 'Resolved' };
  const sections = ['loading', 'unavailable', 'claim', 'processing', 'ticket'];
  let poll;

  function show(name) { for (const s of sections) $(s).hidden = s !== name; document.body.dataset.state = name; }
  function notice(el, text) { el.textContent = text; el.hidden = !text; }
  async function call(path, options) {
    let response;
    try { response = await fetch(base + path, { credentials: 'same-origin', cache: 'no-store', ...options }); }
    catch { return { ok: false, status: 0, error: { code: 'NETWORK', message: 'The service cannot be reached. Check your connection and try again.' } }; }
    const body = await response.json().catch(() => ({}));
    return { ok: response.ok, status: response.status, data: body.data, error: body.error, retryAfter: response.headers.get('Retry-After') };
  }
  // Two player cookies reached the call: another website set one (DUPLICATE_CREDENTIAL_COOKIE); the service refuses to guess.
  const TWO_COOKIES = 'Your browser sent this page a second access cookie that this site did not set: another website may be trying to interfere, so nothing was shown or sent. Your ticket is safe. Remove the other website\u2019s cookies in your browser settings and reload, or contact the organization that invited you.';
  const twoCookies = (result) => result.error && result.error.code === 'DUPLICATE_CREDENTIAL_COOKIE';
  function errorText(result) {
    if (twoCookies(result)) return TWO_COOKIES;
    if (result.status === 429) return 'Too many attempts. Please wait ' + (result.retryAfter || 'a few') + ' seconds and try again.';
    if (result.status === 503) return 'The ticket service is busy right now. Please try again in a moment.';
    return (result.error && result.error.message) || 'Something went wrong. Please try again.';
  }
  function unavailable(title, text) { $('unavailable-title').textContent = title; $('unavailable-text').textContent = text; show('unavailable'); }

  function render(view) {
    clearTimeout(poll);
    const inv = view.invitation;
    $('game').textContent = GAMES[inv.game] || inv.game;
    if (view.access === 'player') {
      if (token) history.replaceState(null, '', base);
      if (!view.ticket) { show('processing'); poll = setTimeout(load, 5000); return; }
      $('ticket-id').textContent = view.ticket.id;
      $('ticket-status').textContent = STATUS[view.ticket.status] || view.ticket.status;
      const list = $('messages');
      list.replaceChildren(...view.ticket.messages.map((m) => {
        const li = document.createElement('li');
        li.className = m.author;
        const who = document.createElement('span');
        who.className = 'who';
        who.textContent = (m.author === 'player' ? 'You' : 'Staff') + ' · ' + new Date(m.at).toLocaleString();
        li.append(who, document.createTextNode(m.text));
        return li;
      }));
      $('no-messages').hidden = view.ticket.messages.length > 0;
      show('ticket');
      return;
    }
    switch (inv.state) {
      case 'pending': show('claim'); return;
      case 'claiming': case 'joined': return unavailable('This link has already been used', 'Someone has already submitted this invitation. A link can be used only once, from the browser that submitted it. If this was not you, contact the organization that invited you.');
      case 'expired': return unavailable('This invitation has expired', 'Invitations are valid for 7 days. Ask the organization that invited you for a new link.');
      case 'revoked': return unavailable('This invitation was withdrawn', 'The organization withdrew this invitation. Ask them for a new link if you still need one.');
    }
  }

  async function load() {
    const result = await call('/view', { headers: token ? { 'X-Join-Token': token } : {} });
    if (result.ok) return render(result.data);
    if (twoCookies(result)) return unavailable('This page cannot be shown safely in this browser', TWO_COOKIES);
    if (result.status === 404 || result.status === 403) return unavailable('This link is not valid', 'Check that you opened the whole link you were given, or ask the organization that invited you for a new one.');
    // Busy, limited or offline: ask again after the delay the service gave (the processing screen keeps showing meanwhile).
    if (result.status === 429 || result.status === 503 || result.status === 0) {
      clearTimeout(poll);
      poll = setTimeout(load, (Number(result.retryAfter) || 5) * 1000);
      if (document.body.dataset.state === 'processing') return;
    }
    unavailable('The page cannot be shown right now', errorText(result));
  }

  $('claim-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = $('claim-submit');
    button.disabled = true;
    notice($('claim-error'), '');
    const result = await call('/claim', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token, in_game_name: $('in-game-name').value, game_account_id: $('game-account-id').value }),
    });
    button.disabled = false;
    if (result.ok) return render(result.data);
    if (result.status === 422) return notice($('claim-error'), 'Please check your details: the in-game name takes 1 to 40 characters, the game account id 1 to 64 letters, digits or _ . : -');
    if (result.status === 409) return load();
    notice($('claim-error'), errorText(result));
  });

  $('message-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = $('message-submit');
    button.disabled = true;
    notice($('message-error'), '');
    const result = await call('/messages', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: $('message-text').value }) });
    button.disabled = false;
    if (result.ok) { $('message-text').value = ''; return render(result.data); }
    if (result.status === 422) return notice($('message-error'), 'A message takes 1 to 1000 characters.');
    notice($('message-error'), errorText(result));
  });

  load();
})();
`;

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

const PAGE = staticPage({ title: 'Your invitation', style: STYLE, body: BODY, script: SCRIPT });

export const PLAYER_PAGE_HTML = PAGE.html;

/** The page's policy: its own script and style (by hash), its own origin, nothing else. */
export const PLAYER_PAGE_HEADERS: Readonly<Record<string, string>> = PAGE.headers;
