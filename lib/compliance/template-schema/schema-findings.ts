/**
 * What the template schema checks (index.ts) report, and how they name a place in a
 * template. One finding type for every module of the checks (the type walker, the reference
 * checker, the section checks), so the CDK plugin, the tests and a reader of a failed synthesis
 * all see the same `rule`, the same path (`Resources.X.Properties.Rules[3].Statement`) and a
 * message that says what CloudFormation would refuse.
 */

/** The kinds of finding: the CDK plugin reports each as its rule, so a reader can tell them apart. */
export const SCHEMA_RULES = [
  'template-section',
  'parameter',
  'resource-type',
  'resource-attribute',
  'unknown-property',
  'missing-property',
  'type-mismatch',
  'enum-value',
  'reference',
  'intrinsic-function',
] as const;

export type SchemaRule = (typeof SCHEMA_RULES)[number];

export interface SchemaFinding {
  readonly rule: SchemaRule;
  /** The resource, parameter, output or condition the finding is about; absent for the template's own sections. */
  readonly logicalId?: string;
  /** Where in the template, e.g. `Resources.WebAcl.Properties.Rules[3].Statement`. */
  readonly path: string;
  readonly message: string;
}

/** Receives findings as a check walks a template; a trial (one member of a type union) collects its own. */
export type Report = (finding: SchemaFinding) => void;

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `parent.key`, or `parent["key"]` when the key holds characters a dotted path would misread (`method.response.header.X`, `Fn::Sub`). */
export function keyPath(parent: string, key: string): string {
  if (PLAIN_KEY.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}

export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

/** A JSON object (not an array, not null): the only shape a template section, resource or typed property can take. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as a message quotes it: short, and never a whole object. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)}`;
  return `${typeof value} ${String(value)}`;
}
