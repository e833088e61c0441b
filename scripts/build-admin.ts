/**
 * `npm run build:admin` (and `npm install`/`npm ci`, through `prepare`): the admin CLI bundled once, so that
 * `npm run admin` runs plain node on JavaScript instead of starting tsx, compiling the back office and resolving
 * hundreds of modules on every call.
 *
 *   tsx scripts/build-admin.ts [--outdir DIR]      (default dist/, which git ignores)
 *
 * Writes DIR/admin.mjs (the entry: scripts/admin-bundle.ts), DIR/admin-chunks/ and DIR/admin.inputs.json (what it
 * was built from: admin-freshness.ts). Bundled as the Lambda functions are (lib/config/bundling.ts: ES modules, the
 * AWS SDK included, code splitting): what the CLI imports with `import()` (the commands and the back office after
 * `--help`, the KMS and Secrets Manager clients, the tracer, the SDK's credential providers other than the
 * environment's) stays in chunks loaded on first use. Split rather than one file: measured on the 2-core machine,
 * `org create` spent 0.23 s of CPU against 0.36 s as one file, `--help` 0.07 s against 0.24 s (one file is parsed
 * whole, and node's compile cache, which the entry turns on, serves only what loads after it). Minified as they are
 * (about a tenth less CPU per command), without source maps: an operator's tool whose failures print their message.
 *
 * Files are replaced by a rename each, chunks first and the entry last, so a CLI started meanwhile runs the old
 * bundle or the new one, never half of each (two CLIs that found the bundle stale may build at once: the same bytes).
 */
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LAMBDA_BUNDLING } from '../lib/config/bundling';
import { COMPILE_CACHE, INPUTS_FILE, recordInputs } from './admin-freshness';

export const ADMIN_ENTRY_FILE = 'admin.mjs';
const ENTRY_SOURCE = 'scripts/admin-bundle.ts';
const CHUNKS = 'admin-chunks';
/** The build's own files, and the one that stands for the installed dependencies: a change to any is a new bundle. */
const BUILD_INPUTS = ['scripts/build-admin.ts', 'lib/config/bundling.ts', 'node_modules/.package-lock.json'];
/**
 * A chunk no longer referenced is removed once it is this old: a CLI started before a rebuild (a long batch) may
 * still import one of its chunks on first use.
 */
const OLD_CHUNK_MS = 24 * 60 * 60 * 1000;

export interface AdminBuild {
  readonly entryFile: string;
  /** Every JavaScript file written, and their bytes. */
  readonly files: number;
  readonly bytes: number;
  /** Project files the bundle was built from (recorded in the inputs file). */
  readonly inputs: number;
  readonly ms: number;
}

/** Write `contents` to `file` by a rename, so that a reader sees the old file or the new one. */
function replaceFile(file: string, contents: Uint8Array | string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

export async function buildAdmin(projectRoot: string, outdir = join(projectRoot, 'dist')): Promise<AdminBuild> {
  const started = Date.now();
  const b = LAMBDA_BUNDLING;
  const out = resolve(outdir);
  const { outputFiles, metafile } = await build({
    absWorkingDir: projectRoot,
    entryPoints: { [basename(ADMIN_ENTRY_FILE, '.mjs')]: ENTRY_SOURCE },
    bundle: true,
    platform: 'node',
    target: b.target,
    format: b.format,
    splitting: b.splitting,
    outdir: out,
    outExtension: { '.js': '.mjs' },
    chunkNames: `${CHUNKS}/[name]-[hash]`,
    minify: b.minify,
    mainFields: [...b.mainFields],
    banner: { js: b.banner },
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  const entryFile = join(out, ADMIN_ENTRY_FILE);
  mkdirSync(join(out, CHUNKS), { recursive: true });
  const chunks = outputFiles.filter((file) => file.path !== entryFile);
  for (const chunk of chunks) replaceFile(chunk.path, chunk.contents);
  const sources = Object.keys(metafile.inputs).filter((file) => !file.startsWith('node_modules/') && existsSync(join(projectRoot, file)));
  const buildInputs = BUILD_INPUTS.filter((file) => existsSync(join(projectRoot, file)));
  replaceFile(join(out, INPUTS_FILE), `${JSON.stringify(recordInputs(projectRoot, out, [...new Set([...sources, ...buildInputs])]), null, 1)}\n`);
  const entry = outputFiles.find((file) => file.path === entryFile);
  if (!entry) throw new Error(`build-admin: esbuild wrote no ${ADMIN_ENTRY_FILE}`);
  replaceFile(entryFile, entry.contents);
  removeOldChunks(join(out, CHUNKS), new Set(chunks.map((chunk) => chunk.path)));
  // Entries of chunks that no longer exist would only pile up; the next command fills it again.
  rmSync(join(out, COMPILE_CACHE), { recursive: true, force: true });
  return {
    entryFile,
    files: outputFiles.length,
    bytes: outputFiles.reduce((total, file) => total + file.contents.byteLength, 0),
    inputs: sources.length,
    ms: Date.now() - started,
  };
}

function removeOldChunks(folder: string, current: ReadonlySet<string>): void {
  for (const name of readdirSync(folder)) {
    const file = join(folder, name);
    // Another build's file being written is no chunk yet, and may be renamed away meanwhile.
    if (!name.endsWith('.mjs') || current.has(file)) continue;
    const age = Date.now() - (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > OLD_CHUNK_MS) rmSync(file, { force: true });
  }
}

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
  buildAdmin(projectRoot, values.outdir ? resolve(values.outdir) : undefined).then(
    (built) => {
      const where = relative(process.cwd(), built.entryFile).split(sep).join('/');
      process.stdout.write(`build-admin: ${where} and ${built.files - 1} chunks, ${Math.round(built.bytes / 1024)} KiB from ${built.inputs} project files, in ${built.ms} ms\n`);
    },
    (error: unknown) => {
      process.stderr.write(`build-admin: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
