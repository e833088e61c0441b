/**
 * The settings page's webhooks cards, as markup (settings-page.ts puts them
 * between the keys' and the password's cards): the account's callbacks, one
 * callback's deliveries, and adding a callback. Their script and style are
 * in page/webhooks/.
 */

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
