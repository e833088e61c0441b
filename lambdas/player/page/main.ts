/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * Browser code, the join page's script (entry of its bundle): reads the token from the fragment
 * (`#token=…`, which browsers never send), asks `view` what this link or browser may see, and
 * shows one section: the claim form, "being created" (polling), the ticket and its conversation,
 * or why the link cannot be used. Everything the server says is put in as text. The claim is
 * resumable (claim-submission.ts): an answer that did not arrive is asked for again with the same
 * submission, from the same page or when the link is opened again in this browser.
 */
import { byId, element } from '../../shared/browser/dom';
import { base, call, errorText, TWO_COOKIES, twoCookies, type PlayerAnswer, type PlayerView } from './player-api';
import { forgetSubmission, keepSubmission, newSubmissionId, pendingSubmission, type Submission } from './claim-submission';
import { messageErrorText, sendMessage } from './message-sending';

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
    forgetSubmission();
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
  const pending = pendingSubmission();
  switch (invitation.state) {
    case 'pending':
      if (pending) fillForm(pending);
      return show('claim');
    case 'claiming':
    case 'joined':
      // This browser's own claim, whose answer did not arrive (the tab was closed, the page reloaded): ask for it again.
      if (pending && token) return void submitClaim(pending);
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

function fillForm(submission: Submission): void {
  byId('in-game-name', HTMLInputElement).value = submission.in_game_name;
  byId('game-account-id', HTMLInputElement).value = submission.game_account_id;
}

/** Why a claim failed, to the player. An error after which the claim may have been applied says to submit again. */
function claimErrorText(result: Extract<PlayerAnswer, { ok: false }>): string {
  if (result.status === 0 || (result.status >= 500 && result.status !== 503)) {
    return 'We could not confirm your submission. Please submit again: if it already arrived, this page then shows your ticket.';
  }
  return errorText(result);
}

/**
 * Send the claim, kept first (its answer may not arrive) and sent again as it was: the same submission id, so a claim
 * that was applied is answered again rather than refused as a used link.
 */
async function submitClaim(submission: Submission): Promise<void> {
  keepSubmission(submission);
  const button = byId('claim-submit', HTMLButtonElement);
  button.disabled = true;
  notice(byId('claim-error'), '');
  const result = await call('/claim', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token, ...submission }) });
  button.disabled = false;
  if (result.ok) return render(result.data);
  if (result.status === 422) {
    show('claim');
    return notice(byId('claim-error'), 'Please check your details: the in-game name takes 1 to 40 characters, the game account id 1 to 64 letters, digits or _ . : -');
  }
  if (result.status === 409) {
    // Used by another browser's submission (or withdrawn, or expired): nothing of this one to resume.
    forgetSubmission();
    return load();
  }
  fillForm(submission);
  show('claim');
  notice(byId('claim-error'), claimErrorText(result));
}

byId('claim-form', HTMLFormElement).addEventListener('submit', (event) => {
  event.preventDefault();
  // One submission id per link until it is answered: a second try after an error is the same submission.
  const submission_id = pendingSubmission()?.submission_id ?? newSubmissionId();
  void submitClaim({ submission_id, in_game_name: byId('in-game-name', HTMLInputElement).value, game_account_id: byId('game-account-id', HTMLInputElement).value });
});

byId('message-form', HTMLFormElement).addEventListener('submit', async (event) => {
  event.preventDefault();
  const button = byId('message-submit', HTMLButtonElement);
  const text = byId('message-text', HTMLTextAreaElement);
  button.disabled = true;
  notice(byId('message-error'), '');
  // Sent again after an error with the same client message id: posted once however often the player presses Send.
  const result = await sendMessage(text.value);
  button.disabled = false;
  if (result.ok) {
    text.value = '';
    return render(result.data);
  }
  if (result.status === 422) return notice(byId('message-error'), 'A message takes 1 to 1000 characters.');
  notice(byId('message-error'), messageErrorText(result));
});

void load();
