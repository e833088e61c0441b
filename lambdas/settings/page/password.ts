/// <reference lib="dom" />
/**
 * Browser code of the settings page: changing the password (the current one, the new one twice).
 * The API then revokes every key of the account and ends its other sessions.
 */
import { byId } from '../../shared/browser/dom';
import { loadAudit } from './audit';
import { say } from './elements';
import { onSubmit } from './forms';
import { loadKeys } from './keys';
import { errorText } from './messages';
import { call } from './settings-api';

export function initPasswordForm(): void {
  const form = byId('password-form', HTMLFormElement);
  onSubmit(form, async () => {
    say('password-status', '');
    const current = byId('current-password', HTMLInputElement);
    const next = byId('new-password', HTMLInputElement);
    if (next.value !== byId('confirm-password', HTMLInputElement).value) {
      say('password-status', 'The new password and its confirmation differ.', 'error');
      byId('confirm-password').focus();
      return;
    }
    const result = await call<'settings-password'>('POST', 'password', { current_password: current.value, new_password: next.value });
    if (result.ended) return;
    if (!result.ok) {
      say('password-status', errorText(result), 'error');
      (result.code === 'INVALID_PASSWORD' ? current : next).focus();
      return;
    }
    form.reset();
    say('password-status', 'Password changed. All your API keys were revoked: create new keys for your integrations. Your other sessions were signed out.', 'success');
    void loadKeys();
    void loadAudit();
  });
}
