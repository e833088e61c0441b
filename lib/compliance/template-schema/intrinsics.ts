/**
 * CloudFormation's intrinsic functions as the template schema checks see them: which single-key
 * objects stand for a value computed at deploy time, which functions each part of a template may
 * use, and the little that is known of a function's result before deployment (Fn::Split gives a
 * list, Fn::Join a string). Shared by the type walker (template-types.ts), which must not read
 * `{ "Fn::GetAtt": … }` as an object with an unknown property, and the reference checker
 * (template-references.ts), which checks what each function names.
 *
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference.html
 */
import { isPlainObject } from './schema-findings';

/** https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/pseudo-parameter-reference.html */
export const PSEUDO_PARAMETERS: ReadonlySet<string> = new Set([
  'AWS::AccountId',
  'AWS::NotificationARNs',
  'AWS::NoValue',
  'AWS::Partition',
  'AWS::Region',
  'AWS::StackId',
  'AWS::StackName',
  'AWS::URLSuffix',
]);

/** The functions a resource property, an output or a condition's operand may use. */
export const VALUE_FUNCTIONS: ReadonlySet<string> = new Set([
  'Ref',
  'Fn::Base64',
  'Fn::Cidr',
  'Fn::FindInMap',
  'Fn::GetAtt',
  'Fn::GetAZs',
  'Fn::GetStackOutput',
  'Fn::If',
  'Fn::ImportValue',
  'Fn::Join',
  'Fn::Length',
  'Fn::Select',
  'Fn::Split',
  'Fn::Sub',
  'Fn::ToJsonString',
  'Fn::Transform',
]);

/** Condition functions: they define the Conditions section (and rules), never a property's value. */
export const CONDITION_FUNCTIONS: ReadonlySet<string> = new Set(['Fn::And', 'Fn::Equals', 'Fn::Not', 'Fn::Or']);

/** The functions of the Rules section (parameter assertions). https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/rules-section-structure.html */
export const RULE_FUNCTIONS: ReadonlySet<string> = new Set([
  'Ref',
  'Fn::And',
  'Fn::Contains',
  'Fn::EachMemberEquals',
  'Fn::EachMemberIn',
  'Fn::Equals',
  'Fn::If',
  'Fn::Not',
  'Fn::Or',
  'Fn::RefAll',
  'Fn::ValueOf',
  'Fn::ValueOfAll',
]);

export interface Intrinsic {
  readonly name: string;
  readonly argument: unknown;
}

/**
 * The function call a value is: an object of exactly one key, `Ref` or `Fn::…`. Any such object
 * counts, known function or not, so that a misspelt function is reported once (by the reference
 * checker) rather than also as an unknown property.
 */
export function asIntrinsic(value: unknown): Intrinsic | undefined {
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const name = keys[0];
  return name === 'Ref' || name.startsWith('Fn::') ? { name, argument: value[name] } : undefined;
}

/** `{ "Ref": "AWS::NoValue" }`: the property is removed, as if the template had not set it. */
export function isNoValue(value: unknown): boolean {
  const intrinsic = asIntrinsic(value);
  return intrinsic?.name === 'Ref' && intrinsic.argument === 'AWS::NoValue';
}

/**
 * A dynamic reference (`{{resolve:ssm:/name}}`, `{{resolve:secretsmanager:…}}`): CloudFormation
 * replaces it at deploy time, in a property of any scalar type, so its literal text says nothing
 * about the value. https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/dynamic-references.html
 */
export function holdsDynamicReference(value: unknown): boolean {
  return typeof value === 'string' && /\{\{resolve:(?:ssm|ssm-secure|secretsmanager):[^}]+\}\}/.test(value);
}

/** What a function is known to produce before deployment; `unknown` for those whose result depends on what they name. */
export type ResultShape = 'list' | 'string' | 'number' | 'unknown';

const RESULT_SHAPES: Readonly<Record<string, ResultShape>> = {
  'Fn::Split': 'list',
  'Fn::GetAZs': 'list',
  'Fn::Cidr': 'list',
  'Fn::Join': 'string',
  'Fn::Sub': 'string',
  'Fn::Base64': 'string',
  'Fn::ToJsonString': 'string',
  'Fn::Length': 'number',
};

export function resultShape(intrinsic: Intrinsic): ResultShape {
  return RESULT_SHAPES[intrinsic.name] ?? 'unknown';
}
