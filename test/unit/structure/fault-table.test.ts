/**
 * docs/faults.md is complete: every write site of `lambdas/` (test/support/write-sites.ts reads them from the sources)
 * has at least one row in its table "Every write site", every row names a write site that exists, a fault of the four,
 * and a test file that exists. A new write added without saying what a lost answer or a caller's retry does to it fails
 * here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSites } from '../../support/write-sites';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const FAULTS = ['fail', 'lose-answer', 'fail-after', 'crash-after'] as const;

interface Row {
  readonly line: number;
  readonly file: string;
  readonly method: string;
  readonly faults: readonly string[];
  readonly tests: readonly string[];
}

function tableRows(): Row[] {
  const lines = readFileSync(join(ROOT, 'docs', 'faults.md'), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.startsWith('## Every write site'));
  if (start < 0) throw new Error('docs/faults.md has no section "## Every write site"');
  const rows: Row[] = [];
  for (let i = start + 1; i < lines.length && !lines[i].startsWith('## '); i += 1) {
    const line = lines[i];
    if (!line.startsWith('| `lambdas/')) continue;
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim());
    const site = /^`(lambdas\/[^`]+)` `([^`]+)`$/.exec(cells[0]);
    if (!site) throw new Error(`docs/faults.md line ${i + 1}: the first cell is not \`lambdas/<file>.ts\` \`<method>\`: ${cells[0]}`);
    rows.push({
      line: i + 1,
      file: site[1],
      method: site[2],
      faults: [...cells[2].matchAll(/`([a-z-]+)`/g)].map((m) => m[1]),
      tests: [...cells[cells.length - 1].matchAll(/`([^`]+)`/g)].map((m) => m[1]),
    });
  }
  return rows;
}

describe('docs/faults.md', () => {
  const rows = tableRows();
  const sites = writeSites();

  it('has a row for every write site of lambdas/', () => {
    // Prepare
    const named = new Set(rows.map((row) => `${row.file} ${row.method}`));

    // Act
    const missing = sites.map((site) => `${site.file} ${site.method}`).filter((site) => !named.has(site));

    // Assess
    expect(missing).toEqual([]);
  });

  it('names only write sites that exist', () => {
    const existing = new Set(sites.map((site) => `${site.file} ${site.method}`));
    expect(rows.filter((row) => !existing.has(`${row.file} ${row.method}`)).map((row) => `line ${row.line}: ${row.file} ${row.method}`)).toEqual([]);
  });

  it('names one of the four faults and a test file that exists on every row', () => {
    const broken = rows.filter(
      (row) => row.faults.length === 0 || row.faults.some((fault) => !(FAULTS as readonly string[]).includes(fault)) || row.tests.length === 0 || row.tests.some((test) => !existsSync(join(ROOT, test))),
    );
    expect(broken.map((row) => `line ${row.line}: ${row.file} ${row.method} faults=${row.faults.join(',')} tests=${row.tests.join(',')}`)).toEqual([]);
  });

  it('finds the write sites it checks (the reader still recognizes the codebase’s writes)', () => {
    // A reader that found nothing would pass the first test vacuously.
    expect(sites.length).toBeGreaterThan(40);
    expect(sites).toContainEqual({ file: 'lambdas/back-office/sign-in.ts', method: 'useCode' });
  });
});
