/**
 * `npm run upgrade-check`: refuses a change that a deployed stage cannot take. Synthesizes the
 * long-lived stages from the current tree, compares them with the recorded release
 * (lib/compliance/upgrade/release-snapshots.ts) through the upgrade guard (lib/compliance/upgrade/upgrade-guard.ts),
 * prints one block per finding and exits 1 on any; `--record` records a new release.
 *
 * Exit codes: 0 nothing refused, 1 findings, 2 anything else (usage, no release recorded, a stage
 * without one, a tree that does not synthesize), so a CI step tells a refusal from a breakage.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../lib/constructs/api-function';
import {
  DEFAULT_SNAPSHOT_DIR,
  RECORDED_STAGES,
  ReleaseError,
  emptiedAllowancesSource,
  loadRelease,
  recordRelease,
  synthesizeStages,
} from '../lib/compliance/upgrade/release-snapshots';
import { UPGRADE_ALLOWANCES } from '../lib/compliance/upgrade/upgrade-allowances';
import { ALLOWANCES_FILE, applyAllowances, findUpgradeHazards, formatFinding, SAFE_PROCEDURE } from '../lib/compliance/upgrade/upgrade-guard';

const HELP = `npm run upgrade-check -- [options]

Compares the templates the current tree synthesizes for the long-lived stages (${RECORDED_STAGES.join(', ')})
with the last recorded release (release/templates, release/release.json) and fails on a change a
deployed stage cannot take: replacing or removing a table, queue, secret, KMS key or alias, log
group, state machine or SSM parameter, replacing or removing a custom-named resource, more than one
DynamoDB index change per table, changing an index's keys or projection, a state machine's type or a
secret's generator, removing or changing an export, removing a stack.
Safe procedures: ${SAFE_PROCEDURE}. Wanted anyway: ${ALLOWANCES_FILE}.

Options:
  --stage <name>      check one recorded stage only
  --snapshots <dir>   the release's templates (default release/templates; release.json beside it)
  --record            after a release is deployed to the long-lived stages: rewrite the snapshots
                      and release.json from the current tree, and empty the allowances
  --help              this text

Exit codes: 0 nothing refused, 1 findings, 2 usage errors, no release, or a tree that does not synthesize.`;

function main(): number {
  let options: { stage?: string; snapshots?: string; record?: boolean; help?: boolean };
  try {
    options = parseArgs({
      options: { stage: { type: 'string' }, snapshots: { type: 'string' }, record: { type: 'boolean' }, help: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (options.help) {
    console.log(HELP);
    return 0;
  }
  const snapshotDir = resolve(options.snapshots ?? DEFAULT_SNAPSHOT_DIR);
  if (options.record && options.stage !== undefined) {
    console.error('--record records every long-lived stage at once (a release is one set of templates); drop --stage');
    return 2;
  }
  try {
    return options.record ? record(snapshotDir) : check(snapshotDir, options.stage);
  } catch (error) {
    // A missing release, or a tree that does not synthesize: not a finding, so not exit 1.
    console.error(error instanceof ReleaseError ? `upgrade-check: ${error.message}` : error);
    return 2;
  }
}

function check(snapshotDir: string, stage: string | undefined): number {
  const stages = stage === undefined ? undefined : [stage];
  const release = loadRelease(snapshotDir, stages);
  const current = synthesizeStages(stages ?? Object.keys(release.record.stages)).templates;

  // A check of one stage weighs the allowances of its stacks only; the others belong to the other stages' checks.
  const checkedStacks = new Set([...Object.keys(release.templates), ...Object.keys(current)]);
  const allowances = UPGRADE_ALLOWANCES.filter((allowance) => checkedStacks.has(allowance.stack));
  const { findings, allowed } = applyAllowances(findUpgradeHazards(release.templates, current), allowances, { ...release.templates, ...current });

  const against = `release of ${release.record.recordedAt} (commit ${release.record.commit.slice(0, 12)})`;
  for (const { finding, allowance } of allowed) {
    console.log(`allowed ${finding.kind}: ${finding.stack} ${finding.logicalId} (${allowance.reason})`);
  }
  if (findings.length === 0) {
    console.log(
      `upgrade-check: ${checkedStacks.size} stacks against the ${against}: nothing a deployed stage cannot take` +
        (allowed.length > 0 ? ` (${allowed.length} allowed)` : ''),
    );
    return 0;
  }
  console.log(`upgrade-check: ${findings.length} ${findings.length === 1 ? 'change' : 'changes'} a deployed stage cannot take, against the ${against}:\n`);
  console.log(findings.map(formatFinding).join('\n\n'));
  return 1;
}

function record(snapshotDir: string): number {
  const synthesized = synthesizeStages(RECORDED_STAGES);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
  // The release directory itself is left out: the previous recording, not yet committed, is no change of the tree.
  const origin = { commit: git('rev-parse', 'HEAD'), uncommittedChanges: git('status', '--porcelain', '--', '.', ':(exclude)release') !== '' };
  const bytes = recordRelease(snapshotDir, synthesized, origin);
  const stacks = Object.keys(synthesized.templates).length;
  console.log(
    `recorded ${stacks} stacks (${(bytes / 1024).toFixed(0)} KiB) in ${relative(process.cwd(), snapshotDir) || '.'} from commit ${origin.commit.slice(0, 12)}` +
      (origin.uncommittedChanges ? ' plus uncommitted changes' : ''),
  );
  if (UPGRADE_ALLOWANCES.length > 0) {
    const file = join(PROJECT_ROOT, ALLOWANCES_FILE);
    writeFileSync(file, emptiedAllowancesSource(readFileSync(file, 'utf8')));
    console.log(`emptied ${ALLOWANCES_FILE} (${UPGRADE_ALLOWANCES.length} allowances): the changes they allowed are part of this release`);
  }
  return 0;
}

process.exitCode = main();
