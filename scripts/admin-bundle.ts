/**
 * The entry of the admin CLI's bundle (dist/admin.mjs, scripts/build-admin.ts): the CLI (scripts/admin.ts) once the
 * bundle is known to be built from the sources as they are.
 *
 * A bundle older than its sources would run yesterday's back office against a stage after a `git pull`: so each
 * run first compares the recorded inputs (admin-freshness.ts, a few milliseconds), and a stale bundle is rebuilt before the
 * command runs (a second or two, once, told on stderr), rather than refused: the operator's next step would be that
 * rebuild anyway, and a refusal in the middle of a repair teaches people to skip the check. The rebuild runs
 * scripts/build-admin.ts as it is now (tsx, a dev dependency, like the build on install), then this process imports
 * the new entry (a URL of its own, so not the module already loaded), which runs the command.
 */
import { spawnSync } from 'node:child_process';
import * as nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';
import { changedInputs, COMPILE_CACHE, INPUTS_FILE, projectRootOf, readInputs } from './admin-freshness';

// V8's compiled code of the chunks, kept between runs beside the bundle (Node checks each file's content against it):
// measured, `org create` spent about 0.2 s of CPU with it against 0.23 s without. Absent before Node 22.1.
nodeModule.enableCompileCache?.(fileURLToPath(new URL(`./${COMPILE_CACHE}`, import.meta.url)));

/** Set once this process rebuilt the bundle: the new entry runs its command even if a source changed again meanwhile. */
const REBUILT = 'PARTNER_API_ADMIN_REBUILT';

function fail(message: string): never {
  process.stderr.write(`${JSON.stringify({ code: 'ADMIN_BUNDLE_STALE', message })}\n`);
  process.exit(1);
}

const inputsFile = fileURLToPath(new URL(`./${INPUTS_FILE}`, import.meta.url));
const inputs = readInputs(inputsFile);
if (!inputs) fail(`${inputsFile} is missing: rebuild the CLI with \`npm run build:admin\``);
const changed = process.env[REBUILT] ? [] : changedInputs(inputsFile, inputs);

if (changed.length === 0) {
  await import('./admin');
} else {
  const root = projectRootOf(inputsFile, inputs);
  const outdir = fileURLToPath(new URL('.', import.meta.url));
  const more = changed.length > 1 ? ` and ${changed.length - 1} more` : '';
  process.stderr.write(`admin CLI: ${changed[0]}${more} changed since the bundle was built: rebuilding it (npm run build:admin)\n`);
  // The build's report goes to stderr: stdout is the command's answer.
  const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-admin.ts', '--outdir', outdir], { cwd: root, stdio: ['ignore', 2, 2] });
  if (built.status !== 0) fail(`The rebuild failed (${built.error?.message ?? `exit ${built.status}`}): run \`npm run build:admin\` in ${root}`);
  process.env[REBUILT] = '1';
  await import(`${import.meta.url}?rebuilt=${Date.now()}`);
}
