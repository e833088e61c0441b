/// <reference lib="dom" />
/**
 * Browser code of the settings page: the inline confirmation of an action that cannot be undone
 * (revoking a key, deactivating a webhook callback). A row of its own under the thing's row, a
 * named group with the question, the action's button and Cancel; focus on Cancel while it is open,
 * back on the button that opened it (which says it is expanded) when cancelled.
 */
import { element } from '../../shared/browser/dom';
import { button } from './elements';

export interface InlineConfirmation {
  /** The row the confirmation goes under. */
  readonly after: HTMLTableRowElement;
  /** What is confirmed (one open confirmation per id). */
  readonly id: string;
  /** The table's columns: the confirmation spans them. */
  readonly columns: number;
  /** The group's accessible name ("Confirm revoking …"). */
  readonly label: string;
  readonly question: string;
  /** The action's button ("Revoke key"). */
  readonly confirmText: string;
  /** The button that opened it. */
  readonly trigger: HTMLButtonElement;
  /**
   * The action, its buttons disabled meanwhile. `failed`: it said why, and both are offered
   * again; `done`: they stay disabled (the list it reloads replaces them, or the session ended).
   */
  readonly act: () => Promise<'done' | 'failed'>;
}

export function confirmInline(confirmation: InlineConfirmation): void {
  const { after, id, trigger } = confirmation;
  const next = after.nextElementSibling;
  if (next instanceof HTMLElement && next.dataset.confirmFor === id) return;
  const confirmRow = element('tr', null, 'confirm-row');
  confirmRow.dataset.confirmFor = id;
  const place = document.createElement('td');
  place.colSpan = confirmation.columns;
  const box = element('div', null, 'confirm');
  box.setAttribute('role', 'group');
  box.setAttribute('aria-label', confirmation.label);
  const yes = button(confirmation.confirmText, 'danger small');
  const no = button('Cancel', 'secondary small');
  const choices = element('div', null, 'actions');
  choices.append(yes, no);
  box.append(element('p', confirmation.question), choices);
  place.append(box);
  confirmRow.append(place);
  after.after(confirmRow);
  trigger.setAttribute('aria-expanded', 'true');
  no.addEventListener('click', () => {
    confirmRow.remove();
    trigger.setAttribute('aria-expanded', 'false');
    trigger.focus();
  });
  yes.addEventListener('click', async () => {
    yes.disabled = no.disabled = true;
    if ((await confirmation.act()) === 'failed') yes.disabled = no.disabled = false;
  });
  no.focus();
}
