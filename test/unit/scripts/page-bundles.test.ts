/**
 * The web pages' bundles (scripts/page-bundles.ts): the generated modules the pages serve are a fresh
 * build of their browser code (so a page edited without rebuilding fails here, not in a browser), the
 * build gives the same bytes every time, a bundle carries the page's own sources only (the contracts and
 * zod are types to it, nothing more), and each page serves its bundle inline, byte for byte, under the
 * hashes of its policy.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PLAYER_PAGE_HEADERS, PLAYER_PAGE_HTML } from '../../../lambdas/player/player-page';
import { PAGE_SCRIPT as PLAYER_SCRIPT, PAGE_STYLE as PLAYER_STYLE } from '../../../lambdas/player/player-page-bundle.generated';
import { SETTINGS_PAGE_HEADERS, SETTINGS_PAGE_HTML } from '../../../lambdas/settings/settings-page';
import { PAGE_SCRIPT as SETTINGS_SCRIPT, PAGE_STYLE as SETTINGS_STYLE } from '../../../lambdas/settings/settings-page-bundle.generated';
import { buildPages, bundleProblems, PAGES, stalePageModules } from '../../../scripts/page-bundles';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

describe('the pages\u2019 bundles', () => {
  it('are what a fresh build of the pages\u2019 sources gives (npm run build:pages writes them)', async () => {
    // Act
    const stale = await stalePageModules();

    // Assess
    expect(stale, 'generated page modules differ from their sources: run npm run build:pages').toEqual([]);
  });

  it('come out byte for byte the same from every build', async () => {
    // Act
    const [first, second] = [await buildPages(), await buildPages()];

    // Assess
    expect(second.map((page) => page.moduleText)).toEqual(first.map((page) => page.moduleText));
    expect(first.map((page) => page.page)).toEqual(PAGES.map((page) => page.page));
  });

  it('carry the pages\u2019 own browser code only: no package, no contract, nothing of zod', async () => {
    // Act
    const built = await buildPages();

    // Assess
    for (const page of built) {
      expect(page.inputs.filter((input) => !input.startsWith('lambdas/')), page.page).toEqual([]);
      expect(page.inputs.filter((input) => input.endsWith('-contracts.ts')), page.page).toEqual([]);
      expect(page.inputs).toContain(page.script);
      expect(page.scriptText).not.toMatch(/zod|strictObject|safeParse/);
      expect(page.scriptText.startsWith('"use strict";(()=>{')).toBe(true);
    }
  });

  it('are served inline as built, each allowed by its hash', () => {
    for (const [html, headers, script, style] of [
      [SETTINGS_PAGE_HTML, SETTINGS_PAGE_HEADERS, SETTINGS_SCRIPT, SETTINGS_STYLE],
      [PLAYER_PAGE_HTML, PLAYER_PAGE_HEADERS, PLAYER_SCRIPT, PLAYER_STYLE],
    ] as const) {
      expect(html).toContain(`<script>${script}</script>`);
      expect(html).toContain(`<style>${style}</style>`);
      expect(headers['Content-Security-Policy']).toContain(`script-src ${sha256(script)};`);
      expect(headers['Content-Security-Policy']).toContain(`style-src ${sha256(style)};`);
    }
  });

  it('refuses a bundle that takes a package, ends its element early, loads something or is not strict', () => {
    expect(bundleProblems('probe', 'script', '"use strict";(()=>{})();', ['lambdas/probe/page/main.ts'])).toEqual([]);
    expect(bundleProblems('probe', 'script', '"use strict";(()=>{})();', ['lambdas/probe/page/main.ts', 'node_modules/zod/v4/mini/schemas.js'])).toEqual([
      'probe script: takes code from outside lambdas/ (node_modules/zod/v4/mini/schemas.js): a page\u2019s bundle carries its own sources only',
    ]);
    expect(bundleProblems('probe', 'script', '"use strict";x="</SCRIPT>"', [])).toHaveLength(1);
    expect(bundleProblems('probe', 'script', '(()=>{})();', [])).toHaveLength(1);
    expect(bundleProblems('probe', 'style', 'a{color:red}</style>', [])).toHaveLength(1);
    expect(bundleProblems('probe', 'style', 'a{background:url(https://example.com/x.png)}', [])).toHaveLength(1);
    expect(bundleProblems('probe', 'style', '@import "x.css";', [])).toHaveLength(1);
  });
});
