/**
 * Lambda bundles as the stack builds them (lib/config/bundling.ts
 * `bundleLambda`, the very function the construct's local bundling calls),
 * and how long a fresh Node.js process takes to load one.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { median, round } from './stats';
import { bundleLambda, LAMBDA_BUNDLING, LAMBDA_NODE_OPTIONS } from '../lib/config/bundling';

const run = promisify(execFile);

/** The construct's bundling options (lib/config/bundling.ts). */
export const CONSTRUCT_BUNDLING = LAMBDA_BUNDLING;

/** The construct sets this on every function; it decides whether the source map is read at load. */
export const DEPLOYED_NODE_OPTIONS = LAMBDA_NODE_OPTIONS;

export interface BuiltBundle {
  readonly name: string;
  readonly entry: string;
  /** The handler's file (index.mjs). */
  readonly file: string;
  /** What a cold start loads: the entry and the chunks it imports statically. */
  readonly initBytes: number;
  readonly initFiles: readonly string[];
  /** Every chunk of the asset, those loaded on first use included. */
  readonly totalBytes: number;
  readonly sourceMapBytes: number;
}

/** Bundle each entry into `<buildDir>/<name>/`, as the stack does. */
export function buildBundles(projectRoot: string, buildDir: string, entries: Readonly<Record<string, string>>): BuiltBundle[] {
  rmSync(buildDir, { recursive: true, force: true });
  mkdirSync(buildDir, { recursive: true });
  return Object.entries(entries).map(([name, entry]) => {
    const bundle = bundleLambda(projectRoot, entry, join(buildDir, name));
    return {
      name,
      entry: relative(projectRoot, entry),
      file: bundle.entryFile,
      initBytes: bundle.initBytes,
      initFiles: bundle.initFiles,
      totalBytes: bundle.totalBytes,
      sourceMapBytes: bundle.sourceMapBytes,
    };
  });
}

/** Runs in the fresh process: time the bundle's `import()` (an ES module) and nothing else. */
const IMPORT_PROBE = [
  "const url = require('node:url').pathToFileURL(process.argv[1]).href;",
  'const started = performance.now();',
  'import(url).then((loaded) => {',
  '  const ms = performance.now() - started;',
  "  if (typeof loaded.handler !== 'function') throw new Error('bundle exports no handler');",
  '  process.stdout.write(String(ms));',
  '});',
].join('\n');

/** The pinned Node 22: this process's when it is 22, else the one in node_modules. */
export function benchNode(projectRoot: string): string {
  return process.versions.node.split('.')[0] === '22' ? process.execPath : join(projectRoot, 'node_modules', '.bin', 'node');
}

export async function nodeVersion(node: string): Promise<string> {
  return (await run(node, ['--version'])).stdout.trim();
}

export async function timeImport(node: string, file: string, nodeOptions: string): Promise<number> {
  const { stdout } = await run(node, ['--input-type=commonjs', '-e', IMPORT_PROBE, file], {
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
  });
  const ms = Number(stdout);
  if (!Number.isFinite(ms)) throw new Error(`import probe of ${file} printed ${JSON.stringify(stdout)}`);
  return ms;
}

export interface ImportTimes {
  readonly median_ms: number;
  readonly runs_ms: readonly number[];
}

/**
 * `runs` fresh processes per bundle and per NODE_OPTIONS value, interleaved
 * so that a slow moment of the machine is spread over every bundle. Result:
 * bundle name → NODE_OPTIONS value → times.
 */
export async function timeImports(
  node: string,
  bundles: readonly BuiltBundle[],
  nodeOptions: readonly string[],
  runs: number,
): Promise<Map<string, Map<string, ImportTimes>>> {
  const samples = new Map(bundles.map((b) => [b.name, new Map(nodeOptions.map((o) => [o, [] as number[]]))]));
  for (let i = 0; i < runs; i += 1) {
    for (const bundle of bundles) {
      for (const options of nodeOptions) {
        samples.get(bundle.name)?.get(options)?.push(await timeImport(node, bundle.file, options));
      }
    }
  }
  return new Map(
    [...samples].map(([name, byOptions]) => [
      name,
      new Map([...byOptions].map(([options, values]) => [options, { median_ms: round(median(values), 2), runs_ms: values.map((v) => round(v, 2)) }])),
    ]),
  );
}
