/// <reference lib="dom" />
/**
 * Browser code of the settings page: signing in — the e-mail and password, then (when the API
 * asks for it) a two-factor code sent with the same e-mail and password.
 */
import { byId } from '../../shared/browser/dom';
import { say, show } from './elements';
import { onSubmit } from './forms';
import { errorText } from './messages';
import { state, type Session } from './page-state';
import { call, type BodyOf } from './settings-api';

/** Shows the code step (or the password step again), with an empty code field. */
export function setCodeStep(on: boolean): void {
  state.codeStep = on;
  byId('password-step').hidden = on;
  byId('code-step').hidden = !on;
  byId('sign-in-back').hidden = !on;
  byId('sign-in-code', HTMLInputElement).value = '';
  byId('code-email').textContent = on ? byId('email', HTMLInputElement).value.trim() : '';
  if (!byId('sign-in').hidden) show('sign-in');
}

/** The sign-in form; `signedIn` gets the session the API opened. */
export function initSignIn(signedIn: (session: Session) => void): void {
  onSubmit(byId('sign-in-form', HTMLFormElement), async () => {
    say('sign-in-status', '');
    const body: BodyOf<'settings-sign-in'> = { email: byId('email', HTMLInputElement).value.trim(), password: byId('password', HTMLInputElement).value };
    if (state.codeStep) body.two_factor_code = byId('sign-in-code', HTMLInputElement).value.trim();
    const result = await call<'settings-sign-in'>('POST', 'session', body);
    if (result.ok) return signedIn(result.data);
    if (result.code === 'INVALID_TWO_FACTOR' && !state.codeStep) {
      setCodeStep(true);
      say('sign-in-status', 'Two-factor sign-in is on for this account: enter the 6-digit code from your authenticator app.', 'info');
      byId('sign-in-code').focus();
      return;
    }
    if (result.code === 'INVALID_PASSWORD' && state.codeStep) setCodeStep(false);
    say('sign-in-status', errorText(result), 'error');
    const field = byId(state.codeStep ? 'sign-in-code' : result.code === 'INVALID_PASSWORD' ? 'password' : 'email', HTMLInputElement);
    field.focus();
    field.select();
  });
  byId('sign-in-back').addEventListener('click', () => {
    setCodeStep(false);
    say('sign-in-status', '');
    byId('password').focus();
  });
}
