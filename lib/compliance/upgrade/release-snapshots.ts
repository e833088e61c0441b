/**
 * The recorded release the upgrade guard compares against, and the current tree's templates to
 * compare with it. A release is `release/templates/<stackName>.template.json` (every stack the
 * app builds beside the long-lived stages, normalized by upgrade-guard.ts's normalizeTemplate)
 * plus `release/release.json`: when and from which commit it was recorded, and which stacks each
 * stage synthesizes (so a check of one stage compares that stage's stacks only). Ephemeral stages
 * are never recorded: nothing deployed of theirs has to survive a change.
 *
 * The current templates are synthesized the way bin/app.ts builds the app (one App per stage with
 * the context of cdk.json), without bundling and without the compliance checks: the guard only
 * reads templates, and a bundled asset differs only in its hash, which snapshots do not keep.
 */
import { App } from 'aws-cdk-lib';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildBaseline, buildStages } from '../../app-stacks';
import { LONG_LIVED_STAGES } from '../../config/stage-config';
import { PROJECT_ROOT } from '../../constructs/api-function';
import { normalizeTemplate, type Template } from './upgrade-guard';

export const DEFAULT_SNAPSHOT_DIR = join(PROJECT_ROOT, 'release', 'templates');
/** The stages a release records: the long-lived ones. */
export const RECORDED_STAGES: readonly string[] = LONG_LIVED_STAGES;

const TEMPLATE_SUFFIX = '.template.json';

export interface ReleaseRecord {
  /** ISO 8601, when `--record` ran. */
  readonly recordedAt: string;
  /** `git rev-parse HEAD` at recording. */
  readonly commit: string;
  /** Whether the working tree differed from that commit (the templates are the tree's, not the commit's). */
  readonly uncommittedChanges: boolean;
  /** The aws-cdk-lib that synthesized the snapshots: a CDK upgrade can change templates by itself. */
  readonly awsCdkLib: string;
  /** Stage → the stacks its synthesis builds (a stack built by every stage, like the baseline, is listed under each). */
  readonly stages: Readonly<Record<string, readonly string[]>>;
}

export interface StageTemplates {
  /** Stack name → normalized template. */
  readonly templates: Record<string, Template>;
  /** Stage → its stacks' names. */
  readonly stacksByStage: Record<string, string[]>;
}

/** The `context` of cdk.json (feature flags), without its default stage: the flags decide what the templates hold. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  const { stage: _stage, ...context } = cdkJson.context ?? {};
  return context;
}

/**
 * Synthesizes the given stages and returns every stack of their assemblies, normalized. A stack
 * that several stages build (the account-level baseline) must come out the same from each: the
 * release keeps one template per stack name.
 */
export function synthesizeStages(stages: readonly string[]): StageTemplates {
  const templates: Record<string, Template> = {};
  const builtBy: Record<string, string> = {};
  const stacksByStage: Record<string, string[]> = {};
  for (const stage of stages) {
    const outdir = mkdtempSync(join(tmpdir(), 'upgrade-check-'));
    try {
      const app = new App({ outdir, context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
      buildBaseline(app);
      buildStages(app, { stage });
      const assembly = app.synth();
      stacksByStage[stage] = [];
      for (const stack of assembly.stacksRecursively) {
        const template = normalizeTemplate(stack.template as Template);
        const earlier = templates[stack.stackName];
        if (earlier !== undefined && serializeTemplate(earlier) !== serializeTemplate(template)) {
          throw new Error(
            `stack ${stack.stackName} is synthesized differently by stage ${builtBy[stack.stackName]} and stage ${stage}; ` +
              'a release keeps one template per stack name',
          );
        }
        templates[stack.stackName] = template;
        builtBy[stack.stackName] ??= stage;
        stacksByStage[stage].push(stack.stackName);
      }
      stacksByStage[stage].sort();
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }
  return { templates, stacksByStage };
}

/** A snapshot file's content: sorted keys (normalizeTemplate sorts), one-space indent, final newline. */
export function serializeTemplate(template: Template): string {
  return `${JSON.stringify(normalizeTemplate(template), null, 1)}\n`;
}

/** release.json sits beside the templates directory. */
export function releaseRecordPath(snapshotDir: string): string {
  return join(dirname(snapshotDir), 'release.json');
}

export class ReleaseError extends Error {}

/**
 * The recorded release: its record and the templates of the given stages (every recorded stage
 * when none is given). The directory and the record must agree: a snapshot without its stack in
 * the record, or the reverse, means a hand-edited or half-recorded release.
 */
export function loadRelease(snapshotDir: string, stages?: readonly string[]): { record: ReleaseRecord; templates: Record<string, Template> } {
  const recordPath = releaseRecordPath(snapshotDir);
  let record: ReleaseRecord;
  try {
    record = JSON.parse(readFileSync(recordPath, 'utf8')) as ReleaseRecord;
  } catch (error) {
    throw new ReleaseError(`no release recorded at ${recordPath} (${(error as Error).message}); record one with --record after a release is deployed`);
  }
  const recorded = new Set(Object.values(record.stages).flat());
  let files: string[];
  try {
    files = readdirSync(snapshotDir).filter((file) => file.endsWith(TEMPLATE_SUFFIX));
  } catch (error) {
    throw new ReleaseError(`release.json is there but its snapshots are not (${(error as Error).message})`);
  }
  const unlisted = files.map((file) => file.slice(0, -TEMPLATE_SUFFIX.length)).filter((stack) => !recorded.has(stack));
  if (unlisted.length > 0) throw new ReleaseError(`${snapshotDir} holds snapshots release.json does not list: ${unlisted.join(', ')}`);

  for (const stage of stages ?? []) {
    if (!record.stages[stage]) {
      throw new ReleaseError(`stage ${stage} has no recorded release (recorded: ${Object.keys(record.stages).join(', ')}); ephemeral stages have no history to protect`);
    }
  }
  const wanted = new Set((stages ?? Object.keys(record.stages)).flatMap((stage) => record.stages[stage]));
  const templates: Record<string, Template> = {};
  for (const stack of [...wanted].sort()) {
    try {
      templates[stack] = JSON.parse(readFileSync(join(snapshotDir, `${stack}${TEMPLATE_SUFFIX}`), 'utf8')) as Template;
    } catch (error) {
      throw new ReleaseError(`release.json lists stack ${stack} but its snapshot cannot be read (${(error as Error).message})`);
    }
  }
  return { record, templates };
}

/**
 * Writes the release: one snapshot per stack (removing snapshots of stacks no longer built) and
 * release.json. Returns the bytes the snapshots take.
 */
export function recordRelease(snapshotDir: string, synthesized: StageTemplates, origin: Pick<ReleaseRecord, 'commit' | 'uncommittedChanges'>): number {
  mkdirSync(snapshotDir, { recursive: true });
  for (const file of readdirSync(snapshotDir)) {
    if (file.endsWith(TEMPLATE_SUFFIX) && !(file.slice(0, -TEMPLATE_SUFFIX.length) in synthesized.templates)) rmSync(join(snapshotDir, file));
  }
  let bytes = 0;
  for (const [stack, template] of Object.entries(synthesized.templates).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const content = serializeTemplate(template);
    bytes += Buffer.byteLength(content);
    writeFileSync(join(snapshotDir, `${stack}${TEMPLATE_SUFFIX}`), content);
  }
  const record: ReleaseRecord = {
    recordedAt: new Date().toISOString(),
    commit: origin.commit,
    uncommittedChanges: origin.uncommittedChanges,
    awsCdkLib: (JSON.parse(readFileSync(join(PROJECT_ROOT, 'node_modules', 'aws-cdk-lib', 'package.json'), 'utf8')) as { version: string }).version,
    stages: Object.fromEntries(Object.entries(synthesized.stacksByStage).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
  writeFileSync(releaseRecordPath(snapshotDir), `${JSON.stringify(record, null, 2)}\n`);
  return bytes;
}

/**
 * The allowances file with its list emptied (a recorded release contains every change they
 * allowed). The declaration is the file's last statement, so everything from its `=` on is the list.
 */
export function emptiedAllowancesSource(source: string): string {
  const declaration = 'export const UPGRADE_ALLOWANCES: readonly UpgradeAllowance[] =';
  const at = source.indexOf(declaration);
  if (at < 0 || source.indexOf(declaration, at + 1) >= 0) throw new Error(`expected one "${declaration}" in the allowances file`);
  return `${source.slice(0, at + declaration.length)} [];\n`;
}
