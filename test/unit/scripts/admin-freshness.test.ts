/**
 * The admin bundle's freshness check (scripts/admin-freshness.ts): a bundle is stale when the content of an input it
 * was built from changed or the input is gone, and fresh when a file was only rewritten with the same bytes (a
 * checkout). The rebuild a stale bundle makes is test/integration/admin-bundle.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changedInputs, INPUTS_FILE, projectRootOf, readInputs, recordInputs } from '../../../scripts/admin-freshness';

let project: string;
let inputsFile: string;

/** A project of two sources and a bundle folder inside it, its inputs recorded. */
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), 'admin-freshness-'));
  mkdirSync(join(project, 'scripts'));
  mkdirSync(join(project, 'dist'));
  writeFileSync(join(project, 'scripts', 'admin.ts'), 'export const a = 1;\n');
  writeFileSync(join(project, 'scripts', 'admin-cli.ts'), 'export const b = 2;\n');
  inputsFile = join(project, 'dist', INPUTS_FILE);
  writeFileSync(inputsFile, JSON.stringify(recordInputs(project, join(project, 'dist'), ['scripts/admin.ts', 'scripts/admin-cli.ts'])));
});

afterEach(() => rmSync(project, { recursive: true, force: true }));

const changed = () => changedInputs(inputsFile, readInputs(inputsFile)!);
const later = (file: string) => utimesSync(join(project, file), new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));

describe('the admin bundle’s freshness', () => {
  it('finds a bundle fresh when nothing changed, and names the project by a path relative to the bundle', () => {
    // Act
    const inputs = readInputs(inputsFile)!;

    // Assess
    expect(changed()).toEqual([]);
    expect(inputs.root).toBe('..');
    expect(projectRootOf(inputsFile, inputs)).toBe(project);
  });

  it('finds a bundle stale when a source’s content changed, even at the same size', () => {
    // Prepare
    writeFileSync(join(project, 'scripts', 'admin-cli.ts'), 'export const b = 3;\n');
    later('scripts/admin-cli.ts');

    // Act / Assess
    expect(changed()).toEqual(['scripts/admin-cli.ts']);
  });

  it('finds a bundle stale when a source is gone', () => {
    // Prepare
    rmSync(join(project, 'scripts', 'admin.ts'));

    // Act / Assess
    expect(changed()).toEqual(['scripts/admin.ts']);
  });

  it('finds a bundle fresh when a source was rewritten with the same bytes (a checkout touching it)', () => {
    // Prepare
    writeFileSync(join(project, 'scripts', 'admin.ts'), 'export const a = 1;\n');
    later('scripts/admin.ts');

    // Act / Assess
    expect(changed()).toEqual([]);
  });

  it('reads no inputs from a missing or foreign file', () => {
    // Prepare
    const foreign = join(project, 'dist', 'other.json');
    writeFileSync(foreign, '{"name":"x"}');

    // Act / Assess
    expect(readInputs(join(project, 'dist', 'missing.json'))).toBeUndefined();
    expect(readInputs(foreign)).toBeUndefined();
  });
});
