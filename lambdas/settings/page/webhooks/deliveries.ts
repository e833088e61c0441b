/// <reference lib="dom" />
/**
 * Browser code of the settings page's webhooks cards: one callback's latest 50 deliveries, refreshed
 * on request; a finished one can be resent (a new series of attempts) while the callback is active.
 */
import { byId, element } from '../../../shared/browser/dom';
import { loadAudit } from '../audit';
import { button, cell, rowOf, say, time } from '../elements';
import { errorText } from '../messages';
import { state } from '../page-state';
import { call } from '../settings-api';
import { DELIVERY_STATUS, failureLabel, webhookPath, type Delivery, type Webhook } from './labels';

/** The callback whose deliveries are open. */
let deliveriesOf: Webhook | null = null;

/** A time to the second (deliveries follow each other closely). */
function exactTime(iso: string): HTMLTimeElement {
  const shown = time(iso);
  const date = new Date(iso);
  if (!Number.isNaN(date.getTime())) shown.textContent = date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  return shown;
}

export function openDeliveries(webhook: Webhook): Promise<void> {
  deliveriesOf = webhook;
  byId('deliveries-url').textContent = webhook.url;
  byId('deliveries-updated').textContent = '';
  say('deliveries-status', '');
  byId('deliveries-body').replaceChildren();
  byId('deliveries-empty').hidden = true;
  byId('deliveries-table').hidden = true;
  byId('deliveries').hidden = false;
  byId('deliveries-title').focus();
  return loadDeliveries();
}

/** The list answered a newer state of a callback: the open deliveries follow it. */
export function followWebhook(webhook: Webhook): void {
  if (deliveriesOf && deliveriesOf.webhook_id === webhook.webhook_id) deliveriesOf = webhook;
}

/** The callback changed: its deliveries, when they are open, are asked again. */
export function refreshDeliveriesOf(webhookId: string): void {
  if (deliveriesOf && deliveriesOf.webhook_id === webhookId) void loadDeliveries();
}

async function loadDeliveries(): Promise<void> {
  const open = deliveriesOf;
  if (!open) return;
  const refresh = byId('deliveries-refresh', HTMLButtonElement);
  refresh.disabled = true;
  const result = await call<'webhook-deliveries'>('GET', webhookPath(open.webhook_id, 'deliveries'));
  refresh.disabled = false;
  if (result.ended || !state.account || !deliveriesOf || deliveriesOf.webhook_id !== open.webhook_id) return;
  if (!result.ok) return say('deliveries-status', errorText(result), 'error');
  deliveriesOf = result.data.webhook;
  const deliveries = result.data.deliveries || [];
  byId('deliveries-empty').hidden = deliveries.length > 0;
  byId('deliveries-table').hidden = deliveries.length === 0;
  byId('deliveries-body').replaceChildren(...deliveries.map(deliveryRow));
  byId('deliveries-updated').textContent = 'Updated ' + new Date().toLocaleTimeString(undefined, { timeStyle: 'medium' }) + '.';
}

function deliveryRow(delivery: Delivery): HTMLTableRowElement {
  const row = document.createElement('tr');
  row.dataset.deliveryId = delivery.delivery_id;
  row.dataset.status = delivery.status;
  const status = document.createElement('div');
  status.append(element('span', DELIVERY_STATUS[delivery.status] || delivery.status, 'badge ' + delivery.status));
  if (delivery.resends > 0) status.append(element('span', 'resent ' + (delivery.resends === 1 ? 'once' : delivery.resends + ' times'), 'reason'));
  let reason: HTMLElement | string = '—';
  if (delivery.failure_reason) {
    reason = document.createElement('div');
    reason.append(element('span', failureLabel(delivery.failure_reason)), element('code', delivery.failure_reason, 'reason'));
  }
  const actions = cell('Actions', '');
  if ((delivery.status === 'delivered' || delivery.status === 'failed' || delivery.status === 'cancelled') && deliveriesOf && deliveriesOf.status === 'active') {
    const resend = button('Resend', 'secondary small');
    resend.dataset.action = 'resend';
    resend.setAttribute('aria-label', 'Resend event ' + delivery.event_id);
    resend.addEventListener('click', () => resendDelivery(delivery, resend));
    actions.append(resend);
  }
  row.append(
    cell('Time', exactTime(delivery.created_at)),
    cell('Event type', element('code', delivery.event_type)),
    cell('Event id', element('code', delivery.event_id, 'id')),
    cell('Status', status),
    cell('Attempts', String(delivery.attempts)),
    cell('HTTP', delivery.last_http_status === null ? '—' : String(delivery.last_http_status)),
    cell('Reason', reason),
    cell('Next attempt', delivery.next_attempt_at ? exactTime(delivery.next_attempt_at) : '—'),
    actions,
  );
  return row;
}

async function resendDelivery(delivery: Delivery, trigger: HTMLButtonElement): Promise<void> {
  const open = deliveriesOf;
  if (!open) return;
  trigger.disabled = true;
  say('deliveries-status', '');
  const result = await call<'webhook-resend'>('POST', webhookPath(open.webhook_id, 'deliveries/' + encodeURIComponent(delivery.delivery_id) + '/resend'));
  if (result.ended || !state.account) return;
  if (!result.ok) {
    trigger.disabled = false;
    say('deliveries-status', errorText(result, 'resends'), 'error');
    if (result.status !== 429) void loadDeliveries();
    return;
  }
  say('deliveries-status', 'Event ' + delivery.event_id + ' resent: a new series of up to 8 attempts has started. Refresh to follow it.', 'success');
  const row = rowOf('deliveries-body', 'deliveryId', delivery.delivery_id);
  if (row) row.replaceWith(deliveryRow(result.data.delivery));
  byId('deliveries-refresh').focus();
  void loadAudit();
}

/** The deliveries closed, nothing of them left in the page. */
export function closeDeliveries(): void {
  deliveriesOf = null;
  byId('deliveries').hidden = true;
  byId('deliveries-body').replaceChildren();
  byId('deliveries-url').textContent = '';
  byId('deliveries-updated').textContent = '';
  say('deliveries-status', '');
}

export function initDeliveries(): void {
  byId('deliveries-refresh').addEventListener('click', () => {
    say('deliveries-status', '');
    void loadDeliveries();
  });
  byId('deliveries-close').addEventListener('click', () => {
    const open = deliveriesOf;
    closeDeliveries();
    const row = open && rowOf('webhooks-body', 'webhookId', open.webhook_id);
    const back = row && row.querySelector<HTMLElement>('button[data-action="deliveries"]');
    (back || byId('webhooks-title')).focus();
  });
}
