/// <reference lib="dom" />
/**
 * Browser code of the settings page: creating an API key (name, personal or organization, scopes,
 * validity, and the password with a code when two-factor is on), its value shown once in a
 * read-only field until "Done".
 */
import { byId } from '../../shared/browser/dom';
import { loadAudit } from './audit';
import { changeCredentials, showRefusal, type ChangeForm } from './change-credentials';
import { say } from './elements';
import { copyButton, onSubmit } from './forms';
import { loadKeys } from './keys';
import { call, type BodyOf } from './settings-api';

const KEY_FORM: ChangeForm = { status: 'create-status', password: 'key-password', code: 'key-code' };

/** The new key's value gone from the page, the form offered again. */
export function clearNewKey(): void {
  byId('new-key-value', HTMLInputElement).value = '';
  byId('new-key-id').textContent = '';
  say('new-key-status', '');
  byId('new-key').hidden = true;
  byId('create-key-form').hidden = false;
}

/** The key's request without its credentials, or null when the validity is not one (the status says so). */
function keyRequest(): Omit<BodyOf<'settings-key-create'>, 'password'> | null {
  const form = byId('create-key-form', HTMLFormElement);
  const body: Omit<BodyOf<'settings-key-create'>, 'password'> = {
    scopes: Array.from(form.querySelectorAll<HTMLInputElement>('input[name=scope]:checked'), (box) => box.value),
  };
  const name = byId('key-name', HTMLInputElement).value.trim();
  const partner = byId('key-partner', HTMLSelectElement).value.trim();
  if (name) body.name = name;
  if (partner) body.partner_id = partner;
  if (byId('permanent', HTMLInputElement).checked) {
    body.permanent = true;
    return body;
  }
  const days = Number(byId('days', HTMLInputElement).value);
  if (!Number.isInteger(days) || days < 1 || days > 365) {
    say('create-status', 'Validity: enter a whole number of days from 1 to 365, or choose "Permanent".', 'error');
    byId('days').focus();
    return null;
  }
  body.days = days;
  return body;
}

export function initKeyForm(): void {
  const permanent = byId('permanent', HTMLInputElement);
  permanent.addEventListener('change', () => {
    byId('days', HTMLInputElement).disabled = permanent.checked;
  });
  onSubmit(byId('create-key-form', HTMLFormElement), async () => {
    say('create-status', '');
    const request = keyRequest();
    if (!request) return;
    const credentials = changeCredentials(KEY_FORM);
    if (!credentials) return;
    const result = await call<'settings-key-create'>('POST', 'keys', { ...request, ...credentials });
    if (result.ended) return;
    if (!result.ok) return showRefusal(KEY_FORM, result);
    byId('create-key-form', HTMLFormElement).reset();
    byId('days', HTMLInputElement).disabled = false;
    byId('new-key-value', HTMLInputElement).value = result.data.key;
    byId('new-key-id').textContent = result.data.key_id;
    byId('create-key-form').hidden = true;
    byId('new-key').hidden = false;
    say('create-status', 'Key ' + (result.data.name || result.data.key_id) + ' created. Copy its value now.', 'success');
    byId('new-key-title').focus();
    void loadKeys();
    void loadAudit();
  });
  copyButton('copy-key', 'new-key-value', 'new-key-status', 'key');
  byId('new-key-done').addEventListener('click', () => {
    clearNewKey();
    say('create-status', '');
    byId('key-name').focus();
  });
}
