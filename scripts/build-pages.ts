/**
 * `npm run build:pages`: bundles the web pages' browser code into their generated modules
 * (scripts/page-bundles.ts), writing only those that changed. `--check` writes nothing and exits 1
 * when a generated module is missing or differs from a fresh build.
 */
import { stalePageModules, writePageModules } from './page-bundles';

if (process.argv.includes('--check')) {
  const stale = await stalePageModules();
  if (stale.length > 0) {
    process.stderr.write(`pages: stale or missing, run npm run build:pages: ${stale.join(', ')}\n`);
    process.exitCode = 1;
  }
} else {
  const written = await writePageModules();
  if (written.length > 0) process.stdout.write(`pages: wrote ${written.join(', ')}\n`);
}
