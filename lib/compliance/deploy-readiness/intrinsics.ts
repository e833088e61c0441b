/**
 * Upper bounds for the size of template values that CloudFormation resolves only at deploy time,
 * for the rules whose limits are sizes (a function's environment, a role's inline policies).
 * Literals count exactly; every intrinsic counts as the longest value it can take in this project,
 * so an estimate below a limit means the deployed value is below it too.
 *
 * - Fn::Join and Fn::Sub: the sum of their parts (Fn::Sub's `${…}` read as Ref or GetAtt).
 * - Pseudo parameters: PSEUDO_PARAMETER_BOUNDS.
 * - Ref and Fn::GetAtt of a resource: REF_BOUNDS and ATTRIBUTE_BOUNDS by type, else by what the
 *   attribute's name says it is (an ARN, a name, an id), else an ARN's bound.
 * - Ref of a parameter: its AllowedValues or MaxLength, else PARAMETER_TYPE_BOUNDS.
 * - Fn::ImportValue: the exported output's value when the exporting stack is in the same
 *   synthesis, else IMPORTED_VALUE_BOUND.
 * - Fn::If: the longer branch; Fn::Select: the longest candidate (over Fn::Split, the string
 *   split); Fn::FindInMap: the longest candidate of the mapping; Fn::Base64: the encoded length;
 *   Fn::ToJsonString: the JSON's.
 *
 * Anything else (a list where a string belongs, an intrinsic not listed) has no bound here and
 * raises UnboundedValueError, which the rules report rather than guess.
 */
import { intrinsicOf, isIntrinsic, isObject, type CfnTemplate, type StackTemplate } from './rule';

/** How a limit counts: IAM counts characters, Lambda counts bytes. */
export type Measure = 'characters' | 'utf8-bytes';

export interface IntrinsicScope {
  /** The template the value belongs to: its resources, parameters and mappings give the bounds. */
  readonly template: CfnTemplate;
  /** Every stack of the synthesis, for Fn::ImportValue. */
  readonly stacks: readonly StackTemplate[];
  readonly measure: Measure;
}

export class UnboundedValueError extends Error {
  constructor(what: string) {
    super(`no upper bound for ${what} (lib/compliance/deploy-readiness/intrinsics.ts)`);
    this.name = 'UnboundedValueError';
  }
}

/**
 * This project's names are `partner-api-<stage>-<purpose>` (stage at most 20 characters, purposes
 * under 40), at most about 100 characters with a service prefix such as `/aws/vendedlogs/states/`.
 * 128 leaves room for longer purposes without counting AWS's own maxima (255 for a table, 512 for
 * a log group), which no name of the service comes near.
 */
export const NAME_BOUND = 128;

/**
 * `arn:<partition ≤ 10>:<service ≤ 20>:<Region ≤ 20>:<account 12>:` is at most 68 characters, a
 * resource type with its separator and a suffix (`:*` of a log group, `-XXXXXX` of a secret) at
 * most 30, and the name NAME_BOUND: 226, rounded up.
 */
export const ARN_BOUND = 256;

/** Generated ids: API Gateway's 10 characters, KMS key UUIDs' 36, CloudFormation's physical ids. */
export const ID_BOUND = 64;

/** `https://sqs.<Region>.<URL suffix>/<account>/<queue name ≤ 80>`: 12 + 20 + 1 + 20 + 1 + 12 + 1 + 80 = 147. */
export const QUEUE_URL_BOUND = 160;

/**
 * Pseudo parameters: the longest Region names (`ap-southeast-5`, `us-gov-west-1`) are under 20,
 * partitions (`aws-iso-b`, `aws-us-gov`) at most 10, URL suffixes (`amazonaws.com.cn`) under 20;
 * stack names are at most 128; a stack id is an ARN holding the stack name and a UUID.
 */
export const PSEUDO_PARAMETER_BOUNDS: Readonly<Record<string, number>> = {
  'AWS::Region': 20,
  'AWS::AccountId': 12,
  'AWS::Partition': 10,
  'AWS::URLSuffix': 20,
  'AWS::StackName': 128,
  'AWS::StackId': 68 + 'stack/'.length + 128 + 1 + 36,
  'AWS::NoValue': 0,
};

/** What `Ref` returns, by resource type, where it is not an ARN (the default). */
export const REF_BOUNDS: Readonly<Record<string, number>> = {
  'AWS::ApiGateway::Deployment': ID_BOUND,
  'AWS::ApiGateway::Resource': ID_BOUND,
  'AWS::ApiGateway::RestApi': ID_BOUND,
  'AWS::ApiGateway::Stage': NAME_BOUND,
  'AWS::CloudWatch::Alarm': NAME_BOUND,
  'AWS::CloudWatch::Dashboard': NAME_BOUND,
  'AWS::DynamoDB::GlobalTable': NAME_BOUND,
  'AWS::DynamoDB::Table': NAME_BOUND,
  // AWS caps function and role names at 64.
  'AWS::IAM::Role': 64,
  'AWS::IAM::Policy': ID_BOUND,
  'AWS::KMS::Alias': NAME_BOUND,
  'AWS::KMS::Key': ID_BOUND,
  'AWS::Lambda::Function': 64,
  'AWS::Logs::LogGroup': NAME_BOUND,
  'AWS::SQS::Queue': QUEUE_URL_BOUND,
  'AWS::SSM::Parameter': NAME_BOUND,
  'AWS::Scheduler::Schedule': NAME_BOUND,
  'AWS::WAFv2::WebACL': NAME_BOUND + 1 + 36 + 1 + 'CLOUDFRONT'.length,
};

/** What `Fn::GetAtt` returns, by `<type>.<attribute>`, where the attribute's name does not say it. */
export const ATTRIBUTE_BOUNDS: Readonly<Record<string, number>> = {
  // `<table ARN>/stream/<ISO 8601 timestamp>`.
  'AWS::DynamoDB::GlobalTable.StreamArn': ARN_BOUND + '/stream/2024-01-01T00:00:00.000'.length,
  'AWS::DynamoDB::Table.StreamArn': ARN_BOUND + '/stream/2024-01-01T00:00:00.000'.length,
  'AWS::SQS::Queue.QueueUrl': QUEUE_URL_BOUND,
  'AWS::ApiGateway::RestApi.RootResourceId': ID_BOUND,
  'AWS::KMS::Key.KeyId': ID_BOUND,
};

/**
 * A parameter's value is the deployer's choice; without AllowedValues or MaxLength the bound is
 * the type's. The service passes none but CDK's BootstrapVersion (an SSM parameter holding a
 * number); 256 covers the short strings an SSM parameter of the service would hold.
 */
export const PARAMETER_TYPE_BOUNDS: Readonly<Record<string, number>> = {
  Number: 32,
  String: 256,
  'AWS::SSM::Parameter::Value<String>': 256,
};

/** An import whose export is not in this synthesis: the exports of this service are names, ids, ARNs and URLs. */
export const IMPORTED_VALUE_BOUND = ARN_BOUND;

/** Longest string the value can resolve to, in the scope's measure. */
export function maxStringLength(value: unknown, scope: IntrinsicScope): number {
  if (typeof value === 'string') return measureLiteral(value, scope.measure);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).length;
  if (!isIntrinsic(value)) throw new UnboundedValueError(`${describe(value)} where a string belongs`);
  const [fn, argument] = intrinsicOf(value);
  switch (fn) {
    case 'Ref':
      return refBound(String(argument), scope);
    case 'Fn::GetAtt':
      return getAttBound(argument, scope);
    case 'Fn::Join':
      return joinBound(argument, scope);
    case 'Fn::Sub':
      return subBound(argument, scope);
    case 'Fn::Select':
      return selectBound(argument, scope);
    case 'Fn::If': {
      const [, whenTrue, whenFalse] = argumentList(fn, argument, 3);
      return Math.max(maxStringLength(whenTrue, scope), maxStringLength(whenFalse, scope));
    }
    case 'Fn::ImportValue':
      return importBound(argument, scope);
    case 'Fn::FindInMap':
      return findInMapBound(argument, scope);
    case 'Fn::Base64':
      return 4 * Math.ceil(maxStringLength(argument, scope) / 3);
    case 'Fn::ToJsonString':
      return maxJsonLength(argument, scope);
    default:
      throw new UnboundedValueError(fn);
  }
}

/**
 * Longest JSON text (without white space) the value can serialize to once resolved: how IAM sizes
 * a policy and how Lambda sizes its environment. A resolved intrinsic is a JSON string (its
 * quotes counted); the values this project resolves to (ARNs, names, URLs) need no escaping.
 */
export function maxJsonLength(value: unknown, scope: IntrinsicScope): number {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value).length;
  if (typeof value === 'string') return measureLiteral(JSON.stringify(value), scope.measure);
  if (Array.isArray(value)) return 2 + Math.max(0, value.length - 1) + sum(value.map((item) => maxJsonLength(item, scope)));
  if (isIntrinsic(value)) {
    const [fn, argument] = intrinsicOf(value);
    if (fn === 'Fn::If') {
      const [, whenTrue, whenFalse] = argumentList(fn, argument, 3);
      return Math.max(maxJsonLength(whenTrue, scope), maxJsonLength(whenFalse, scope));
    }
    if (fn === 'Ref' && argument === 'AWS::NoValue') return 0;
    return 2 + maxStringLength(value, scope);
  }
  if (!isObject(value)) throw new UnboundedValueError(describe(value));
  const entries = Object.entries(value);
  return 2 + Math.max(0, entries.length - 1) + sum(entries.map(([key, item]) => measureLiteral(JSON.stringify(key), scope.measure) + 1 + maxJsonLength(item, scope)));
}

export function measureLiteral(text: string, measure: Measure): number {
  return measure === 'utf8-bytes' ? Buffer.byteLength(text, 'utf8') : text.length;
}

function refBound(name: string, scope: IntrinsicScope): number {
  const pseudo = PSEUDO_PARAMETER_BOUNDS[name];
  if (pseudo !== undefined) return pseudo;
  const parameter = scope.template.Parameters?.[name];
  if (parameter) return parameterBound(name, parameter);
  const resource = scope.template.Resources?.[name];
  if (resource) return REF_BOUNDS[resource.Type] ?? ARN_BOUND;
  throw new UnboundedValueError(`Ref ${name} (neither a pseudo parameter, a parameter nor a resource of the template)`);
}

function parameterBound(name: string, parameter: NonNullable<CfnTemplate['Parameters']>[string]): number {
  if (parameter.AllowedValues && parameter.AllowedValues.length > 0) return Math.max(...parameter.AllowedValues.map((allowed) => String(allowed).length));
  if (parameter.MaxLength !== undefined) return Number(parameter.MaxLength);
  const bound = PARAMETER_TYPE_BOUNDS[parameter.Type];
  if (bound === undefined) throw new UnboundedValueError(`Ref ${name}, a parameter of type ${parameter.Type}`);
  return bound;
}

function getAttBound(argument: unknown, scope: IntrinsicScope): number {
  const [logicalId, attribute] = typeof argument === 'string' ? splitAtFirstDot(argument) : argumentList('Fn::GetAtt', argument, 2).map(String);
  const resource = scope.template.Resources?.[logicalId];
  if (!resource) throw new UnboundedValueError(`Fn::GetAtt ${logicalId}.${attribute} (no such resource in the template)`);
  return ATTRIBUTE_BOUNDS[`${resource.Type}.${attribute}`] ?? boundByAttributeName(attribute);
}

function boundByAttributeName(attribute: string): number {
  if (/Arn$/.test(attribute)) return ARN_BOUND;
  if (/Name$/.test(attribute)) return NAME_BOUND;
  if (/Id$/.test(attribute)) return ID_BOUND;
  return ARN_BOUND;
}

function joinBound(argument: unknown, scope: IntrinsicScope): number {
  const [delimiter, parts] = argumentList('Fn::Join', argument, 2);
  if (typeof delimiter !== 'string') throw new UnboundedValueError('Fn::Join with a computed delimiter');
  if (!Array.isArray(parts)) throw new UnboundedValueError('Fn::Join over a computed list');
  return sum(parts.map((part) => maxStringLength(part, scope))) + Math.max(0, parts.length - 1) * measureLiteral(delimiter, scope.measure);
}

function subBound(argument: unknown, scope: IntrinsicScope): number {
  const [text, variables] = typeof argument === 'string' ? [argument, {}] : argumentList('Fn::Sub', argument, 2);
  if (typeof text !== 'string' || !isObject(variables)) throw new UnboundedValueError('Fn::Sub with a computed template');
  let total = 0;
  for (const part of subParts(text)) {
    if (part.kind === 'literal') total += measureLiteral(part.text, scope.measure);
    else if (part.name in variables) total += maxStringLength(variables[part.name], scope);
    else if (part.name.includes('.')) total += getAttBound(part.name, scope);
    else total += refBound(part.name, scope);
  }
  return total;
}

export type SubPart = { readonly kind: 'literal'; readonly text: string } | { readonly kind: 'variable'; readonly name: string };

/** Fn::Sub's template as literal text and `${…}` variables (`${!x}` is the literal `${x}`). */
export function subParts(template: string): SubPart[] {
  const parts: SubPart[] = [];
  let rest = template;
  for (let start = rest.indexOf('${'); start !== -1; start = rest.indexOf('${')) {
    const end = rest.indexOf('}', start);
    if (end === -1) break;
    if (start > 0) parts.push({ kind: 'literal', text: rest.slice(0, start) });
    const inner = rest.slice(start + 2, end);
    parts.push(inner.startsWith('!') ? { kind: 'literal', text: `\${${inner.slice(1)}}` } : { kind: 'variable', name: inner.trim() });
    rest = rest.slice(end + 1);
  }
  if (rest !== '') parts.push({ kind: 'literal', text: rest });
  return parts;
}

function selectBound(argument: unknown, scope: IntrinsicScope): number {
  const [index, list] = argumentList('Fn::Select', argument, 2);
  if (Array.isArray(list)) {
    const chosen = typeof index === 'number' || (typeof index === 'string' && /^\d+$/.test(index)) ? list[Number(index)] : undefined;
    return chosen !== undefined ? maxStringLength(chosen, scope) : Math.max(0, ...list.map((item) => maxStringLength(item, scope)));
  }
  if (isIntrinsic(list)) {
    const [fn, listArgument] = intrinsicOf(list);
    // CDK splits ARNs to pick out a name: no piece is longer than the string split.
    if (fn === 'Fn::Split') return maxStringLength(argumentList(fn, listArgument, 2)[1], scope);
    // Availability Zone names (`us-gov-west-1a`) are under 20 characters.
    if (fn === 'Fn::GetAZs') return 20;
  }
  throw new UnboundedValueError('Fn::Select from a computed list');
}

function importBound(argument: unknown, scope: IntrinsicScope): number {
  if (typeof argument !== 'string') return IMPORTED_VALUE_BOUND;
  for (const stack of scope.stacks) {
    for (const output of Object.values(stack.template.Outputs ?? {})) {
      if (output.Export?.Name === argument) return maxStringLength(output.Value, { ...scope, template: stack.template });
    }
  }
  return IMPORTED_VALUE_BOUND;
}

function findInMapBound(argument: unknown, scope: IntrinsicScope): number {
  const [mapName, topKey, secondKey] = argumentList('Fn::FindInMap', argument, 3);
  const mapping = typeof mapName === 'string' ? scope.template.Mappings?.[mapName] : undefined;
  if (!isObject(mapping)) throw new UnboundedValueError(`Fn::FindInMap of mapping ${JSON.stringify(mapName)}`);
  const tops = typeof topKey === 'string' && isObject(mapping[topKey]) ? [mapping[topKey]] : Object.values(mapping);
  const candidates = tops.filter(isObject).flatMap((level) => (typeof secondKey === 'string' && secondKey in level ? [level[secondKey]] : Object.values(level)));
  return Math.max(0, ...candidates.map((candidate) => maxStringLength(candidate, scope)));
}

function argumentList(fn: string, argument: unknown, length: number): unknown[] {
  if (!Array.isArray(argument) || argument.length < length) throw new UnboundedValueError(`${fn} with arguments ${JSON.stringify(argument)}`);
  return argument;
}

function splitAtFirstDot(text: string): [string, string] {
  const dot = text.indexOf('.');
  return dot === -1 ? [text, ''] : [text.slice(0, dot), text.slice(dot + 1)];
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (isObject(value)) return `an object with keys ${Object.keys(value).join(', ')}`;
  return typeof value;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
