/**
 * The settings page's webhooks part (settings-page.ts puts these pieces into
 * its one document, script and style): the account's callbacks (list, verify,
 * send a test event, deactivate after an inline confirmation), adding one for
 * an organization it manages (password, and a two-factor code when that is
 * on; the signing secret shown once, like a new key's value), and one
 * callback's latest deliveries with a resend per finished delivery.
 *
 * The script is a fragment of the page's script: it runs inside the same
 * function and uses its helpers ($, call, say, node, button, cell, time,
 * errorText, onSubmit), its `account` and `organizationsReady` (the
 * organizations' load, which the list waits for to show names).
 * settings-page.ts calls loadWebhooks, clearWebhooks, webhookOrganizations
 * and renderWebhookTwoFactor. What the API says goes into the page as text only.
 */

export const WEBHOOKS_STYLE = `
input#webhook-url { max-width: 36rem; }
code.url { display: block; font-weight: 600; font-size: .88rem; overflow-wrap: anywhere; }
.row-actions { display: flex; flex-wrap: wrap; gap: .35rem; justify-content: flex-end; }
.row-actions button { white-space: nowrap; }
.badge.unverified, .badge.attempting, .badge.retrying { background: #fff4e0; color: #5c3800; }
.badge.delivered { background: #e6f4ea; color: #1e5b2e; }
.badge.deactivated, .badge.failed { background: #fdecec; color: #8a1c1c; }
table.webhooks tr.webhook-row td { border-bottom: 0; }
table.webhooks tr.outcome-row td { padding-top: 0; }
tr.outcome-row .notice:not(:empty) { margin: 0 0 .4rem; }
table.webhooks td:nth-child(5) { width: 1%; }
table.webhooks td:nth-child(5) .row-actions { flex-wrap: nowrap; }
table.deliveries td time { white-space: normal; }
table.deliveries td code { white-space: nowrap; }
table.deliveries td code.id, table.deliveries td code.reason { white-space: normal; overflow-wrap: anywhere; }
table.deliveries td:nth-child(3) { min-width: 9rem; }
.panel-actions { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; margin: .5rem 0; }
.panel-actions p { margin: 0; }
@media (max-width: 52rem) {
  table.webhooks thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0, 0, 0, 0); }
  table.webhooks tr { display: block; padding: .6rem 0 0; }
  table.webhooks tr.outcome-row, table.webhooks tr.confirm-row { padding: 0 0 .6rem; border-bottom: 1px solid #e3e6eb; }
  table.webhooks td { display: grid; grid-template-columns: 7.5rem minmax(0, 1fr); gap: .5rem; border: 0; padding: .2rem 0; }
  table.webhooks td:nth-child(5) { width: auto; }
  table.webhooks td:nth-child(5) .row-actions { flex-wrap: wrap; }
  table.webhooks td::before { content: attr(data-label); font-weight: 600; color: #5b6474; font-size: .85rem; }
  table.webhooks tr.outcome-row td, table.webhooks tr.confirm-row td { display: block; }
  table.webhooks tr.outcome-row td::before, table.webhooks tr.confirm-row td::before { display: none; }
  table.webhooks .row-actions { justify-content: flex-start; }
}
@media (max-width: 64rem) {
  table.deliveries thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0, 0, 0, 0); }
  table.deliveries tr { display: block; padding: .6rem 0; border-bottom: 1px solid #e3e6eb; }
  table.deliveries td { display: grid; grid-template-columns: 7.5rem minmax(0, 1fr); gap: .5rem; border: 0; padding: .2rem 0; }
  table.deliveries td::before { content: attr(data-label); font-weight: 600; color: #5b6474; font-size: .85rem; }
  table.deliveries td:empty { display: none; }
}
`;

export const WEBHOOKS_SCRIPT = `
  // Webhooks: callbacks (added with the password, the secret shown once), verification and test events, deliveries and resends.
  const WEBHOOK_STATUS = { unverified: 'Unverified', active: 'Active', deactivated: 'Deactivated' };
  const WEBHOOK_ENDS = Object.assign({}, REASONS, { deactivated_by_creator: 'deactivated by you', deactivated_by_operator: 'deactivated by an operator' });
  const DELIVERY_STATUS = { pending: 'Pending', attempting: 'Sending', retrying: 'Retrying', delivered: 'Delivered', failed: 'Failed', cancelled: 'Cancelled' };
  /** What each failure reason means: a short label for tables, an explanation for a verification's or a test's outcome. */
  const FAILURES = {
    CHALLENGE_RESPONSE_INVALID: ['Bad challenge answer', 'The receiver must answer 200 with a small JSON body holding the challenge: {"challenge": "<data.challenge of the request>"}.'],
    CHALLENGE_MISMATCH: ['Wrong challenge', 'The receiver answered with another challenge than the one sent: echo the data.challenge of this very request.'],
    HTTP_3xx: ['Redirect (not followed)', 'The receiver answered with a redirect. Redirects are not followed: register the final address.'],
    HTTP_4xx: ['Refused (HTTP 4xx)', 'The receiver refused the request. Check the path, and that the endpoint accepts signed POST requests.'],
    HTTP_5xx: ['Receiver error (HTTP 5xx)', 'The receiver failed to handle the request (a 5xx or another unexpected status).'],
    UNSAFE_WEBHOOK_DESTINATION: ['Unsafe destination', 'The address resolves to a private, local or reserved network address, which is never called.'],
    CONNECTION_FAILED: ['Connection failed', 'No connection could be made: it was refused or cut, or the TLS certificate was not accepted.'],
    WEBHOOK_UNREACHABLE: ['Unreachable', 'The receiver could not be reached: the name did not resolve, or no answer came within 8 seconds.'],
    INVALID_WEBHOOK_URL: ['Address not allowed', 'The address is not allowed: it must be a complete HTTPS address of a public domain name on port 443.'],
    ACCESS_REVOKED: ['Access revoked', 'Your authority over the organization ended, so the callback was deactivated.'],
  };
  const failureLabel = (reason) => (FAILURES[reason] ? FAILURES[reason][0] : reason);
  const httpNote = (status) => (status === null || status === undefined ? '' : ' (HTTP ' + status + ')');
  let webhooks = [];
  /** The last verification or test outcome per callback, shown under its row until the page is left. */
  const outcomes = new Map();
  /** Organization names by id (all memberships), for the list. */
  const organizationNames = new Map();
  /** The callback whose deliveries are open. */
  let deliveriesOf = null;

  const webhookPath = (id, rest) => 'webhooks/' + encodeURIComponent(id) + (rest ? '/' + rest : '');
  const organizationLabel = (partnerId) => (organizationNames.has(partnerId) ? organizationNames.get(partnerId) + ' (' + partnerId + ')' : partnerId);
  function exactTime(iso) {
    const element = time(iso);
    const date = new Date(iso);
    if (!Number.isNaN(date.getTime())) element.textContent = date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
    return element;
  }
  function rowOf(body, key, id) {
    for (const row of $(body).children) if (row.dataset[key] === id) return row;
    return null;
  }

  /** The choices of the add form (the active organizations the account manages) and the names for the list. */
  function webhookOrganizations(organizations) {
    organizationNames.clear();
    for (const org of organizations) organizationNames.set(org.partner_id, org.name);
    const managed = organizations.filter((org) => org.role === 'manager' && org.status === 'active');
    $('webhook-partner').replaceChildren(...managed.map((org) => {
      const option = node('option', org.name + ' (' + org.partner_id + ')');
      option.value = org.partner_id;
      return option;
    }));
    $('webhook-no-org').hidden = managed.length > 0;
    $('webhook-form').hidden = managed.length === 0 || !$('new-webhook').hidden;
  }
  function renderWebhookTwoFactor() {
    $('webhook-code-field').hidden = !(account && account.two_factor === 'on');
  }

  async function loadWebhooks() {
    const [result] = await Promise.all([call('GET', 'webhooks'), organizationsReady]);
    if (result.ended || !account) return;
    if (!result.ok) return say('webhooks-status', errorText(result), 'error');
    webhooks = result.data.webhooks || [];
    $('webhooks-empty').hidden = webhooks.length > 0;
    $('webhooks-table').hidden = webhooks.length === 0;
    $('webhooks-body').replaceChildren(...webhooks.flatMap(webhookRows));
  }
  /** A callback's row, and under it the row of its outcomes (a status region of its own). */
  function webhookRows(webhook) {
    const row = node('tr', null, 'webhook-row');
    row.dataset.webhookId = webhook.webhook_id;
    fillWebhookRow(row, webhook);
    const outcomeRow = node('tr', null, 'outcome-row');
    outcomeRow.dataset.outcomeFor = webhook.webhook_id;
    const place = document.createElement('td');
    place.colSpan = 5;
    const notice = node('div', null, 'notice');
    notice.setAttribute('role', 'status');
    notice.setAttribute('aria-live', 'polite');
    notice.tabIndex = -1;
    const outcome = outcomes.get(webhook.webhook_id);
    if (outcome) say(notice, outcome.text, outcome.kind);
    place.append(notice);
    outcomeRow.append(place);
    return [row, outcomeRow];
  }
  function statusNote(webhook) {
    if (webhook.status === 'deactivated') return webhook.deactivation_reason ? WEBHOOK_ENDS[webhook.deactivation_reason] || webhook.deactivation_reason.replace(/_/g, ' ') : null;
    if (webhook.status === 'active') return 'receiving events';
    const last = webhook.last_verification;
    if (last && last.result === 'failed') return 'last verification failed: ' + failureLabel(last.failure_reason);
    return 'verify it to receive events';
  }
  function fillWebhookRow(row, webhook) {
    row.dataset.status = webhook.status;
    const identity = document.createElement('div');
    identity.append(node('code', webhook.url, 'url'), node('code', webhook.webhook_id, 'id'));
    const org = document.createElement('div');
    if (organizationNames.has(webhook.partner_id)) org.append(node('span', organizationNames.get(webhook.partner_id), 'key-name'));
    org.append(node('code', webhook.partner_id, 'id'));
    const status = document.createElement('div');
    status.append(node('span', WEBHOOK_STATUS[webhook.status] || webhook.status, 'badge ' + webhook.status));
    const note = statusNote(webhook);
    if (note) status.append(node('span', note, 'reason'));
    const actions = node('div', null, 'row-actions');
    const action = (name, text, label, className, run) => {
      const element = button(text, className + ' small');
      element.dataset.action = name;
      element.setAttribute('aria-label', label + ' ' + webhook.url);
      element.addEventListener('click', () => run(element));
      actions.append(element);
      return element;
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
  function setOutcome(id, text, kind) {
    if (text) outcomes.set(id, { text, kind }); else outcomes.delete(id);
    const outcomeRow = rowOf('webhooks-body', 'outcomeFor', id);
    if (outcomeRow) say(outcomeRow.querySelector('.notice'), text, kind);
  }
  /** Shows a callback as the API just answered it; the focus stays on the same action when it is still offered. */
  function replaceWebhook(webhook, focusAction) {
    webhooks = webhooks.map((w) => (w.webhook_id === webhook.webhook_id ? webhook : w));
    if (deliveriesOf && deliveriesOf.webhook_id === webhook.webhook_id) deliveriesOf = webhook;
    const row = rowOf('webhooks-body', 'webhookId', webhook.webhook_id);
    if (!row) return;
    fillWebhookRow(row, webhook);
    const again = row.querySelector('button[data-action="' + focusAction + '"]');
    (again || row.nextElementSibling.querySelector('.notice')).focus();
  }

  function outcomeText(kind, report) {
    if (kind === 'verify' && report.result === 'verified') return 'Verified — active: new events of the organization are sent to this address from now on.';
    if (kind === 'test' && report.result === 'delivered') return 'Test event delivered' + httpNote(report.http_status) + '.';
    const reason = report.failure_reason;
    const explanation = FAILURES[reason] ? FAILURES[reason][1] : '';
    return (kind === 'verify' ? 'Verification failed: ' : 'Test event failed: ') + reason + httpNote(report.http_status) + '. ' + explanation;
  }
  /** Verify (the challenge event) or send a test event; the outcome under the callback's row. */
  async function checkWebhook(webhook, kind, trigger) {
    const id = webhook.webhook_id;
    trigger.disabled = true;
    setOutcome(id, kind === 'verify' ? 'Sending the verification event…' : 'Sending a test event…', 'info');
    const result = await call('POST', webhookPath(id, kind));
    if (result.ended || !account) return;
    if (!result.ok) {
      trigger.disabled = false;
      setOutcome(id, errorText(result, 'checks'), 'error');
      if (['WEBHOOK_INACTIVE', 'WEBHOOK_NOT_FOUND', 'WEBHOOK_NOT_VERIFIED'].includes(result.code)) loadWebhooks();
      return;
    }
    const report = kind === 'verify' ? result.data.verification : result.data.test;
    setOutcome(id, outcomeText(kind, report), report.result === 'failed' ? 'error' : 'success');
    replaceWebhook(result.data.webhook, kind);
    if (kind === 'test' || report.result === 'verified') loadAudit();
  }

  /** The inline confirmation, under the callback's outcome row, until "Deactivate callback" or "Cancel". */
  function confirmDeactivate(webhook, trigger) {
    const id = webhook.webhook_id;
    const outcomeRow = rowOf('webhooks-body', 'outcomeFor', id);
    if (!outcomeRow || (outcomeRow.nextElementSibling && outcomeRow.nextElementSibling.dataset.confirmFor === id)) return;
    const confirmRow = node('tr', null, 'confirm-row');
    confirmRow.dataset.confirmFor = id;
    const place = document.createElement('td');
    place.colSpan = 5;
    const box = node('div', null, 'confirm');
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', 'Confirm deactivating ' + webhook.url);
    const yes = button('Deactivate callback', 'danger small');
    const no = button('Cancel', 'secondary small');
    const choices = node('div', null, 'actions');
    choices.append(yes, no);
    box.append(node('p', 'Deactivate the callback to ' + webhook.url + '? Its undelivered deliveries are cancelled. This cannot be undone.'), choices);
    place.append(box);
    confirmRow.append(place);
    outcomeRow.after(confirmRow);
    trigger.setAttribute('aria-expanded', 'true');
    no.addEventListener('click', () => {
      confirmRow.remove();
      trigger.setAttribute('aria-expanded', 'false');
      trigger.focus();
    });
    yes.addEventListener('click', async () => {
      yes.disabled = no.disabled = true;
      const result = await call('POST', webhookPath(id, 'deactivate'));
      if (result.ended) return;
      if (!result.ok) {
        yes.disabled = no.disabled = false;
        say('webhooks-status', errorText(result), 'error');
        if (result.code === 'WEBHOOK_NOT_FOUND') loadWebhooks();
        return;
      }
      const cancelled = result.data.cancelled_deliveries || 0;
      outcomes.delete(id);
      say('webhooks-status', 'Callback ' + webhook.url + ' deactivated' + (cancelled ? ': ' + cancelled + (cancelled === 1 ? ' undelivered delivery' : ' undelivered deliveries') + ' cancelled.' : '.'), 'success');
      $('webhooks-title').focus();
      await loadWebhooks();
      if (deliveriesOf && deliveriesOf.webhook_id === id) loadDeliveries();
      loadAudit();
    });
    no.focus();
  }

  // Deliveries: one callback's latest 50, refreshed on request; a finished one can be resent.
  function openDeliveries(webhook) {
    deliveriesOf = webhook;
    $('deliveries-url').textContent = webhook.url;
    $('deliveries-updated').textContent = '';
    say('deliveries-status', '');
    $('deliveries-body').replaceChildren();
    $('deliveries-empty').hidden = true;
    $('deliveries-table').hidden = true;
    $('deliveries').hidden = false;
    $('deliveries-title').focus();
    return loadDeliveries();
  }
  async function loadDeliveries() {
    const open = deliveriesOf;
    if (!open) return;
    $('deliveries-refresh').disabled = true;
    const result = await call('GET', webhookPath(open.webhook_id, 'deliveries'));
    $('deliveries-refresh').disabled = false;
    if (result.ended || !account || !deliveriesOf || deliveriesOf.webhook_id !== open.webhook_id) return;
    if (!result.ok) return say('deliveries-status', errorText(result), 'error');
    deliveriesOf = result.data.webhook;
    const deliveries = result.data.deliveries || [];
    $('deliveries-empty').hidden = deliveries.length > 0;
    $('deliveries-table').hidden = deliveries.length === 0;
    $('deliveries-body').replaceChildren(...deliveries.map(deliveryRow));
    $('deliveries-updated').textContent = 'Updated ' + new Date().toLocaleTimeString(undefined, { timeStyle: 'medium' }) + '.';
  }
  function deliveryRow(delivery) {
    const row = document.createElement('tr');
    row.dataset.deliveryId = delivery.delivery_id;
    row.dataset.status = delivery.status;
    const status = document.createElement('div');
    status.append(node('span', DELIVERY_STATUS[delivery.status] || delivery.status, 'badge ' + delivery.status));
    if (delivery.resends > 0) status.append(node('span', 'resent ' + (delivery.resends === 1 ? 'once' : delivery.resends + ' times'), 'reason'));
    let reason = '—';
    if (delivery.failure_reason) {
      reason = document.createElement('div');
      reason.append(node('span', failureLabel(delivery.failure_reason)), node('code', delivery.failure_reason, 'reason'));
    }
    const actions = cell('Actions', '');
    if (['delivered', 'failed', 'cancelled'].includes(delivery.status) && deliveriesOf && deliveriesOf.status === 'active') {
      const resend = button('Resend', 'secondary small');
      resend.dataset.action = 'resend';
      resend.setAttribute('aria-label', 'Resend event ' + delivery.event_id);
      resend.addEventListener('click', () => resendDelivery(delivery, resend));
      actions.append(resend);
    }
    row.append(
      cell('Time', exactTime(delivery.created_at)),
      cell('Event type', node('code', delivery.event_type)),
      cell('Event id', node('code', delivery.event_id, 'id')),
      cell('Status', status),
      cell('Attempts', String(delivery.attempts)),
      cell('HTTP', delivery.last_http_status === null ? '—' : String(delivery.last_http_status)),
      cell('Reason', reason),
      cell('Next attempt', delivery.next_attempt_at ? exactTime(delivery.next_attempt_at) : '—'),
      actions,
    );
    return row;
  }
  async function resendDelivery(delivery, trigger) {
    const open = deliveriesOf;
    trigger.disabled = true;
    say('deliveries-status', '');
    const result = await call('POST', webhookPath(open.webhook_id, 'deliveries/' + encodeURIComponent(delivery.delivery_id) + '/resend'));
    if (result.ended || !account) return;
    if (!result.ok) {
      trigger.disabled = false;
      say('deliveries-status', errorText(result, 'resends'), 'error');
      if (result.status !== 429) loadDeliveries();
      return;
    }
    say('deliveries-status', 'Event ' + delivery.event_id + ' resent: a new series of up to 8 attempts has started. Refresh to follow it.', 'success');
    const row = rowOf('deliveries-body', 'deliveryId', delivery.delivery_id);
    if (row) row.replaceWith(deliveryRow(result.data.delivery));
    $('deliveries-refresh').focus();
    loadAudit();
  }
  $('deliveries-refresh').addEventListener('click', () => {
    say('deliveries-status', '');
    loadDeliveries();
  });
  $('deliveries-close').addEventListener('click', () => {
    const open = deliveriesOf;
    closeDeliveries();
    const row = open && rowOf('webhooks-body', 'webhookId', open.webhook_id);
    const back = row && row.querySelector('button[data-action="deliveries"]');
    (back || $('webhooks-title')).focus();
  });
  function closeDeliveries() {
    deliveriesOf = null;
    $('deliveries').hidden = true;
    $('deliveries-body').replaceChildren();
    $('deliveries-url').textContent = '';
    $('deliveries-updated').textContent = '';
    say('deliveries-status', '');
  }

  // Adding a callback: the organization, the address, the password (and a code with two-factor on); the secret shown once.
  onSubmit($('webhook-form'), async () => {
    say('webhook-create-status', '');
    const url = $('webhook-url').value.trim();
    if (!url) {
      say('webhook-create-status', 'Enter the address that receives the events.', 'error');
      return $('webhook-url').focus();
    }
    if (!$('webhook-password').value) {
      say('webhook-create-status', 'Enter your password to confirm.', 'error');
      return $('webhook-password').focus();
    }
    const partner = $('webhook-partner').value;
    const body = { partner_id: partner, url, password: $('webhook-password').value };
    if (account.two_factor === 'on') body.two_factor_code = $('webhook-code').value.trim();
    const result = await call('POST', 'webhooks', body);
    if (result.ended) return;
    if (!result.ok) {
      if (result.code === 'INVALID_TWO_FACTOR' && account.two_factor !== 'on') {
        account.two_factor = 'on';
        renderTwoFactor();
      }
      say('webhook-create-status', result.code === 'INVALID_PASSWORD' ? 'The password is wrong.' : errorText(result), 'error');
      const field = { INVALID_WEBHOOK_URL: 'webhook-url', INVALID_PASSWORD: 'webhook-password', INVALID_TWO_FACTOR: 'webhook-code' }[result.code] || 'webhook-partner';
      if (field === 'webhook-password' || field === 'webhook-code') $(field).value = '';
      $(field).focus();
      return;
    }
    $('webhook-form').reset();
    $('new-webhook-secret').value = result.data.secret;
    $('new-webhook-id').textContent = result.data.webhook.webhook_id;
    $('webhook-form').hidden = true;
    $('new-webhook').hidden = false;
    say('webhook-create-status', 'Callback added for ' + organizationLabel(partner) + '. Copy its signing secret now, then verify the callback.', 'success');
    $('new-webhook-title').focus();
    loadWebhooks();
    loadAudit();
  });
  copyButton('copy-webhook-secret', 'new-webhook-secret', 'new-webhook-status', 'secret');
  function clearNewWebhook() {
    $('new-webhook-secret').value = '';
    $('new-webhook-id').textContent = '';
    say('new-webhook-status', '');
    $('new-webhook').hidden = true;
    $('webhook-form').hidden = $('webhook-partner').options.length === 0;
  }
  $('new-webhook-done').addEventListener('click', () => {
    const id = $('new-webhook-id').textContent;
    clearNewWebhook();
    say('webhook-create-status', '');
    const row = rowOf('webhooks-body', 'webhookId', id);
    const verify = row && row.querySelector('button[data-action="verify"]');
    (verify || $('webhooks-title')).focus();
  });

  /** Nothing of the account's webhooks left in the page (signing out). */
  function clearWebhooks() {
    webhooks = [];
    outcomes.clear();
    organizationNames.clear();
    clearNewWebhook();
    closeDeliveries();
    $('webhooks-body').replaceChildren();
    $('webhook-partner').replaceChildren();
    $('webhook-form').hidden = true;
    for (const id of ['webhooks-status', 'webhook-create-status']) say(id, '');
  }
`;

/** The webhooks' cards, between the keys' and the password's: `codeInput` is the page's two-factor code field's attributes. */
export const webhooksBody = (parts: { codeInput: string; passwordMax: number }) => `
    <section class="card" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title" tabindex="-1">Webhooks</h2>
      <p class="muted">A callback receives the events of an organization you manage (records, entitlements, invitations, tickets) at an HTTPS address of yours, each request signed with the callback's secret. It receives events once it is verified.</p>
      <div id="webhooks-status" class="notice" role="status" aria-live="polite"></div>
      <p id="webhooks-empty" class="muted" hidden>You have no webhook callbacks yet.</p>
      <div class="table-wrap">
        <table id="webhooks-table" class="webhooks" hidden>
          <caption class="sr-only">Your webhook callbacks</caption>
          <thead><tr><th scope="col">Callback</th><th scope="col">Organization</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody id="webhooks-body"></tbody>
        </table>
      </div>
    </section>

    <section id="deliveries" class="card" aria-labelledby="deliveries-title" hidden>
      <h2 id="deliveries-title" tabindex="-1">Deliveries</h2>
      <p class="muted">The latest 50 events sent to <code id="deliveries-url"></code> in the last 30 days, newest first (verification and test events are not listed).</p>
      <div class="panel-actions">
        <button id="deliveries-refresh" type="button" class="secondary small">Refresh</button>
        <button id="deliveries-close" type="button" class="secondary small">Close</button>
        <p id="deliveries-updated" class="muted"></p>
      </div>
      <div id="deliveries-status" class="notice" role="status" aria-live="polite"></div>
      <p id="deliveries-empty" class="muted" hidden>No deliveries yet: a callback receives the events that happen after it was verified.</p>
      <div class="table-wrap">
        <table id="deliveries-table" class="deliveries" hidden>
          <caption class="sr-only">Deliveries of the callback</caption>
          <thead><tr><th scope="col">Time</th><th scope="col">Event type</th><th scope="col">Event id</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">HTTP</th><th scope="col">Reason</th><th scope="col">Next attempt</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody id="deliveries-body"></tbody>
        </table>
      </div>
    </section>

    <section class="card" aria-labelledby="webhook-create-title">
      <h2 id="webhook-create-title">Add a webhook callback</h2>
      <div id="webhook-create-status" class="notice" role="status" aria-live="polite"></div>
      <p id="webhook-no-org" class="muted" hidden>Callbacks are for the active organizations you manage, and you manage none.</p>
      <div id="new-webhook" hidden>
        <h3 id="new-webhook-title" tabindex="-1">Your callback's signing secret</h3>
        <p class="warning">This is the only time the signing secret is shown. Store it now; it cannot be shown again.</p>
        <label for="new-webhook-secret">Signing secret <span class="hint">Callback <code id="new-webhook-id"></code>: every request carries its signature (X-Service-Signature).</span></label>
        <div class="copy-row">
          <input id="new-webhook-secret" type="text" readonly autocomplete="off" spellcheck="false">
          <button id="copy-webhook-secret" type="button" class="secondary">Copy</button>
        </div>
        <div id="new-webhook-status" class="notice" role="status" aria-live="polite"></div>
        <p class="muted">Next: verify the callback in the list above. Your endpoint answers the verification event with 200 and <code>{"challenge": …}</code>, echoing the request's <code>data.challenge</code>.</p>
        <div class="actions"><button id="new-webhook-done" type="button">Done</button></div>
      </div>
      <form id="webhook-form" method="post" novalidate hidden>
        <label for="webhook-partner">Organization <span class="hint">The active organizations you manage.</span></label>
        <select id="webhook-partner"></select>
        <label for="webhook-url">Address <span class="hint">A complete HTTPS address on port 443 of a public domain name, without user, password or fragment. Redirects are not followed.</span></label>
        <input id="webhook-url" type="url" inputmode="url" autocomplete="off" spellcheck="false" maxlength="2048">
        <label for="webhook-password">Your password <span class="hint">Adding a callback needs your password.</span></label>
        <input id="webhook-password" type="password" autocomplete="current-password" maxlength="${parts.passwordMax}">
        <div id="webhook-code-field" hidden>
          <label for="webhook-code">Two-factor code <span class="hint">The 6-digit code your authenticator app shows now.</span></label>
          <input id="webhook-code" type="text" ${parts.codeInput}>
        </div>
        <div class="actions"><button id="webhook-submit" type="submit">Add callback</button></div>
      </form>
    </section>
`;
