/**
 * The upgrade guard (lib/compliance/upgrade/upgrade-guard.ts): the current tree passes against the
 * recorded release, and each change a deployed stage cannot take is refused with a message that
 * names the resource and the reason. The changed templates are deep copies of the templates the
 * current tree synthesizes, edited the way a careless change would, so the checks run on real
 * resource types and real replacement rules. The CLI (scripts/upgrade-check.ts) is run once as a
 * child process against a temporary release.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/api-function';
import {
  DEFAULT_SNAPSHOT_DIR,
  RECORDED_STAGES,
  emptiedAllowancesSource,
  loadRelease,
  serializeTemplate,
  synthesizeStages,
} from '../../lib/compliance/upgrade/release-snapshots';
import { UPGRADE_ALLOWANCES } from '../../lib/compliance/upgrade/upgrade-allowances';
import {
  ASSET_HASH_PLACEHOLDER,
  compareReleases,
  formatFinding,
  normalizeTemplate,
  type Template,
  type UpgradeAllowance,
  type UpgradeFinding,
} from '../../lib/compliance/upgrade/upgrade-guard';

type Properties = Record<string, unknown>;
type EditableResource = { Type: string; Properties: Properties; [attribute: string]: unknown };
type EditableOutput = { Value: unknown; Export?: { Name: unknown }; [attribute: string]: unknown };
type EditableTemplate = { Resources: Record<string, EditableResource>; Outputs?: Record<string, EditableOutput>; [section: string]: unknown };
type KeyElement = { AttributeName: string; KeyType: string };
type IndexDefinition = { IndexName: string; KeySchema: KeyElement[]; Projection: { ProjectionType: string; NonKeyAttributes?: string[] } };

const STATEFUL = 'PartnerApi-dev-Stateful';
const STATELESS = 'PartnerApi-dev-Stateless';
const TABLE_TYPES = ['AWS::DynamoDB::Table', 'AWS::DynamoDB::GlobalTable'];

let current: Record<string, Template>;

beforeAll(() => {
  current = synthesizeStages(RECORDED_STAGES).templates;
}, 180_000);

/** The dev stage's stacks as the current tree builds them: the "release" of most tests below. */
function devStacks(): Record<string, EditableTemplate> {
  return structuredClone({ [STATEFUL]: current[STATEFUL], [STATELESS]: current[STATELESS] }) as unknown as Record<string, EditableTemplate>;
}

/** The dev stacks with one stack edited: the "current tree" of a test. */
function devStacksWith(stack: string, edit: (template: EditableTemplate) => void): Record<string, EditableTemplate> {
  const stacks = devStacks();
  edit(stacks[stack]);
  return stacks;
}

/** The first resource of one of the types whose properties match, as [logical id, resource]. */
function resourceOf(template: EditableTemplate, types: readonly string[], match: (properties: Properties) => boolean = () => true): [string, EditableResource] {
  const found = Object.entries(template.Resources).find(([, resource]) => types.includes(resource.Type) && match(resource.Properties ?? {}));
  if (!found) throw new Error(`no ${types.join(' or ')} matches in the template`);
  return found;
}

/** The table with the most global secondary indexes (the domain table). */
function indexedTable(template: EditableTemplate): [string, EditableResource] {
  const tables = Object.entries(template.Resources).filter(([, resource]) => TABLE_TYPES.includes(resource.Type));
  const indexCount = (resource: EditableResource) => ((resource.Properties.GlobalSecondaryIndexes as unknown[] | undefined) ?? []).length;
  return tables.sort(([, a], [, b]) => indexCount(b) - indexCount(a))[0];
}

const indexesOf = (table: EditableResource) => table.Properties.GlobalSecondaryIndexes as IndexDefinition[];
const kinds = (findings: readonly UpgradeFinding[]) => findings.map((finding) => `${finding.kind} ${finding.logicalId}`);

describe('the current tree against the recorded release', () => {
  it('takes nothing a deployed stage cannot take (a failure here: fix the change, allow it, or record the release it belongs to)', () => {
    // Prepare
    const release = loadRelease(DEFAULT_SNAPSHOT_DIR);

    // Act
    const findings = compareReleases(release.templates, current, UPGRADE_ALLOWANCES);

    // Assess
    expect(findings.map(formatFinding)).toEqual([]);
  });

  it('records every stack the long-lived stages build', () => {
    const release = loadRelease(DEFAULT_SNAPSHOT_DIR);
    expect(Object.keys(release.record.stages).sort()).toEqual([...RECORDED_STAGES].sort());
    expect(Object.keys(release.templates).sort()).toEqual(Object.keys(current).sort());
    expect(release.record.commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it('finds no hazard between a template and itself', () => {
    expect(compareReleases(current, current)).toEqual([]);
  });
});

describe('normalizeTemplate', () => {
  it('drops what only the CDK toolchain reads and the asset hashes, and sorts keys', () => {
    // Prepare
    const hash = 'a'.repeat(64);
    const template = {
      Resources: {
        Fn: {
          Type: 'AWS::Lambda::Function',
          Properties: { Runtime: 'nodejs22.x', Code: { S3Key: `${hash}.zip`, S3Bucket: 'assets' } },
          Metadata: { 'aws:cdk:path': 'Stack/Fn/Resource', 'aws:asset:path': 'asset.x' },
        },
        CDKMetadata: { Type: 'AWS::CDK::Metadata', Properties: { Analytics: 'v2:deflate64:…' }, Condition: 'CDKMetadataAvailable' },
      },
      Conditions: { CDKMetadataAvailable: { 'Fn::Or': [] } },
    };

    // Act
    const normalized = normalizeTemplate(template);

    // Assess
    expect(normalized).toEqual({
      Resources: { Fn: { Properties: { Code: { S3Bucket: 'assets', S3Key: `${ASSET_HASH_PLACEHOLDER}.zip` }, Runtime: 'nodejs22.x' }, Type: 'AWS::Lambda::Function' } },
    });
    expect(Object.keys((normalized.Resources?.Fn.Properties ?? {}) as object)).toEqual(['Code', 'Runtime']);
    expect(normalizeTemplate(normalized)).toEqual(normalized);
  });

  it('leaves no asset hash in a synthesized stage', () => {
    const stateless = serializeTemplate(current[STATELESS]);
    expect(stateless).toContain(`"${ASSET_HASH_PLACEHOLDER}.zip"`);
    expect(stateless).not.toMatch(/[0-9a-f]{64}\.(zip|json)/);
    expect(stateless).not.toContain('aws:cdk:path');
  });
});

describe('refused changes', () => {
  it("refuses a table's replacement by a changed partition key, naming the table and what is lost", () => {
    // Prepare
    let tableId = '';
    const changed = devStacksWith(STATEFUL, (template) => {
      const [id, table] = resourceOf(template, TABLE_TYPES);
      tableId = id;
      (table.Properties.KeySchema as KeyElement[])[0].AttributeName = 'id';
    });

    // Act: the table's findings (an export of its ARN, if any, changes too: a finding of its own)
    const findings = compareReleases(devStacks(), changed).filter((finding) => finding.logicalId === tableId);

    // Assess
    expect(kinds(findings)).toEqual([`replacement ${tableId}`]);
    const message = formatFinding(findings[0]);
    expect(message).toContain(STATEFUL);
    expect(message).toMatch(/changing KeySchema makes CloudFormation replace it/);
    expect(message).toMatch(/every item in it/);
    expect(message).toMatch(/custom-named/);
    expect(message).toMatch(/name: +partner-api-dev-/);
    expect(message).toContain('docs/operations.md, section "Changes a deployed stage cannot take"');
  });

  it("refuses a table's rename (a replacement by TableName)", () => {
    let tableId = '';
    const changed = devStacksWith(STATEFUL, (template) => {
      const [id, table] = resourceOf(template, TABLE_TYPES);
      tableId = id;
      table.Properties.TableName = `${String(table.Properties.TableName)}-v2`;
    });

    const findings = compareReleases(devStacks(), changed).filter((finding) => finding.logicalId === tableId);

    expect(kinds(findings)).toEqual([`replacement ${tableId}`]);
    expect(findings[0].reason).toMatch(/changing TableName makes CloudFormation replace it.*name changes from partner-api-dev-\S+ to partner-api-dev-\S+-v2/);
  });

  it('refuses a table removed from the template', () => {
    let tableId = '';
    const changed = devStacksWith(STATEFUL, (template) => {
      [tableId] = resourceOf(template, TABLE_TYPES);
      delete template.Resources[tableId];
    });

    const findings = compareReleases(devStacks(), changed).filter((finding) => finding.kind === 'removal');

    expect(kinds(findings)).toEqual([`removal ${tableId}`]);
    expect(findings[0].reason).toMatch(/removed from the template: CloudFormation deletes the table and every item in it/);
  });

  it('refuses a table moved to a new logical id under the same name, saying the name is taken', () => {
    let tableId = '';
    const changed = devStacksWith(STATEFUL, (template) => {
      const [id, table] = resourceOf(template, TABLE_TYPES);
      tableId = id;
      delete template.Resources[id];
      template.Resources.RenamedTable = table;
    });

    const findings = compareReleases(devStacks(), changed).filter((finding) => finding.logicalId === tableId);

    expect(kinds(findings)).toEqual([`removal ${tableId}`]);
    expect(findings[0].reason).toMatch(/its name is now claimed by RenamedTable of the same stack: .*the deploy fails/);
  });

  it('refuses two global secondary indexes added to one table in one change, and takes one', () => {
    // Prepare
    let tableId = '';
    const addIndexes = (count: number) =>
      devStacksWith(STATEFUL, (template) => {
        const [id, table] = indexedTable(template);
        tableId = id;
        for (const name of ['by-alpha', 'by-beta'].slice(0, count)) {
          (table.Properties.AttributeDefinitions as unknown[]).push({ AttributeName: name, AttributeType: 'S' });
          indexesOf(table).push({ IndexName: name, KeySchema: [{ AttributeName: name, KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } });
        }
      });

    // Act
    const two = compareReleases(devStacks(), addIndexes(2));
    const one = compareReleases(devStacks(), addIndexes(1));

    // Assess
    expect(kinds(two)).toEqual([`gsi-batch ${tableId}`]);
    expect(two[0].reason).toMatch(/2 global secondary index changes in one deploy \(added by-alpha, by-beta\): DynamoDB creates or deletes one index per UpdateTable/);
    expect(one).toEqual([]);
  });

  it("refuses a change of an existing index's projection", () => {
    let tableId = '';
    let indexName = '';
    const changed = devStacksWith(STATEFUL, (template) => {
      const [id, table] = indexedTable(template);
      tableId = id;
      const index = indexesOf(table)[indexesOf(table).length - 1];
      indexName = index.IndexName;
      index.Projection = index.Projection.ProjectionType === 'ALL' ? { ProjectionType: 'KEYS_ONLY' } : { ProjectionType: 'ALL' };
    });

    const findings = compareReleases(devStacks(), changed);

    expect(kinds(findings)).toEqual([`gsi-redefined ${tableId}`]);
    expect(findings[0].reason).toContain(`${indexName} (Projection) changes in place`);
    expect(findings[0].reason).toMatch(/new, versioned index name/);
  });

  it("refuses a change of a secret's GenerateSecretString, naming it", () => {
    let secretId = '';
    const changed = devStacksWith(STATEFUL, (template) => {
      const [id, secret] = resourceOf(template, ['AWS::SecretsManager::Secret']);
      secretId = id;
      secret.Properties.GenerateSecretString = { ...(secret.Properties.GenerateSecretString as Properties), PasswordLength: 32 };
    });

    const findings = compareReleases(devStacks(), changed);

    expect(kinds(findings)).toEqual([`secret-regenerated ${secretId}`]);
    expect(formatFinding(findings[0])).toMatch(/GenerateSecretString changes: CloudFormation then generates a new value/);
    expect(findings[0].physicalName).toMatch(/^partner-api\/dev\//);
  });

  it("refuses a change of the state machine's type, naming StateMachineType (one finding, not a second generic replacement)", () => {
    let machineId = '';
    const changed = devStacksWith(STATELESS, (template) => {
      const [id, machine] = resourceOf(template, ['AWS::StepFunctions::StateMachine']);
      machineId = id;
      machine.Properties.StateMachineType = 'EXPRESS';
    });

    const findings = compareReleases(devStacks(), changed).filter((finding) => finding.logicalId === machineId);

    expect(kinds(findings)).toEqual([`state-machine-type ${machineId}`]);
    expect(findings[0].reason).toMatch(/StateMachineType changes from STANDARD to EXPRESS: .*CloudFormation replaces it/);
  });

  it('refuses the replacement of a custom-named queue: CloudFormation cannot replace it', () => {
    let queueId = '';
    const changed = devStacksWith(STATELESS, (template) => {
      const [id, queue] = resourceOf(template, ['AWS::SQS::Queue'], (properties) => typeof properties.QueueName === 'string');
      queueId = id;
      queue.Properties.FifoQueue = true;
    });

    const findings = compareReleases(devStacks(), changed);

    // The event source mapping that reads the queue is replaced too, harmlessly (no name, no state).
    expect(kinds(findings)).toEqual([`replacement ${queueId}`]);
    expect(formatFinding(findings[0])).toMatch(
      /changing FifoQueue makes CloudFormation replace it; it is custom-named: .*cannot update a stack when a custom-named resource requires replacing.*; renamed as well, .*the messages waiting in it/,
    );
  });

  it('refuses the replacement of a custom-named log group (by its new name)', () => {
    let logGroupId = '';
    const changed = devStacksWith(STATELESS, (template) => {
      const [id, logGroup] = resourceOf(template, ['AWS::Logs::LogGroup'], (properties) => typeof properties.LogGroupName === 'string');
      logGroupId = id;
      logGroup.Properties.LogGroupName = `${String(logGroup.Properties.LogGroupName)}-renamed`;
    });

    const findings = compareReleases(devStacks(), changed).filter((finding) => finding.logicalId === logGroupId);

    expect(kinds(findings)).toEqual([`replacement ${logGroupId}`]);
    expect(findings[0].reason).toMatch(/changing LogGroupName makes CloudFormation replace it; a new, empty log group takes its place .*the logs in it/);
  });

  it('refuses the removal of an exported output, and a change of an exported value', () => {
    // Prepare: the release exports a table's ARN (as a cross-stack reference does).
    const withExport = devStacksWith(STATEFUL, (template) => {
      const [tableId] = resourceOf(template, TABLE_TYPES);
      template.Outputs = {
        ...template.Outputs,
        TableArnExport: { Value: { 'Fn::GetAtt': [tableId, 'Arn'] }, Export: { Name: 'PartnerApi-dev-Stateful:TableArn' } },
      };
    });
    const removed = devStacks();
    const changedValue = structuredClone(withExport);
    const [secretId] = resourceOf(changedValue[STATEFUL], ['AWS::SecretsManager::Secret']);
    changedValue[STATEFUL].Outputs!.TableArnExport.Value = { Ref: secretId };

    // Act
    const afterRemoval = compareReleases(withExport, removed);
    const afterChange = compareReleases(withExport, changedValue);

    // Assess
    expect(kinds(afterRemoval)).toEqual(['export-removed TableArnExport']);
    expect(formatFinding(afterRemoval[0])).toMatch(/name: +PartnerApi-dev-Stateful:TableArn/);
    expect(afterRemoval[0].reason).toMatch(/refuses to delete an export while another stack imports it \(Fn::ImportValue\)/);
    expect(kinds(afterChange)).toEqual(['export-changed TableArnExport']);
  });

  it('refuses a stack of the release that the current tree no longer builds', () => {
    const stacks = devStacks();
    const { [STATELESS]: _removed, ...remaining } = stacks;

    const findings = compareReleases(stacks, remaining);

    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ kind: 'stack-removed', stack: STATELESS, logicalId: '*', resourceType: 'AWS::CloudFormation::Stack' });
    expect(formatFinding(findings[0])).toContain(`✗ stack-removed: ${STATELESS} (the whole stack)`);
  });
});

describe('allowances', () => {
  const removeTable = () => {
    let tableId = '';
    const changed = devStacksWith(STATEFUL, (template) => {
      [tableId] = indexedTable(template);
      delete template.Resources[tableId];
    });
    return { tableId, changed };
  };

  it('silences exactly the finding it names', () => {
    // Prepare
    const { tableId, changed } = removeTable();
    const allowance: UpgradeAllowance = { stack: STATEFUL, logicalId: tableId, kind: 'removal', reason: 'the table moved to the archive account' };

    // Act
    const findings = compareReleases(devStacks(), changed, [allowance]);
    const otherKind = compareReleases(devStacks(), changed, [{ ...allowance, kind: 'replacement' }]);

    // Assess
    expect(findings.filter((finding) => finding.logicalId === tableId)).toEqual([]);
    expect(kinds(otherKind)).toEqual(expect.arrayContaining([`removal ${tableId}`, `stale-allowance ${tableId}`]));
  });

  it('reports an allowance that matches no finding as stale', () => {
    const allowance: UpgradeAllowance = { stack: STATELESS, logicalId: 'GoneQueue', kind: 'replacement', reason: 'a change since released' };

    const findings = compareReleases(devStacks(), devStacks(), [allowance]);

    expect(kinds(findings)).toEqual(['stale-allowance GoneQueue']);
    expect(formatFinding(findings[0])).toMatch(/matches no finding[^\n]*\n +procedure: lib\/compliance\/upgrade\/upgrade-allowances\.ts: delete the entry$/);
  });

  it('spends one allowance per finding: a second identical allowance is stale', () => {
    const { tableId, changed } = removeTable();
    const allowance: UpgradeAllowance = { stack: STATEFUL, logicalId: tableId, kind: 'removal', reason: 'retired' };

    const findings = compareReleases(devStacks(), changed, [allowance, allowance]);

    expect(kinds(findings.filter((finding) => finding.logicalId === tableId))).toEqual([`stale-allowance ${tableId}`]);
  });

  it('are emptied by recording a release, the rest of the file kept', () => {
    // Prepare
    const source = readFileSync(join(PROJECT_ROOT, 'lib/compliance/upgrade/upgrade-allowances.ts'), 'utf8');
    const declaration = 'export const UPGRADE_ALLOWANCES: readonly UpgradeAllowance[] =';
    const withEntries = `${source.slice(0, source.indexOf(declaration))}${declaration} [\n  { stack: 'S', logicalId: 'L', kind: 'removal', reason: 'r [x];' },\n];\n`;

    // Act
    const emptied = emptiedAllowancesSource(withEntries);

    // Assess
    expect(emptied).toBe(`${source.slice(0, source.indexOf(declaration))}${declaration} [];\n`);
    expect(emptiedAllowancesSource(emptied)).toBe(emptied);
    // The declaration stays last (with or without allowances of the coming release), so the recorder can rewrite it.
    expect(source.indexOf(declaration)).toBeGreaterThan(0);
    expect(emptiedAllowancesSource(source).trimEnd().endsWith(`${declaration} [];`)).toBe(true);
    expect(source.slice(source.indexOf(declaration)).trimEnd().endsWith('];')).toBe(true);
  });
});

describe('harmless changes', () => {
  it('takes a new function, a changed code key and a changed alarm threshold', () => {
    // Prepare: alarms exist where they are enabled (staging).
    const stagingStateless = 'PartnerApi-staging-Stateless';
    const release = structuredClone({ ...devStacks(), [stagingStateless]: current[stagingStateless] }) as unknown as Record<string, EditableTemplate>;
    const changed = structuredClone(release);
    const [functionId, fn] = resourceOf(changed[STATELESS], ['AWS::Lambda::Function']);
    changed[STATELESS].Resources[`${functionId}Copy`] = structuredClone(fn);
    (fn.Properties.Code as Properties).S3Key = `${'b'.repeat(64)}.zip`;
    const [, alarm] = resourceOf(changed[stagingStateless], ['AWS::CloudWatch::Alarm']);
    alarm.Properties.Threshold = Number(alarm.Properties.Threshold) + 1;

    // Act
    const findings = compareReleases(release, changed);

    // Assess
    expect(findings.map(formatFinding)).toEqual([]);
  });

  it('takes a removed alarm and a removed function whose retained log group stays behind (prod)', () => {
    // Prepare: prod retains its function logs; alarms are custom-named but hold nothing.
    const prodStateless = 'PartnerApi-prod-Stateless';
    const release = structuredClone({ [prodStateless]: current[prodStateless] }) as unknown as Record<string, EditableTemplate>;
    const changed = structuredClone(release);
    const [alarmId] = resourceOf(changed[prodStateless], ['AWS::CloudWatch::Alarm']);
    delete changed[prodStateless].Resources[alarmId];
    const [logGroupId, logGroup] = resourceOf(changed[prodStateless], ['AWS::Logs::LogGroup'], (properties) => properties.LogGroupName === undefined);
    expect(logGroup.DeletionPolicy).toBe('RetainExceptOnCreate');
    delete changed[prodStateless].Resources[logGroupId];

    // Act
    const findings = compareReleases(release, changed);

    // Assess
    expect(findings.map(formatFinding)).toEqual([]);
  });

  it('refuses a removed named log group (WAF’s): its logs go, and recreating the name later fails while it is kept', () => {
    const release = devStacks();
    const changed = devStacksWith(STATELESS, (template) => {
      const [id] = resourceOf(template, ['AWS::Logs::LogGroup'], (properties) => String(properties.LogGroupName).startsWith('aws-waf-logs-'));
      delete template.Resources[id];
    });

    expect(compareReleases(release, changed).map((finding) => finding.kind)).toEqual(['removal']);
  });
});

describe('npm run upgrade-check (the CLI)', () => {
  let scratch = '';
  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  function runCli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/upgrade-check.ts', ...args], { cwd: PROJECT_ROOT }, (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      });
    });
  }

  it('exits 1 and prints the finding when the current tree would drop a table of the release', async () => {
    // Prepare: a release of dev whose stateful stack had one more table than the current tree builds.
    scratch = mkdtempSync(join(tmpdir(), 'upgrade-check-test-'));
    const templatesDir = join(scratch, 'templates');
    mkdirSync(templatesDir);
    const release = devStacksWith(STATEFUL, (template) => {
      const [, table] = resourceOf(template, TABLE_TYPES);
      const legacy = structuredClone(table);
      legacy.Properties.TableName = 'partner-api-dev-legacy';
      template.Resources.LegacyTable = legacy;
    });
    for (const [stack, template] of Object.entries(release)) writeFileSync(join(templatesDir, `${stack}.template.json`), serializeTemplate(template));
    writeFileSync(join(scratch, 'release.json'), JSON.stringify({ recordedAt: '2025-01-01T00:00:00.000Z', commit: '0'.repeat(40), uncommittedChanges: false, awsCdkLib: 'test', stages: { dev: Object.keys(release) } }));

    // Act
    const result = await runCli(['--stage', 'dev', '--snapshots', templatesDir]);

    // Assess
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain(`✗ removal: ${STATEFUL} LegacyTable`);
    expect(result.stdout).toContain('name:      partner-api-dev-legacy');
    expect(result.stdout).toMatch(/why: +removed from the template: CloudFormation deletes the table and every item in it/);
    expect(result.stdout).toContain('docs/operations.md, section "Changes a deployed stage cannot take"');
  }, 180_000);

  it('exits 2 for a stage that has no recorded release, before synthesizing anything', async () => {
    const result = await runCli(['--stage', 'pr123']);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/stage pr123 has no recorded release \(recorded: dev, prod, staging\)/);
  }, 60_000);
});
