/**
 * Real-browser tests: Debian's headless Chromium (/usr/bin/chromium, never a
 * downloaded browser) driven by playwright-core, a watch on each page for
 * script errors, console errors and content security policy violations, and
 * full-page screenshots under test/artifacts/ (git-ignored).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`No Chromium at ${CHROMIUM_PATH}: install Debian's (apt-get install -y chromium), as .ci/run does`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** What went wrong in a page: uncaught errors, console errors (network failures included), CSP violations. */
export interface PageProblems {
  readonly pageErrors: string[];
  readonly consoleErrors: string[];
  readonly cspViolations: string[];
}

/**
 * Watches `page` from its first document on. CSP violations are caught twice:
 * Chromium's own console report ("Refused to …") and the document's
 * `securitypolicyviolation` event, reported through a binding (an init script
 * runs outside the page's policy).
 */
export async function watchPage(page: Page): Promise<PageProblems> {
  const problems: PageProblems = { pageErrors: [], consoleErrors: [], cspViolations: [] };
  page.on('pageerror', (error) => problems.pageErrors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.consoleErrors.push(message.text());
  });
  await page.exposeBinding('__reportCspViolation', (_source, text: string) => {
    problems.cspViolations.push(text);
  });
  await page.addInitScript(
    `document.addEventListener('securitypolicyviolation', (e) => window.__reportCspViolation(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber));`,
  );
  return problems;
}

/** A fresh directory test/artifacts/<name>/ (old screenshots removed). */
export function artifactsDir(name: string): string {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** An accessibility problem axe-core found, in short. */
export interface AccessibilityViolation {
  readonly rule: string;
  readonly impact: string | null | undefined;
  readonly targets: string[];
  readonly help: string;
}

/** axe-core's browser build, read once per test file. */
let axeSource: string | undefined;
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

/**
 * The serious and critical accessibility violations of the page as it is now: axe-core's WCAG 2.0/2.1 A and AA rules
 * and best practices, run in the page. Axe's script is evaluated through the DevTools protocol, outside the page's
 * content security policy (so the policy under test stays as served), once per document: a later audit of the same
 * document reuses it. The pages under test have no frames, so axe runs in one pass (`axe.run`); @axe-core/playwright's
 * default opens a blank page per audit to merge frames' results, which cost about a second per state.
 */
export async function accessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  if (page.frames().length > 1) throw new Error('the audit runs axe in the main frame only: a page with frames needs each audited');
  const loaded = await page.evaluate('typeof window.axe === "object"');
  if (!loaded) {
    axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    await page.evaluate(axeSource);
  }
  const violations = await page.evaluate<RawViolation[], readonly string[]>(
    (tags) =>
      (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: RawViolation[] }> } }).axe
        .run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })
        .then((results) => results.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }))),
    AXE_TAGS,
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ rule: violation.id, impact: violation.impact, targets: violation.nodes.map((node) => String(node.target)), help: violation.help }));
}

/** What the audit brings back of one axe violation. */
interface RawViolation {
  readonly id: string;
  readonly impact: string | null | undefined;
  readonly help: string;
  readonly nodes: readonly { readonly target: unknown }[];
}

/** A full-page screenshot of a state under `dir`, and that state's accessibility audit (no serious or critical violation). */
export async function captureState(page: Page, dir: string, name: string): Promise<void> {
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
  const violations = await accessibilityViolations(page);
  if (violations.length > 0) throw new Error(`accessibility violations in state ${name}:\n${JSON.stringify(violations, null, 2)}`);
}

/** The focused element's id (or tag) and whether its focus is visible (an outline or a ring that is drawn). */
export async function focusState(page: Page): Promise<{ readonly id: string; readonly visible: boolean }> {
  return page.evaluate(`(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return { id: 'body', visible: false };
    const style = getComputedStyle(element);
    const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
    const ring = style.boxShadow !== 'none';
    return { id: element.id || element.tagName.toLowerCase(), visible: outline || ring };
  })()`);
}

/**
 * Tab (keyboard only) until the element `id` has focus, at most `maxStops` times, checking that every stop on the way
 * shows its focus; the ids passed, in order.
 */
export async function tabTo(page: Page, id: string, maxStops = 60): Promise<string[]> {
  const passed: string[] = [];
  for (let stop = 0; stop < maxStops; stop += 1) {
    await page.keyboard.press('Tab');
    const state = await focusState(page);
    if (!state.visible) throw new Error(`focus on ${state.id} is not visible (after ${passed.join(' → ') || 'the start'})`);
    passed.push(state.id);
    if (state.id === id) return passed;
  }
  throw new Error(`${id} was not reached in ${maxStops} Tab presses: ${passed.join(' → ')}`);
}
