/// <reference lib="dom" />
/**
 * Browser code of the settings page: the two-factor state as the page shows it — the badge, which
 * of enrol / disable is offered, and the code field of each change that asks for one (creating a
 * key, adding a webhook callback).
 */
import { byId } from '../../shared/browser/dom';
import { TWO_FACTOR } from './labels';
import { state } from './page-state';

/** The code fields of the changes that need the password and, with two-factor on, a code. */
const CODE_FIELDS = ['key-code-field', 'webhook-code-field'];

export function renderTwoFactor(): void {
  const current = state.account ? state.account.two_factor : 'off';
  const enrolling = !byId('tf-enrolment').hidden;
  const badge = byId('tf-state');
  badge.textContent = TWO_FACTOR[current] || current;
  badge.className = 'badge ' + current;
  byId('tf-off').hidden = current === 'on' || enrolling;
  byId('tf-pending-note').hidden = current !== 'pending';
  byId('tf-disable-form').hidden = current !== 'on';
  for (const id of CODE_FIELDS) byId(id).hidden = current !== 'on';
}
