/// <reference lib="dom" />
/**
 * Browser code of the settings page: the password (and, with two-factor on, the current code) that
 * a change outliving the session asks for — creating a key, adding a webhook callback — and what
 * the form does when the API refuses them: the status says why, the wrong field is emptied and
 * focused, and a code found to be needed (two-factor turned on elsewhere) shows its field.
 */
import { byId } from '../../shared/browser/dom';
import { say } from './elements';
import { refusalText } from './messages';
import { state } from './page-state';
import type { Failure } from './settings-api';
import { renderTwoFactor } from './two-factor-view';

/** The ids of a form's status region, password field and code field. */
export interface ChangeForm {
  readonly status: string;
  readonly password: string;
  readonly code: string;
}

export interface ChangeCredentials {
  password: string;
  two_factor_code?: string;
}

/** The form's credentials for the request, or null when the password is missing (the status says so). */
export function changeCredentials(form: ChangeForm): ChangeCredentials | null {
  const password = byId(form.password, HTMLInputElement);
  if (!password.value) {
    say(form.status, 'Enter your password to confirm.', 'error');
    password.focus();
    return null;
  }
  if (state.account?.two_factor !== 'on') return { password: password.value };
  return { password: password.value, two_factor_code: byId(form.code, HTMLInputElement).value.trim() };
}

/**
 * Shows a refused change in its form. True when the password or the code was refused (that field
 * is emptied and focused); otherwise the caller focuses what it names.
 */
export function showRefusal(form: ChangeForm, result: Failure): boolean {
  if (result.code === 'INVALID_TWO_FACTOR' && state.account && state.account.two_factor !== 'on') {
    state.account.two_factor = 'on';
    renderTwoFactor();
  }
  say(form.status, refusalText(result), 'error');
  const refused = result.code === 'INVALID_PASSWORD' ? form.password : result.code === 'INVALID_TWO_FACTOR' ? form.code : null;
  if (!refused) return false;
  const field = byId(refused, HTMLInputElement);
  field.value = '';
  field.focus();
  return true;
}
