/**
 * The accessibility audit every browser test runs on each state it captures (chromium.ts captureState) finds what
 * it should: a page with a nameless button, an image without alternative text and unreadable contrast fails it;
 * the same page fixed passes.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium } from './chromium';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

const page = (body: string) => `<!doctype html><html lang="en"><head><title>Probe</title></head><body><main><h1>Probe</h1>${body}</main></body></html>`;

describe('the accessibility audit', () => {
  it('reports serious and critical violations, and nothing for the page fixed', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    try {
      await tab.setContent(page('<button></button><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><p style="color:#eee;background:#fff">faint</p>'));
      const found = (await accessibilityViolations(tab)).map((violation) => violation.rule).sort();
      expect(found).toEqual(expect.arrayContaining(['button-name', 'color-contrast', 'image-alt']));

      await tab.setContent(page('<button>Send</button><img alt="A dot" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><p style="color:#222;background:#fff">clear</p>'));
      expect(await accessibilityViolations(tab)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
