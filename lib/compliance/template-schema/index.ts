/**
 * The template schema checks: every synthesized CloudFormation template against what
 * CloudFormation accepts, before a deployment finds out halfway through a stack update. CDK's L1
 * classes are typed, but escape hatches (`addPropertyOverride`, `CfnResource`, raw JSON such as
 * WAF statements or policy documents) write whatever they are given, and enum-valued properties
 * are plain strings to TypeScript.
 *
 * This module owns the template's sections and each resource's frame (type, attributes,
 * DependsOn, deletion policies), and assembles the rest: the type walker for properties
 * (template-types.ts), the reference checker for every name a template uses
 * (template-references.ts), and the allowed values of enum-valued properties (cfn-enums.ts,
 * enum-sources.ts), all read from the CloudFormation resource specification (cfn-spec.ts).
 * `validateTemplate` is pure; `TemplateSchemaChecks` runs it as a CDK validation plugin over the
 * templates a synthesis writes, every finding an error.
 *
 * Deliberately not checked: quotas (template size, resource and output counts: the deploy
 * readiness checks own deploy-time limits), string patterns and lengths of properties (the
 * specification does not carry them), and what intrinsic functions produce beyond its shape.
 */
import type { IPolicyValidationContext, IPolicyValidationPlugin, PolicyValidationPluginReport, PolicyViolation } from 'aws-cdk-lib';
import { readFileSync } from 'node:fs';
import { CFN_ENUMS, type EnumTable } from './cfn-enums';
import { resourceSpec } from './cfn-spec';
import { enumEvidence } from './enum-sources';
import { asIntrinsic } from './intrinsics';
import { SCHEMA_RULES, describeValue, isPlainObject, keyPath, type Report, type SchemaFinding } from './schema-findings';
import { checkReferences, isCustomResourceType } from './template-references';
import { checkResourceProperties, type ScalarLeaf } from './template-types';

export type { SchemaFinding, SchemaRule } from './schema-findings';

export interface ValidateTemplateOptions {
  /** The curated enum table to check values against; the service's own (cfn-enums.ts) unless a test supplies another. */
  readonly enums?: EnumTable;
}

/** https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/template-anatomy.html */
const SECTIONS = new Set(['AWSTemplateFormatVersion', 'Description', 'Metadata', 'Parameters', 'Rules', 'Mappings', 'Conditions', 'Transform', 'Resources', 'Outputs']);
const RESOURCE_ATTRIBUTES = new Set(['Type', 'Properties', 'DependsOn', 'Condition', 'Metadata', 'DeletionPolicy', 'UpdateReplacePolicy', 'CreationPolicy', 'UpdatePolicy']);
const DELETION_POLICIES = ['Delete', 'Retain', 'RetainExceptOnCreate', 'Snapshot'];
const UPDATE_REPLACE_POLICIES = ['Delete', 'Retain', 'Snapshot'];
const OUTPUT_KEYS = new Set(['Value', 'Description', 'Export', 'Condition']);
const PARAMETER_KEYS = new Set(['Type', 'Default', 'Description', 'AllowedValues', 'AllowedPattern', 'ConstraintDescription', 'MaxLength', 'MinLength', 'MaxValue', 'MinValue', 'NoEcho']);
/** Logical ids: alphanumeric, at most 255 characters. */
const LOGICAL_ID = /^[A-Za-z0-9]{1,255}$/;
const DESCRIPTION_MAX_BYTES = 1024;

/**
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/parameters-section-structure.html
 * (the AWS-specific types, also inside `List<…>` and as SSM parameter values).
 */
const AWS_PARAMETER_TYPES = new Set([
  'AWS::EC2::AvailabilityZone::Name',
  'AWS::EC2::Image::Id',
  'AWS::EC2::Instance::Id',
  'AWS::EC2::KeyPair::KeyName',
  'AWS::EC2::SecurityGroup::GroupName',
  'AWS::EC2::SecurityGroup::Id',
  'AWS::EC2::Subnet::Id',
  'AWS::EC2::Volume::Id',
  'AWS::EC2::VPC::Id',
  'AWS::Route53::HostedZone::Id',
]);

function isParameterType(type: string): boolean {
  if (['String', 'Number', 'List<Number>', 'CommaDelimitedList', 'AWS::SSM::Parameter::Name'].includes(type) || AWS_PARAMETER_TYPES.has(type)) return true;
  const list = /^List<(.+)>$/.exec(type);
  if (list) return AWS_PARAMETER_TYPES.has(list[1]);
  const ssmValue = /^AWS::SSM::Parameter::Value<(.+)>$/.exec(type);
  if (!ssmValue) return false;
  const inner = ssmValue[1];
  const innerList = /^List<(.+)>$/.exec(inner);
  return ['String', 'List<String>', 'CommaDelimitedList'].includes(inner) || AWS_PARAMETER_TYPES.has(inner) || (innerList !== null && AWS_PARAMETER_TYPES.has(innerList[1]));
}

/** Every finding of one template (a parsed JSON template); an empty list when CloudFormation would accept it as far as the specification tells. */
export function validateTemplate(template: unknown, options: ValidateTemplateOptions = {}): SchemaFinding[] {
  const findings: SchemaFinding[] = [];
  const report: Report = (finding) => findings.push(finding);
  if (!isPlainObject(template)) {
    report({ rule: 'template-section', path: '', message: `a template is a JSON object, not ${describeValue(template)}` });
    return findings;
  }
  checkSections(template, report);
  checkParameters(template.Parameters, report);
  checkResources(template, options.enums ?? CFN_ENUMS, report);
  checkOutputs(template.Outputs, report);
  checkLogicalIdClashes(template, report);
  checkReferences(template, report);
  return findings;
}

function checkSections(template: Readonly<Record<string, unknown>>, report: Report): void {
  for (const section of Object.keys(template)) {
    if (!SECTIONS.has(section)) report({ rule: 'template-section', path: keyPath('', section), message: `${section} is not a section of a CloudFormation template` });
  }
  const version = template.AWSTemplateFormatVersion;
  if (version !== undefined && version !== '2010-09-09') {
    report({ rule: 'template-section', path: 'AWSTemplateFormatVersion', message: `the only template format version is "2010-09-09", not ${describeValue(version)}` });
  }
  const description = template.Description;
  if (description !== undefined && (typeof description !== 'string' || Buffer.byteLength(description, 'utf8') > DESCRIPTION_MAX_BYTES)) {
    report({ rule: 'template-section', path: 'Description', message: `the template Description is a string of at most ${DESCRIPTION_MAX_BYTES} bytes` });
  }
  for (const section of ['Metadata', 'Parameters', 'Rules', 'Mappings', 'Conditions', 'Outputs']) {
    if (template[section] !== undefined && !isPlainObject(template[section])) {
      report({ rule: 'template-section', path: section, message: `${section} is an object of named entries, not ${describeValue(template[section])}` });
    }
  }
  if (!isPlainObject(template.Resources) || Object.keys(template.Resources).length === 0) {
    report({ rule: 'template-section', path: 'Resources', message: 'a template declares at least one resource in Resources' });
  }
  for (const [name, mapping] of Object.entries(isPlainObject(template.Mappings) ? template.Mappings : {})) {
    const levels = isPlainObject(mapping) ? Object.values(mapping) : [];
    if (!isPlainObject(mapping) || levels.some((level) => !isPlainObject(level))) {
      report({ rule: 'template-section', logicalId: name, path: keyPath('Mappings', name), message: `the mapping ${name} maps top-level keys to objects of second-level keys` });
    }
  }
}

function checkParameters(parameters: unknown, report: Report): void {
  if (!isPlainObject(parameters)) return;
  for (const [name, parameter] of Object.entries(parameters)) {
    const path = keyPath('Parameters', name);
    const issue = (at: string, message: string): void => report({ rule: 'parameter', logicalId: name, path: at, message });
    if (!LOGICAL_ID.test(name)) issue(path, `the parameter name ${JSON.stringify(name)} is not alphanumeric`);
    if (!isPlainObject(parameter)) {
      issue(path, `a parameter is an object with a Type, not ${describeValue(parameter)}`);
      continue;
    }
    for (const key of Object.keys(parameter)) {
      if (!PARAMETER_KEYS.has(key)) issue(keyPath(path, key), `${key} is not a property of a parameter`);
    }
    const type = parameter.Type;
    if (type === undefined) issue(keyPath(path, 'Type'), `the parameter ${name} requires a Type`);
    else if (typeof type !== 'string' || !isParameterType(type)) issue(keyPath(path, 'Type'), `${describeValue(type)} is not a parameter type`);
    const fallback = parameter.Default;
    if (type === 'Number' && fallback !== undefined && !(typeof fallback === 'number' || (typeof fallback === 'string' && fallback.trim() !== '' && !Number.isNaN(Number(fallback))))) {
      issue(keyPath(path, 'Default'), `the Default of a Number parameter is a number, not ${describeValue(fallback)}`);
    }
    if (Array.isArray(parameter.AllowedValues) && (typeof fallback === 'string' || typeof fallback === 'number') && !parameter.AllowedValues.map(String).includes(String(fallback))) {
      issue(keyPath(path, 'Default'), `the Default ${JSON.stringify(fallback)} is not one of the parameter's AllowedValues`);
    }
  }
}

function checkResources(template: Readonly<Record<string, unknown>>, enums: EnumTable, report: Report): void {
  if (!isPlainObject(template.Resources)) return;
  const transforms = new Set(transformNames(template.Transform));
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    const path = keyPath('Resources', logicalId);
    const issue = (rule: SchemaFinding['rule'], at: string, message: string): void => report({ rule, logicalId, path: at, message });
    if (!LOGICAL_ID.test(logicalId)) issue('resource-attribute', path, `the logical id ${JSON.stringify(logicalId)} is not alphanumeric (at most 255 characters)`);
    if (!isPlainObject(resource)) {
      issue('resource-attribute', path, `a resource is an object with a Type, not ${describeValue(resource)}`);
      continue;
    }
    for (const attribute of Object.keys(resource)) {
      if (!RESOURCE_ATTRIBUTES.has(attribute)) issue('resource-attribute', keyPath(path, attribute), `${attribute} is not a resource attribute (${[...RESOURCE_ATTRIBUTES].join(', ')})`);
    }
    checkPolicyAttribute(resource.DeletionPolicy, DELETION_POLICIES, 'DeletionPolicy', keyPath(path, 'DeletionPolicy'), issue);
    checkPolicyAttribute(resource.UpdateReplacePolicy, UPDATE_REPLACE_POLICIES, 'UpdateReplacePolicy', keyPath(path, 'UpdateReplacePolicy'), issue);
    const type = resource.Type;
    if (typeof type !== 'string') {
      issue('resource-type', keyPath(path, 'Type'), `a resource requires a Type, a string, not ${describeValue(type)}`);
      continue;
    }
    const properties = resource.Properties ?? {};
    const propertiesPath = keyPath(path, 'Properties');
    // Properties chosen whole by Fn::If are known only at deploy time: not walked (the reference checker still reads them).
    const computed = asIntrinsic(properties) !== undefined;
    if (!computed && !isPlainObject(properties)) {
      issue('type-mismatch', propertiesPath, `Properties is an object, not ${describeValue(properties)}`);
      continue;
    }
    if (type === 'AWS::CDK::Metadata') continue; // CDK's version reporting; CloudFormation accepts it with any properties
    if (isCustomResourceType(type)) {
      // A custom resource takes any property; the provider behind ServiceToken decides what it accepts.
      if (isPlainObject(properties) && !computed && properties.ServiceToken === undefined) {
        issue('missing-property', keyPath(propertiesPath, 'ServiceToken'), `the custom resource ${logicalId} requires ServiceToken`);
      }
      continue;
    }
    const spec = resourceSpec(type);
    if (!spec) {
      issue('resource-type', keyPath(path, 'Type'), `${type} is not a resource type CloudFormation knows (per the resource specification)`);
      continue;
    }
    if (spec.cloudFormationTransform && !transforms.has(spec.cloudFormationTransform)) {
      issue('resource-type', keyPath(path, 'Type'), `${type} exists only under the transform ${spec.cloudFormationTransform}, which the template does not declare`);
    }
    if (computed || !isPlainObject(properties)) continue;
    checkResourceProperties(spec, properties, propertiesPath, { logicalId, resourceType: type, enums, report });
  }
}

function checkPolicyAttribute(value: unknown, allowed: readonly string[], attribute: string, path: string, issue: (rule: SchemaFinding['rule'], at: string, message: string) => void): void {
  if (value === undefined || asIntrinsic(value)) return;
  if (typeof value !== 'string' || !allowed.includes(value)) issue('resource-attribute', path, `${attribute} is one of ${allowed.join(', ')}, not ${describeValue(value)}`);
}

function transformNames(transform: unknown): string[] {
  const one = (entry: unknown): string | undefined => (typeof entry === 'string' ? entry : isPlainObject(entry) && typeof entry.Name === 'string' ? entry.Name : undefined);
  const entries = Array.isArray(transform) ? transform : [transform];
  return entries.map(one).filter((name): name is string => name !== undefined);
}

function checkOutputs(outputs: unknown, report: Report): void {
  if (!isPlainObject(outputs)) return;
  for (const [name, output] of Object.entries(outputs)) {
    const path = keyPath('Outputs', name);
    const issue = (at: string, message: string): void => report({ rule: 'template-section', logicalId: name, path: at, message });
    if (!LOGICAL_ID.test(name)) issue(path, `the output name ${JSON.stringify(name)} is not alphanumeric`);
    if (!isPlainObject(output)) {
      issue(path, `an output is an object with a Value, not ${describeValue(output)}`);
      continue;
    }
    for (const key of Object.keys(output)) if (!OUTPUT_KEYS.has(key)) issue(keyPath(path, key), `${key} is not a property of an output`);
    if (output.Value === undefined) issue(keyPath(path, 'Value'), `the output ${name} requires a Value`);
    if (output.Export !== undefined && !(isPlainObject(output.Export) && output.Export.Name !== undefined)) {
      issue(keyPath(path, 'Export'), 'an output Export is an object with a Name');
    }
  }
}

/** A parameter and a resource of one name make `Ref` ambiguous, and CloudFormation refuses the template. */
function checkLogicalIdClashes(template: Readonly<Record<string, unknown>>, report: Report): void {
  if (!isPlainObject(template.Parameters) || !isPlainObject(template.Resources)) return;
  for (const name of Object.keys(template.Parameters)) {
    if (Object.hasOwn(template.Resources, name)) {
      report({ rule: 'template-section', logicalId: name, path: keyPath('Resources', name), message: `${name} is both a parameter and a resource` });
    }
  }
}

/** An enum-looking literal a template sets at a property the curated table does not cover. */
export interface EnumCoverageGap {
  readonly key: string;
  readonly value: string | number | boolean;
  readonly path: string;
  /** Why the property looks enum-valued (enum-sources.ts `enumEvidence`). */
  readonly evidence: string;
}

/**
 * The values a template sets at enum-looking properties the curated table leaves out: the guard
 * that keeps the table complete for the templates this service deploys.
 */
export function enumCoverageGaps(template: unknown, table: EnumTable = CFN_ENUMS): EnumCoverageGap[] {
  if (!isPlainObject(template) || !isPlainObject(template.Resources)) return [];
  const gaps: EnumCoverageGap[] = [];
  const onScalar = (leaf: ScalarLeaf): void => {
    if (Object.hasOwn(table, leaf.key) || typeof leaf.value === 'boolean') return;
    const evidence = enumEvidence(leaf.key.slice(leaf.key.lastIndexOf('.') + 1), leaf.property, leaf.value);
    if (evidence) gaps.push({ key: leaf.key, value: leaf.value, path: leaf.path, evidence });
  };
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (!isPlainObject(resource) || typeof resource.Type !== 'string' || !isPlainObject(resource.Properties)) continue;
    const spec = resourceSpec(resource.Type);
    if (!spec) continue;
    const path = keyPath(keyPath('Resources', logicalId), 'Properties');
    checkResourceProperties(spec, resource.Properties, path, { logicalId, resourceType: resource.Type, enums: table, report: () => undefined, onScalar });
  }
  return gaps;
}

/**
 * The checks as a CDK validation plugin: after synthesis writes the templates, each is read and
 * validated, and every finding becomes an error-level violation (rule = the finding's kind), so
 * `cdk synth` fails and the report names the resource, the path in the template and the reason.
 */
export class TemplateSchemaChecks implements IPolicyValidationPlugin {
  public readonly name = 'TemplateSchema';
  public readonly ruleIds: string[] = [...SCHEMA_RULES];

  public validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const violations: PolicyViolation[] = context.templatePaths.flatMap((templatePath) =>
      validateTemplate(JSON.parse(readFileSync(templatePath, 'utf8')) as unknown).map((finding) => ({
        ruleName: finding.rule,
        description: finding.message,
        // Fatal: CloudFormation would refuse the template, which no acknowledgment changes.
        severity: 'fatal',
        violatingResources: [{ resourceLogicalId: finding.logicalId ?? finding.path, templatePath, locations: [finding.path] }],
      })),
    );
    return { success: violations.length === 0, violations };
  }
}
