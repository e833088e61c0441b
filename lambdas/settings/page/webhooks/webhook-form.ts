/// <reference lib="dom" />
/**
 * Browser code of the settings page's webhooks cards: adding a callback — the organization, the
 * address, the password (and a code with two-factor on) — its signing secret shown once in a
 * read-only field until "Done". A retry of the same request after an error carries the same
 * Idempotency-Key (submission-keys.ts): when the first attempt did add the callback, the answer
 * says so, without the secret, and the page asks the owner to deactivate it and add a new one.
 */
import { byId } from '../../../shared/browser/dom';
import { loadAudit } from '../audit';
import { changeCredentials, showRefusal, type ChangeForm } from '../change-credentials';
import { rowOf, say } from '../elements';
import { copyButton, onSubmit } from '../forms';
import { call } from '../settings-api';
import { failedSubmissionText, submissionKey } from '../submission-keys';
import { loadWebhooks } from './webhook-list';
import { organizationLabel } from './webhook-organizations';

const WEBHOOK_FORM: ChangeForm = { status: 'webhook-create-status', password: 'webhook-password', code: 'webhook-code' };
const submissions = submissionKey();

/** The new secret gone from the page; the form offered again where there is an organization to choose. */
export function clearNewWebhook(): void {
  byId('new-webhook-secret', HTMLInputElement).value = '';
  byId('new-webhook-id').textContent = '';
  say('new-webhook-status', '');
  byId('new-webhook').hidden = true;
  byId('webhook-form').hidden = byId('webhook-partner', HTMLSelectElement).options.length === 0;
}

async function addWebhook(): Promise<unknown> {
  say('webhook-create-status', '');
  const url = byId('webhook-url', HTMLInputElement).value.trim();
  if (!url) {
    say('webhook-create-status', 'Enter the address that receives the events.', 'error');
    return byId('webhook-url').focus();
  }
  const credentials = changeCredentials(WEBHOOK_FORM);
  if (!credentials) return;
  const partner = byId('webhook-partner', HTMLSelectElement).value;
  const request = { partner_id: partner, url };
  const idempotencyKey = submissions.for(request);
  const result = await call<'webhook-create'>('POST', 'webhooks', { ...request, ...credentials }, { idempotencyKey });
  if (result.ended) return;
  if (!result.ok) {
    // Any other refusal keeps the key: the owner's retry of this request is recognized if an attempt got through.
    if (result.code === 'IDEMPOTENCY_CONFLICT') submissions.settle();
    if (showRefusal(WEBHOOK_FORM, result)) return;
    say('webhook-create-status', failedSubmissionText(result, 'callback'), 'error');
    byId(result.code === 'INVALID_WEBHOOK_URL' ? 'webhook-url' : 'webhook-partner').focus();
    return;
  }
  submissions.settle();
  if (result.data.secret === null) return orphanedWebhook(result.data.webhook.webhook_id, partner);
  byId('webhook-form', HTMLFormElement).reset();
  byId('new-webhook-secret', HTMLInputElement).value = result.data.secret;
  byId('new-webhook-id').textContent = result.data.webhook.webhook_id;
  byId('webhook-form').hidden = true;
  byId('new-webhook').hidden = false;
  say('webhook-create-status', 'Callback added for ' + organizationLabel(partner) + '. Copy its signing secret now, then verify the callback.', 'success');
  byId('new-webhook-title').focus();
  void loadWebhooks();
  void loadAudit();
}

/**
 * An earlier attempt of this request added the callback and its answer never arrived: its signing secret was shown to
 * no one. The callback is in the list (it counts toward the 10): the owner deactivates it there.
 */
async function orphanedWebhook(webhookId: string, partner: string): Promise<void> {
  byId('webhook-password', HTMLInputElement).value = '';
  byId('webhook-code', HTMLInputElement).value = '';
  say(
    'webhook-create-status',
    'Your earlier attempt added callback ' + webhookId + ' for ' + organizationLabel(partner) + ', but its answer was lost, and a signing secret is shown only once. Deactivate that callback below, then add a new one.',
    'error',
  );
  await loadWebhooks();
  void loadAudit();
  (rowOf('webhooks-body', 'webhookId', webhookId)?.querySelector<HTMLElement>('button[data-action="deactivate"]') || byId('webhook-create-status')).focus();
}

export function initWebhookForm(): void {
  onSubmit(byId('webhook-form', HTMLFormElement), addWebhook);
  copyButton('copy-webhook-secret', 'new-webhook-secret', 'new-webhook-status', 'secret');
  byId('new-webhook-done').addEventListener('click', () => {
    const id = byId('new-webhook-id').textContent || '';
    clearNewWebhook();
    say('webhook-create-status', '');
    const row = rowOf('webhooks-body', 'webhookId', id);
    const verify = row && row.querySelector<HTMLElement>('button[data-action="verify"]');
    (verify || byId('webhooks-title')).focus();
  });
}
