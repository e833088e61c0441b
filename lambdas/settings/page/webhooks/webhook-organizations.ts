/// <reference lib="dom" />
/**
 * Browser code of the settings page's webhooks cards: the organizations' names for the list, and
 * the add form's choices (the active organizations the account manages).
 */
import { byId, element } from '../../../shared/browser/dom';
import type { ResponseOf } from '../settings-api';

type Organization = ResponseOf<'settings-organizations'>['organizations'][number];

/** Organization names by id (all memberships), for the list. */
export const organizationNames = new Map<string, string>();

export const organizationLabel = (partnerId: string): string =>
  organizationNames.has(partnerId) ? organizationNames.get(partnerId) + ' (' + partnerId + ')' : partnerId;

/** The choices of the add form and the names for the list. */
export function webhookOrganizations(organizations: readonly Organization[]): void {
  organizationNames.clear();
  for (const org of organizations) organizationNames.set(org.partner_id, org.name);
  const managed = organizations.filter((org) => org.role === 'manager' && org.status === 'active');
  byId('webhook-partner').replaceChildren(
    ...managed.map((org) => {
      const option = element('option', org.name + ' (' + org.partner_id + ')');
      option.value = org.partner_id;
      return option;
    }),
  );
  byId('webhook-no-org').hidden = managed.length > 0;
  byId('webhook-form').hidden = managed.length === 0 || !byId('new-webhook').hidden;
}
