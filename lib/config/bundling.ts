/**
 * How every Lambda is bundled, declared once: the CDK construct's local
 * bundling (lib/constructs/service-function.ts) and the benchmark
 * (bench/bundles.ts) both call `bundleLambda`, so the bench measures the
 * very bundles the stack deploys.
 *
 * ES modules with code splitting: the handler's entry `index.mjs` and the
 * chunks it imports statically are what a cold start loads; what the code
 * imports with `import()` (the tracer with the X-Ray SDK, the clients of
 * Secrets Manager, KMS, SQS and Step Functions, the SDK's credential
 * providers other than the environment's, a route's own heavy parts) sits in
 * chunks loaded on first use, and never where it is not used
 * (docs/infrastructure.md "Bundling").
 */
import { buildSync, type BuildOptions, type Metafile } from 'esbuild';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

export const LAMBDA_BUNDLING = {
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  target: 'node24',
  format: 'esm',
  splitting: true,
  /** The handler's file: `.mjs`, so Lambda loads it as an ES module without a package.json (handler `index.handler`). */
  entryFile: 'index.mjs',
  chunkNames: 'chunks/[name]-[hash]',
  /** Prefer packages' ES module builds, which esbuild can tree-shake (the AWS SDK v3 ships both). */
  mainFields: ['module', 'main'],
  /** Empty: bundle everything, the AWS SDK included, so the deployed version is the one in package-lock.json. */
  externalModules: [] as string[],
  /**
   * CommonJS packages inside an ES module bundle (the X-Ray SDK, parts of the AWS SDK) call `require` for Node's
   * built-ins; an ES module has none, so every output file gets one made for it.
   */
  banner: "import{createRequire as __createRequire}from'node:module';const require=__createRequire(import.meta.url);",
} as const;

/** Set on every function: stack traces point at the TypeScript sources. */
export const LAMBDA_NODE_OPTIONS = '--enable-source-maps';

/** esbuild's options for one function: `entry` (relative to or inside `projectRoot`) into `outdir`. */
export function lambdaBuildOptions(projectRoot: string, entry: string, outdir: string): BuildOptions & { metafile: true } {
  const b = LAMBDA_BUNDLING;
  return {
    absWorkingDir: projectRoot,
    entryPoints: { [b.entryFile.replace(/\.mjs$/, '')]: relative(projectRoot, resolve(projectRoot, entry)) },
    bundle: true,
    target: b.target,
    platform: 'node',
    format: b.format,
    splitting: b.splitting,
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: b.chunkNames,
    minify: b.minify,
    sourcemap: b.sourceMap,
    sourcesContent: b.sourcesContent,
    mainFields: [...b.mainFields],
    external: [...b.externalModules],
    banner: { js: b.banner },
    metafile: true,
    logLevel: 'warning',
  };
}

export interface LambdaBundle {
  readonly outdir: string;
  /** The handler's file. */
  readonly entryFile: string;
  /** What a cold start loads: the entry and the chunks it imports statically, transitively (bytes). */
  readonly initBytes: number;
  readonly initFiles: readonly string[];
  /** Every JavaScript file of the asset, lazy chunks included (bytes). */
  readonly totalBytes: number;
  readonly sourceMapBytes: number;
}

let builds = 0;

/**
 * Bundle `entry` into `outdir` (emptied first), synchronously (CDK's local bundling is synchronous), the same bytes
 * wherever `outdir` is. esbuild names chunks by a hash that covers their source maps, whose paths are relative to
 * the output folder: so the bundle is built in a folder of the project at a fixed depth
 * (node_modules/.cache/lambda-bundles/<build>), its maps normalized, and copied to `outdir`. The same asset hash from
 * `cdk.out`, `cdk.out/dev` or another clone: a deploy from another folder redeploys nothing.
 */
export function bundleLambda(projectRoot: string, entry: string, outdir: string): LambdaBundle {
  builds += 1;
  const buildDir = join(projectRoot, 'node_modules', '.cache', 'lambda-bundles', `${process.pid}-${builds}`);
  rmSync(buildDir, { recursive: true, force: true });
  try {
    const { metafile } = buildSync(lambdaBuildOptions(projectRoot, entry, buildDir));
    dropUnusedRequire(buildDir);
    normalizeSourceMaps(buildDir, projectRoot);
    const measures = measureBundle(projectRoot, buildDir, metafile);
    rmSync(outdir, { recursive: true, force: true });
    mkdirSync(outdir, { recursive: true });
    cpSync(buildDir, outdir, { recursive: true });
    return { outdir, entryFile: join(outdir, LAMBDA_BUNDLING.entryFile), ...measures };
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
  }
}

/** What a cold start loads of the bundle built in `outdir`, and its whole size, from esbuild's metafile. */
function measureBundle(projectRoot: string, outdir: string, metafile: Metafile): Omit<LambdaBundle, 'outdir' | 'entryFile'> {
  const outputs = metafile.outputs;
  const key = (file: string) => relative(projectRoot, file).split(sep).join('/');
  const entryKey = key(join(outdir, LAMBDA_BUNDLING.entryFile));
  if (!outputs[entryKey]) throw new Error(`bundleLambda: esbuild wrote no ${entryKey}`);
  const init = new Set<string>();
  const pending = [entryKey];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (init.has(next)) continue;
    init.add(next);
    for (const imported of outputs[next].imports) if (imported.kind === 'import-statement' && outputs[imported.path]) pending.push(imported.path);
  }
  const javascript = Object.keys(outputs).filter((file) => file.endsWith('.mjs'));
  // The files as written (dropUnusedRequire shortened some after esbuild measured them).
  const sum = (files: Iterable<string>) => [...files].reduce((total, file) => total + statSync(resolve(projectRoot, file)).size, 0);
  return {
    initBytes: sum(init),
    initFiles: [...init].map((file) => relative(outdir, resolve(projectRoot, file)).split(sep).join('/')).sort(),
    totalBytes: sum(javascript),
    sourceMapBytes: mapFiles(outdir).reduce((total, file) => total + statSync(file).size, 0),
  };
}

function mapFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.map'))
    .map((file) => join(dir, file));
}

/**
 * Each source map names its sources as if the asset's root were the project's (`lambdas/shared/errors.ts`
 * from index.mjs.map, `../lambdas/…` from a chunk's), not relative to where it was built. CDK bundles inside the cloud assembly's folder: with esbuild's
 * relative paths a synthesis into `cdk.out` and one into `cdk.out/dev` gave every function a different
 * map, so a different code hash, and a deploy from another folder redeployed all of them. In Lambda a
 * stack trace then names `/var/task/lambdas/shared/errors.ts`.
 */
/**
 * The banner gives every output file a `require` (LAMBDA_BUNDLING.banner), but only a file that names one needs it:
 * esbuild's `__require` lives in its runtime chunk, and most chunks never call it. The banner is dropped from the
 * others (its line maps to no source, so their maps lose their first, empty line): about 110 bytes less per chunk a
 * cold start loads. Conservative: a file whose text names `require` anywhere, a string included, keeps it.
 */
export function dropUnusedRequire(outdir: string): void {
  const banner = `${LAMBDA_BUNDLING.banner}\n`;
  const files = readdirSync(outdir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.mjs'));
  for (const name of files) {
    const file = join(outdir, name);
    const text = readFileSync(file, 'utf8');
    if (!text.startsWith(banner) || /\brequire\b/.test(text.slice(banner.length))) continue;
    const mapFile = `${file}.map`;
    const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { mappings: string };
    if (!map.mappings.startsWith(';')) continue;
    writeFileSync(file, text.slice(banner.length));
    writeFileSync(mapFile, JSON.stringify({ ...map, mappings: map.mappings.slice(1) }));
  }
}

export function normalizeSourceMaps(outdir: string, projectRoot: string): void {
  const root = resolve(projectRoot);
  for (const file of mapFiles(outdir)) {
    const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[]; sourceRoot?: string };
    const mapDir = resolve(file, '..');
    // A chunk's map sits in chunks/: its sources are named from there as if the asset's root were the project's.
    const asIfInProject = join(root, relative(resolve(outdir), mapDir));
    map.sources = map.sources.map((source) => relative(asIfInProject, resolve(mapDir, map.sourceRoot ?? '', source)).split(sep).join('/'));
    delete map.sourceRoot;
    writeFileSync(file, JSON.stringify(map));
  }
}
