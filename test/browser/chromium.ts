/**
 * Real-browser tests: Debian's headless Chromium (/usr/bin/chromium, never a
 * downloaded browser) driven by playwright-core, a watch on each page for
 * script errors, console errors and content security policy violations, and
 * full-page screenshots under test/artifacts/ (git-ignored).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
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
