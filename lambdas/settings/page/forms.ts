/// <reference lib="dom" />
/**
 * Browser code of the settings page: how its forms are sent (by the script, never natively) and
 * how a value shown once (a key, a webhook secret) is copied.
 */
import { byId } from '../../shared/browser/dom';
import { say } from './elements';

/** Runs a form's request with its submit button disabled meanwhile. */
export function onSubmit(form: HTMLFormElement, run: () => Promise<unknown>): void {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const submit = form.querySelector('button[type=submit]');
    if (!(submit instanceof HTMLButtonElement)) throw new Error(`the form #${form.id} has no submit button`);
    if (submit.disabled) return;
    submit.disabled = true;
    form.setAttribute('aria-busy', 'true');
    try {
      await run();
    } finally {
      submit.disabled = false;
      form.removeAttribute('aria-busy');
    }
  });
}

/** A value shown once: its Copy button, or the value selected where the clipboard is refused. */
export function copyButton(buttonId: string, fieldId: string, statusId: string, noun: string): void {
  byId(buttonId).addEventListener('click', async () => {
    const field = byId(fieldId, HTMLInputElement);
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
