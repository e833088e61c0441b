/**
 * The web settings' one page (GET /settings): static HTML, the same for every
 * visitor, with its script and style inline. This module holds the markup
 * (the webhooks cards in settings-page-webhooks.ts); the script and the style
 * are the bundle of the browser code in page/ (TypeScript typed against the
 * settings and webhook contracts, and CSS), built by scripts/page-bundles.ts
 * into settings-page-bundle.generated.ts. The script decides what to show
 * from the settings API beside the page: signing in (password, then a
 * two-factor code when the account has it on), and once signed in the
 * account's API keys, webhook callbacks, password, two-factor sign-in and
 * recent activity (page/main.ts).
 *
 * The content security policy allows exactly this script and style (by
 * hash), requests to the page's own origin, and nothing else: no framing,
 * no form posts, no base URL change, no external resource of any kind. The
 * forms carry method="post" and are sent by the script only.
 */
import { staticPage } from '../shared/http/static-page';
import type { OperationOf } from '../shared/http/pipeline';
import type { SettingsOperationInput } from './settings-pipeline';
import type { SETTINGS_CONTRACTS } from './settings-contracts';
import { PASSWORD_MAX_CHARACTERS, PASSWORD_MIN_CHARACTERS } from '../back-office/passwords';
import { ORGANIZATION_SCOPES, PERSONAL_SCOPES } from '../shared/identity/scopes';
import { PAGE_SCRIPT, PAGE_STYLE } from './settings-page-bundle.generated';
import { webhooksBody } from './settings-page-webhooks';

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
        <h3 id="everywhere-title">Other browsers</h3>
        <p class="muted">Signed in somewhere you do not recognise, or left a browser signed in? Sign out everywhere ends every session of your account, this one too. Your API keys keep working.</p>
        <div class="actions"><button id="sign-out-everywhere" type="button" class="danger-outline">Sign out everywhere</button></div>
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

const PAGE = staticPage({ title: 'API settings', style: PAGE_STYLE, body: BODY, script: PAGE_SCRIPT });

export const SETTINGS_PAGE_HTML = PAGE.html;

/** The page's policy: its own script and style (by hash), its own origin, nothing else. */
export const SETTINGS_PAGE_HEADERS: Readonly<Record<string, string>> = PAGE.headers;

export const settingsPage: OperationOf<typeof SETTINGS_CONTRACTS, 'settings-page', SettingsOperationInput> = async () => ({ page: true, data: SETTINGS_PAGE_HTML, headers: { ...SETTINGS_PAGE_HEADERS } });
