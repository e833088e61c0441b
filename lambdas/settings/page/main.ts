/// <reference lib="dom" />
/**
 * Browser code, the settings page's script (entry of its bundle, scripts/page-bundles.ts): wires
 * every section, then asks who is signed in — the settings, or the sign-in form.
 *
 * What the API says is put into the page as text (textContent), never as markup. No secret is ever
 * put in a URL or in browser storage: the session is an HttpOnly cookie the API sets, a new key's
 * value (or a new callback's signing secret) lives only in one read-only field until "Done", and
 * the forms are sent by the script only (`form-action 'none'` refuses a native submission).
 */
import { initAudit } from './audit';
import { say, show } from './elements';
import { initKeyForm } from './key-form';
import { errorText } from './messages';
import { initPasswordForm } from './password';
import { initSignOut, signedIn, signedOut } from './session';
import { call, whenSessionLost } from './settings-api';
import { initSignIn } from './sign-in';
import { initTwoFactor } from './two-factor';
import { initWebhooks } from './webhooks/webhooks-section';

whenSessionLost(signedOut);
initSignIn((session) => signedIn(session, true));
initSignOut();
initKeyForm();
initPasswordForm();
initTwoFactor();
initAudit();
initWebhooks();

void (async () => {
  const result = await call<'settings-session'>('GET', 'session');
  if (result.ok) return signedIn(result.data, false);
  show('sign-in');
  if (!result.ended) say('sign-in-status', errorText(result), 'error');
})();
