/**
 * The type walker of the template schema checks: a resource's `Properties` against the resource
 * specification, down through every nested type definition. It reports a property its type does
 * not have, a required property left out, a value of the wrong shape (an object where a string
 * belongs, a single value where a list belongs), and an enum-valued property set to a value
 * outside its allowed list (enum-sources.ts). IAM policy documents, which the specification types
 * as plain JSON, are checked against IAM's own grammar (elements and their enum values).
 *
 * CloudFormation converts scalars on the way in, so the walker does too: a number or a boolean
 * is a valid string, "30" a valid integer, "true" a valid boolean. An intrinsic function may
 * stand in for any value; its result is known only at deploy time, so only what it must produce
 * is compared (Fn::Split gives a list, Fn::Join a string), and Fn::If's branches are walked as
 * values of the property. `{ "Ref": "AWS::NoValue" }` removes the property it is set to, and a
 * dynamic reference (`{{resolve:ssm:…}}`) may stand for any scalar.
 * What intrinsic functions name is the reference checker's concern (template-references.ts).
 */
import { IAM_POLICY_ENUMS, POLICY_DOCUMENT_PROPERTIES, type EnumEntry, type EnumTable } from './cfn-enums';
import { propertyKey, typeDefinition, type Property, type PropertyType, type Resource } from './cfn-spec';
import { allowedValuesFor, type AllowedValues } from './enum-sources';
import { asIntrinsic, holdsDynamicReference, isNoValue, resultShape, type Intrinsic, type ResultShape } from './intrinsics';
import { describeValue, indexPath, isPlainObject, keyPath, type Report, type SchemaFinding } from './schema-findings';

/** A literal scalar a typed property holds, as the enum coverage guard sees it. */
export interface ScalarLeaf {
  readonly key: string;
  readonly property: Property;
  readonly value: string | number | boolean;
  readonly path: string;
}

export interface PropertyWalk {
  readonly logicalId: string;
  readonly resourceType: string;
  readonly enums: EnumTable;
  readonly report: Report;
  /** Receives every literal scalar the walk reaches in a typed property. */
  readonly onScalar?: (leaf: ScalarLeaf) => void;
}

/** The property being walked: its enum-table key and its specification. */
interface At {
  readonly key: string;
  readonly property: Property;
}

/** Check a resource's `Properties` object (at `path`) against its specification. */
export function checkResourceProperties(resource: Resource, properties: Readonly<Record<string, unknown>>, path: string, walk: PropertyWalk): void {
  checkObject(properties, resource.properties, undefined, path, walk);
}

function finding(walk: PropertyWalk, rule: SchemaFinding['rule'], path: string, message: string): void {
  walk.report({ rule, logicalId: walk.logicalId, path, message });
}

function checkObject(
  value: Readonly<Record<string, unknown>>,
  properties: Readonly<Record<string, Property>>,
  typeName: string | undefined,
  path: string,
  walk: PropertyWalk,
): void {
  const owner = typeName === undefined ? walk.resourceType : `${walk.resourceType}.${typeName}`;
  for (const [name, child] of Object.entries(value)) {
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (!property) {
      const sameName = Object.keys(properties).find((known) => known.toLowerCase() === name.toLowerCase());
      finding(walk, 'unknown-property', keyPath(path, name), `${name} is not a property of ${owner}${sameName ? ` (did you mean ${sameName}?)` : ''}`);
      continue;
    }
    if (isNoValue(child)) continue;
    checkValue(child, property.type, { key: propertyKey(walk.resourceType, typeName, name), property }, keyPath(path, name), walk);
  }
  for (const [name, property] of Object.entries(properties)) {
    if (property.required && (!Object.hasOwn(value, name) || isNoValue(value[name]))) {
      finding(walk, 'missing-property', keyPath(path, name), `${owner} requires ${name}, and it is not set`);
    }
  }
}

/** The types whose value a dynamic reference may stand for. */
const SCALAR_TYPES: ReadonlySet<PropertyType['type']> = new Set(['string', 'number', 'integer', 'boolean', 'date-time']);

const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const INTEGER = /^[-+]?\d+$/;
const BOOLEAN = /^(?:true|false)$/i;

/** The properties of the specification's built-in tag type (`{ Key, Value }`). */
const TAG_PROPERTIES: Readonly<Record<string, Property>> = {
  Key: { type: { type: 'string' }, required: true },
  Value: { type: { type: 'string' }, required: true },
};

function checkValue(value: unknown, type: PropertyType, at: At, path: string, walk: PropertyWalk): void {
  const intrinsic = asIntrinsic(value);
  if (intrinsic) {
    checkIntrinsicResult(intrinsic, type, at, path, walk);
    return;
  }
  if (POLICY_DOCUMENT_PROPERTIES.has(at.key) && isPlainObject(value)) {
    checkPolicyDocument(value, path, walk);
    return;
  }
  const mismatch = (): void => finding(walk, 'type-mismatch', path, `${at.key} expects ${describeType(type)}, not ${describeValue(value)}`);
  if (holdsDynamicReference(value) && SCALAR_TYPES.has(type.type)) return;
  switch (type.type) {
    case 'string':
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') checkScalar(value, at, path, walk);
      else mismatch();
      return;
    case 'date-time':
      if (typeof value === 'string') checkScalar(value, at, path, walk);
      else mismatch();
      return;
    case 'number':
      if (typeof value === 'number' || (typeof value === 'string' && NUMBER.test(value))) checkScalar(value, at, path, walk);
      else mismatch();
      return;
    case 'integer':
      if ((typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && INTEGER.test(value))) checkScalar(value, at, path, walk);
      else mismatch();
      return;
    case 'boolean':
      if (typeof value === 'boolean' || (typeof value === 'string' && BOOLEAN.test(value))) checkScalar(value, at, path, walk);
      else mismatch();
      return;
    case 'null':
      if (value !== null) mismatch();
      return;
    case 'json':
      // Free-form: an object, a list, or the same JSON as a string.
      if (!isPlainObject(value) && !Array.isArray(value) && typeof value !== 'string') mismatch();
      return;
    case 'tag':
      if (isPlainObject(value)) checkObject(value, TAG_PROPERTIES, 'Tag', path, walk);
      else mismatch();
      return;
    case 'array':
      if (!Array.isArray(value)) {
        mismatch();
        return;
      }
      value.forEach((element, index) => {
        if (!isNoValue(element)) checkValue(element, type.element, at, indexPath(path, index), walk);
      });
      return;
    case 'map':
      if (!isPlainObject(value)) {
        mismatch();
        return;
      }
      for (const [entryKey, entry] of Object.entries(value)) {
        if (!isNoValue(entry)) checkValue(entry, type.element, at, keyPath(path, entryKey), walk);
      }
      return;
    case 'ref': {
      if (!isPlainObject(value)) {
        mismatch();
        return;
      }
      const definition = typeDefinition(type);
      // A definition without properties is an open object in the registry schema: anything goes.
      if (Object.keys(definition.properties).length > 0) checkObject(value, definition.properties, definition.name, path, walk);
      return;
    }
    case 'union':
      checkUnion(value, type.types, at, path, walk);
      return;
  }
}

/** A union accepts a value one of its members accepts; otherwise the closest member's findings are reported. */
function checkUnion(value: unknown, members: readonly PropertyType[], at: At, path: string, walk: PropertyWalk): void {
  const trials = members.map((member) => {
    const found: SchemaFinding[] = [];
    checkValue(value, member, at, path, { ...walk, report: (f) => found.push(f), onScalar: undefined });
    return { member, found };
  });
  const accepted = trials.find((trial) => trial.found.length === 0);
  if (accepted) {
    // Walk the accepted member again so the scalars it holds reach the observer.
    if (walk.onScalar) checkValue(value, accepted.member, at, path, walk);
    return;
  }
  const closest = trials.reduce((best, trial) => (trial.found.length < best.found.length ? trial : best));
  closest.found.forEach(walk.report);
}

function checkIntrinsicResult(intrinsic: Intrinsic, type: PropertyType, at: At, path: string, walk: PropertyWalk): void {
  if (intrinsic.name === 'Fn::If') {
    const args = intrinsic.argument;
    if (!Array.isArray(args) || args.length !== 3) return; // the reference checker reports the malformed call
    for (const branch of [1, 2]) {
      if (!isNoValue(args[branch])) checkValue(args[branch], type, at, indexPath(keyPath(path, 'Fn::If'), branch), walk);
    }
    return;
  }
  const shape = resultShape(intrinsic);
  if (shape !== 'unknown' && !acceptsShape(type, shape)) {
    finding(walk, 'type-mismatch', path, `${intrinsic.name} produces ${SHAPE_NAMES[shape]}, but ${at.key} expects ${describeType(type)}`);
  }
}

const SHAPE_NAMES: Readonly<Record<Exclude<ResultShape, 'unknown'>, string>> = { list: 'a list', string: 'a string', number: 'a number' };

function acceptsShape(type: PropertyType, shape: Exclude<ResultShape, 'unknown'>): boolean {
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

function describeType(type: PropertyType): string {
  switch (type.type) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'integer':
      return 'an integer';
    case 'boolean':
      return 'a boolean';
    case 'date-time':
      return 'a date-time string';
    case 'null':
      return 'null';
    case 'json':
      return 'a JSON object or string';
    case 'tag':
      return 'a tag ({ Key, Value })';
    case 'array':
      return `a list (each ${describeType(type.element)})`;
    case 'map':
      return `a map (each value ${describeType(type.element)})`;
    case 'ref':
      return `an object (${typeDefinition(type).name})`;
    case 'union':
      return type.types.map(describeType).join(' or ');
  }
}

function checkScalar(value: string | number | boolean, at: At, path: string, walk: PropertyWalk): void {
  walk.onScalar?.({ key: at.key, property: at.property, value, path });
  const allowed = allowedValuesFor(at.key, at.property, walk.enums);
  if (allowed && !isAllowed(value, allowed)) finding(walk, 'enum-value', path, notAllowedMessage(value, at.key, allowed));
}

function isAllowed(value: string | number | boolean, allowed: AllowedValues): boolean {
  return allowed.values.some((candidate) => (typeof candidate === 'number' ? Number(value) === candidate : String(value) === candidate));
}

function notAllowedMessage(value: unknown, key: string, allowed: AllowedValues): string {
  const shown = allowed.values.length > 12 ? [...allowed.values.slice(0, 12), '…'] : allowed.values;
  return `${JSON.stringify(value)} is not an allowed value of ${key} (allowed: ${shown.join(', ')}; per ${allowed.origin})`;
}

/** https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements.html */
const POLICY_ELEMENTS = new Set(['Version', 'Id', 'Statement']);
const STATEMENT_ELEMENTS = new Set(['Sid', 'Effect', 'Principal', 'NotPrincipal', 'Action', 'NotAction', 'Resource', 'NotResource', 'Condition']);

function checkPolicyDocument(document: Readonly<Record<string, unknown>>, path: string, walk: PropertyWalk): void {
  for (const element of Object.keys(document)) {
    if (!POLICY_ELEMENTS.has(element)) finding(walk, 'unknown-property', keyPath(path, element), `${element} is not an element of an IAM policy document (Version, Id, Statement)`);
  }
  checkPolicyEnum(document.Version, IAM_POLICY_ENUMS.Version, 'the policy Version', keyPath(path, 'Version'), walk);
  const statements = document.Statement;
  if (statements === undefined) {
    finding(walk, 'missing-property', keyPath(path, 'Statement'), 'an IAM policy document requires Statement, and it is not set');
    return;
  }
  const list = Array.isArray(statements) ? statements.map((statement, index) => [statement, indexPath(keyPath(path, 'Statement'), index)] as const) : [[statements, keyPath(path, 'Statement')] as const];
  for (const [statement, statementPath] of list) {
    if (asIntrinsic(statement)) continue;
    if (!isPlainObject(statement)) {
      finding(walk, 'type-mismatch', statementPath, `an IAM policy statement is an object, not ${describeValue(statement)}`);
      continue;
    }
    for (const element of Object.keys(statement)) {
      if (!STATEMENT_ELEMENTS.has(element)) finding(walk, 'unknown-property', keyPath(statementPath, element), `${element} is not an element of an IAM policy statement`);
    }
    if (statement.Effect === undefined) finding(walk, 'missing-property', keyPath(statementPath, 'Effect'), 'an IAM policy statement requires Effect, and it is not set');
    checkPolicyEnum(statement.Effect, IAM_POLICY_ENUMS.Effect, 'a statement Effect', keyPath(statementPath, 'Effect'), walk);
  }
}

function checkPolicyEnum(value: unknown, entry: EnumEntry, label: string, path: string, walk: PropertyWalk): void {
  if (typeof value !== 'string') return; // absent, or computed at deploy time
  if (!(entry.values as readonly (string | number)[]).includes(value)) {
    finding(walk, 'enum-value', path, `${JSON.stringify(value)} is not allowed as ${label} (allowed: ${entry.values.join(', ')}; per ${entry.source})`);
  }
}
