/// <reference lib="dom" />
/**
 * Browser code of the settings page: the recent activity — the account's audit trail, newest
 * first, a page at a time ("Show older activity" follows the API's cursor).
 */
import { byId, element } from '../../shared/browser/dom';
import { cell, say, time } from './elements';
import { errorText } from './messages';
import { state } from './page-state';
import { call, type ResponseOf } from './settings-api';

type AuditEntry = ResponseOf<'settings-audit'>['entries'][number];

/** What the list calls each audit action (every action has one: the type says so). */
const ACTIONS: Readonly<Record<AuditEntry['action'], string>> = {
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
  'sign_in.refused_attempts': 'Sign-in attempts refused since the last sign-in:',
  'sign_in.two_factor_failed': 'Sign-in refused: wrong two-factor code',
  'reauth.failed': 'Change refused: wrong password or two-factor code',
  'session.ended': 'Session ended after repeated wrong passwords or codes',
  'sessions.ended': 'Signed out everywhere',
  'account.deactivated': 'Account deactivated by an operator',
  'account.reactivated': 'Account reactivated by an operator',
  'membership.set': 'Organization role set by an operator',
  'membership.removed': 'Removed from an organization by an operator',
  'organization.archived': 'Organization archived by an operator',
  'organization.restored': 'Organization restored by an operator',
};

/** Where the next older page starts (none: the last page is shown). */
let auditCursor: string | null = null;

function entryRow(entry: AuditEntry): HTMLTableRowElement {
  const row = document.createElement('tr');
  row.dataset.action = entry.action;
  const action = document.createElement('span');
  action.append(ACTIONS[entry.action] || entry.action);
  if (entry.key_id) action.append(' ', element('code', entry.key_id));
  if (entry.webhook_id) action.append(' ', element('code', entry.webhook_id));
  if (entry.partner_id) action.append(' ', element('code', entry.partner_id));
  if (entry.role) action.append(' (' + entry.role + ')');
  if (entry.count !== undefined) action.append(' ' + entry.count);
  if (entry.route) action.append(' ', element('code', entry.route));
  row.append(cell('Time', time(entry.at)), cell('Action', action), cell('Source IP', entry.source_ip || (entry.via === 'operator' ? 'operator' : 'unknown')));
  return row;
}

/** The newest page, or (older) the page after the one shown, appended. */
export async function loadAudit(older?: boolean): Promise<void> {
  const result = await call<'settings-audit'>('GET', older && auditCursor ? 'audit?cursor=' + encodeURIComponent(auditCursor) : 'audit');
  if (result.ended || !state.account) return;
  if (!result.ok) return say('audit-status', errorText(result), 'error');
  const rows = (result.data.entries || []).map(entryRow);
  auditCursor = result.data.next_cursor || null;
  const body = byId('audit-body');
  if (older) body.append(...rows);
  else body.replaceChildren(...rows);
  const any = body.children.length > 0;
  byId('audit-empty').hidden = any;
  byId('audit-table').hidden = !any;
  byId('audit-more').hidden = !auditCursor;
}

export function initAudit(): void {
  byId('audit-more').addEventListener('click', () => loadAudit(true));
}
