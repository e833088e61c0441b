/**
 * Each endpoint group's Lambda bundle, built as the stack builds it: what its
 * cold start loads (bytes), and the time a fresh Node 24 process spends in its
 * `import()`, each timed beside the bare document-client handler's in one
 * loop, against the cold-start targets (bench/bundles.ts coldStartTarget).
 */
import { join } from 'node:path';
import { ENDPOINT_GROUPS } from '../../lambdas/shared/http/routes';
import { benchNode, buildBundles, coldStartTarget, DEPLOYED_NODE_OPTIONS, timeImports, type BuiltBundle } from '../bundles';
import { defineScenario, type BundleRow } from '../scenario';
import { round } from '../stats';

const SCENARIO = 'bundles';
/** A DynamoDB document client reading one item: what a team would otherwise deploy (bench/fixtures). */
const BASELINE = 'bare';
/** A handler that imports nothing: the floor of any bundle. */
const EMPTY = 'empty';

export const bundles = defineScenario<BuiltBundle[]>({
  name: SCENARIO,
  description: 'Lambda bundle per endpoint group (construct bundling options): what a cold start loads, and its import() time beside the bare handler\'s, against the targets',
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
    progress(`timing import() in ${plan.importRuns} fresh node processes per bundle, each beside the ${BASELINE} handler's`);
    const times = await timeImports(node, built, BASELINE, [DEPLOYED_NODE_OPTIONS, ''], plan.importRuns);
    const baseline = built.find((bundle) => bundle.name === BASELINE);
    return built.map((bundle): BundleRow => {
      const byOptions = times.get(bundle.name);
      const deployed = byOptions?.get(DEPLOYED_NODE_OPTIONS);
      const plain = byOptions?.get('');
      if (!deployed || !plain || !baseline) throw new Error(`No import times for ${bundle.name}`);
      const compared = bundle.name !== BASELINE && bundle.name !== EMPTY;
      const kibRatio = round(bundle.initBytes / baseline.initBytes, 2);
      const target = coldStartTarget(bundle.name);
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
        import_deployed: deployed.times,
        import_plain: plain.times,
        baseline: compared ? BASELINE : undefined,
        ...(compared && deployed.ratio !== undefined && plain.ratio !== undefined
          ? {
              cold_start: {
                target,
                kib_ratio: kibRatio,
                import_ratio: deployed.ratio,
                import_plain_ratio: plain.ratio,
                met: kibRatio <= target && deployed.ratio <= target,
              },
            }
          : {}),
      };
    });
  },
});
