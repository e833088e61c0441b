/// <reference lib="dom" />
/**
 * Browser code of the settings page: the organizations the account belongs to — the choices of the
 * key form (a personal key, or an active organization it manages) and of the callback form.
 */
import { byId, element } from '../../shared/browser/dom';
import { say } from './elements';
import { errorText } from './messages';
import { state } from './page-state';
import { call } from './settings-api';
import { webhookOrganizations } from './webhooks/webhook-organizations';

export async function loadOrganizations(): Promise<void> {
  const result = await call<'settings-organizations'>('GET', 'organizations');
  if (result.ended || !state.account) return;
  if (!result.ok) return say('webhook-create-status', errorText(result), 'error');
  const organizations = result.data.organizations || [];
  webhookOrganizations(organizations);
  const managed = organizations.filter((org) => org.role === 'manager' && org.status === 'active');
  const options = managed.map((org) => {
    const option = element('option', org.name + ' (' + org.partner_id + ')');
    option.value = org.partner_id;
    return option;
  });
  const personal = element('option', 'Personal key');
  personal.value = '';
  byId('key-partner').replaceChildren(personal, ...options);
}
