/// <reference lib="dom" />
/**
 * Browser code of the settings page's webhooks cards, as the page uses them: their controls wired,
 * their list loaded once signed in, and nothing of them left when signing out.
 */
import { byId } from '../../../shared/browser/dom';
import { say } from '../elements';
import { closeDeliveries, initDeliveries } from './deliveries';
import { clearNewWebhook, initWebhookForm } from './webhook-form';
import { clearWebhookList } from './webhook-list';
import { organizationNames } from './webhook-organizations';

export { loadWebhooks } from './webhook-list';

export function initWebhooks(): void {
  initDeliveries();
  initWebhookForm();
}

/** Nothing of the account's webhooks left in the page (signing out). */
export function clearWebhooks(): void {
  clearWebhookList();
  organizationNames.clear();
  clearNewWebhook();
  closeDeliveries();
  byId('webhook-partner').replaceChildren();
  byId('webhook-form').hidden = true;
  for (const id of ['webhooks-status', 'webhook-create-status']) say(id, '');
}
