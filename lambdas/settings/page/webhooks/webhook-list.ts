/// <reference lib="dom" />
/**
 * Browser code of the settings page's webhooks cards: the account's callbacks — the list (never a
 * secret), verifying one and sending it a test event (the outcome under its row, until the page is
 * left), its deliveries, and deactivating it after its inline confirmation.
 */
import { byId, element } from '../../../shared/browser/dom';
import { loadAudit } from '../audit';
import { button, cell, rowOf, say, time } from '../elements';
import { confirmInline } from '../inline-confirmation';
import { errorText } from '../messages';
import { state, type NoticeKind } from '../page-state';
import { call, type ResponseOf } from '../settings-api';
import { followWebhook, openDeliveries, refreshDeliveriesOf } from './deliveries';
import { FAILURES, WEBHOOK_ENDS, WEBHOOK_STATUS, failureLabel, httpNote, webhookPath, type Webhook } from './labels';
import { organizationNames } from './webhook-organizations';

type Check = 'verify' | 'test';
/** A verification's or a test's outcome (the two answer the same report). */
type AttemptReport = ResponseOf<'webhook-verify'>['verification'];

let webhooks: Webhook[] = [];
/** The last verification or test outcome per callback, shown under its row until the page is left. */
const outcomes = new Map<string, { readonly text: string; readonly kind: NoticeKind }>();

export async function loadWebhooks(): Promise<void> {
  const [result] = await Promise.all([call<'webhooks'>('GET', 'webhooks'), state.organizationsReady]);
  if (result.ended || !state.account) return;
  if (!result.ok) return say('webhooks-status', errorText(result), 'error');
  webhooks = result.data.webhooks || [];
  byId('webhooks-empty').hidden = webhooks.length > 0;
  byId('webhooks-table').hidden = webhooks.length === 0;
  byId('webhooks-body').replaceChildren(...webhooks.flatMap(webhookRows));
}

/** Nothing of the callbacks left in the list (signing out). */
export function clearWebhookList(): void {
  webhooks = [];
  outcomes.clear();
  byId('webhooks-body').replaceChildren();
}

/** A callback's row, and under it the row of its outcomes (a status region of its own). */
function webhookRows(webhook: Webhook): HTMLTableRowElement[] {
  const row = element('tr', null, 'webhook-row');
  row.dataset.webhookId = webhook.webhook_id;
  fillWebhookRow(row, webhook);
  const outcomeRow = element('tr', null, 'outcome-row');
  outcomeRow.dataset.outcomeFor = webhook.webhook_id;
  const place = document.createElement('td');
  place.colSpan = 5;
  const notice = element('div', null, 'notice');
  notice.setAttribute('role', 'status');
  notice.setAttribute('aria-live', 'polite');
  notice.tabIndex = -1;
  const outcome = outcomes.get(webhook.webhook_id);
  if (outcome) say(notice, outcome.text, outcome.kind);
  place.append(notice);
  outcomeRow.append(place);
  return [row, outcomeRow];
}

function statusNote(webhook: Webhook): string | null {
  if (webhook.status === 'deactivated') {
    return webhook.deactivation_reason ? WEBHOOK_ENDS[webhook.deactivation_reason] || webhook.deactivation_reason.replace(/_/g, ' ') : null;
  }
  if (webhook.status === 'active') return 'receiving events';
  const last = webhook.last_verification;
  if (last && last.result === 'failed') return 'last verification failed: ' + failureLabel(last.failure_reason);
  return 'verify it to receive events';
}

function fillWebhookRow(row: HTMLTableRowElement, webhook: Webhook): void {
  row.dataset.status = webhook.status;
  const identity = document.createElement('div');
  identity.append(element('code', webhook.url, 'url'), element('code', webhook.webhook_id, 'id'));
  const org = document.createElement('div');
  if (organizationNames.has(webhook.partner_id)) org.append(element('span', organizationNames.get(webhook.partner_id), 'key-name'));
  org.append(element('code', webhook.partner_id, 'id'));
  const status = document.createElement('div');
  status.append(element('span', WEBHOOK_STATUS[webhook.status] || webhook.status, 'badge ' + webhook.status));
  const note = statusNote(webhook);
  if (note) status.append(element('span', note, 'reason'));
  const actions = element('div', null, 'row-actions');
  const action = (name: string, text: string, label: string, className: string, run: (trigger: HTMLButtonElement) => unknown) => {
    const created = button(text, className + ' small');
    created.dataset.action = name;
    created.setAttribute('aria-label', label + ' ' + webhook.url);
    created.addEventListener('click', () => run(created));
    actions.append(created);
    return created;
  };
  if (webhook.status === 'unverified') action('verify', 'Verify', 'Verify', '', (trigger) => checkWebhook(webhook, 'verify', trigger));
  if (webhook.status === 'active') action('test', 'Send test', 'Send a test event to', 'secondary', (trigger) => checkWebhook(webhook, 'test', trigger));
  action('deliveries', 'Deliveries', 'Deliveries of', 'secondary', () => openDeliveries(webhook));
  if (webhook.status !== 'deactivated') {
    const deactivate = action('deactivate', 'Deactivate', 'Deactivate', 'danger-outline', (trigger) => confirmDeactivate(webhook, trigger));
    deactivate.setAttribute('aria-expanded', 'false');
  }
  row.replaceChildren(
    cell('Callback', identity),
    cell('Organization', org),
    cell('Created', time(webhook.created_at, true)),
    cell('Status', status),
    cell('Actions', actions),
  );
}

function setOutcome(id: string, text: string, kind: NoticeKind): void {
  if (text) outcomes.set(id, { text, kind });
  else outcomes.delete(id);
  const outcomeRow = rowOf('webhooks-body', 'outcomeFor', id);
  const notice = outcomeRow?.querySelector<HTMLElement>('.notice');
  if (notice) say(notice, text, kind);
}

/** Shows a callback as the API just answered it; the focus stays on the same action when it is still offered. */
function replaceWebhook(webhook: Webhook, focusAction: Check): void {
  webhooks = webhooks.map((w) => (w.webhook_id === webhook.webhook_id ? webhook : w));
  followWebhook(webhook);
  const row = rowOf('webhooks-body', 'webhookId', webhook.webhook_id);
  if (!row) return;
  fillWebhookRow(row, webhook);
  const again = row.querySelector<HTMLElement>('button[data-action="' + focusAction + '"]');
  (again || row.nextElementSibling?.querySelector<HTMLElement>('.notice'))?.focus();
}

function outcomeText(kind: Check, report: AttemptReport): string {
  if (kind === 'verify' && report.result === 'verified') return 'Verified — active: new events of the organization are sent to this address from now on.';
  if (kind === 'test' && report.result === 'delivered') return 'Test event delivered' + httpNote(report.http_status) + '.';
  const reason = report.failure_reason;
  const explanation = reason && FAILURES[reason] ? FAILURES[reason][1] : '';
  return (kind === 'verify' ? 'Verification failed: ' : 'Test event failed: ') + reason + httpNote(report.http_status) + '. ' + explanation;
}

/** Verify (the challenge event) or send a test event; the outcome under the callback's row. */
async function checkWebhook(webhook: Webhook, kind: Check, trigger: HTMLButtonElement): Promise<void> {
  const id = webhook.webhook_id;
  trigger.disabled = true;
  setOutcome(id, kind === 'verify' ? 'Sending the verification event…' : 'Sending a test event…', 'info');
  const result = await call<'webhook-verify' | 'webhook-test'>('POST', webhookPath(id, kind));
  if (result.ended || !state.account) return;
  if (!result.ok) {
    trigger.disabled = false;
    setOutcome(id, errorText(result, 'checks'), 'error');
    if (result.code === 'WEBHOOK_INACTIVE' || result.code === 'WEBHOOK_NOT_FOUND' || result.code === 'WEBHOOK_NOT_VERIFIED') void loadWebhooks();
    return;
  }
  const data = result.data;
  const report = 'verification' in data ? data.verification : data.test;
  setOutcome(id, outcomeText(kind, report), report.result === 'failed' ? 'error' : 'success');
  replaceWebhook(data.webhook, kind);
  if (kind === 'test' || report.result === 'verified') void loadAudit();
}

/** Deactivating, once confirmed under the callback's outcome row. */
function confirmDeactivate(webhook: Webhook, trigger: HTMLButtonElement): void {
  const id = webhook.webhook_id;
  const outcomeRow = rowOf('webhooks-body', 'outcomeFor', id);
  if (!outcomeRow) return;
  confirmInline({
    after: outcomeRow,
    id,
    columns: 5,
    label: 'Confirm deactivating ' + webhook.url,
    question: 'Deactivate the callback to ' + webhook.url + '? Its undelivered deliveries are cancelled. This cannot be undone.',
    confirmText: 'Deactivate callback',
    trigger,
    act: async () => {
      const result = await call<'webhook-deactivate'>('POST', webhookPath(id, 'deactivate'));
      if (result.ended) return 'done';
      if (!result.ok) {
        say('webhooks-status', errorText(result), 'error');
        if (result.code === 'WEBHOOK_NOT_FOUND') void loadWebhooks();
        return 'failed';
      }
      const cancelled = result.data.cancelled_deliveries || 0;
      outcomes.delete(id);
      const what = cancelled ? ': ' + cancelled + (cancelled === 1 ? ' undelivered delivery' : ' undelivered deliveries') + ' cancelled.' : '.';
      say('webhooks-status', 'Callback ' + webhook.url + ' deactivated' + what, 'success');
      byId('webhooks-title').focus();
      await loadWebhooks();
      refreshDeliveriesOf(id);
      void loadAudit();
      return 'done';
    },
  });
}
