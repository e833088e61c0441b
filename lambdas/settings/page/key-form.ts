/// <reference lib="dom" />
/**
 * Browser code of the settings page: creating an API key (name, personal or organization, scopes,
 * validity, and the password with a code when two-factor is on), its value shown once in a
 * read-only field until "Done". A retry of the same request after an error carries the same
 * Idempotency-Key (submission-keys.ts): when the first attempt did create the key, the answer says
 * so, without the value, and the page asks the owner to revoke that key and create a new one.
 */
import { byId } from '../../shared/browser/dom';
import { loadAudit } from './audit';
import { changeCredentials, showRefusal, type ChangeForm } from './change-credentials';
import { rowOf, say } from './elements';
import { copyButton, onSubmit } from './forms';
import { loadKeys } from './keys';
import { call, type BodyOf } from './settings-api';
import { failedSubmissionText, submissionKey } from './submission-keys';

const KEY_FORM: ChangeForm = { status: 'create-status', password: 'key-password', code: 'key-code' };
const submissions = submissionKey();

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

/**
 * An earlier attempt of this request created the key and its answer never arrived: the value was shown to no one and
 * is stored nowhere. The key is in the list (it counts toward the 20): the owner revokes it there.
 */
async function orphanedKey(keyId: string, name: string): Promise<void> {
  byId('key-password', HTMLInputElement).value = '';
  byId('key-code', HTMLInputElement).value = '';
  say(
    'create-status',
    'Your earlier attempt created key ' + (name || keyId) + ' (' + keyId + '), but its answer was lost, and a key value is shown only once. Revoke that key below, then create a new one.',
    'error',
  );
  await loadKeys();
  void loadAudit();
  (rowOf('keys-body', 'keyId', keyId)?.querySelector<HTMLElement>('button') || byId('create-status')).focus();
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
    const idempotencyKey = submissions.for(request);
    const result = await call<'settings-key-create'>('POST', 'keys', { ...request, ...credentials }, { idempotencyKey });
    if (result.ended) return;
    if (!result.ok) {
      // Any other refusal keeps the key: the owner's retry of this request is recognized if an attempt got through.
      if (result.code === 'IDEMPOTENCY_CONFLICT') submissions.settle();
      if (!showRefusal(KEY_FORM, result)) say('create-status', failedSubmissionText(result, 'key'), 'error');
      return;
    }
    submissions.settle();
    if (result.data.key === null) return orphanedKey(result.data.key_id, result.data.name);
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
