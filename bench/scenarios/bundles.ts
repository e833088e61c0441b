/**
 * Each endpoint group's Lambda bundle, built as the stack builds it: size,
 * and the median time a fresh Node 22 process spends in `require()` of it,
 * next to a bare handler bundled the same way.
 */
import { join } from 'node:path';
import { ENDPOINT_GROUPS } from '../../lambdas/shared/http/routes';
import { benchNode, buildBundles, DEPLOYED_NODE_OPTIONS, timeImports, type BuiltBundle } from '../bundles';
import { defineScenario, type BundleRow } from '../scenario';
import { round } from '../stats';

const SCENARIO = 'bundles';
/** A DynamoDB document client reading one item: what a team would otherwise deploy (bench/fixtures). */
const BASELINE = 'bare';
/** A handler that imports nothing: the floor of any bundle. */
const EMPTY = 'empty';

export const bundles = defineScenario<BuiltBundle[]>({
  name: SCENARIO,
  description: 'Lambda bundle per endpoint group (construct bundling options): what a cold start loads, and its import() time',
  setup: async ({ projectRoot, progress }) => {
    // The construct's own entry resolution; imported here only, so the CDK library loads after the latency runs.
    const { handlerEntry } = await import('../../lib/constructs/api-function');
    progress('bundling with esbuild');
    return buildBundles(projectRoot, join(projectRoot, 'bench', '.build'), {
      [EMPTY]: join(projectRoot, 'bench', 'fixtures', 'bare-handler.ts'),
      [BASELINE]: join(projectRoot, 'bench', 'fixtures', 'bare-document-client-handler.ts'),
      ...Object.fromEntries(ENDPOINT_GROUPS.map((group) => [group, handlerEntry(group)])),
    });
  },
  run: async ({ projectRoot, plan, progress }, built) => {
    const node = benchNode(projectRoot);
    progress(`timing require() in ${plan.importRuns} fresh node processes per bundle`);
    const times = await timeImports(node, built, [DEPLOYED_NODE_OPTIONS, ''], plan.importRuns);
    return built.map((bundle): BundleRow => {
      const byOptions = times.get(bundle.name);
      const deployed = byOptions?.get(DEPLOYED_NODE_OPTIONS);
      const plain = byOptions?.get('');
      if (!deployed || !plain) throw new Error(`No import times for ${bundle.name}`);
      return {
        kind: 'bundle',
        scenario: SCENARIO,
        name: bundle.name,
        entry: bundle.entry,
        bytes: bundle.initBytes,
        kib: round(bundle.initBytes / 1024, 1),
        init_files: bundle.initFiles,
        total_kib: round(bundle.totalBytes / 1024, 1),
        source_map_kib: round(bundle.sourceMapBytes / 1024, 1),
        import_deployed: deployed,
        import_plain: plain,
        baseline: bundle.name === BASELINE || bundle.name === EMPTY ? undefined : BASELINE,
      };
    });
  },
});
