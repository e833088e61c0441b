/**
 * Whether the admin CLI's bundle (dist/admin.mjs) was built from the sources as they are now. The build records every
 * input it read (scripts/build-admin.ts): the project's files esbuild bundled, the build's own files, and
 * node_modules/.package-lock.json, which npm rewrites on every install (one file stands for the dependencies: statting
 * the thousand files esbuild read of them would cost more than the rest of a `--help`). Each input is recorded with its
 * size, modification time and SHA-256: the check stats each one and reads and hashes only those whose size or time
 * moved, so a `git checkout` that rewrites a file with the same content costs one hash and no rebuild. About 80 stats
 * for a fresh bundle: a few milliseconds.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** Next to the bundle's entry: what it was built from. */
export const INPUTS_FILE = 'admin.inputs.json';
/** Next to the bundle's entry: node's compile cache of its chunks (emptied by each build). */
export const COMPILE_CACHE = '.admin-compile-cache';

export interface RecordedInput {
  readonly size: number;
  readonly mtimeMs: number;
  readonly sha256: string;
}

export interface BundleInputs {
  /** The project's root, relative to the folder of this file (the bundle's). */
  readonly root: string;
  /** Each input by its path from the project's root. */
  readonly files: Readonly<Record<string, RecordedInput>>;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** What the build records of `files` (paths from `projectRoot`), for a bundle in `outdir`. */
export function recordInputs(projectRoot: string, outdir: string, files: readonly string[]): BundleInputs {
  const recorded: Record<string, RecordedInput> = {};
  for (const file of [...files].sort()) {
    const path = join(projectRoot, file);
    const { size, mtimeMs } = statSync(path);
    recorded[file] = { size, mtimeMs, sha256: sha256(path) };
  }
  return { root: relative(resolve(outdir), resolve(projectRoot)) || '.', files: recorded };
}

/** The project's root a bundle's inputs file names. */
export function projectRootOf(inputsFile: string, inputs: BundleInputs): string {
  return resolve(inputsFile, '..', inputs.root);
}

/**
 * The inputs that changed since the build (changed content, or gone), by their path from the project's root: none
 * when the bundle is fresh.
 */
export function changedInputs(inputsFile: string, inputs: BundleInputs): string[] {
  const root = projectRootOf(inputsFile, inputs);
  const changed: string[] = [];
  for (const [file, recorded] of Object.entries(inputs.files)) {
    const path = join(root, file);
    let now;
    try {
      now = statSync(path);
    } catch {
      changed.push(file);
      continue;
    }
    if (now.size === recorded.size && now.mtimeMs === recorded.mtimeMs) continue;
    if (now.size !== recorded.size || sha256(path) !== recorded.sha256) changed.push(file);
  }
  return changed;
}

/** The inputs file next to a bundle, or undefined when there is none (or it is not one). */
export function readInputs(inputsFile: string): BundleInputs | undefined {
  try {
    const inputs = JSON.parse(readFileSync(inputsFile, 'utf8')) as BundleInputs;
    return typeof inputs.root === 'string' && inputs.files && typeof inputs.files === 'object' ? inputs : undefined;
  } catch {
    return undefined;
  }
}
