/// <reference lib="dom" />
/**
 * Browser code of the settings page: two-factor sign-in — enrol with the password (the secret and
 * its setup link shown as text), turn on with the password and the app's first code, turn off with
 * the password and a current code.
 */
import { byId } from '../../shared/browser/dom';
import { loadAudit } from './audit';
import { say } from './elements';
import { onSubmit } from './forms';
import { errorText, refusalText } from './messages';
import { state } from './page-state';
import { call } from './settings-api';
import { renderTwoFactor } from './two-factor-view';

/** The enrolment gone from the page: the password typed for it, the secret, the code. */
export function clearEnrolment(): void {
  byId('tf-enrol-password', HTMLInputElement).value = '';
  byId('tf-secret').textContent = '';
  byId('tf-uri').textContent = '';
  byId('tf-confirm-code', HTMLInputElement).value = '';
  byId('tf-enrolment').hidden = true;
}

const enrolPassword = () => byId('tf-enrol-password', HTMLInputElement);

async function enrol(): Promise<void> {
  say('tf-status', '');
  if (!enrolPassword().value) {
    say('tf-status', 'Enter your password to confirm.', 'error');
    return enrolPassword().focus();
  }
  const trigger = byId('tf-enrol', HTMLButtonElement);
  trigger.disabled = true;
  // The password stays in its field until the code confirms the enrolment (that call needs it too).
  const result = await call<'settings-two-factor-enrol'>('POST', 'two-factor/enrol', { password: enrolPassword().value });
  trigger.disabled = false;
  if (result.ended || !state.account) return;
  if (!result.ok) {
    if (result.code === 'TWO_FACTOR_ENABLED') state.account.two_factor = 'on';
    renderTwoFactor();
    say('tf-status', refusalText(result), 'error');
    if (result.code === 'INVALID_PASSWORD') {
      enrolPassword().value = '';
      enrolPassword().focus();
    }
    return;
  }
  byId('tf-secret').textContent = result.data.secret;
  byId('tf-uri').textContent = result.data.otpauth_uri;
  byId('tf-enrolment').hidden = false;
  state.account.two_factor = 'pending';
  renderTwoFactor();
  byId('tf-enrolment-title').focus();
  void loadAudit();
}

async function confirmEnrolment(): Promise<void> {
  say('tf-status', '');
  const code = byId('tf-confirm-code', HTMLInputElement);
  const result = await call<'settings-two-factor-confirm'>('POST', 'two-factor/confirm', { password: enrolPassword().value, code: code.value.trim() });
  if (result.ended || !state.account) return;
  if (!result.ok && result.code === 'INVALID_PASSWORD') {
    // Not expected (the password was checked a moment ago, unless it changed meanwhile): start again.
    clearEnrolment();
    renderTwoFactor();
    say('tf-status', 'The password is wrong: enter it and enable two-factor again.', 'error');
    return enrolPassword().focus();
  }
  if (!result.ok) {
    say('tf-status', errorText(result), 'error');
    code.select();
    code.focus();
    return;
  }
  clearEnrolment();
  state.account.two_factor = 'on';
  renderTwoFactor();
  say('tf-status', 'Two-factor sign-in is on: from now on, signing in needs a code from your app. Your other sessions were signed out.', 'success');
  byId('tf-title').focus();
  void loadAudit();
}

async function disable(): Promise<void> {
  say('tf-status', '');
  const form = byId('tf-disable-form', HTMLFormElement);
  const result = await call<'settings-two-factor-disable'>('POST', 'two-factor/disable', {
    password: byId('tf-disable-password', HTMLInputElement).value,
    code: byId('tf-disable-code', HTMLInputElement).value.trim(),
  });
  if (result.ended || !state.account) return;
  if (!result.ok) return say('tf-status', errorText(result), 'error');
  form.reset();
  state.account.two_factor = 'off';
  renderTwoFactor();
  say('tf-status', 'Two-factor sign-in is off.', 'success');
  byId('tf-title').focus();
  void loadAudit();
}

export function initTwoFactor(): void {
  byId('tf-enrol').addEventListener('click', enrol);
  byId('tf-cancel').addEventListener('click', () => {
    clearEnrolment();
    renderTwoFactor();
    byId('tf-enrol').focus();
  });
  onSubmit(byId('tf-confirm-form', HTMLFormElement), confirmEnrolment);
  onSubmit(byId('tf-disable-form', HTMLFormElement), disable);
}
