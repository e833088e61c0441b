/**
 * The operator's admin CLI from the operator's side: the wall time of one command, process start to exit, on the
 * bench's DynamoDB Local. The bundle `npm run admin` runs (`node dist/admin.mjs`, scripts/build-admin.ts) against
 * the path it replaced (`tsx scripts/admin.ts`: tsx compiles the sources and node resolves every module on each call),
 * measured in the same run, in rounds that take each variant in turn so that the machine's other work falls on all
 * of them alike. `--help` is the floor (no back office, no AWS SDK); `org create` is a real write; `npm run -s admin`
 * adds npm's own start (measured on `--help`: npm runs the script in the project's folder, whose state file names the
 * developer's `npm start`, not the bench's tables); `--batch` is the same write as one line of a 20-line batch.
 * Reported, never asserted.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_STATE_FILE } from '../../local/state-file';
import { buildAdmin } from '../../scripts/build-admin';
import { benchNode } from '../bundles';
import { defineScenario, type AdminCliRow } from '../scenario';
import { median, percentile, round } from '../stats';

const SCENARIO = 'admin-cli';
/** Timed runs of each variant (a median of 11: the full bench's 15 minutes), after untimed ones that warm the disk cache and node's compile cache. */
const RUNS = 11;
const WARM_UP_RUNS = 2;
/** Lines of the batch variant: its figure is a run's time over this. */
const BATCH_LINES = 20;

interface Variant {
  readonly command: AdminCliRow['command'];
  readonly path: AdminCliRow['path'];
  /** The program and its arguments (run `i`), the folder it runs in, and its standard input. */
  readonly run: (i: number) => { program: string; args: string[]; cwd: string; input?: string };
  /** Commands per run (the batch's lines). */
  readonly commands?: number;
}

interface Setup {
  readonly workDir: string;
  readonly variants: readonly Variant[];
}

/** One run, timed from spawn to exit; a run that fails fails the bench. */
function timed(program: string, args: string[], cwd: string, input = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(program, args, { cwd, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) => {
      const ms = performance.now() - started;
      if (status === 0) resolve(ms);
      else reject(new Error(`admin-cli: \`${[program, ...args].join(' ')}\` exited ${status}: ${stderr}`));
    });
    child.stdin.end(input);
  });
}

export const adminCli = defineScenario<Setup>({
  name: SCENARIO,
  description: `the admin CLI's wall time per command (--help, org create), the bundle against tsx scripts/admin.ts, median of ${RUNS}`,
  setup: async ({ projectRoot, stack, progress }) => {
    progress('building the admin CLI bundle (npm run build:admin)');
    const built = await buildAdmin(projectRoot);
    // A working folder whose state file names the bench's tables, as `npm start` writes one.
    const workDir = mkdtempSync(join(tmpdir(), 'bench-admin-'));
    mkdirSync(join(workDir, '.local'));
    writeFileSync(join(workDir, LOCAL_STATE_FILE), JSON.stringify({ dynamoEndpoint: stack.dynamoEndpoint, tables: stack.tables }));
    const node = benchNode(projectRoot);
    const tsx = [join(projectRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(projectRoot, 'scripts', 'admin.ts')];
    const orgCreate = (i: number) => ['org', 'create', '--name', `Bench admin ${i}`];
    const batch = (i: number) => Array.from({ length: BATCH_LINES }, (_, line) => JSON.stringify(orgCreate(i * BATCH_LINES + line))).join('\n');
    const variants: Variant[] = [
      { command: '--help', path: 'tsx', run: () => ({ program: node, args: [...tsx, '--help'], cwd: workDir }) },
      { command: '--help', path: 'bundle', run: () => ({ program: node, args: [built.entryFile, '--help'], cwd: workDir }) },
      { command: '--help', path: 'npm run', run: () => ({ program: 'npm', args: ['run', '-s', 'admin', '--', '--help'], cwd: projectRoot }) },
      { command: 'org create', path: 'tsx', run: (i) => ({ program: node, args: [...tsx, ...orgCreate(i)], cwd: workDir }) },
      { command: 'org create', path: 'bundle', run: (i) => ({ program: node, args: [built.entryFile, ...orgCreate(i)], cwd: workDir }) },
      { command: 'org create', path: 'batch', commands: BATCH_LINES, run: (i) => ({ program: node, args: [built.entryFile, '--batch', '-'], cwd: workDir, input: batch(i) }) },
    ];
    return { workDir, variants };
  },
  run: async ({ progress }, { variants }) => {
    const times = variants.map(() => [] as number[]);
    progress(`${WARM_UP_RUNS} untimed and ${RUNS} timed rounds of ${variants.length} variants`);
    for (let pass = -WARM_UP_RUNS; pass < RUNS; pass += 1) {
      for (const [index, variant] of variants.entries()) {
        const { program, args, cwd, input } = variant.run(pass + WARM_UP_RUNS);
        const ms = await timed(program, args, cwd, input);
        if (pass >= 0) times[index].push(ms / (variant.commands ?? 1));
      }
    }
    const medianOf = (command: string, path: string) => median(times[variants.findIndex((v) => v.command === command && v.path === path)]);
    return variants.map((variant, index): AdminCliRow => {
      const runs = times[index];
      const sorted = [...runs].sort((a, b) => a - b);
      const baseline = medianOf(variant.command, 'tsx');
      return {
        kind: 'admin-cli',
        scenario: SCENARIO,
        command: variant.command,
        path: variant.path,
        runs: runs.length,
        commands_per_run: variant.commands ?? 1,
        median_ms: round(median(runs), 1),
        p90_ms: round(percentile(sorted, 0.9), 1),
        min_ms: round(sorted[0], 1),
        max_ms: round(sorted[sorted.length - 1], 1),
        runs_ms: runs.map((ms) => round(ms, 1)),
        // No ratio for npm's row: it adds npm's own start, which the tsx row (run without npm) does not have.
        ...((variant.path === 'bundle' || variant.path === 'batch') && { baseline: 'tsx' as const, ratio: round(median(runs) / baseline, 2) }),
      };
    });
  },
  teardown: async (_context, setup) => {
    if (setup) rmSync(setup.workDir, { recursive: true, force: true });
  },
});
