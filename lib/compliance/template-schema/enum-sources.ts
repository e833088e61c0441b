/**
 * Where the allowed values of an enum-valued property come from, in order of trust:
 *
 * 1. the curated table (cfn-enums.ts), each entry from its CloudFormation reference page;
 * 2. the specification's own enum (`allowedValues`: the registry schema's `enum`, which
 *    CloudFormation itself validates against).
 *
 * Property documentation also states lists ("Valid values are `OFF` , `ERROR` , and `INFO` .",
 * "Allowed Values* : `A` | `B`", a bullet list of backticked values after "Valid values are:"), and
 * `documentedAllowedValues` parses those forms and nothing looser. It is not enforced on its own:
 * across the whole specification (aws-service-spec 0.1.216) it yields 306 lists, and of the 119
 * that the specification also enumerates only 94 agree, 22 miss values the schema allows and 3
 * contradict it; among the rest are fragments of formats (a maintenance window's weekdays, a port
 * range, an example ARN). Documentation serves instead as evidence that a property is
 * enum-valued (the guard below) and as a cross-check of curated lists in the tests.
 *
 * The guard: what makes a property look enum-valued although neither source lists its values, so
 * test/infra/template-schema.test.ts can demand a curated entry for every such property a real
 * template sets.
 */
import type { Property, PropertyType } from './cfn-spec';
import type { EnumEntry, EnumTable } from './cfn-enums';

export type EnumValue = string | number;

export interface AllowedValues {
  readonly values: readonly EnumValue[];
  /** Where the list comes from, as a finding's message cites it. */
  readonly origin: string;
}

/** The scalar type a property's values have: the element type of a list or map of scalars. */
export function scalarTypeOf(type: PropertyType): PropertyType {
  return type.type === 'array' || type.type === 'map' ? scalarTypeOf(type.element) : type;
}

/** The specification's own enum for a property (of its elements, for a list), or undefined. */
export function specAllowedValues(type: PropertyType): readonly EnumValue[] | undefined {
  const scalar = scalarTypeOf(type);
  return (scalar.type === 'string' || scalar.type === 'integer') && scalar.allowedValues && scalar.allowedValues.length > 0
    ? scalar.allowedValues
    : undefined;
}

/** The allowed values of the property at `key`, from the most trusted source that has them. */
export function allowedValuesFor(key: string, property: Property, table: EnumTable): AllowedValues | undefined {
  const curated: EnumEntry | undefined = Object.hasOwn(table, key) ? table[key] : undefined;
  if (curated) return { values: curated.values, origin: curated.source };
  const fromSpec = specAllowedValues(property.type);
  return fromSpec ? { values: fromSpec, origin: 'the resource specification' } : undefined;
}

const INTRO = /\b(?:allowed|valid|possible|supported) values(?: for `[^`]+`)?(?: are| include)?\s*\**\s*:?/gi;
const TOKEN = /^`+"?([A-Za-z0-9_.:/*-]+)"?`+/;
const SEPARATOR = /^(?:\s+|,|\||\band\b|\bor\b)+/;
const BULLET = /^\s*[-+]\s+(`+"?[A-Za-z0-9_.:/*-]+"?`+)(?:\s|$)/;

/** A run of backticked values joined only by commas, bars, "and", "or", up to the sentence's end; undefined if anything else comes between. */
function inlineList(text: string): string[] | undefined {
  const values: string[] = [];
  let rest = text;
  for (;;) {
    const token = TOKEN.exec(rest);
    if (!token) return undefined;
    values.push(token[1]);
    rest = rest.slice(token[0].length);
    const separator = SEPARATOR.exec(rest);
    const afterSeparator = separator ? rest.slice(separator[0].length) : rest;
    if (afterSeparator === '' || /^\.(\s|$)/.test(afterSeparator) || (separator?.[0].includes('\n') ?? false)) return values;
    if (!separator) return undefined;
    rest = afterSeparator;
  }
}

/** Consecutive bullet lines, each opening with one backticked value; undefined unless every bullet of the run does. */
function bulletList(text: string): string[] | undefined {
  const lines = text.replace(/^\s*\n/, '').split('\n');
  const values: string[] = [];
  for (const line of lines) {
    if (line.trim() === '' && values.length === 0) continue;
    if (!/^\s*[-+]\s/.test(line)) break;
    const bullet = BULLET.exec(line);
    if (!bullet) return undefined;
    const token = TOKEN.exec(bullet[1]);
    if (!token) return undefined;
    values.push(token[1]);
  }
  return values.length > 0 ? values : undefined;
}

/** The allowed values a property's documentation states in one of the unambiguous forms, or undefined. */
export function documentedAllowedValues(documentation: string | undefined): string[] | undefined {
  if (!documentation) return undefined;
  for (const intro of documentation.matchAll(INTRO)) {
    const rest = documentation.slice(intro.index + intro[0].length);
    const list = /^\s*\n/.test(rest) ? bulletList(rest) : inlineList(rest.trimStart());
    if (list) return list;
  }
  return undefined;
}

const UPPER_CASE_VALUE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;
const TOKEN_VALUE = /^[A-Za-z][A-Za-z0-9_.-]{0,39}$/;
const MENTIONS_VALUES = /\b(?:allowed|valid|possible|supported|following) values?\b|\bone of the following\b/i;
/** Property names that say "one of a fixed set" (ResponseType, HttpMethod, BillingMode, LoggingLevel, ComparisonOperator, …). */
const ENUM_LIKE_NAME = /(?:Type|Types|Mode|Method|Level|Operator|Scope|Behavior|Policy|Protocol|Format|Status|State|Position|Class|Action|Constraint)$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Why a property set to `value` looks enum-valued, or undefined when nothing says so:
 *
 * - the specification or the documentation lists its values;
 * - the value is a single word and the property is named the way enums are (…Type, …Mode,
 *   …Method, …Level, …Operator, …: ResponseType DEFAULT_4XX, ComparisonOperator GreaterThanThreshold);
 * - the value is an UPPER_CASE word and the documentation speaks of allowed values or names
 *   this very value (`HASH`, *LATEST*);
 * - the value is a single word the documentation names while speaking of allowed values (arm64).
 *
 * Free text (names, descriptions, ARNs, expressions) gives no reason, so the guard stays quiet
 * about it. Enums of other names whose documentation only links elsewhere (Lambda's Runtime,
 * CloudWatch's Statistic) give none either: the curated table lists them regardless.
 * `propertyName` is the last segment of the property's key.
 */
export function enumEvidence(propertyName: string, property: Property, value: EnumValue): string | undefined {
  if (specAllowedValues(property.type)) return 'the resource specification lists its values';
  const documentation = property.documentation ?? '';
  if (scalarTypeOf(property.type).type === 'string' && documentedAllowedValues(documentation)) return 'its documentation lists its values';
  if (typeof value !== 'string' || !TOKEN_VALUE.test(value)) return undefined;
  if (ENUM_LIKE_NAME.test(propertyName)) return `${propertyName} is named like an enum and ${value} looks like one of its values`;
  const speaksOfValues = MENTIONS_VALUES.test(documentation);
  if (UPPER_CASE_VALUE.test(value)) {
    if (speaksOfValues) return `its documentation speaks of allowed values and ${value} looks like one`;
    if (documentation.includes(`\`${value}\``) || documentation.includes(`*${value}*`)) return `its documentation names the value ${value}`;
    return undefined;
  }
  if (speaksOfValues && new RegExp(`(?<![\\w.-])${escapeRegExp(value)}(?![\\w-])`).test(documentation)) {
    return `its documentation names the value ${value} while speaking of allowed values`;
  }
  return undefined;
}
