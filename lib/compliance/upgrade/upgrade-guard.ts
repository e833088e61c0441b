/**
 * The upgrade guard: compares the templates of the last recorded release (release/templates)
 * with those the current tree synthesizes, and names every change a deployed stage cannot take.
 * Two sorts: changes CloudFormation refuses (replacing a custom-named resource, two index
 * operations on one DynamoDB table, changing an export another stack imports) and changes it
 * carries out but that destroy data (replacing or removing a table, a queue, a secret, a key,
 * a log group, the state machine; regenerating a secret's value). Both only bite a stage that is
 * already deployed: a fresh ephemeral stage deploys the same change without complaint, which is
 * why the check compares against what the long-lived stages run instead of deploying a copy.
 *
 * Pure: templates in, findings out (scripts/upgrade-check.ts synthesizes, loads and prints).
 * Replacement and removal come from `@aws-cdk/cloudformation-diff` (the engine of `cdk diff`,
 * which knows per resource type which properties force a replacement); the rules it does not
 * know (DynamoDB's one index per UpdateTable, a state machine's type, a secret's generator,
 * exports) are read off the templates here.
 *
 * A change that is really wanted is allowed by an entry in lib/compliance/upgrade/upgrade-allowances.ts;
 * the safe procedures are in docs/operations.md, section "Changes a deployed stage cannot take".
 */
import { fullDiff, ResourceImpact, type ResourceDifference } from '@aws-cdk/cloudformation-diff';
import { PHYSICAL_NAME_PROPERTIES } from '../physical-names';

type JsonObject = { [key: string]: unknown };

export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: JsonObject;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
  readonly [attribute: string]: unknown;
}

export interface TemplateOutput {
  readonly Value?: unknown;
  readonly Export?: { readonly Name?: unknown };
  readonly [attribute: string]: unknown;
}

/** A synthesized CloudFormation template, as JSON. */
export interface Template {
  readonly Resources?: Readonly<Record<string, TemplateResource>>;
  readonly Outputs?: Readonly<Record<string, TemplateOutput>>;
  readonly [section: string]: unknown;
}

export const UPGRADE_FINDING_KINDS = [
  'replacement',
  'removal',
  'gsi-batch',
  'gsi-redefined',
  'state-machine-type',
  'secret-regenerated',
  'export-removed',
  'export-changed',
  'stack-removed',
  'stale-allowance',
] as const;
export type UpgradeFindingKind = (typeof UPGRADE_FINDING_KINDS)[number];
/** A stale allowance cannot itself be allowed: it is fixed by deleting it. */
export type AllowableFindingKind = Exclude<UpgradeFindingKind, 'stale-allowance'>;

/** Where the safe procedure for each kind of finding is written down. */
export const SAFE_PROCEDURE = 'docs/operations.md, section "Changes a deployed stage cannot take"';
export const ALLOWANCES_FILE = 'lib/compliance/upgrade/upgrade-allowances.ts';

/** The logical id a `stack-removed` finding (and its allowance) carries: the whole stack. */
export const WHOLE_STACK = '*';

export interface UpgradeFinding {
  readonly kind: UpgradeFindingKind;
  readonly stack: string;
  /** The resource's or output's logical id; `*` for a removed stack. */
  readonly logicalId: string;
  /** The resource type; `Output` for a stack output, `AWS::CloudFormation::Stack` for a removed stack. */
  readonly resourceType: string;
  /** The name the template gives the resource (an intrinsic is shown as JSON), or an output's export name. */
  readonly physicalName?: string;
  readonly reason: string;
  /** Where to read what to do instead. */
  readonly procedure: string;
}

export interface UpgradeAllowance {
  readonly stack: string;
  /** As in the finding; `*` for `stack-removed`. */
  readonly logicalId: string;
  readonly kind: AllowableFindingKind;
  /** Why the change is wanted and how its consequence is handled (a reviewer reads this). */
  readonly reason: string;
}

/**
 * Resource types whose replacement or removal loses something a stage keeps: what it is called
 * in a message, what a replacement starts with, what goes with the old one, and what follows.
 */
export const STATEFUL_RESOURCES: Readonly<Record<string, { readonly noun: string; readonly fresh: string; readonly holds: string; readonly consequence?: string }>> = {
  'AWS::DynamoDB::Table': { noun: 'table', fresh: 'a new, empty table', holds: 'every item in it' },
  'AWS::DynamoDB::GlobalTable': { noun: 'table', fresh: 'a new, empty table', holds: 'every item in it, in every replica' },
  'AWS::SQS::Queue': { noun: 'queue', fresh: 'a new, empty queue', holds: 'the messages waiting in it' },
  'AWS::SecretsManager::Secret': {
    noun: 'secret',
    fresh: 'a new secret with a new value',
    holds: 'its value',
    consequence: 'every cursor, join link or signature made with the old value stops verifying',
  },
  'AWS::KMS::Key': {
    noun: 'KMS key',
    fresh: 'a new key',
    holds: 'its key material',
    consequence: 'everything encrypted under the old key becomes unreadable once it is deleted',
  },
  'AWS::KMS::Alias': { noun: 'KMS alias', fresh: 'a new alias', holds: 'the name the functions find the key by' },
  'AWS::Logs::LogGroup': { noun: 'log group', fresh: 'a new, empty log group', holds: 'the logs in it' },
  'AWS::StepFunctions::StateMachine': { noun: 'state machine', fresh: 'a new state machine', holds: 'its executions in flight and their history' },
  'AWS::SSM::Parameter': { noun: 'parameter', fresh: 'a new parameter', holds: 'its value and history' },
};

const TABLE_TYPES: ReadonlySet<string> = new Set(['AWS::DynamoDB::Table', 'AWS::DynamoDB::GlobalTable']);
const REPLACEMENT_IMPACTS: ReadonlySet<ResourceImpact> = new Set([ResourceImpact.WILL_REPLACE, ResourceImpact.MAY_REPLACE]);
const RETAINED = new Set(['Retain', 'RetainExceptOnCreate']);

// ---------------------------------------------------------------------------------------------
// Normalization: what a snapshot keeps of a synthesized template.

/** Strings holding a CDK asset hash (sha256 hex) as an S3 object key. */
const ASSET_HASH_KEY = /[0-9a-f]{64}(?=\.(?:zip|json)\b)/g;
export const ASSET_HASH_PLACEHOLDER = '<asset-hash>';

/**
 * The template as a release snapshot keeps it: without what only the CDK toolchain reads
 * (resource `Metadata` such as `aws:cdk:path`, the `AWS::CDK::Metadata` resource and its
 * `CDKMetadata…` conditions) and with asset hashes replaced by a placeholder (they change with
 * every code change and differ between a bundled and an unbundled synthesis, and a changed code
 * key never stops a deploy), keys sorted so snapshots diff cleanly. Idempotent.
 */
export function normalizeTemplate(template: Template): Template {
  const copy = structuredClone(template) as JsonObject;
  const resources = copy.Resources as Record<string, JsonObject> | undefined;
  if (resources) {
    for (const [logicalId, resource] of Object.entries(resources)) {
      if (resource.Type === 'AWS::CDK::Metadata') delete resources[logicalId];
      else delete resource.Metadata;
    }
  }
  const conditions = copy.Conditions as JsonObject | undefined;
  if (conditions) {
    for (const name of Object.keys(conditions)) if (name.startsWith('CDKMetadata')) delete conditions[name];
    if (Object.keys(conditions).length === 0) delete copy.Conditions;
  }
  return sortedWithoutAssetHashes(copy) as Template;
}

function sortedWithoutAssetHashes(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(ASSET_HASH_KEY, ASSET_HASH_PLACEHOLDER);
  if (Array.isArray(value)) return value.map(sortedWithoutAssetHashes);
  if (isObject(value)) {
    const sorted: JsonObject = {};
    for (const key of Object.keys(value).sort()) sorted[key] = sortedWithoutAssetHashes(value[key]);
    return sorted;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Comparison.

/**
 * Every change from `previous` (the release: stack name → template) to `current` that a
 * deployed stage cannot take, minus those an allowance accepts, plus one `stale-allowance`
 * finding per allowance that accepts nothing. Sorted by stack, logical id and kind.
 */
export function compareReleases(
  previous: Readonly<Record<string, Template>>,
  current: Readonly<Record<string, Template>>,
  allowances: readonly UpgradeAllowance[] = [],
): UpgradeFinding[] {
  return applyAllowances(findUpgradeHazards(previous, current), allowances, { ...previous, ...current }).findings;
}

/** Every hazard, before allowances. At most one finding per stack, logical id and kind. */
export function findUpgradeHazards(previous: Readonly<Record<string, Template>>, current: Readonly<Record<string, Template>>): UpgradeFinding[] {
  const normalizedCurrent = Object.fromEntries(Object.entries(current).map(([stack, template]) => [stack, normalizeTemplate(template)]));
  const namesNow = physicalNameIndex(normalizedCurrent);
  const findings: UpgradeFinding[] = [];
  for (const stack of Object.keys(previous).sort()) {
    const after = normalizedCurrent[stack];
    if (!after) {
      findings.push(stackRemoved(stack));
      continue;
    }
    findings.push(...compareStack(stack, normalizeTemplate(previous[stack]), after, namesNow));
  }
  return sortFindings(findings);
}

export interface AllowedFinding {
  readonly finding: UpgradeFinding;
  readonly allowance: UpgradeAllowance;
}

/**
 * Each allowance silences exactly one finding of its stack, logical id and kind; an allowance
 * that finds none is reported (`stale-allowance`), so the list cannot outlive the changes it
 * was written for. `templates` only serves to name the resource type of a stale allowance.
 */
export function applyAllowances(
  hazards: readonly UpgradeFinding[],
  allowances: readonly UpgradeAllowance[],
  templates: Readonly<Record<string, Template>> = {},
): { findings: UpgradeFinding[]; allowed: AllowedFinding[] } {
  const open = [...hazards];
  const allowed: AllowedFinding[] = [];
  const stale: UpgradeFinding[] = [];
  for (const allowance of allowances) {
    const index = open.findIndex((f) => f.stack === allowance.stack && f.logicalId === allowance.logicalId && f.kind === allowance.kind);
    if (index >= 0) {
      allowed.push({ finding: open[index], allowance });
      open.splice(index, 1);
      continue;
    }
    stale.push({
      kind: 'stale-allowance',
      stack: allowance.stack,
      logicalId: allowance.logicalId,
      resourceType: allowance.logicalId === WHOLE_STACK ? 'AWS::CloudFormation::Stack' : (templates[allowance.stack]?.Resources?.[allowance.logicalId]?.Type ?? 'unknown (not in either template)'),
      reason:
        `the allowance of kind ${allowance.kind} ("${allowance.reason}") matches no finding: the change it allowed is gone, ` +
        'or is part of the recorded release; an allowance left in place would silently accept the next such change',
      procedure: `${ALLOWANCES_FILE}: delete the entry`,
    });
  }
  return { findings: sortFindings([...open, ...stale]), allowed };
}

function compareStack(stack: string, before: Template, after: Template, namesNow: PhysicalNameIndex): UpgradeFinding[] {
  const findings: UpgradeFinding[] = [];
  const diff = fullDiff(before, after);
  const replaced = new Set<string>();

  diff.resources.forEachDifference((logicalId, change) => {
    const old = change.oldValue as TemplateResource | undefined;
    const now = change.newValue as TemplateResource | undefined;
    if (!old) return; // a new resource: nothing deployed to lose
    const impact = change.changeImpact;
    if (!now || impact === ResourceImpact.WILL_DESTROY || impact === ResourceImpact.WILL_ORPHAN) {
      const finding = removal(stack, logicalId, old, impact, namesNow);
      if (finding) findings.push(finding);
      return;
    }
    if (REPLACEMENT_IMPACTS.has(impact)) {
      replaced.add(logicalId);
      const finding = replacement(stack, logicalId, change, old, now);
      if (finding) findings.push(finding);
    }
    if (old.Type !== now.Type) return;
    if (TABLE_TYPES.has(old.Type) && !REPLACEMENT_IMPACTS.has(impact)) findings.push(...indexChanges(stack, logicalId, old, now));
    if (old.Type === 'AWS::StepFunctions::StateMachine') {
      const finding = stateMachineTypeChange(stack, logicalId, old, now);
      if (finding) findings.push(finding);
    }
    if (old.Type === 'AWS::SecretsManager::Secret' && !deepEqual(old.Properties?.GenerateSecretString, now.Properties?.GenerateSecretString)) {
      findings.push({
        kind: 'secret-regenerated',
        stack,
        logicalId,
        resourceType: old.Type,
        ...named(old),
        reason:
          'its GenerateSecretString changes: CloudFormation then generates a new value for the secret, and everything ' +
          'signed or derived with the old value (record cursors, join links) is refused from that deploy on',
        procedure: SAFE_PROCEDURE,
      });
    }
  });

  findings.push(...exportChanges(stack, before, after, replaced));
  return findings;
}

/** Replacement of a stateful or custom-named resource; `undefined` when neither, or when a specific finding already says it. */
function replacement(stack: string, logicalId: string, change: ResourceDifference, old: TemplateResource, now: TemplateResource): UpgradeFinding | undefined {
  const stateful = STATEFUL_RESOURCES[old.Type];
  const oldName = nameValue(old);
  const newName = nameValue(now);
  if (!stateful && oldName === undefined && newName === undefined) return undefined;

  const replacing = Object.entries(change.propertyUpdates)
    .filter(([, property]) => property.changeImpact !== undefined && REPLACEMENT_IMPACTS.has(property.changeImpact))
    .map(([name]) => name)
    .sort();
  // A type change of the state machine has its own finding, which says it replaces the machine.
  const unexplained = old.Type === 'AWS::StepFunctions::StateMachine' ? replacing.filter((name) => name !== 'StateMachineType') : replacing;
  if (old.Type === now.Type && replacing.length > 0 && unexplained.length === 0) return undefined;

  const may = change.changeImpact === ResourceImpact.MAY_REPLACE;
  const parts: string[] = [
    old.Type !== now.Type
      ? `its type changes to ${now.Type}: CloudFormation replaces it`
      : `changing ${list(replacing)} ${may ? 'may make CloudFormation replace it (depending on the value)' : 'makes CloudFormation replace it'}`,
  ];
  const loss = stateful
    ? (RETAINED.has(now.UpdateReplacePolicy ?? '')
        ? `${stateful.fresh} takes its place; the old one is kept outside the stack (UpdateReplacePolicy ${now.UpdateReplacePolicy}) with ${stateful.holds}`
        : `${stateful.fresh} takes its place and the old one is deleted with ${stateful.holds}`) + (stateful.consequence ? `: ${stateful.consequence}` : '')
    : undefined;
  if (oldName !== undefined && deepEqual(oldName, newName)) {
    parts.push(
      `it is custom-named: CloudFormation creates the replacement before it deletes the old one, the name is taken, ` +
        `and the update fails ("cannot update a stack when a custom-named resource requires replacing")`,
    );
    if (loss) parts.push(`renamed as well, the update would go through: ${loss}`);
  } else {
    if (loss) parts.push(loss);
    if (oldName !== undefined || newName !== undefined) {
      parts.push(`its name changes from ${showName(oldName) ?? '(generated)'} to ${showName(newName) ?? '(generated)'}: whatever finds it by the old name loses it`);
    }
  }
  return { kind: 'replacement', stack, logicalId, resourceType: old.Type, ...named(old), reason: parts.join('; '), procedure: SAFE_PROCEDURE };
}

/**
 * Removal of a resource (its logical id disappears) that loses something or blocks the deploy;
 * `undefined` otherwise. A stateful resource loses what it holds, except an unnamed log group the
 * stage retains (a removed function's logs stay, and nothing will ever claim its generated name).
 * A custom-named resource without state (an alarm, a dashboard) goes harmlessly, unless another
 * resource now claims its name: then the new one is created before the old one is deleted, and
 * the deploy fails.
 */
function removal(stack: string, logicalId: string, old: TemplateResource, impact: ResourceImpact, namesNow: PhysicalNameIndex): UpgradeFinding | undefined {
  const name = nameValue(old);
  const claimedBy = name === undefined ? undefined : namesNow.get(nameKey(old.Type, name));
  const keptLogs = old.Type === 'AWS::Logs::LogGroup' && name === undefined && RETAINED.has(old.DeletionPolicy ?? '');
  const stateful = keptLogs ? undefined : STATEFUL_RESOURCES[old.Type];
  if (!stateful && !claimedBy) return undefined;
  const parts: string[] = [];
  if (stateful) {
    parts.push(
      impact === ResourceImpact.WILL_ORPHAN
        ? `removed from the template: the ${stateful.noun} is kept (DeletionPolicy ${old.DeletionPolicy}) but leaves the stack, unmanaged, with ${stateful.holds}`
        : `removed from the template: CloudFormation deletes the ${stateful.noun} and ${stateful.holds}` + (stateful.consequence ? `: ${stateful.consequence}` : ''),
    );
  } else {
    parts.push('removed from the template: CloudFormation deletes it, and whatever finds it by its name loses it');
  }
  if (claimedBy && claimedBy.stack === stack) {
    parts.push(
      `its name is now claimed by ${claimedBy.logicalId} of the same stack: CloudFormation creates that one before it deletes this one, ` +
        'so the name is taken and the deploy fails (a renamed construct keeps its logical id with overrideLogicalId)',
    );
  } else if (claimedBy) {
    parts.push(
      `its name is now claimed by ${claimedBy.logicalId} of ${claimedBy.stack}: that stack cannot create it while this one holds it, ` +
        'and deleting it here first loses what it holds (a resource moves between stacks by import, not by redeclaring it)',
    );
  }
  return { kind: 'removal', stack, logicalId, resourceType: old.Type, ...named(old), reason: parts.join('; '), procedure: SAFE_PROCEDURE };
}

type IndexDefinition = { readonly IndexName?: unknown; readonly KeySchema?: unknown; readonly Projection?: unknown };

/**
 * DynamoDB creates or deletes one global secondary index per UpdateTable, and cannot change an
 * existing index's key schema or projection (that is a delete plus a create). CloudFormation
 * fails the update otherwise. Throughput, warm throughput and contributor insights of an index
 * change in place and are not counted. Skipped when the table itself is replaced (the new table
 * is created with all its indexes, and the replacement is the finding).
 */
function indexChanges(stack: string, logicalId: string, old: TemplateResource, now: TemplateResource): UpgradeFinding[] {
  const before = indexesByName(old);
  const after = indexesByName(now);
  const added = [...after.keys()].filter((name) => !before.has(name));
  const removed = [...before.keys()].filter((name) => !after.has(name));
  const redefined: { name: string; parts: string[] }[] = [];
  for (const [name, index] of before) {
    const next = after.get(name);
    if (!next) continue;
    const parts = (['KeySchema', 'Projection'] as const).filter((part) => !deepEqual(index[part], next[part]));
    if (parts.length > 0) redefined.push({ name, parts });
  }

  const findings: UpgradeFinding[] = [];
  const base = { stack, logicalId, resourceType: old.Type, ...named(old), procedure: SAFE_PROCEDURE };
  if (redefined.length > 0) {
    findings.push({
      ...base,
      kind: 'gsi-redefined',
      reason:
        `global secondary ${redefined.length === 1 ? 'index' : 'indexes'} ${redefined.map((r) => `${r.name} (${r.parts.join(' and ')})`).join(', ')} ` +
        `${redefined.length === 1 ? 'changes' : 'change'} in place: DynamoDB cannot change an existing index's key schema or projection, ` +
        'it is a delete plus a create, which CloudFormation fails; add a new, versioned index name in one deploy and drop the old one in a later one',
    });
  }
  const operations = added.length + removed.length + redefined.length;
  if (operations > 1) {
    const what = [
      added.length > 0 ? `added ${added.join(', ')}` : '',
      removed.length > 0 ? `removed ${removed.join(', ')}` : '',
      redefined.length > 0 ? `redefined ${redefined.map((r) => r.name).join(', ')}` : '',
    ].filter(Boolean);
    findings.push({
      ...base,
      kind: 'gsi-batch',
      reason:
        `${operations} global secondary index changes in one deploy (${what.join('; ')}): DynamoDB creates or deletes one index ` +
        'per UpdateTable, so CloudFormation fails the update; change one index per deploy',
    });
  }
  return findings;
}

function indexesByName(resource: TemplateResource): Map<string, IndexDefinition> {
  const indexes = resource.Properties?.GlobalSecondaryIndexes;
  const byName = new Map<string, IndexDefinition>();
  if (!Array.isArray(indexes)) return byName;
  for (const index of indexes as IndexDefinition[]) byName.set(typeof index.IndexName === 'string' ? index.IndexName : JSON.stringify(index.IndexName), index);
  return byName;
}

function stateMachineTypeChange(stack: string, logicalId: string, old: TemplateResource, now: TemplateResource): UpgradeFinding | undefined {
  // CloudFormation's default when the property is absent.
  const before = old.Properties?.StateMachineType ?? 'STANDARD';
  const after = now.Properties?.StateMachineType ?? 'STANDARD';
  if (deepEqual(before, after)) return undefined;
  const name = nameValue(old);
  return {
    kind: 'state-machine-type',
    stack,
    logicalId,
    resourceType: old.Type,
    ...named(old),
    reason:
      `its StateMachineType changes from ${String(before)} to ${String(after)}: a state machine's type cannot change in place, ` +
      `CloudFormation replaces it and its executions in flight (webhook retries waiting) are lost` +
      (name !== undefined && deepEqual(name, nameValue(now)) ? '; and as it is custom-named, the replacement fails (the name is taken)' : ''),
    procedure: SAFE_PROCEDURE,
  };
}

/**
 * CloudFormation refuses to remove an export, or to change its value, while another stack
 * imports it (Fn::ImportValue): the stack update fails. A value that references a replaced
 * resource changes too, at deploy time.
 */
function exportChanges(stack: string, before: Template, after: Template, replaced: ReadonlySet<string>): UpgradeFinding[] {
  const findings: UpgradeFinding[] = [];
  const outputsNow = after.Outputs ?? {};
  for (const [logicalId, output] of Object.entries(before.Outputs ?? {})) {
    if (output.Export === undefined) continue;
    const exportName = output.Export.Name;
    const base = { stack, logicalId, resourceType: 'Output', physicalName: showName(exportName) ?? '(no name)', procedure: SAFE_PROCEDURE };
    const next =
      outputsNow[logicalId] ?? Object.values(outputsNow).find((candidate) => candidate.Export !== undefined && deepEqual(candidate.Export.Name, exportName));
    if (!next || next.Export === undefined) {
      findings.push({
        ...base,
        kind: 'export-removed',
        reason: 'the exported output is removed: CloudFormation refuses to delete an export while another stack imports it (Fn::ImportValue), and the update fails',
      });
      continue;
    }
    const changes: string[] = [];
    if (!deepEqual(next.Export.Name, exportName)) changes.push(`its export name changes to ${showName(next.Export.Name) ?? '(none)'}`);
    if (!deepEqual(next.Value, output.Value)) changes.push('its value changes');
    const replacedRefs = [...referencedIds(next.Value)].filter((id) => replaced.has(id)).sort();
    if (replacedRefs.length > 0 && deepEqual(next.Value, output.Value)) changes.push(`its value changes at deploy time (it references ${list(replacedRefs)}, which is replaced)`);
    if (changes.length > 0) {
      findings.push({
        ...base,
        kind: 'export-changed',
        reason: `${changes.join(' and ')}: CloudFormation refuses to change an export while another stack imports it (Fn::ImportValue), and the update fails`,
      });
    }
  }
  return findings;
}

function stackRemoved(stack: string): UpgradeFinding {
  return {
    kind: 'stack-removed',
    stack,
    logicalId: WHOLE_STACK,
    resourceType: 'AWS::CloudFormation::Stack',
    reason:
      'the release has this stack and the current tree does not build it: a deploy leaves the deployed stack in place, unmanaged, ' +
      'and deleting it deletes every resource it holds (and fails while another stack imports one of its exports)',
    procedure: SAFE_PROCEDURE,
  };
}

// ---------------------------------------------------------------------------------------------
// Printing.

/** One block per finding: what, where, why, and where the procedure is. */
export function formatFinding(finding: UpgradeFinding): string {
  const lines = [
    `✗ ${finding.kind}: ${finding.stack} ${finding.logicalId === WHOLE_STACK ? '(the whole stack)' : finding.logicalId}`,
    `    type:      ${finding.resourceType}`,
    ...(finding.physicalName !== undefined ? [`    name:      ${finding.physicalName}`] : []),
    `    why:       ${finding.reason}`,
    `    procedure: ${finding.procedure}`,
  ];
  if (finding.kind !== 'stale-allowance') {
    lines.push(
      `    if really wanted, allow it in ${ALLOWANCES_FILE}:`,
      `      { stack: '${finding.stack}', logicalId: '${finding.logicalId}', kind: '${finding.kind}', reason: '…' }`,
    );
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Helpers.

type PhysicalNameIndex = Map<string, { readonly stack: string; readonly logicalId: string }>;

/** Every physical name the current templates set, by type and name, to tell a move from a removal. */
function physicalNameIndex(templates: Readonly<Record<string, Template>>): PhysicalNameIndex {
  const index: PhysicalNameIndex = new Map();
  for (const [stack, template] of Object.entries(templates)) {
    for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
      const name = nameValue(resource);
      if (name !== undefined) index.set(nameKey(resource.Type, name), { stack, logicalId });
    }
  }
  return index;
}

function nameKey(type: string, name: unknown): string {
  return `${type}\u0000${JSON.stringify(name)}`;
}

/** The physical-name property's value when the template sets one (a string or an intrinsic); custom-named means set. */
function nameValue(resource: TemplateResource): unknown {
  const spec = PHYSICAL_NAME_PROPERTIES[resource.Type];
  return spec ? resource.Properties?.[spec.property] : undefined;
}

function showName(name: unknown): string | undefined {
  if (name === undefined) return undefined;
  return typeof name === 'string' ? name : JSON.stringify(name);
}

function named(resource: TemplateResource): { physicalName?: string } {
  const name = showName(nameValue(resource));
  return name === undefined ? {} : { physicalName: name };
}

/** Logical ids a value references through Ref or Fn::GetAtt (either form). */
function referencedIds(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) referencedIds(item, found);
  else if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === 'Ref' && typeof value.Ref === 'string') found.add(value.Ref);
    else if (keys.length === 1 && keys[0] === 'Fn::GetAtt') {
      const target = value['Fn::GetAtt'];
      if (Array.isArray(target) && typeof target[0] === 'string') found.add(target[0]);
      else if (typeof target === 'string') found.add(target.split('.')[0]);
    } else for (const item of Object.values(value)) referencedIds(item, found);
  }
  return found;
}

function sortFindings(findings: UpgradeFinding[]): UpgradeFinding[] {
  const order = (f: UpgradeFinding) => [f.stack, f.logicalId, String(UPGRADE_FINDING_KINDS.indexOf(f.kind)).padStart(2, '0')].join('\u0000');
  return findings.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

function list(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
}
