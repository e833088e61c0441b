/// <reference lib="dom" />
/**
 * Browser code of the settings page: the account's API keys — the list (never a value) and
 * revoking one after its inline confirmation.
 */
import { byId, element } from '../../shared/browser/dom';
import { loadAudit } from './audit';
import { button, cell, say, time } from './elements';
import { confirmInline } from './inline-confirmation';
import { KEY_STATUS, REASONS } from './labels';
import { errorText } from './messages';
import { state } from './page-state';
import { call, type ResponseOf } from './settings-api';

type Key = ResponseOf<'settings-keys'>['keys'][number];

export async function loadKeys(): Promise<void> {
  const result = await call<'settings-keys'>('GET', 'keys');
  if (result.ended || !state.account) return;
  if (!result.ok) return say('keys-status', errorText(result), 'error');
  const keys = result.data.keys || [];
  byId('keys-empty').hidden = keys.length > 0;
  byId('keys-table').hidden = keys.length === 0;
  byId('keys-body').replaceChildren(...keys.map(keyRow));
}

function keyRow(key: Key): HTMLTableRowElement {
  const row = document.createElement('tr');
  row.dataset.keyId = key.key_id;
  row.dataset.status = key.status;
  const label = key.name || key.key_id;
  const scopes = element('ul', null, 'scopes');
  for (const scope of key.scopes) scopes.append(element('li', scope));
  const status = document.createElement('div');
  status.append(element('span', KEY_STATUS[key.status] || key.status, 'badge ' + key.status));
  if (key.reason && key.reason !== key.status) status.append(element('span', REASONS[key.reason] || key.reason.replace(/_/g, ' '), 'reason'));
  const identity = document.createElement('div');
  identity.append(element('span', key.name || 'unnamed', key.name ? 'key-name' : 'key-name unnamed'), element('code', key.key_id, 'id'));
  const actions = cell('Actions', '');
  if (key.status === 'active') {
    const revoke = button('Revoke', 'danger-outline small');
    revoke.setAttribute('aria-label', 'Revoke ' + label);
    revoke.setAttribute('aria-expanded', 'false');
    revoke.addEventListener('click', () => confirmRevoke(row, key, label, revoke));
    actions.append(revoke);
  }
  row.append(
    cell('Key', identity),
    cell('Organization', key.partner_id ? element('code', key.partner_id, 'id') : 'personal'),
    cell('Scopes', scopes),
    cell('Created', time(key.created_at, true)),
    cell('Expires', key.expires_at ? time(key.expires_at, true) : 'never'),
    cell('Status', status),
    actions,
  );
  return row;
}

/** Revoking, once confirmed under the key's row. */
function confirmRevoke(row: HTMLTableRowElement, key: Key, label: string, trigger: HTMLButtonElement): void {
  confirmInline({
    after: row,
    id: key.key_id,
    columns: row.children.length,
    label: 'Confirm revoking ' + label,
    question: 'Revoke ' + label + '? This cannot be undone.',
    confirmText: 'Revoke key',
    trigger,
    act: async () => {
      const result = await call<'settings-key-revoke'>('POST', 'keys/' + encodeURIComponent(key.key_id) + '/revoke');
      if (result.ended) return 'done';
      if (result.ok) {
        say('keys-status', 'Key ' + label + ' revoked: requests with it are refused from now on.', 'success');
        byId('keys-title').focus();
        await loadKeys();
        void loadAudit();
        return 'done';
      }
      say('keys-status', errorText(result), 'error');
      if (result.code === 'KEY_NOT_FOUND') void loadKeys();
      return 'failed';
    },
  });
}
