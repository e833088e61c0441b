/**
 * Template mistakes CloudFormation refuses that AWS's validator (the built-in one CDK runs on every
 * synthesis, ../cloudformation-validate.ts) lets through. Each was found by running broken
 * templates through both (test/infra/template-validator-parity.test.ts records which catches
 * what); a rule stays here only while the validator misses it.
 *
 * - intrinsic-result-shape: a function whose result has the wrong shape for its property
 *   (Fn::Split's list where a string belongs, Fn::Join's string where a list belongs), and a
 *   condition function (Fn::Equals, Fn::And, …) outside the Conditions section.
 * - condition-operands: a condition that names a resource (Ref or Fn::GetAtt).
 * - iam-policy-grammar: an IAM policy document's elements and their values (the specification
 *   types policy documents as free JSON).
 * - custom-resource-service-token: a custom resource without its ServiceToken.
 */
import { loadAwsServiceSpecSync } from '@aws-cdk/aws-service-spec';
import type { Property, PropertyType, Resource, SpecDatabase } from '@aws-cdk/service-spec-types';
import { defineRule, findKey, intrinsicOf, isIntrinsic, isObject, resourcesOf, type LocatedResource, type Problem } from './rule';

// ── intrinsic-result-shape ──────────────────────────────────────────────────────────────────────

/** What a function is known to produce before deployment; the others depend on what they name. */
const RESULT_SHAPES: Readonly<Record<string, 'list' | 'string' | 'number'>> = {
  'Fn::Split': 'list',
  'Fn::GetAZs': 'list',
  'Fn::Cidr': 'list',
  'Fn::Join': 'string',
  'Fn::Sub': 'string',
  'Fn::Base64': 'string',
  'Fn::ToJsonString': 'string',
  'Fn::Length': 'number',
};

/** Condition functions: they define the Conditions section, never a property's or an output's value. */
const CONDITION_FUNCTIONS = ['Fn::And', 'Fn::Equals', 'Fn::Not', 'Fn::Or'] as const;

let database: SpecDatabase | undefined;

/** The CloudFormation resource specification (`@aws-cdk/aws-service-spec`, what aws-cdk-lib's L1 classes come from), loaded on first use. */
function spec(): SpecDatabase {
  database ??= loadAwsServiceSpecSync();
  return database;
}

function resourceSpec(type: string): Resource | undefined {
  const matches = spec().lookup('resource', 'cloudFormationType', 'equals', type);
  return matches.length === 1 ? matches[0] : undefined;
}

function acceptsShape(type: PropertyType, shape: 'list' | 'string' | 'number'): boolean {
  switch (type.type) {
    case 'json':
      return true;
    case 'union':
      return type.types.some((member) => acceptsShape(member, shape));
    case 'array':
      return shape === 'list';
    case 'map':
    case 'ref':
    case 'tag':
      return false;
    default:
      return shape !== 'list';
  }
}

/** The shape problems inside one property value, walking nested type definitions. */
function shapeProblems(value: unknown, type: PropertyType, path: string, name: string): { path: string; problem: string }[] {
  if (isIntrinsic(value)) {
    const [fn, argument] = intrinsicOf(value);
    if (fn === 'Fn::If' && Array.isArray(argument)) return [1, 2].flatMap((branch) => shapeProblems(argument[branch], type, `${path}/Fn::If/${branch}`, name));
    const shape = RESULT_SHAPES[fn];
    return shape !== undefined && !acceptsShape(type, shape) ? [{ path, problem: `${fn} produces a ${shape}, which ${name} does not take (${type.type})` }] : [];
  }
  if (type.type === 'array' && Array.isArray(value)) return value.flatMap((element, i) => shapeProblems(element, type.element, `${path}/${i}`, name));
  if (type.type === 'map' && isObject(value)) return Object.entries(value).flatMap(([key, entry]) => shapeProblems(entry, type.element, `${path}/${key}`, key));
  if (type.type === 'ref' && isObject(value)) return propertiesProblems(value, spec().get('typeDefinition', type.reference).properties, path);
  return [];
}

function propertiesProblems(value: Readonly<Record<string, unknown>>, properties: Readonly<Record<string, Property>>, path: string): { path: string; problem: string }[] {
  return Object.entries(value).flatMap(([name, child]) => (Object.hasOwn(properties, name) ? shapeProblems(child, properties[name].type, `${path}/${name}`, name) : []));
}

// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference.html
export const intrinsicResultShape = defineRule({
  id: 'intrinsic-result-shape',
  title: 'Each function’s result has the shape its property takes; condition functions stay in Conditions',
  docs: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference.html',
  problems: (stacks) => [
    ...resourcesOf(stacks).flatMap(({ stack, logicalId, resource }): Problem[] => {
      const spec = resourceSpec(resource.Type);
      const shapes = spec && isObject(resource.Properties) ? propertiesProblems(resource.Properties, spec.properties, 'Properties') : [];
      const conditions = CONDITION_FUNCTIONS.flatMap((fn) => findKey(resource.Properties, fn, 'Properties').map((found) => ({ path: found.path, problem: `${fn} is a condition function, which only the Conditions section may use` })));
      return [...shapes, ...conditions].map(({ path, problem }) => ({
        stackName: stack.stackName,
        logicalId,
        locations: [path],
        problem,
        fix: 'Give the property a value of its own shape (a list where it takes a list: Fn::Split, not Fn::Join), or move the condition to the Conditions section and choose with Fn::If.',
      }));
    }),
    ...stacks.flatMap(({ stackName, template }): Problem[] =>
      CONDITION_FUNCTIONS.flatMap((fn) =>
        findKey(template.Outputs, fn, 'Outputs').map((found) => ({
          stackName,
          locations: [found.path],
          problem: `${fn} is a condition function, which only the Conditions section may use`,
          fix: 'Declare the condition in the Conditions section and choose the output’s value with Fn::If.',
        })),
      ),
    ),
  ],
});

// ── condition-operands ──────────────────────────────────────────────────────────────────────────

/** https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/pseudo-parameter-reference.html */
const PSEUDO_PARAMETERS = new Set(['AWS::AccountId', 'AWS::NotificationARNs', 'AWS::NoValue', 'AWS::Partition', 'AWS::Region', 'AWS::StackId', 'AWS::StackName', 'AWS::URLSuffix']);

// "You can't reference a logical ID of a resource in a condition."
export const conditionOperands = defineRule({
  id: 'condition-operands',
  title: 'Conditions read parameters and pseudo parameters, never a resource',
  docs: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/conditions-section-structure.html',
  problems: (stacks) =>
    stacks.flatMap(({ stackName, template }): Problem[] => {
      const parameters = new Set(Object.keys(template.Parameters ?? {}));
      const refs = findKey(template.Conditions, 'Ref', 'Conditions').filter(({ value }) => typeof value !== 'string' || !(parameters.has(value) || PSEUDO_PARAMETERS.has(value)));
      const attributes = findKey(template.Conditions, 'Fn::GetAtt', 'Conditions');
      return [...refs, ...attributes].map((found) => ({
        stackName,
        locations: [found.path],
        problem: `a condition reads ${JSON.stringify(found.value)}, which is not a parameter or a pseudo parameter`,
        fix: 'Base the condition on a parameter (or a value known at synthesis), not on a resource.',
      }));
    }),
});

// ── iam-policy-grammar ──────────────────────────────────────────────────────────────────────────

/** Where each resource type holds IAM policy documents (`*` for every element of a list). */
const POLICY_DOCUMENT_PATHS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  'AWS::IAM::Role': [['AssumeRolePolicyDocument'], ['Policies', '*', 'PolicyDocument']],
  'AWS::IAM::Policy': [['PolicyDocument']],
  'AWS::IAM::ManagedPolicy': [['PolicyDocument']],
  'AWS::IAM::RolePolicy': [['PolicyDocument']],
  'AWS::KMS::Key': [['KeyPolicy']],
  'AWS::SQS::QueuePolicy': [['PolicyDocument']],
  'AWS::SNS::TopicPolicy': [['PolicyDocument']],
  'AWS::SecretsManager::ResourcePolicy': [['ResourcePolicy']],
  'AWS::ApiGateway::RestApi': [['Policy']],
  'AWS::DynamoDB::Table': [['ResourcePolicy', 'PolicyDocument']],
  'AWS::DynamoDB::GlobalTable': [['Replicas', '*', 'ResourcePolicy', 'PolicyDocument']],
};

const POLICY_ELEMENTS = new Set(['Version', 'Id', 'Statement']);
const STATEMENT_ELEMENTS = new Set(['Sid', 'Effect', 'Principal', 'NotPrincipal', 'Action', 'NotAction', 'Resource', 'NotResource', 'Condition']);
/** https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_version.html */
const POLICY_VERSIONS = ['2012-10-17', '2008-10-17'];
/** https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_effect.html */
const EFFECTS = ['Allow', 'Deny'];

/** A value CloudFormation computes at deploy time (a plain boolean, so it narrows nothing). */
function computed(value: unknown): boolean {
  return isIntrinsic(value);
}

function valuesAt(value: unknown, path: readonly string[], at: string): { value: unknown; path: string }[] {
  if (path.length === 0) return [{ value, path: at }];
  const [head, ...rest] = path;
  if (head === '*') return Array.isArray(value) ? value.flatMap((element, i) => valuesAt(element, rest, `${at}/${i}`)) : [];
  return isObject(value) && Object.hasOwn(value, head) ? valuesAt(value[head], rest, `${at}/${head}`) : [];
}

function documentProblems(document: Readonly<Record<string, unknown>>, path: string): { path: string; problem: string }[] {
  const problems: { path: string; problem: string }[] = [];
  for (const element of Object.keys(document)) {
    if (!POLICY_ELEMENTS.has(element)) problems.push({ path: `${path}/${element}`, problem: `${element} is not an element of a policy document (Version, Id, Statement)` });
  }
  if (typeof document.Version === 'string' && !POLICY_VERSIONS.includes(document.Version)) problems.push({ path: `${path}/Version`, problem: `Version ${JSON.stringify(document.Version)} is not one of ${POLICY_VERSIONS.join(', ')}` });
  if (document.Statement === undefined) problems.push({ path: `${path}/Statement`, problem: 'a policy document without Statement' });
  const statements = Array.isArray(document.Statement) ? document.Statement : [document.Statement];
  statements.forEach((statement, i) => {
    const at = Array.isArray(document.Statement) ? `${path}/Statement/${i}` : `${path}/Statement`;
    if (!isObject(statement) || computed(statement)) return;
    for (const element of Object.keys(statement)) {
      if (!STATEMENT_ELEMENTS.has(element)) problems.push({ path: `${at}/${element}`, problem: `${element} is not an element of a policy statement` });
    }
    if (statement.Effect === undefined) problems.push({ path: `${at}/Effect`, problem: 'a statement without Effect' });
    else if (typeof statement.Effect === 'string' && !EFFECTS.includes(statement.Effect)) problems.push({ path: `${at}/Effect`, problem: `Effect ${JSON.stringify(statement.Effect)} is not Allow or Deny (the case counts)` });
  });
  return problems;
}

export const iamPolicyGrammar = defineRule({
  id: 'iam-policy-grammar',
  title: 'Policy documents use IAM’s elements and values',
  docs: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements.html',
  problems: (stacks) =>
    resourcesOf(stacks, ...Object.keys(POLICY_DOCUMENT_PATHS)).flatMap(({ stack, logicalId, resource }: LocatedResource): Problem[] =>
      POLICY_DOCUMENT_PATHS[resource.Type]
        .flatMap((path) => valuesAt(resource.Properties, path, 'Properties'))
        .flatMap(({ value, path }) => (isObject(value) && !computed(value) ? documentProblems(value, path) : []))
        .map(({ path, problem }) => ({ stackName: stack.stackName, logicalId, locations: [path], problem, fix: 'Write the document with IAM’s element names and values (iam.PolicyDocument renders them).' })),
    ),
});

// ── custom-resource-service-token ───────────────────────────────────────────────────────────────

export const customResourceServiceToken = defineRule({
  id: 'custom-resource-service-token',
  title: 'Every custom resource names its provider',
  docs: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-cloudformation-customresource.html',
  problems: (stacks) =>
    resourcesOf(stacks)
      .filter(({ resource }) => resource.Type.startsWith('Custom::') || resource.Type === 'AWS::CloudFormation::CustomResource')
      .filter(({ resource }) => !computed(resource.Properties) && (!isObject(resource.Properties) || resource.Properties.ServiceToken === undefined))
      .map(({ stack, logicalId }) => ({
        stackName: stack.stackName,
        logicalId,
        locations: ['Properties/ServiceToken'],
        problem: 'a custom resource without ServiceToken',
        fix: 'Set ServiceToken to the provider’s ARN (CustomResource’s serviceToken).',
      })),
});
