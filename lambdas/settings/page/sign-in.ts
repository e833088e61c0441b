/// <reference lib="dom" />
/**
 * Browser code of the settings page: signing in — the e-mail and password, then (when the API
 * asks for it) a two-factor code sent with the same e-mail and password — and, once signed in, a
 * notice of the attempts at the address that were refused since its last sign-in.
 */
import { byId } from '../../shared/browser/dom';
import { say, show } from './elements';
import { onSubmit } from './forms';
import { errorText } from './messages';
import { state, type Session } from './page-state';
import { call, type BodyOf, type ResponseOf } from './settings-api';

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

type Refused = NonNullable<ResponseOf<'settings-sign-in'>['refused_sign_ins']>;

/** What the owner is told of the attempts refused since the last sign-in (the activity list keeps their count). */
export function refusedNotice(refused: Refused): string {
  const last = new Date(refused.last_at);
  const when = Number.isNaN(last.getTime()) ? refused.last_at : last.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  const attempts = refused.count === 1 ? '1 sign-in attempt' : refused.count + ' sign-in attempts';
  return (
    attempts + ' with your e-mail address failed since you last signed in (the last on ' + when + '). ' +
    'If that was not you, someone may be trying to guess your password: keep it long and used nowhere else, and turn on two-factor sign-in.'
  );
}

/** The sign-in form; `signedIn` gets the session the API opened. */
export function initSignIn(signedIn: (session: Session) => void): void {
  onSubmit(byId('sign-in-form', HTMLFormElement), async () => {
    say('sign-in-status', '');
    const body: BodyOf<'settings-sign-in'> = { email: byId('email', HTMLInputElement).value.trim(), password: byId('password', HTMLInputElement).value };
    if (state.codeStep) body.two_factor_code = byId('sign-in-code', HTMLInputElement).value.trim();
    const result = await call<'settings-sign-in'>('POST', 'session', body);
    if (result.ok) {
      signedIn(result.data);
      const refused = result.data.refused_sign_ins;
      if (refused) say('settings-status', refusedNotice(refused), 'info');
      return;
    }
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
