/**
 * Lambda bundles as the stack builds them, and how long a fresh Node.js
 * process takes to load one.
 *
 * The options mirror the `bundling` props that lib/constructs/api-function.ts
 * locks, translated the way NodejsFunction translates them for its local
 * esbuild (aws-cdk-lib/aws-lambda-nodejs bundling: `esbuild --bundle <entry>
 * --target=node22 --platform=node --format=cjs --outfile=<out>/index.js
 * --minify --sourcemap --sources-content=false`, run from the project root,
 * no externals so the AWS SDK is inside). Keep the two in step.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { build, type BuildOptions } from 'esbuild';
import { median, round } from './stats';
import { LAMBDA_BUNDLING, LAMBDA_NODE_OPTIONS } from '../lib/config/bundling';

const run = promisify(execFile);

/** The construct's bundling props (lib/constructs/api-function.ts). */
export const CONSTRUCT_BUNDLING = LAMBDA_BUNDLING;

/** The construct sets this on every function; it decides whether the source map is read at load. */
export const DEPLOYED_NODE_OPTIONS = LAMBDA_NODE_OPTIONS;

export function esbuildOptions(projectRoot: string, entry: string, outdir: string): BuildOptions {
  const b = CONSTRUCT_BUNDLING;
  return {
    absWorkingDir: projectRoot,
    entryPoints: [relative(projectRoot, entry)],
    bundle: true,
    target: b.target,
    platform: 'node',
    format: b.format,
    outfile: join(outdir, 'index.js'),
    minify: b.minify,
    sourcemap: b.sourceMap,
    sourcesContent: b.sourcesContent,
    mainFields: [...b.mainFields],
    external: [...b.externalModules],
    logLevel: 'warning',
  };
}

export interface BuiltBundle {
  readonly name: string;
  readonly entry: string;
  readonly file: string;
  readonly bytes: number;
  readonly sourceMapBytes: number;
}

/**
 * Bundle each entry into `<buildDir>/<name>/index.js`. The folder gets a
 * `{"type":"commonjs"}` package.json: in Lambda the asset has none and
 * index.js loads as CommonJS, while here it sits inside a "type": "module"
 * repository.
 */
export async function buildBundles(projectRoot: string, buildDir: string, entries: Readonly<Record<string, string>>): Promise<BuiltBundle[]> {
  rmSync(buildDir, { recursive: true, force: true });
  mkdirSync(buildDir, { recursive: true });
  writeFileSync(join(buildDir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
  const built: BuiltBundle[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    const outdir = join(buildDir, name);
    await build(esbuildOptions(projectRoot, entry, outdir));
    const file = join(outdir, 'index.js');
    built.push({ name, entry: relative(projectRoot, entry), file, bytes: statSync(file).size, sourceMapBytes: statSync(`${file}.map`).size });
  }
  return built;
}

/** Runs in the fresh process: time `require(bundle)` and nothing else. */
const IMPORT_PROBE = [
  'const started = performance.now();',
  'const loaded = require(process.argv[1]);',
  'const ms = performance.now() - started;',
  "if (typeof loaded.handler !== 'function') throw new Error('bundle exports no handler');",
  'process.stdout.write(String(ms));',
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
