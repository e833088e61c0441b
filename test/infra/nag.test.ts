/**
 * cdk-nag's AwsSolutions checks (lib/compliance): dev and prod synthesize with no finding left
 * unacknowledged, each acknowledgment sits on the one resource whose finding it covers and is
 * listed in docs/infrastructure.md, wildcards hold only actions AWS offers on no narrower
 * resource, and an unacknowledged finding (an error or a warning) fails synthesis, in a throwaway
 * app and through the real entry point bin/app.ts.
 *
 * A failure lists each finding as `<rule id> at <construct path>`: fix the resource, or acknowledge
 * it in lib/compliance/nag-acknowledgments.ts with a reason and add its rule to the docs' table.
 */
import { App, CfnResource, Stack, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBaseline, buildStages, type BuildStageOptions } from '../../lib/app-stacks';
import { addComplianceChecks } from '../../lib/compliance/compliance-checks';
import { ACTIONS_WITHOUT_RESOURCE_TYPES } from '../../lib/compliance/nag-acknowledgments';
import { PROJECT_ROOT } from '../../lib/constructs/api-function';
import { cdkJsonContext, synthFailure } from './support';

/** A full stage synthesizes slowly on a shared machine; these limits are not assertions. */
const SYNTH_TIMEOUT_MS = 180_000;

type StageOptions = Omit<BuildStageOptions, 'stage'>;

/** An app built the way bin/app.ts builds it (checks registered, the account baseline beside the stage), without bundling. */
function checkedApp(stage: string, options: StageOptions = {}): App {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
  addComplianceChecks(app);
  buildBaseline(app, options.acknowledgeNagFindings === false ? { acknowledgeNagFindings: false } : {});
  buildStages(app, { stage, ...options });
  return app;
}

const apps = new Map<string, App>();
/** One app per stage and options, shared by the tests of this file. */
function stageApp(stage: string, options: StageOptions = {}): App {
  const key = `${stage} ${JSON.stringify(options)}`;
  let app = apps.get(key);
  if (!app) {
    app = checkedApp(stage, options);
    apps.set(key, app);
  }
  return app;
}

/** What the pack finds left in an app: `<rule id> at <construct path>`, sorted. */
function findingsOf(app: IConstruct): string[] {
  return new AwsSolutionsChecks().validateScope(app).violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`),
  ).sort();
}

interface Acknowledgment {
  readonly id: string;
  readonly construct: IConstruct;
}

/** Every acknowledgment recorded in an app (Validations.acknowledge stores them as construct metadata). */
function acknowledgmentsOf(app: App): Acknowledgment[] {
  return app.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.keys(entry.data as Record<string, string>).map((id) => ({ id: id.replace(/^annotation::/i, ''), construct }))),
  );
}


const STAGES: ReadonlyArray<readonly [string, StageOptions]> = [
  ['dev', {}],
  ['prod', {}],
  // How prod deploys: the alarm topic gets an e-mail subscription.
  ['prod', { notifyEmail: 'ops@example.com' }],
];

describe('cdk-nag AwsSolutions: the service’s stages', () => {
  it.each(STAGES)('leaves no unacknowledged finding on %s %j, and synthesizes', (stage, options) => {
    const app = stageApp(stage, options);

    expect(findingsOf(app)).toEqual([]);
    expect(synthFailure(app)).toBeUndefined();
  }, SYNTH_TIMEOUT_MS);

  it.each(['dev', 'prod'])('acknowledges on %s only findings that exist, each on the CloudFormation resource it concerns', (stage) => {
    const unacknowledged = new Set(findingsOf(checkedApp(stage, { acknowledgeNagFindings: false })));
    const acknowledgments = acknowledgmentsOf(stageApp(stage));

    expect(acknowledgments.length).toBeGreaterThan(0);
    for (const { id, construct } of acknowledgments) {
      // Never a stack or a construct tree: the resource itself.
      expect(CfnResource.isCfnResource(construct), `${id} on ${construct.node.path}`).toBe(true);
      expect(unacknowledged, `${id} on ${construct.node.path} covers no finding`).toContain(`${id} at ${construct.node.path}`);
    }
  }, SYNTH_TIMEOUT_MS);

  it('lists in docs/infrastructure.md exactly the rules acknowledged on dev and prod', () => {
    const acknowledged = new Set(
      ['dev', 'prod'].flatMap((stage) => acknowledgmentsOf(stageApp(stage)).map(({ id }) => id.replace(/\[.*\]$/, ''))),
    );
    const docs = readFileSync(join(PROJECT_ROOT, 'docs', 'infrastructure.md'), 'utf8');
    const start = docs.indexOf('## Compliance checks (cdk-nag)');
    expect(start, 'docs/infrastructure.md has a "Compliance checks (cdk-nag)" section').toBeGreaterThan(-1);
    const section = docs.slice(start);
    const documented = new Set([...section.slice(0, nextHeading(section)).matchAll(/^\| `(AwsSolutions-[A-Z0-9]+)/gm)].map((match) => match[1]));

    expect([...documented].sort()).toEqual([...acknowledged].sort());
  }, SYNTH_TIMEOUT_MS);

  it.each(['dev', 'prod'])('puts on "*" only actions AWS offers on no narrower resource (%s templates)', (stage) => {
    const app = stageApp(stage);
    const assembly = app.synth();
    const onAnyResource = new Set<string>();
    for (const stack of assembly.stacks) {
      for (const resource of Object.values(stack.template.Resources as Record<string, { Type: string; Properties?: Record<string, unknown> }>)) {
        for (const statement of statementsOf(resource)) {
          if (statement.Effect === 'Allow' && [statement.Resource].flat().includes('*')) {
            for (const action of [statement.Action].flat()) onAnyResource.add(String(action));
          }
        }
      }
    }

    expect(onAnyResource.size).toBeGreaterThan(0);
    expect([...onAnyResource].filter((action) => !ACTIONS_WITHOUT_RESOURCE_TYPES.includes(action))).toEqual([]);
  }, SYNTH_TIMEOUT_MS);
});

describe('cdk-nag AwsSolutions: a finding nobody acknowledged', () => {
  it('fails synthesis, naming its rule and its resource', () => {
    const app = new App();
    addComplianceChecks(app);
    new sqs.Queue(new Stack(app, 'Throwaway'), 'PlainQueue');

    const failure = synthFailure(app);

    expect(failure).toContain('Throwaway/PlainQueue/Resource');
    expect(failure).toContain('AwsSolutions-SQS4');
    expect(failure).toContain('AwsSolutions-SQS3');
  });

  it('fails synthesis on a rule the pack reports as a warning, even next to a finding acknowledged in CDK’s namespaced form', () => {
    const app = new App();
    addComplianceChecks(app);
    const stack = new Stack(app, 'Throwaway');
    // DDB3 (no point-in-time recovery) is a warning in the pack.
    new dynamodb.Table(stack, 'PlainTable', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } });
    // CDK suppresses this one itself, which makes it let warnings of the same report pass.
    const queue = new sqs.Queue(stack, 'QueueWithoutDeadLetters', { enforceSSL: true });
    Validations.of(queue).acknowledge({ id: 'AwsSolutions::AwsSolutions-SQS3', reason: 'test: acknowledged in the namespaced form' });

    expect(findingsOf(app)).toEqual(['AwsSolutions-DDB3 at Throwaway/PlainTable/Resource', 'AwsSolutions-SQS3 at Throwaway/QueueWithoutDeadLetters/Resource']);
    const failure = synthFailure(app);

    expect(failure).toContain('Throwaway/PlainTable/Resource');
    expect(failure).toContain('AwsSolutions-DDB3');
  });

  const outdir = mkdtempSync(join(tmpdir(), 'nag-entry-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('fails the real entry point (bin/app.ts) like `cdk synth`, reporting that finding and none of the stage’s own', async () => {
    // What the CDK CLI hands the app: the context (cdk.json's flags, the stage) and the output directory. No bundling,
    // no AWS credentials, and not NODE_ENV=test (so the app reports as it does under the CLI).
    const env: Record<string, string> = Object.fromEntries(
      Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !/^AWS_|^NODE_ENV$/.test(entry[0])),
    );
    env.CDK_CONTEXT_JSON = JSON.stringify({ ...cdkJsonContext(), stage: 'dev', 'aws:cdk:bundling-stacks': [] });
    env.CDK_OUTDIR = outdir;

    const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', './test/infra/nag-probe.ts', 'bin/app.ts'], {
      cwd: PROJECT_ROOT,
      env,
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      () => ({ failed: false, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({ failed: error.code !== 0, stderr: error.stderr ?? '' }),
    );

    expect(run.failed).toBe(true);
    expect(run.stderr).toContain('AwsSolutions-SQS4');
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: { pluginName: string; violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[] }[];
    };
    const reported = report.pluginReports
      .filter((plugin) => plugin.pluginName === 'AwsSolutions')
      .flatMap((plugin) => plugin.violations.flatMap((violation) => violation.violatingConstructs.map((construct) => `${violation.ruleName} at ${construct.constructPath}`)));
    expect(reported.sort()).toEqual(['AwsSolutions-SQS3 at NagProbe/PlainQueue/Resource', 'AwsSolutions-SQS4 at NagProbe/PlainQueue/Resource']);
  }, SYNTH_TIMEOUT_MS);
});

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

/** The statements of an IAM policy, role (inline policies) or managed policy in a template. */
function statementsOf(resource: { Type: string; Properties?: Record<string, unknown> }): Statement[] {
  const properties = resource.Properties ?? {};
  if (resource.Type === 'AWS::IAM::Policy' || resource.Type === 'AWS::IAM::ManagedPolicy') {
    return (properties.PolicyDocument as { Statement: Statement[] }).Statement;
  }
  if (resource.Type === 'AWS::IAM::Role') {
    return ((properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]).flatMap((policy) => policy.PolicyDocument.Statement);
  }
  return [];
}

/** Where a markdown section's body ends: the next `## ` heading, or the end. */
function nextHeading(section: string): number {
  const next = section.indexOf('\n## ', 1);
  return next === -1 ? section.length : next;
}
