/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * Browser code of the settings page: entering the signed-in screen (every section loaded) and
 * leaving it (signing out, or the session found gone) with nothing of the account left in the page.
 */
import { byId } from '../../shared/browser/dom';
import { loadAudit } from './audit';
import { say, show } from './elements';
import { errorText } from './messages';
import { clearNewKey } from './key-form';
import { loadKeys } from './keys';
import { loadOrganizations } from './organizations';
import { state, type NoticeKind, type Session } from './page-state';
import { call } from './settings-api';
import { setCodeStep } from './sign-in';
import { clearEnrolment } from './two-factor';
import { renderTwoFactor } from './two-factor-view';
import { clearWebhooks, loadWebhooks } from './webhooks/webhooks-section';

export function signedIn(session: Session, moveFocus: boolean): void {
  state.account = session;
  byId('password', HTMLInputElement).value = '';
  setCodeStep(false);
  say('sign-in-status', '');
  byId('account-name').textContent = session.name;
  byId('account-email').textContent = session.email;
  renderTwoFactor();
  show('settings');
  if (moveFocus) byId('settings-title').focus();
  state.organizationsReady = loadOrganizations();
  void loadKeys();
  void loadWebhooks();
  void loadAudit();
}

/** Back to signing in, with nothing of the account left in the page. */
export function signedOut(message: string, kind: NoticeKind): void {
  state.account = null;
  clearNewKey();
  clearEnrolment();
  clearWebhooks();
  for (const form of document.forms) form.reset();
  byId('days', HTMLInputElement).disabled = false;
  for (const id of ['keys-body', 'audit-body', 'account-name', 'account-email']) byId(id).replaceChildren();
  for (const id of ['settings-status', 'keys-status', 'create-status', 'password-status', 'tf-status', 'audit-status']) say(id, '');
  setCodeStep(false);
  show('sign-in');
  say('sign-in-status', message, kind);
  byId('email').focus();
}

export function initSignOut(): void {
  const signOut = byId('sign-out', HTMLButtonElement);
  signOut.addEventListener('click', async () => {
    signOut.disabled = true;
    const result = await call<'settings-sign-out'>('DELETE', 'session');
    signOut.disabled = false;
    if (result.ok || result.ended) signedOut('You are signed out.', 'success');
    else say('settings-status', errorText(result), 'error');
  });
  // Every session of the account ends, this one too: needs no password, so it works from any browser still signed in.
  const everywhere = byId('sign-out-everywhere', HTMLButtonElement);
  everywhere.addEventListener('click', async () => {
    everywhere.disabled = true;
    const result = await call<'settings-sign-out-everywhere'>('POST', 'sign-out-everywhere');
    everywhere.disabled = false;
    if (result.ok) signedOut('You are signed out everywhere: every session of your account has ended.', 'success');
    else if (!result.ended) say('password-status', errorText(result), 'error');
  });
}
