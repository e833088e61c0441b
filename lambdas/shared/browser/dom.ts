/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * Browser code (a page's inline script, bundled by scripts/page-bundles.ts; never loaded by a
 * function): the page's own elements by id, checked to be of the kind the caller expects, and
 * elements built with their text (what the server says is always put in as text, never markup).
 */

/** An element class of the DOM (HTMLInputElement, HTMLButtonElement, …), as `instanceof` takes it. */
type ElementKind<T extends HTMLElement> = { new (): T; readonly prototype: T };

/** The page's element `id`: of `kind` (HTMLElement unless told); a missing or different one is a bug of the page. */
export function byId(id: string): HTMLElement;
export function byId<T extends HTMLElement>(id: string, kind: ElementKind<T>): T;
export function byId<T extends HTMLElement>(id: string, kind?: ElementKind<T>): HTMLElement {
  const element = document.getElementById(id);
  if (!element || (kind && !(element instanceof kind))) throw new Error(`the page has no ${kind ? kind.name : 'element'} #${id}`);
  return element;
}

/** A new element with its text (none for null or undefined) and class. */
export function element<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string | null, className?: string): HTMLElementTagNameMap[K] {
  const created = document.createElement(tag);
  if (text !== undefined && text !== null) created.textContent = text;
  if (className) created.className = className;
  return created;
}

/** The page's own path without its trailing slashes: the page's calls are relative to it. */
export const pagePath = (): string => location.pathname.replace(/\/+$/, '');
