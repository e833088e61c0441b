/**
 * The web settings' one page (GET /settings): static HTML with its style and
 * script inline, the same for every visitor. The script decides what to show
 * from the settings API beside the page (`settings/api/…`, relative to the
 * page's own path): signing in (password, then a two-factor code when the
 * account has it on), and once signed in the account's API keys (list,
 * create with the value shown once, revoke after an inline confirmation),
 * the webhook callbacks (settings-page-webhooks.ts), the password,
 * two-factor sign-in and the recent activity.
 *
 * What the API says is put into the page as text (textContent), never as
 * markup. No secret is ever put in a URL or in browser storage: the session
 * is an HttpOnly cookie the API sets, a new key's value (or a new callback's
 * signing secret) lives only in one read-only field until "Done", and the
 * forms cannot be submitted natively (the script sends them;
 * `form-action 'none'` refuses a native submission).
 *
 * The content security policy allows exactly this script and style (by
 * hash), requests to the page's own origin, and nothing else: no framing,
 * no form posts, no base URL change, no external resource of any kind.
 */
import type { AUDIT_ACTIONS } from '../back-office/audit-actions';
import { staticPage } from '../shared/http/static-page';
import type { Operation } from '../shared/http/pipeline';
import { PASSWORD_MAX_CHARACTERS, PASSWORD_MIN_CHARACTERS } from '../back-office/passwords';
import { ORGANIZATION_SCOPES, PERSONAL_SCOPES } from '../shared/identity/scopes';
import { WEBHOOKS_SCRIPT, WEBHOOKS_STYLE, webhooksBody } from './settings-page-webhooks';

const STYLE = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; background: #f4f5f7; color: #1d2330; line-height: 1.5; }
[hidden] { display: none !important; }
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0; }
:focus-visible { outline: 3px solid #0b1f4d; outline-offset: 2px; }
[tabindex="-1"]:focus { outline: none; }
.topbar { background: #fff; border-bottom: 1px solid #d9dde4; }
.topbar .inner { max-width: 66rem; margin: 0 auto; padding: .7rem 1rem; display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; }
.brand { margin: 0; font-weight: 700; }
.who { margin: 0 0 0 auto; text-align: right; line-height: 1.3; overflow-wrap: anywhere; }
.who span { display: block; }
main { max-width: 66rem; margin: 1.5rem auto 3rem; padding: 0 1rem; }
.card { background: #fff; border-radius: 12px; padding: 1.5rem; box-shadow: 0 1px 3px rgba(0,0,0,.08); margin: 0 0 1.25rem; }
.card.narrow { max-width: 28rem; margin: 2.5rem auto; }
.columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 24rem), 1fr)); gap: 0 1.25rem; align-items: start; }
h1 { font-size: 1.45rem; margin: 0 0 .75rem; }
h2 { font-size: 1.15rem; margin: 0 0 .75rem; }
h3 { font-size: 1rem; margin: 1rem 0 .5rem; }
p { margin: .5rem 0; }
.muted { color: #5b6474; font-size: .9rem; }
label, legend, .label { display: block; font-weight: 600; margin: 1rem 0 .3rem; }
.hint { display: block; color: #5b6474; font-size: .88rem; font-weight: 400; margin: -.15rem 0 .35rem; }
fieldset { border: 0; padding: 0; margin: 0; min-width: 0; }
legend { padding: 0; }
input[type=text], input[type=email], input[type=password], input[type=number], input[type=url], select { width: 100%; max-width: 24rem; padding: .55rem .7rem; border: 1px solid #8a93a3; border-radius: 8px; font: inherit; background: #fff; color: inherit; }
input[disabled] { background: #eef0f3; color: #6b7383; }
.card.narrow input[type=email], .card.narrow input[type=password] { max-width: none; }
input.code { max-width: 9rem; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; letter-spacing: .2em; }
input.days { width: 6rem; padding: .35rem .5rem; }
.checks { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: 0 1rem; }
label.check { display: flex; align-items: center; gap: .55rem; font-weight: 400; margin: .3rem 0; cursor: pointer; }
label.check input[type=checkbox] { width: 1.1rem; height: 1.1rem; margin: 0; flex: none; }
button { padding: .6rem 1.1rem; border: 1px solid #2456d3; border-radius: 8px; background: #2456d3; color: #fff; font: inherit; font-weight: 600; cursor: pointer; }
button:hover { background: #1c45ad; border-color: #1c45ad; }
button.secondary { background: #fff; color: #1d2330; border-color: #8a93a3; }
button.secondary:hover { background: #f1f3f6; }
button.danger { background: #b42318; border-color: #b42318; color: #fff; }
button.danger:hover { background: #8f1c13; border-color: #8f1c13; }
button.danger-outline { background: #fff; color: #b42318; border-color: #d9a19c; }
button.danger-outline:hover { background: #fdecec; }
button.small { padding: .3rem .7rem; font-size: .88rem; }
button[disabled] { opacity: .6; cursor: default; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: 1.1rem; }
.notice { border-radius: 8px; margin: 0; }
.notice:not(:empty) { padding: .7rem 1rem; margin: 1rem 0; }
.notice.error { background: #fdecec; color: #8a1c1c; }
.notice.success { background: #e6f4ea; color: #1e5b2e; }
.notice.info { background: #eaf1fe; color: #1d3f8f; }
.warning { background: #fff4e0; color: #5c3800; border-left: 4px solid #d98c00; padding: .75rem 1rem; border-radius: 8px; font-weight: 600; }
.copy-row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.copy-row input { flex: 1 1 18rem; max-width: none; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .86em; overflow-wrap: anywhere; }
.secret { display: block; padding: .6rem .8rem; background: #f1f3f6; border-radius: 8px; font-size: .95rem; letter-spacing: .06em; word-break: break-all; }
.table-wrap { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; font-size: .92rem; }
th, td { text-align: left; padding: .5rem .4rem; border-bottom: 1px solid #e3e6eb; vertical-align: top; }
th { font-size: .78rem; text-transform: uppercase; letter-spacing: .04em; color: #5b6474; white-space: nowrap; }
td time { white-space: nowrap; }
td code.id { white-space: nowrap; font-size: .8rem; }
.key-name { display: block; font-weight: 600; }
.key-name.unnamed { font-weight: 400; font-style: italic; color: #5b6474; }
tr.confirm-row td { border-bottom: 1px solid #e3e6eb; padding-top: 0; }
ul.scopes { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem; }
ul.scopes li { background: #eef1f6; border-radius: 6px; padding: 0 .4rem; font-size: .82rem; white-space: nowrap; }
.badge { display: inline-block; padding: .05rem .55rem; border-radius: 999px; font-size: .82rem; font-weight: 600; background: #eceef2; color: #3d4452; }
.badge.active, .badge.on { background: #e6f4ea; color: #1e5b2e; }
.badge.revoked { background: #fdecec; color: #8a1c1c; }
.badge.pending { background: #fff4e0; color: #5c3800; }
.reason { display: block; color: #5b6474; font-size: .82rem; }
.confirm { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; background: #fdecec; border-radius: 8px; padding: .6rem .8rem; }
.confirm p { margin: 0; color: #8a1c1c; font-weight: 600; flex: 1 1 16rem; }
.confirm .actions { margin-top: 0; }
@media (max-width: 46rem) {
  .card { padding: 1.1rem 1rem; }
  .card.narrow { margin: 1rem auto; }
  .who { margin-left: 0; text-align: left; flex: 1 1 100%; }
}
/* Below these widths a table's rows become blocks of labelled lines (the keys table has more columns). */
@media (max-width: 62rem) {
  table.keys thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0, 0, 0, 0); }
  table.keys tr { display: block; padding: .6rem 0; border-bottom: 1px solid #e3e6eb; }
  table.keys td { display: grid; grid-template-columns: 7.5rem minmax(0, 1fr); gap: .5rem; border: 0; padding: .2rem 0; }
  table.keys td::before { content: attr(data-label); font-weight: 600; color: #5b6474; font-size: .85rem; }
  table.keys td:empty, table.keys tr.confirm-row td::before { display: none; }
  table.keys tr.confirm-row { border-top: 0; padding-top: 0; }
  table.keys tr.confirm-row td { display: block; }
  table.keys td code.id { white-space: normal; overflow-wrap: anywhere; }
}
@media (max-width: 40rem) {
  table.audit thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0, 0, 0, 0); }
  table.audit tr { display: block; padding: .6rem 0; border-bottom: 1px solid #e3e6eb; }
  table.audit td { display: grid; grid-template-columns: 7.5rem minmax(0, 1fr); gap: .5rem; border: 0; padding: .2rem 0; }
  table.audit td::before { content: attr(data-label); font-weight: 600; color: #5b6474; font-size: .85rem; }
}
`;

/** What the activity list calls each audit action (every action has one: the type says so). */
const ACTION_LABELS: Readonly<Record<(typeof AUDIT_ACTIONS)[number], string>> = {
  'key.created': 'API key created',
  'key.revoked': 'API key revoked',
  'password.changed': 'Password changed',
  'password.reset': 'Password reset by an operator',
  'two_factor.enrolled': 'Two-factor enrolment started',
  'two_factor.enabled': 'Two-factor sign-in turned on',
  'two_factor.disabled': 'Two-factor sign-in turned off',
  'two_factor.reset': 'Two-factor turned off by an operator',
  'webhook.created': 'Webhook callback added',
  'webhook.verified': 'Webhook callback verified',
  'webhook.deactivated': 'Webhook callback deactivated',
  'webhook.delivery_requeued': 'Webhook delivery requeued by an operator',
  'webhook.event_redelivered': 'Event delivered again by an operator',
  'webhook.tested': 'Test event sent to a webhook callback',
  'webhook.resent': 'Webhook delivery sent again',
  'sign_in.succeeded': 'Signed in',
  'sign_in.two_factor_failed': 'Sign-in refused: wrong two-factor code',
  'account.deactivated': 'Account deactivated by an operator',
  'account.reactivated': 'Account reactivated by an operator',
  'membership.set': 'Organization role set by an operator',
  'membership.removed': 'Removed from an organization by an operator',
  'organization.archived': 'Organization archived by an operator',
  'organization.restored': 'Organization restored by an operator',
};

const SCRIPT = `
(() => {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const API = location.pathname.replace(/[/]+$/, '') + '/api/';
  const SCREENS = ['loading', 'sign-in', 'settings'];
  const TWO_FACTOR = { off: 'Off', pending: 'Pending confirmation', on: 'On' };
  const STATUS = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };
  const REASONS = {
    revoked_by_creator: 'revoked by you',
    account_credentials_reset: 'password changed or reset',
    account_deactivated: 'account deactivated',
    organization_missing: 'organization removed',
    organization_archived: 'organization archived',
    creator_not_manager: 'you no longer manage the organization',
  };
  const ACTIONS = ${JSON.stringify(ACTION_LABELS)};
  let account = null;
  let codeStep = false;
  /** The organizations' load since signing in (the webhook list waits for their names). */
  let organizationsReady = Promise.resolve();

  function show(screen) {
    for (const s of SCREENS) $(s).hidden = s !== screen;
    $('topbar').hidden = screen !== 'settings';
    document.body.dataset.state = screen === 'sign-in' && codeStep ? 'sign-in-code' : screen;
  }
  /** Puts the text in a status region (an element or its id) as a notice of its kind, or empties it. */
  function say(id, text, kind) {
    const box = typeof id === 'string' ? $(id) : id;
    box.textContent = text || '';
    box.className = text ? 'notice ' + (kind || 'info') : 'notice';
  }
  function node(tag, text, className) {
    const element = document.createElement(tag);
    if (text !== undefined && text !== null) element.textContent = text;
    if (className) element.className = className;
    return element;
  }
  function button(text, className) {
    const element = node('button', text, className);
    element.type = 'button';
    return element;
  }
  function cell(label, content) {
    const td = document.createElement('td');
    td.dataset.label = label;
    if (content instanceof Node) td.append(content); else td.textContent = content;
    return td;
  }
  function time(iso, dateOnly) {
    const date = new Date(iso);
    const format = dateOnly ? { dateStyle: 'medium' } : { dateStyle: 'medium', timeStyle: 'short' };
    const element = node('time', Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, format));
    element.title = Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'long' });
    element.dateTime = iso;
    return element;
  }

  /** One settings API call: JSON in and out, the session cookie, the cross-site request header on every change. */
  async function call(method, path, body) {
    const headers = {};
    if (method !== 'GET') headers['X-Settings-Request'] = '1';
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response;
    try {
      response = await fetch(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin', cache: 'no-store' });
    } catch {
      return { ok: false, status: 0 };
    }
    const json = await response.json().catch(() => null);
    if (response.ok) return { ok: true, status: response.status, data: json || {} };
    const result = { ok: false, status: response.status, code: json && json.code, message: json && json.message, retryAfter: response.headers.get('Retry-After') };
    if (response.status === 401 && result.code === 'SESSION_REQUIRED') {
      result.ended = true;
      if (account) signedOut('Your session has ended. Please sign in again.', 'info');
    }
    // Two settings_session cookies: another website of the domain set one; every call is refused until it is removed.
    if (result.code === 'DUPLICATE_CREDENTIAL_COOKIE') {
      result.message = 'Your browser sent two web settings sign-in cookies, so another website may have set one: every request is refused until it is gone. Remove this site\u2019s cookies (and those of the domain it is under) in your browser settings, then sign in again.';
      if (account) signedOut(result.message, 'error');
    }
    return result;
  }
  /** A wait in words: seconds up to 90, then minutes, then hours (a daily limit's wait can be most of a day). */
  function waitText(seconds) {
    if (!(seconds > 0)) return 'a few seconds';
    if (seconds <= 90) return seconds + (seconds === 1 ? ' second' : ' seconds');
    if (seconds <= 90 * 60) return 'about ' + Math.round(seconds / 60) + ' minutes';
    return 'about ' + Math.round(seconds / 3600) + ' hours';
  }
  /** What a failed call means, for a status region; a 429 names what there were too many of ("attempts" unless told). */
  function errorText(result, what) {
    if (result.status === 429) return 'Too many ' + (what || 'attempts') + '; try again in ' + waitText(Math.ceil(Number(result.retryAfter))) + '.';
    if (result.status === 0) return 'The service cannot be reached. Check your connection and try again.';
    return result.message || 'Something went wrong (HTTP ' + result.status + '). Please try again.';
  }
  /** Runs a form's request with its submit button disabled meanwhile. */
  function onSubmit(form, run) {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const submit = form.querySelector('button[type=submit]');
      if (submit.disabled) return;
      submit.disabled = true;
      form.setAttribute('aria-busy', 'true');
      try { await run(); } finally { submit.disabled = false; form.removeAttribute('aria-busy'); }
    });
  }

  // Signing in: the password, then (when the API asks for it) a two-factor code with the same e-mail and password.
  function setCodeStep(on) {
    codeStep = on;
    $('password-step').hidden = on;
    $('code-step').hidden = !on;
    $('sign-in-back').hidden = !on;
    $('sign-in-code').value = '';
    $('code-email').textContent = on ? $('email').value.trim() : '';
    if (!$('sign-in').hidden) show('sign-in');
  }
  onSubmit($('sign-in-form'), async () => {
    say('sign-in-status', '');
    const body = { email: $('email').value.trim(), password: $('password').value };
    if (codeStep) body.two_factor_code = $('sign-in-code').value.trim();
    const result = await call('POST', 'session', body);
    if (result.ok) return signedIn(result.data, true);
    if (result.code === 'INVALID_TWO_FACTOR' && !codeStep) {
      setCodeStep(true);
      say('sign-in-status', 'Two-factor sign-in is on for this account: enter the 6-digit code from your authenticator app.', 'info');
      $('sign-in-code').focus();
      return;
    }
    if (result.code === 'INVALID_PASSWORD' && codeStep) setCodeStep(false);
    say('sign-in-status', errorText(result), 'error');
    const field = codeStep ? $('sign-in-code') : result.code === 'INVALID_PASSWORD' ? $('password') : $('email');
    field.focus();
    field.select();
  });
  $('sign-in-back').addEventListener('click', () => {
    setCodeStep(false);
    say('sign-in-status', '');
    $('password').focus();
  });

  function signedIn(session, moveFocus) {
    account = session;
    $('password').value = '';
    setCodeStep(false);
    say('sign-in-status', '');
    $('account-name').textContent = session.name;
    $('account-email').textContent = session.email;
    renderTwoFactor();
    show('settings');
    if (moveFocus) $('settings-title').focus();
    organizationsReady = loadOrganizations();
    loadKeys();
    loadWebhooks();
    loadAudit();
  }
  /** Back to signing in, with nothing of the account left in the page. */
  function signedOut(message, kind) {
    account = null;
    clearNewKey();
    clearEnrolment();
    clearWebhooks();
    for (const form of document.forms) form.reset();
    $('days').disabled = false;
    for (const id of ['keys-body', 'audit-body', 'account-name', 'account-email']) $(id).replaceChildren();
    for (const id of ['settings-status', 'keys-status', 'create-status', 'password-status', 'tf-status', 'audit-status']) say(id, '');
    setCodeStep(false);
    show('sign-in');
    say('sign-in-status', message, kind);
    $('email').focus();
  }
  $('sign-out').addEventListener('click', async () => {
    $('sign-out').disabled = true;
    const result = await call('DELETE', 'session');
    $('sign-out').disabled = false;
    if (result.ok || result.ended) signedOut('You are signed out.', 'success');
    else say('settings-status', errorText(result), 'error');
  });

  /** The organization choices of the key and callback forms: the active organizations the account manages. */
  async function loadOrganizations() {
    const result = await call('GET', 'organizations');
    if (result.ended || !account) return;
    if (!result.ok) return say('webhook-create-status', errorText(result), 'error');
    webhookOrganizations(result.data.organizations || []);
    const managed = (result.data.organizations || []).filter((org) => org.role === 'manager' && org.status === 'active');
    const options = managed.map((org) => {
      const option = node('option', org.name + ' (' + org.partner_id + ')');
      option.value = org.partner_id;
      return option;
    });
    const personal = node('option', 'Personal key');
    personal.value = '';
    $('key-partner').replaceChildren(personal, ...options);
  }

  // Keys: the list, revoking with an inline confirmation, creating with the value shown once.
  async function loadKeys() {
    const result = await call('GET', 'keys');
    if (result.ended || !account) return;
    if (!result.ok) return say('keys-status', errorText(result), 'error');
    const keys = result.data.keys || [];
    $('keys-empty').hidden = keys.length > 0;
    $('keys-table').hidden = keys.length === 0;
    $('keys-body').replaceChildren(...keys.map(keyRow));
  }
  function keyRow(key) {
    const row = document.createElement('tr');
    row.dataset.keyId = key.key_id;
    row.dataset.status = key.status;
    const label = key.name || key.key_id;
    const scopes = node('ul', null, 'scopes');
    for (const scope of key.scopes) scopes.append(node('li', scope));
    const status = document.createElement('div');
    status.append(node('span', STATUS[key.status] || key.status, 'badge ' + key.status));
    if (key.reason && key.reason !== key.status) status.append(node('span', REASONS[key.reason] || key.reason.replace(/_/g, ' '), 'reason'));
    const identity = document.createElement('div');
    identity.append(node('span', key.name || 'unnamed', key.name ? 'key-name' : 'key-name unnamed'), node('code', key.key_id, 'id'));
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
      cell('Organization', key.partner_id ? node('code', key.partner_id, 'id') : 'personal'),
      cell('Scopes', scopes),
      cell('Created', time(key.created_at, true)),
      cell('Expires', key.expires_at ? time(key.expires_at, true) : 'never'),
      cell('Status', status),
      actions,
    );
    return row;
  }
  /** The inline confirmation: a row of its own under the key's row, until "Revoke key" or "Cancel". */
  function confirmRevoke(row, key, label, trigger) {
    if (row.nextElementSibling && row.nextElementSibling.dataset.confirmFor === key.key_id) return;
    const confirmRow = node('tr', null, 'confirm-row');
    confirmRow.dataset.confirmFor = key.key_id;
    const place = document.createElement('td');
    place.colSpan = row.children.length;
    const box = node('div', null, 'confirm');
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', 'Confirm revoking ' + label);
    const yes = button('Revoke key', 'danger small');
    const no = button('Cancel', 'secondary small');
    const choices = node('div', null, 'actions');
    choices.append(yes, no);
    box.append(node('p', 'Revoke ' + label + '? This cannot be undone.'), choices);
    place.append(box);
    confirmRow.append(place);
    row.after(confirmRow);
    trigger.setAttribute('aria-expanded', 'true');
    no.addEventListener('click', () => {
      confirmRow.remove();
      trigger.setAttribute('aria-expanded', 'false');
      trigger.focus();
    });
    yes.addEventListener('click', async () => {
      yes.disabled = no.disabled = true;
      const result = await call('POST', 'keys/' + encodeURIComponent(key.key_id) + '/revoke');
      if (result.ended) return;
      if (result.ok) {
        say('keys-status', 'Key ' + label + ' revoked: requests with it are refused from now on.', 'success');
        $('keys-title').focus();
        await loadKeys();
        loadAudit();
        return;
      }
      yes.disabled = no.disabled = false;
      say('keys-status', errorText(result), 'error');
      if (result.code === 'KEY_NOT_FOUND') loadKeys();
    });
    no.focus();
  }

  $('permanent').addEventListener('change', () => { $('days').disabled = $('permanent').checked; });
  onSubmit($('create-key-form'), async () => {
    say('create-status', '');
    const body = { scopes: Array.from(document.querySelectorAll('#create-key-form input[name=scope]:checked'), (box) => box.value) };
    const name = $('key-name').value.trim();
    const partner = $('key-partner').value.trim();
    if (name) body.name = name;
    if (partner) body.partner_id = partner;
    if ($('permanent').checked) body.permanent = true;
    else {
      const days = Number($('days').value);
      if (!Number.isInteger(days) || days < 1 || days > 365) {
        say('create-status', 'Validity: enter a whole number of days from 1 to 365, or choose "Permanent".', 'error');
        $('days').focus();
        return;
      }
      body.days = days;
    }
    if (!$('key-password').value) {
      say('create-status', 'Enter your password to confirm.', 'error');
      return $('key-password').focus();
    }
    body.password = $('key-password').value;
    if (account.two_factor === 'on') body.two_factor_code = $('key-code').value.trim();
    const result = await call('POST', 'keys', body);
    if (result.ended) return;
    if (!result.ok) {
      if (result.code === 'INVALID_TWO_FACTOR' && account.two_factor !== 'on') {
        account.two_factor = 'on';
        renderTwoFactor();
      }
      say('create-status', result.code === 'INVALID_PASSWORD' ? 'The password is wrong.' : errorText(result), 'error');
      const field = { INVALID_PASSWORD: 'key-password', INVALID_TWO_FACTOR: 'key-code' }[result.code];
      if (field) {
        $(field).value = '';
        $(field).focus();
      }
      return;
    }
    $('create-key-form').reset();
    $('days').disabled = false;
    $('new-key-value').value = result.data.key;
    $('new-key-id').textContent = result.data.key_id;
    $('create-key-form').hidden = true;
    $('new-key').hidden = false;
    say('create-status', 'Key ' + (result.data.name || result.data.key_id) + ' created. Copy its value now.', 'success');
    $('new-key-title').focus();
    loadKeys();
    loadAudit();
  });
  /** A value shown once (a key, a webhook secret): its Copy button, or the value selected where the clipboard is refused. */
  function copyButton(buttonId, fieldId, statusId, noun) {
    $(buttonId).addEventListener('click', async () => {
      const field = $(fieldId);
      try {
        await navigator.clipboard.writeText(field.value);
        say(statusId, 'Copied to the clipboard.', 'success');
      } catch {
        field.focus();
        field.select();
        say(statusId, 'The ' + noun + ' is selected: press Ctrl+C (or Command+C) to copy it.', 'info');
      }
    });
  }
  copyButton('copy-key', 'new-key-value', 'new-key-status', 'key');
  function clearNewKey() {
    $('new-key-value').value = '';
    $('new-key-id').textContent = '';
    say('new-key-status', '');
    $('new-key').hidden = true;
    $('create-key-form').hidden = false;
  }
  $('new-key-done').addEventListener('click', () => {
    clearNewKey();
    say('create-status', '');
    $('key-name').focus();
  });

  // Password: changing it ends every other session and revokes every API key of the account.
  onSubmit($('password-form'), async () => {
    say('password-status', '');
    if ($('new-password').value !== $('confirm-password').value) {
      say('password-status', 'The new password and its confirmation differ.', 'error');
      $('confirm-password').focus();
      return;
    }
    const result = await call('POST', 'password', { current_password: $('current-password').value, new_password: $('new-password').value });
    if (result.ended) return;
    if (!result.ok) {
      say('password-status', errorText(result), 'error');
      (result.code === 'INVALID_PASSWORD' ? $('current-password') : $('new-password')).focus();
      return;
    }
    $('password-form').reset();
    say('password-status', 'Password changed. All your API keys were revoked: create new keys for your integrations. Your other sessions were signed out.', 'success');
    loadKeys();
    loadAudit();
  });

  // Two-factor: enrol (secret shown as text), confirm with a code; off again with the password and a code.
  function renderTwoFactor() {
    const state = account ? account.two_factor : 'off';
    const enrolling = !$('tf-enrolment').hidden;
    $('tf-state').textContent = TWO_FACTOR[state] || state;
    $('tf-state').className = 'badge ' + state;
    $('tf-off').hidden = state === 'on' || enrolling;
    $('tf-pending-note').hidden = state !== 'pending';
    $('tf-disable-form').hidden = state !== 'on';
    $('key-code-field').hidden = state !== 'on';
    renderWebhookTwoFactor();
  }
  function clearEnrolment() {
    $('tf-enrol-password').value = '';
    $('tf-secret').textContent = '';
    $('tf-uri').textContent = '';
    $('tf-confirm-code').value = '';
    $('tf-enrolment').hidden = true;
  }
  $('tf-enrol').addEventListener('click', async () => {
    say('tf-status', '');
    if (!$('tf-enrol-password').value) {
      say('tf-status', 'Enter your password to confirm.', 'error');
      return $('tf-enrol-password').focus();
    }
    $('tf-enrol').disabled = true;
    // The password stays in its field until the code confirms the enrolment (that call needs it too).
    const result = await call('POST', 'two-factor/enrol', { password: $('tf-enrol-password').value });
    $('tf-enrol').disabled = false;
    if (result.ended) return;
    if (!result.ok) {
      if (result.code === 'TWO_FACTOR_ENABLED') account.two_factor = 'on';
      renderTwoFactor();
      say('tf-status', result.code === 'INVALID_PASSWORD' ? 'The password is wrong.' : errorText(result), 'error');
      if (result.code === 'INVALID_PASSWORD') {
        $('tf-enrol-password').value = '';
        $('tf-enrol-password').focus();
      }
      return;
    }
    $('tf-secret').textContent = result.data.secret;
    $('tf-uri').textContent = result.data.otpauth_uri;
    $('tf-enrolment').hidden = false;
    account.two_factor = 'pending';
    renderTwoFactor();
    $('tf-enrolment-title').focus();
    loadAudit();
  });
  $('tf-cancel').addEventListener('click', () => {
    clearEnrolment();
    renderTwoFactor();
    $('tf-enrol').focus();
  });
  onSubmit($('tf-confirm-form'), async () => {
    say('tf-status', '');
    const result = await call('POST', 'two-factor/confirm', { password: $('tf-enrol-password').value, code: $('tf-confirm-code').value.trim() });
    if (result.ended) return;
    if (!result.ok && result.code === 'INVALID_PASSWORD') {
      // Not expected (the password was checked a moment ago, unless it changed meanwhile): start again.
      clearEnrolment();
      renderTwoFactor();
      say('tf-status', 'The password is wrong: enter it and enable two-factor again.', 'error');
      return $('tf-enrol-password').focus();
    }
    if (!result.ok) {
      say('tf-status', errorText(result), 'error');
      $('tf-confirm-code').select();
      $('tf-confirm-code').focus();
      return;
    }
    clearEnrolment();
    account.two_factor = 'on';
    renderTwoFactor();
    say('tf-status', 'Two-factor sign-in is on: from now on, signing in needs a code from your app. Your other sessions were signed out.', 'success');
    $('tf-title').focus();
    loadAudit();
  });
  onSubmit($('tf-disable-form'), async () => {
    say('tf-status', '');
    const result = await call('POST', 'two-factor/disable', { password: $('tf-disable-password').value, code: $('tf-disable-code').value.trim() });
    if (result.ended) return;
    if (!result.ok) return say('tf-status', errorText(result), 'error');
    $('tf-disable-form').reset();
    account.two_factor = 'off';
    renderTwoFactor();
    say('tf-status', 'Two-factor sign-in is off.', 'success');
    $('tf-title').focus();
    loadAudit();
  });

  // Recent activity: the account's audit trail.
  /** The newest page, or (older) the page after the one shown, appended. */
  let auditCursor = null;
  async function loadAudit(older) {
    const result = await call('GET', older && auditCursor ? 'audit?cursor=' + encodeURIComponent(auditCursor) : 'audit');
    if (result.ended || !account) return;
    if (!result.ok) return say('audit-status', errorText(result), 'error');
    const entries = result.data.entries || [];
    auditCursor = result.data.next_cursor || null;
    const rows = entries.map((entry) => {
      const row = document.createElement('tr');
      row.dataset.action = entry.action;
      const action = document.createElement('span');
      action.append(ACTIONS[entry.action] || entry.action);
      if (entry.key_id) action.append(' ', node('code', entry.key_id));
      if (entry.webhook_id) action.append(' ', node('code', entry.webhook_id));
      if (entry.partner_id) action.append(' ', node('code', entry.partner_id));
      if (entry.role) action.append(' (' + entry.role + ')');
      row.append(cell('Time', time(entry.at)), cell('Action', action), cell('Source IP', entry.source_ip || (entry.via === 'operator' ? 'operator' : 'unknown')));
      return row;
    });
    if (older) $('audit-body').append(...rows);
    else $('audit-body').replaceChildren(...rows);
    const any = $('audit-body').children.length > 0;
    $('audit-empty').hidden = any;
    $('audit-table').hidden = !any;
    $('audit-more').hidden = !auditCursor;
  }
  $('audit-more').addEventListener('click', () => loadAudit(true));

${WEBHOOKS_SCRIPT}
  (async () => {
    const result = await call('GET', 'session');
    if (result.ok) return signedIn(result.data, false);
    show('sign-in');
    if (!result.ended) say('sign-in-status', errorText(result), 'error');
  })();
})();
`;

const SCOPE_CHOICES = ORGANIZATION_SCOPES.map(
  (scope) => `<label class="check"><input type="checkbox" name="scope" value="${scope}"${scope === 'public:read' ? ' checked' : ''}><code>${scope}</code></label>`,
).join('\n        ');

const CODE_INPUT = 'inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" spellcheck="false" class="code"';

const BODY = `
<header id="topbar" class="topbar" hidden>
  <div class="inner">
    <p class="brand">Partner API settings</p>
    <p class="who"><span id="account-name"></span><span id="account-email" class="muted"></span></p>
    <button id="sign-out" type="button" class="secondary">Sign out</button>
  </div>
</header>
<main>
  <section id="loading" class="card narrow"><p class="muted">Loading…</p><noscript><p>This page needs JavaScript to be turned on.</p></noscript></section>

  <section id="sign-in" class="card narrow" aria-labelledby="sign-in-title" hidden>
    <h1 id="sign-in-title">Sign in to API settings</h1>
    <p class="muted">Manage your Partner API keys and webhooks, your password and two-factor sign-in.</p>
    <div id="sign-in-status" class="notice" role="status" aria-live="polite"></div>
    <form id="sign-in-form" method="post" novalidate>
      <div id="password-step">
        <label for="email">E-mail address</label>
        <input id="email" type="email" autocomplete="username" spellcheck="false" maxlength="254" required>
        <label for="password">Password</label>
        <input id="password" type="password" autocomplete="current-password" maxlength="${PASSWORD_MAX_CHARACTERS}" required>
      </div>
      <div id="code-step" hidden>
        <p>Signing in as <strong id="code-email"></strong></p>
        <label for="sign-in-code">Two-factor code</label>
        <span id="sign-in-code-hint" class="hint">The 6-digit code your authenticator app shows now.</span>
        <input id="sign-in-code" type="text" ${CODE_INPUT} aria-describedby="sign-in-code-hint">
      </div>
      <div class="actions">
        <button id="sign-in-submit" type="submit">Sign in</button>
        <button id="sign-in-back" type="button" class="secondary" hidden>Back</button>
      </div>
    </form>
  </section>

  <div id="settings" hidden>
    <h1 id="settings-title" tabindex="-1">API settings</h1>
    <div id="settings-status" class="notice" role="status" aria-live="polite"></div>

    <section class="card" aria-labelledby="keys-title">
      <h2 id="keys-title" tabindex="-1">API keys</h2>
      <div id="keys-status" class="notice" role="status" aria-live="polite"></div>
      <p id="keys-empty" class="muted" hidden>You have no API keys yet.</p>
      <div class="table-wrap">
        <table id="keys-table" class="keys">
          <caption class="sr-only">Your API keys</caption>
          <thead><tr><th scope="col">Key</th><th scope="col">Organization</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody id="keys-body"></tbody>
        </table>
      </div>
    </section>

    <section class="card" aria-labelledby="create-title">
      <h2 id="create-title">Create a key</h2>
      <div id="create-status" class="notice" role="status" aria-live="polite"></div>
      <div id="new-key" hidden>
        <h3 id="new-key-title" tabindex="-1">Your new key</h3>
        <p class="warning">This is the only time the key is shown. Store it now; it cannot be shown again.</p>
        <label for="new-key-value">Key value <span class="hint">Key id <code id="new-key-id"></code></span></label>
        <div class="copy-row">
          <input id="new-key-value" type="text" readonly autocomplete="off" spellcheck="false">
          <button id="copy-key" type="button" class="secondary">Copy</button>
        </div>
        <div id="new-key-status" class="notice" role="status" aria-live="polite"></div>
        <div class="actions"><button id="new-key-done" type="button">Done</button></div>
      </div>
      <form id="create-key-form" method="post" novalidate>
        <label for="key-name">Name <span class="hint">Optional: what the key is for.</span></label>
        <input id="key-name" type="text" maxlength="64" autocomplete="off">
        <label for="key-partner">Organization <span class="hint">A personal key carries ${PERSONAL_SCOPES.join(' and ')} only; organization keys are for the active organizations you manage.</span></label>
        <select id="key-partner"><option value="">Personal key</option></select>
        <fieldset>
          <legend>Scopes</legend>
          <div class="checks">
        ${SCOPE_CHOICES}
          </div>
        </fieldset>
        <fieldset>
          <legend>Validity</legend>
          <label for="days" class="check">Valid for <input id="days" type="number" min="1" max="365" step="1" value="90" class="days"> days (1 to 365)</label>
          <label for="permanent" class="check"><input id="permanent" type="checkbox"> Permanent (never expires)</label>
        </fieldset>
        <label for="key-password">Your password <span class="hint">Creating a key needs your password.</span></label>
        <input id="key-password" type="password" autocomplete="current-password" maxlength="${PASSWORD_MAX_CHARACTERS}">
        <div id="key-code-field" hidden>
          <label for="key-code">Two-factor code <span class="hint">The 6-digit code your authenticator app shows now.</span></label>
          <input id="key-code" type="text" ${CODE_INPUT}>
        </div>
        <div class="actions"><button id="create-submit" type="submit">Create key</button></div>
      </form>
    </section>

${webhooksBody({ codeInput: CODE_INPUT, passwordMax: PASSWORD_MAX_CHARACTERS })}
    <div class="columns">
      <section class="card" aria-labelledby="password-title">
        <h2 id="password-title">Password</h2>
        <p class="muted">Changing your password revokes all your API keys and signs out your other sessions.</p>
        <div id="password-status" class="notice" role="status" aria-live="polite"></div>
        <form id="password-form" method="post" novalidate>
          <label for="current-password">Current password</label>
          <input id="current-password" type="password" autocomplete="current-password" maxlength="${PASSWORD_MAX_CHARACTERS}">
          <label for="new-password">New password <span class="hint">${PASSWORD_MIN_CHARACTERS} to ${PASSWORD_MAX_CHARACTERS} characters.</span></label>
          <input id="new-password" type="password" autocomplete="new-password" maxlength="${PASSWORD_MAX_CHARACTERS}">
          <label for="confirm-password">New password again</label>
          <input id="confirm-password" type="password" autocomplete="new-password" maxlength="${PASSWORD_MAX_CHARACTERS}">
          <div class="actions"><button id="password-submit" type="submit">Change password</button></div>
        </form>
      </section>

      <section class="card" aria-labelledby="tf-title">
        <h2 id="tf-title" tabindex="-1">Two-factor sign-in</h2>
        <p>Status: <span id="tf-state" class="badge"></span></p>
        <div id="tf-status" class="notice" role="status" aria-live="polite"></div>
        <div id="tf-off">
          <p class="muted">With two-factor on, signing in needs a 6-digit code from an authenticator app as well as your password.</p>
          <p id="tf-pending-note" class="muted" hidden>An enrolment was started but not confirmed. Enable two-factor again to get a new secret.</p>
          <label for="tf-enrol-password">Your password <span class="hint">Turning two-factor on needs your password.</span></label>
          <input id="tf-enrol-password" type="password" autocomplete="current-password" maxlength="${PASSWORD_MAX_CHARACTERS}">
          <div class="actions"><button id="tf-enrol" type="button">Enable two-factor</button></div>
        </div>
        <div id="tf-enrolment" hidden>
          <h3 id="tf-enrolment-title" tabindex="-1">Add this account to your authenticator app</h3>
          <p class="muted">Enter the secret in your app (time-based, 6 digits, every 30 seconds), or open the setup link with it.</p>
          <p class="label">Secret</p>
          <code id="tf-secret" class="secret"></code>
          <p class="label">Setup link</p>
          <code id="tf-uri" class="secret"></code>
          <form id="tf-confirm-form" method="post" novalidate>
            <label for="tf-confirm-code">Code from the app</label>
            <input id="tf-confirm-code" type="text" ${CODE_INPUT}>
            <div class="actions">
              <button id="tf-confirm-submit" type="submit">Turn on two-factor</button>
              <button id="tf-cancel" type="button" class="secondary">Cancel</button>
            </div>
          </form>
        </div>
        <form id="tf-disable-form" method="post" novalidate hidden>
          <p class="muted">To turn two-factor sign-in off, confirm with your password and a current code.</p>
          <label for="tf-disable-password">Password</label>
          <input id="tf-disable-password" type="password" autocomplete="current-password" maxlength="${PASSWORD_MAX_CHARACTERS}">
          <label for="tf-disable-code">Two-factor code</label>
          <input id="tf-disable-code" type="text" ${CODE_INPUT}>
          <div class="actions"><button id="tf-disable-submit" type="submit" class="danger">Disable two-factor</button></div>
        </form>
      </section>
    </div>

    <section class="card" aria-labelledby="audit-title">
      <h2 id="audit-title">Recent activity</h2>
      <p class="muted">Sign-ins and changes to your keys, webhooks, password, two-factor sign-in and organizations in the last 30 days.</p>
      <div id="audit-status" class="notice" role="status" aria-live="polite"></div>
      <p id="audit-empty" class="muted" hidden>No activity in the last 30 days.</p>
      <div class="table-wrap">
        <table id="audit-table" class="audit">
          <caption class="sr-only">Recent activity</caption>
          <thead><tr><th scope="col">Time</th><th scope="col">Action</th><th scope="col">Source IP</th></tr></thead>
          <tbody id="audit-body"></tbody>
        </table>
      </div>
      <div class="actions"><button id="audit-more" type="button" class="secondary" hidden>Show older activity</button></div>
    </section>
  </div>
</main>`;

const PAGE = staticPage({ title: 'API settings', style: STYLE + WEBHOOKS_STYLE, body: BODY, script: SCRIPT });

export const SETTINGS_PAGE_HTML = PAGE.html;

/** The page's policy: its own script and style (by hash), its own origin, nothing else. */
export const SETTINGS_PAGE_HEADERS: Readonly<Record<string, string>> = PAGE.headers;

export const settingsPage: Operation = async () => ({ page: true, data: SETTINGS_PAGE_HTML, headers: { ...SETTINGS_PAGE_HEADERS } });
