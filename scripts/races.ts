/**
 * `npm run test:races`: the model-based race tests (test/races/) with many interleavings each.
 *   npm run test:races                      200 runs per property, a fresh seed each
 *   npm run test:races -- --runs 1000       more
 *   npm run test:races -- --seed -2000158487 [--path 0:1]   replay the run fast-check reported
 * `npm test` runs the same files with a few runs each (RACES_RUNS unset).
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { runs: { type: 'string', default: '200' }, seed: { type: 'string' }, path: { type: 'string' } },
  allowPositionals: true,
});
const env = {
  ...process.env,
  RACES_RUNS: values.seed && values.path ? '1' : values.runs,
  ...(values.seed ? { RACES_SEED: values.seed } : {}),
  ...(values.path ? { RACES_PATH: values.path } : {}),
};
const files = positionals.length > 0 ? positionals : ['test/races'];
const run = spawnSync('npx', ['vitest', 'run', ...files], { stdio: 'inherit', env });
process.exit(run.status ?? 1);
