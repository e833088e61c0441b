/**
 * Rewrites a bundle's source map so that it does not depend on where the bundle was built
 * (run by every function's bundling, lib/constructs/api-function.ts `afterBundling`).
 *
 * esbuild writes each source as a path relative to the map, and CDK bundles inside the cloud
 * assembly's folder: synthesizing into `cdk.out` and into `cdk.out/dev` gave every function a
 * different map, so a different asset hash, and every deploy from another folder redeployed all
 * of them. Here each source becomes its path relative to the project root
 * (`lambdas/shared/errors.ts`, `node_modules/...`), the same from any folder; in Lambda a stack
 * trace then names `/var/task/lambdas/shared/errors.ts`.
 *
 *   node scripts/normalize-source-map.mjs <bundle folder> <project root>
 *
 * Plain Node, no dependency: it runs inside CDK's bundling with whatever `node` is on the PATH.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const [bundleDir, projectRoot] = process.argv.slice(2);
if (!bundleDir || !projectRoot) {
  console.error('usage: normalize-source-map.mjs <bundle folder> <project root>');
  process.exit(2);
}
const mapFile = join(bundleDir, 'index.js.map');
const map = JSON.parse(readFileSync(mapFile, 'utf8'));
const root = resolve(projectRoot);
map.sources = map.sources.map((source) => relative(root, resolve(bundleDir, map.sourceRoot ?? '', source)).split(sep).join('/'));
delete map.sourceRoot;
writeFileSync(mapFile, JSON.stringify(map));
