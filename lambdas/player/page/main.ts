/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * Browser code, the join page's script (entry of its bundle): reads the token from the fragment
 * (`#token=…`, which browsers never send), asks `view` what this link or browser may see, and
 * shows one section: the claim form, "being created" (polling), the ticket and its conversation,
 * or why the link cannot be used. Everything the server says is put in as text.
 */
import { byId, element } from '../../shared/browser/dom';
import { base, call, errorText, TWO_COOKIES, twoCookies, type PlayerView } from './player-api';

type Section = 'loading' | 'unavailable' | 'claim' | 'processing' | 'ticket';
type Ticket = NonNullable<PlayerView['ticket']>;

const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
const GAMES: Readonly<Record<PlayerView['invitation']['game'], string>> = { minecraft: 'Minecraft', fps: 'FPS games' };
const STATUS: Readonly<Record<Ticket['status'], string>> = { open: 'Open: waiting for staff', waiting_user: 'Waiting for your reply', resolved: 'Resolved' };
const SECTIONS: readonly Section[] = ['loading', 'unavailable', 'claim', 'processing', 'ticket'];
let poll: ReturnType<typeof setTimeout> | undefined;

function show(name: Section): void {
  for (const s of SECTIONS) byId(s).hidden = s !== name;
  document.body.dataset.state = name;
}
function notice(box: HTMLElement, text: string): void {
  box.textContent = text;
  box.hidden = !text;
}
function unavailable(title: string, text: string): void {
  byId('unavailable-title').textContent = title;
  byId('unavailable-text').textContent = text;
  show('unavailable');
}

function messageItem(message: Ticket['messages'][number]): HTMLLIElement {
  const item = element('li', null, message.author);
  const who = element('span', (message.author === 'player' ? 'You' : 'Staff') + ' · ' + new Date(message.at).toLocaleString(), 'who');
  item.append(who, document.createTextNode(message.text));
  return item;
}

function render(view: PlayerView): void {
  clearTimeout(poll);
  const invitation = view.invitation;
  byId('game').textContent = GAMES[invitation.game] || invitation.game;
  if (view.access === 'player') {
    if (token) history.replaceState(null, '', base);
    if (!view.ticket) {
      show('processing');
      poll = setTimeout(load, 5000);
      return;
    }
    byId('ticket-id').textContent = view.ticket.id;
    byId('ticket-status').textContent = STATUS[view.ticket.status] || view.ticket.status;
    byId('messages').replaceChildren(...view.ticket.messages.map(messageItem));
    byId('no-messages').hidden = view.ticket.messages.length > 0;
    show('ticket');
    return;
  }
  switch (invitation.state) {
    case 'pending':
      return show('claim');
    case 'claiming':
    case 'joined':
      return unavailable(
        'This link has already been used',
        'Someone has already submitted this invitation. A link can be used only once, from the browser that submitted it. If this was not you, contact the organization that invited you.',
      );
    case 'expired':
      return unavailable('This invitation has expired', 'Invitations are valid for 7 days. Ask the organization that invited you for a new link.');
    case 'revoked':
      return unavailable('This invitation was withdrawn', 'The organization withdrew this invitation. Ask them for a new link if you still need one.');
  }
}

async function load(): Promise<void> {
  const result = await call('/view', { headers: token ? { 'X-Join-Token': token } : {} });
  if (result.ok) return render(result.data);
  if (twoCookies(result)) return unavailable('This page cannot be shown safely in this browser', TWO_COOKIES);
  if (result.status === 404 || result.status === 403) {
    return unavailable('This link is not valid', 'Check that you opened the whole link you were given, or ask the organization that invited you for a new one.');
  }
  // Busy, limited or offline: ask again after the delay the service gave (the processing screen keeps showing meanwhile).
  if (result.status === 429 || result.status === 503 || result.status === 0) {
    clearTimeout(poll);
    poll = setTimeout(load, (Number(result.retryAfter) || 5) * 1000);
    if (document.body.dataset.state === 'processing') return;
  }
  unavailable('The page cannot be shown right now', errorText(result));
}

byId('claim-form', HTMLFormElement).addEventListener('submit', async (event) => {
  event.preventDefault();
  const button = byId('claim-submit', HTMLButtonElement);
  button.disabled = true;
  notice(byId('claim-error'), '');
  const result = await call('/claim', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token, in_game_name: byId('in-game-name', HTMLInputElement).value, game_account_id: byId('game-account-id', HTMLInputElement).value }),
  });
  button.disabled = false;
  if (result.ok) return render(result.data);
  if (result.status === 422) {
    return notice(byId('claim-error'), 'Please check your details: the in-game name takes 1 to 40 characters, the game account id 1 to 64 letters, digits or _ . : -');
  }
  if (result.status === 409) return load();
  notice(byId('claim-error'), errorText(result));
});

byId('message-form', HTMLFormElement).addEventListener('submit', async (event) => {
  event.preventDefault();
  const button = byId('message-submit', HTMLButtonElement);
  const text = byId('message-text', HTMLTextAreaElement);
  button.disabled = true;
  notice(byId('message-error'), '');
  const result = await call('/messages', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: text.value }) });
  button.disabled = false;
  if (result.ok) {
    text.value = '';
    return render(result.data);
  }
  if (result.status === 422) return notice(byId('message-error'), 'A message takes 1 to 1000 characters.');
  notice(byId('message-error'), errorText(result));
});

void load();
