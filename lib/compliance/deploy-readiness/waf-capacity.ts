/**
 * Web ACL capacity units (WCUs) of WAF rule statements, at the developer guide's published costs:
 * the deploy-readiness rule keeps each web ACL within the 1,500 WCUs its base price includes, and
 * the edge-protection tests read the same figures. An estimate, not WAF's CheckCapacity: a
 * statement whose cost the guide gives no formula for here is reported as unknown, never guessed.
 *
 * https://docs.aws.amazon.com/waf/latest/developerguide/aws-waf-capacity-units.html
 * https://docs.aws.amazon.com/waf/latest/developerguide/waf-rule-statements-match.html
 * - string match 2, 10 for CONTAINS and CONTAINS_WORD; regex 3; regex pattern set 25; size
 *   constraint 1; geographic, IP set and label match 1 (IP set +4 for a forwarded-IP position ANY);
 * - inspecting all query arguments +10, the JSON body doubles the base cost, +10 per text
 *   transformation other than NONE;
 * - AND, OR: the sum of their statements; NOT: its statement;
 * - rate-based: 2, +30 per custom key (+10 per transformation of the key), + the scope-down;
 * - a managed rule group: its published capacity (MANAGED_RULE_GROUPS, lib/constructs/edge-managed-rules.ts).
 */
import { MANAGED_RULE_GROUPS } from '../../constructs/edge-managed-rules';
import { isObject } from './rule';

/** What a statement costs, and the statements inside it whose cost is not known here. */
export interface CapacityEstimate {
  readonly units: number;
  readonly unknown: readonly string[];
}

type Json = Readonly<Record<string, unknown>>;

/** Base costs of the match statements whose cost depends only on the field and the transformations. */
const MATCH_BASE_COSTS: Readonly<Record<string, (body: Json) => number>> = {
  ByteMatchStatement: (body) => (body.PositionalConstraint === 'CONTAINS' || body.PositionalConstraint === 'CONTAINS_WORD' ? 10 : 2),
  RegexMatchStatement: () => 3,
  RegexPatternSetReferenceStatement: () => 25,
  SizeConstraintStatement: () => 1,
};

/** Statements that cost a fixed amount. */
const FIXED_COSTS: Readonly<Record<string, (body: Json) => number>> = {
  GeoMatchStatement: () => 1,
  LabelMatchStatement: () => 1,
  IPSetReferenceStatement: (body) => (isObject(body.IPSetForwardedIPConfig) && body.IPSetForwardedIPConfig.Position === 'ANY' ? 5 : 1),
};

/** The WCUs of one statement (`{ "<Type>Statement": { … } }`), with what could not be costed. */
export function estimateCapacity(statement: unknown): CapacityEstimate {
  if (!isObject(statement) || Object.keys(statement).length !== 1) return { units: 0, unknown: ['a statement that is not one `{ "<Type>Statement": … }`'] };
  const [[type, value]] = Object.entries(statement);
  const body: Json = isObject(value) ? value : {};
  const base = MATCH_BASE_COSTS[type];
  if (base) return { units: matchCost(base(body), body), unknown: [] };
  const fixed = FIXED_COSTS[type];
  if (fixed) return { units: fixed(body), unknown: [] };
  switch (type) {
    case 'AndStatement':
    case 'OrStatement':
      return combine((Array.isArray(body.Statements) ? body.Statements : []).map(estimateCapacity));
    case 'NotStatement':
      return estimateCapacity(body.Statement);
    case 'RateBasedStatement': {
      const keys = Array.isArray(body.CustomKeys) ? body.CustomKeys : [];
      const keyUnits = keys.reduce<number>((total, key) => total + 30 + transformationCost(isObject(key) ? Object.values(key)[0] : undefined), 0);
      const scopeDown = body.ScopeDownStatement === undefined ? { units: 0, unknown: [] } : estimateCapacity(body.ScopeDownStatement);
      return { units: 2 + keyUnits + scopeDown.units, unknown: scopeDown.unknown };
    }
    case 'ManagedRuleGroupStatement': {
      const group = MANAGED_RULE_GROUPS.find((candidate) => candidate.vendorName === body.VendorName && candidate.name === body.Name);
      return group ? { units: group.capacity, unknown: [] } : { units: 0, unknown: [`managed rule group ${String(body.VendorName)}/${String(body.Name)}`] };
    }
    default:
      return { units: 0, unknown: [type] };
  }
}

/** The WCUs of one statement; throws when part of it has no known cost. */
export function statementCapacity(statement: unknown): number {
  const estimate = estimateCapacity(statement);
  if (estimate.unknown.length > 0) throw new Error(`no capacity known for ${estimate.unknown.join(', ')}`);
  return estimate.units;
}

/** The WCUs of a web ACL's rules together. */
export function rulesCapacity(rules: readonly unknown[]): CapacityEstimate {
  return combine(rules.map((rule) => estimateCapacity(isObject(rule) ? rule.Statement : undefined)));
}

function matchCost(base: number, body: Json): number {
  const field = isObject(body.FieldToMatch) ? body.FieldToMatch : {};
  const doubled = 'JsonBody' in field ? 2 * base : base;
  const allQueryArguments = 'AllQueryArguments' in field ? 10 : 0;
  return doubled + allQueryArguments + transformationCost(body);
}

/** +10 per text transformation other than NONE. */
function transformationCost(holder: unknown): number {
  const transformations = isObject(holder) && Array.isArray(holder.TextTransformations) ? holder.TextTransformations : [];
  return transformations.filter((transformation) => !(isObject(transformation) && transformation.Type === 'NONE')).length * 10;
}

function combine(estimates: readonly CapacityEstimate[]): CapacityEstimate {
  return {
    units: estimates.reduce((total, estimate) => total + estimate.units, 0),
    unknown: estimates.flatMap((estimate) => estimate.unknown),
  };
}
