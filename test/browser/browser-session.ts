/**
 * The hooks of a browser test file: its world (a local stack) started and stopped around the file, Debian's Chromium
 * launched once, a fresh screenshot folder, and after each test the fault plan's rules reset (a file that injects
 * faults) and the test's browser contexts closed (the file pushes each context it opens onto the returned list).
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import type { FaultPlan } from '../../local/fault-injection';
import { artifactsDir, launchChromium } from './chromium';

export function browserSession(
  name: string,
  faults: FaultPlan | undefined,
  start: () => Promise<{ stop(): Promise<void> }>,
  ready: (browser: Browser, shots: string) => void,
): BrowserContext[] {
  const contexts: BrowserContext[] = [];
  let world: { stop(): Promise<void> } | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    const shots = artifactsDir(name);
    world = await start();
    browser = await launchChromium();
    ready(browser, shots);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await world?.stop();
  }, 180_000);
  afterEach(async () => {
    faults?.reset();
    for (const context of contexts.splice(0)) await context.close();
  });
  return contexts;
}
