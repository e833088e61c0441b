/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * Browser code of the settings page: the pieces its sections build from — status regions, buttons,
 * table cells labelled for the narrow layout, times — and the screen shown.
 */
import { byId, element } from '../../shared/browser/dom';
import { state, type NoticeKind } from './page-state';

const SCREENS = ['loading', 'sign-in', 'settings'] as const;

export function show(screen: (typeof SCREENS)[number]): void {
  for (const s of SCREENS) byId(s).hidden = s !== screen;
  byId('topbar').hidden = screen !== 'settings';
  document.body.dataset.state = screen === 'sign-in' && state.codeStep ? 'sign-in-code' : screen;
}

/** Puts the text in a status region (an element or its id) as a notice of its kind, or empties it. */
export function say(region: string | HTMLElement, text?: string, kind?: NoticeKind): void {
  const box = typeof region === 'string' ? byId(region) : region;
  box.textContent = text || '';
  box.className = text ? 'notice ' + (kind || 'info') : 'notice';
}

export function button(text: string, className?: string): HTMLButtonElement {
  const created = element('button', text, className);
  created.type = 'button';
  return created;
}

/** A table cell with its column's name (shown before the value where rows become blocks). */
export function cell(label: string, content: Node | string): HTMLTableCellElement {
  const td = document.createElement('td');
  td.dataset.label = label;
  if (content instanceof Node) td.append(content);
  else td.textContent = content;
  return td;
}

/** A time in the reader's locale (the full time in its title), or the text as it came when it is not one. */
export function time(iso: string, dateOnly?: boolean): HTMLTimeElement {
  const date = new Date(iso);
  const format: Intl.DateTimeFormatOptions = dateOnly ? { dateStyle: 'medium' } : { dateStyle: 'medium', timeStyle: 'short' };
  const created = element('time', Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, format));
  created.title = Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'long' });
  created.dateTime = iso;
  return created;
}

/** The row of a table body (by its id) whose `data-<key>` is `id`. */
export function rowOf(bodyId: string, key: string, id: string): HTMLTableRowElement | null {
  for (const row of byId(bodyId).children) if (row instanceof HTMLTableRowElement && row.dataset[key] === id) return row;
  return null;
}
