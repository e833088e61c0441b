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

/** The pinned Node 24: this process's when it is 24, else the one in node_modules. */
export function benchNode(projectRoot: string): string {
  return process.versions.node.split('.')[0] === '24' ? process.execPath : join(projectRoot, 'node_modules', '.bin', 'node');
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
 * The cold-start targets (issue 34): a function's bytes loaded and import() time within these multiples of the bare
 * DynamoDB document-client handler's; `system`, which calls no table, within a tighter one.
 */
export const COLD_START_TARGET = 1.3;
export const COLD_START_TARGETS: Readonly<Record<string, number>> = { system: 1.1 };
export const coldStartTarget = (name: string): number => COLD_START_TARGETS[name] ?? COLD_START_TARGET;

/** One bundle's import() times, and the median of its ratios to the baseline's import() timed right beside each. */
export interface PairedImportTimes {
  readonly times: ImportTimes;
  /** Median over the runs of (this bundle's time / the baseline's, timed next to it); undefined for the baseline itself. */
  readonly ratio?: number;
}

const summarize = (values: readonly number[]): ImportTimes => ({ median_ms: round(median(values), 2), runs_ms: values.map((v) => round(v, 2)) });

/**
 * `runs` fresh processes per bundle and per NODE_OPTIONS value, each bundle's timed in one loop with the baseline's
 * (`baselineName`) right beside it, in turn before and after it: a ratio compares two imports of the same moment of
 * the machine, so its drift between rows (the other engineers' tests, a busy core) does not decide it. Result:
 * bundle name → NODE_OPTIONS value → times (the baseline's: every one of its paired runs).
 */
export async function timeImports(
  node: string,
  bundles: readonly BuiltBundle[],
  baselineName: string,
  nodeOptions: readonly string[],
  runs: number,
): Promise<Map<string, Map<string, PairedImportTimes>>> {
  const baseline = bundles.find((bundle) => bundle.name === baselineName);
  if (!baseline) throw new Error(`timeImports: no bundle named ${baselineName}`);
  const others = bundles.filter((bundle) => bundle !== baseline);
  const samples = new Map(others.map((b) => [b.name, new Map(nodeOptions.map((o) => [o, { own: [] as number[], ratios: [] as number[] }]))]));
  const baselineSamples = new Map(nodeOptions.map((o) => [o, [] as number[]]));
  for (let i = 0; i < runs; i += 1) {
    for (const bundle of others) {
      for (const options of nodeOptions) {
        const pair = i % 2 === 0 ? [baseline, bundle] : [bundle, baseline];
        const [first, second] = [await timeImport(node, pair[0].file, options), await timeImport(node, pair[1].file, options)];
        const [base, own] = pair[0] === baseline ? [first, second] : [second, first];
        baselineSamples.get(options)?.push(base);
        const sample = samples.get(bundle.name)?.get(options);
        sample?.own.push(own);
        sample?.ratios.push(own / base);
      }
    }
  }
  return new Map<string, Map<string, PairedImportTimes>>([
    [baseline.name, new Map([...baselineSamples].map(([options, values]) => [options, { times: summarize(values) }]))],
    ...[...samples].map(([name, byOptions]): [string, Map<string, PairedImportTimes>] => [
      name,
      new Map([...byOptions].map(([options, { own, ratios }]) => [options, { times: summarize(own), ratio: round(median(ratios), 2) }])),
    ]),
  ]);
}
