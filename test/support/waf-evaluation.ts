/**
 * A synthesized web ACL (CloudFormation's JSON) evaluated for one request, the way the WAF developer guide describes
 * it, for the statements this service's web ACLs use: rules by priority; a match of a rule whose action is Block ends
 * the evaluation, Count adds the rule's labels and goes on, Allow ends it; a rate-based rule matches a request of an
 * aggregation instance over its limit (`overLimit`, by rule name) that its scope-down matches; a managed group adds the
 * labels of its rules the request matches (`managedLabels`) and applies their overrides; a label match sees the labels
 * earlier rules added. Infra tests ask it what the deployed web ACL answers a request: which rule, which status, body
 * and headers. Anything else it is handed (a statement, field or transformation it does not know) throws, never guesses.
 */
type Json = Record<string, any>;

export interface WafRequest {
  readonly method: string;
  /** The URI path as sent, stage prefix included, percent-encoding kept (what WAF's UriPath is). */
  readonly uriPath: string;
  /** The query string without `?` (WAF's QueryString). */
  readonly queryString?: string;
  /** Header values by lowercase name. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Rate-based rules (by name) whose aggregation instance for this request is over its limit. */
  readonly overLimit?: readonly string[];
  /** Labels the managed rule groups' rules that match this request add (`awswaf:managed:aws:…`). */
  readonly managedLabels?: readonly string[];
}

export interface WafCustomResponse {
  readonly status: number;
  readonly bodyKey: string;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

export type WafOutcome =
  | { readonly action: 'allow'; readonly labels: readonly string[] }
  /** `response` undefined: WAF's default block (API Gateway answers it with its WAF_FILTERED gateway response). */
  | { readonly action: 'block'; readonly rule: string; readonly response: WafCustomResponse | undefined; readonly labels: readonly string[] };

/** Where WAF puts the labels a web ACL's rules add (the account is irrelevant to matching). */
const aclNamespace = (acl: Json) => `awswaf:000000000000:webacl:${String(acl.Name)}:`;

export function evaluateWebAcl(acl: Json, request: WafRequest): WafOutcome {
  const labels: string[] = [];
  const rules = [...(acl.Rules as Json[])].sort((a, b) => a.Priority - b.Priority);
  for (const rule of rules) {
    const statement = rule.Statement as Json;
    if (statement.ManagedRuleGroupStatement) {
      const outcome = evaluateManagedGroup(acl, rule, request, labels);
      if (outcome) return outcome;
      continue;
    }
    if (!matches(statement, request, labels, rule.Name as string)) continue;
    const action = rule.Action as Json;
    if (action.Block) return { action: 'block', rule: rule.Name, response: customResponse(acl, action.Block.CustomResponse), labels };
    if (action.Allow) return { action: 'allow', labels };
    if (!action.Count) throw new Error(`rule ${rule.Name}: action ${Object.keys(action).join(', ')} not evaluated here`);
    for (const label of (rule.RuleLabels ?? []) as { Name: string }[]) labels.push(`${aclNamespace(acl)}${label.Name}`);
  }
  return { action: 'allow', labels };
}

function evaluateManagedGroup(acl: Json, rule: Json, request: WafRequest, labels: string[]): WafOutcome | undefined {
  const group = rule.Statement.ManagedRuleGroupStatement as Json;
  const namespace = GROUP_NAMESPACES[group.Name as string];
  if (!namespace) throw new Error(`managed group ${String(group.Name)}: label namespace unknown here`);
  const matched = (request.managedLabels ?? []).filter((label) => label.startsWith(namespace));
  labels.push(...matched);
  if (!rule.OverrideAction?.None) throw new Error(`managed group ${String(group.Name)}: only OverrideAction None is evaluated here`);
  for (const label of matched) {
    const override = ((group.RuleActionOverrides ?? []) as Json[]).find((candidate) => labelOf(group.Name as string, candidate.Name as string) === label);
    if (!override) throw new Error(`no override in ${String(group.Name)} labels ${label}`);
    if (override.ActionToUse.Block) return { action: 'block', rule: `${String(rule.Name)}/${String(override.Name)}`, response: customResponse(acl, override.ActionToUse.Block.CustomResponse), labels };
  }
  return undefined;
}

/** The label namespaces of the managed groups the web ACLs reference (the developer guide's rule tables). */
const GROUP_NAMESPACES: Readonly<Record<string, string>> = {
  AWSManagedRulesCommonRuleSet: 'awswaf:managed:aws:core-rule-set:',
  AWSManagedRulesKnownBadInputsRuleSet: 'awswaf:managed:aws:known-bad-inputs:',
};

/** The labels of the managed rules the tests make match (the developer guide's rule tables). */
const MANAGED_LABELS: Readonly<Record<string, string>> = {
  'AWSManagedRulesCommonRuleSet/SizeRestrictions_BODY': 'awswaf:managed:aws:core-rule-set:SizeRestrictions_Body',
  'AWSManagedRulesCommonRuleSet/SizeRestrictions_QUERYSTRING': 'awswaf:managed:aws:core-rule-set:SizeRestrictions_QueryString',
  'AWSManagedRulesCommonRuleSet/SizeRestrictions_URIPATH': 'awswaf:managed:aws:core-rule-set:SizeRestrictions_URIPath',
  'AWSManagedRulesCommonRuleSet/CrossSiteScripting_URIPATH': 'awswaf:managed:aws:core-rule-set:CrossSiteScripting_URIPath',
  'AWSManagedRulesKnownBadInputsRuleSet/Log4JRCE_HEADER': 'awswaf:managed:aws:known-bad-inputs:Log4JRCE_Header',
};

const labelOf = (group: string, rule: string): string | undefined => MANAGED_LABELS[`${group}/${rule}`];

function customResponse(acl: Json, response: Json | undefined): WafCustomResponse | undefined {
  if (!response) return undefined;
  const body = (acl.CustomResponseBodies as Json)[response.CustomResponseBodyKey as string] as Json | undefined;
  if (!body) throw new Error(`custom response body ${String(response.CustomResponseBodyKey)} is not in the web ACL`);
  return {
    status: response.ResponseCode as number,
    bodyKey: response.CustomResponseBodyKey as string,
    body: JSON.parse(body.Content as string) as unknown,
    headers: Object.fromEntries(((response.ResponseHeaders ?? []) as { Name: string; Value: string }[]).map((h) => [h.Name, h.Value])),
  };
}

function matches(statement: Json, request: WafRequest, labels: readonly string[], rule: string): boolean {
  const [[type, body]] = Object.entries(statement) as [string, Json][];
  switch (type) {
    case 'AndStatement':
      return (body.Statements as Json[]).every((s) => matches(s, request, labels, rule));
    case 'OrStatement':
      return (body.Statements as Json[]).some((s) => matches(s, request, labels, rule));
    case 'NotStatement':
      return !matches(body.Statement as Json, request, labels, rule);
    case 'LabelMatchStatement': {
      if (body.Scope !== 'LABEL') throw new Error(`label scope ${String(body.Scope)} not evaluated here`);
      // The key holds the label's name and any of its namespaces, up to the whole label.
      return labels.some((label) => label === body.Key || label.endsWith(`:${String(body.Key)}`));
    }
    case 'RateBasedStatement':
      return (request.overLimit ?? []).includes(rule) && (body.ScopeDownStatement === undefined || matches(body.ScopeDownStatement as Json, request, labels, rule));
    case 'ByteMatchStatement': {
      const value = transformed(field(body.FieldToMatch as Json, request), body.TextTransformations as Json[]);
      const search = String(body.SearchString);
      const position: Record<string, (v: string) => boolean> = {
        EXACTLY: (v) => v === search,
        STARTS_WITH: (v) => v.startsWith(search),
        ENDS_WITH: (v) => v.endsWith(search),
        CONTAINS: (v) => v.includes(search),
      };
      const test = position[String(body.PositionalConstraint)];
      if (!test) throw new Error(`positional constraint ${String(body.PositionalConstraint)} not evaluated here`);
      return value !== undefined && test(value);
    }
    case 'RegexMatchStatement': {
      const value = transformed(field(body.FieldToMatch as Json, request), body.TextTransformations as Json[]);
      return value !== undefined && new RegExp(String(body.RegexString)).test(value);
    }
    case 'SizeConstraintStatement': {
      const value = transformed(field(body.FieldToMatch as Json, request), body.TextTransformations as Json[]);
      if (value === undefined) return false;
      const size = Buffer.byteLength(value);
      const compare: Record<string, (a: number, b: number) => boolean> = { EQ: (a, b) => a === b, NE: (a, b) => a !== b, LE: (a, b) => a <= b, LT: (a, b) => a < b, GE: (a, b) => a >= b, GT: (a, b) => a > b };
      return compare[String(body.ComparisonOperator)](size, Number(body.Size));
    }
    default:
      throw new Error(`statement ${type} not evaluated here`);
  }
}

function field(fieldToMatch: Json, request: WafRequest): string | undefined {
  if ('UriPath' in fieldToMatch) return request.uriPath;
  if ('QueryString' in fieldToMatch) return request.queryString ?? '';
  if ('Method' in fieldToMatch) return request.method;
  if ('SingleHeader' in fieldToMatch) return request.headers?.[String(fieldToMatch.SingleHeader.Name).toLowerCase()];
  throw new Error(`field ${Object.keys(fieldToMatch).join(', ')} not evaluated here`);
}

function transformed(value: string | undefined, transformations: readonly Json[] = []): string | undefined {
  if (value === undefined) return undefined;
  return [...transformations].sort((a, b) => a.Priority - b.Priority).reduce((text, { Type }) => TRANSFORMATIONS[Type as string]?.(text) ?? unknownTransformation(Type), value);
}

const TRANSFORMATIONS: Readonly<Record<string, (text: string) => string>> = {
  NONE: (text) => text,
  LOWERCASE: (text) => text.toLowerCase(),
  COMPRESS_WHITE_SPACE: (text) => text.replace(/[\s\f\v]+/g, ' '),
  URL_DECODE: (text) => text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
  NORMALIZE_PATH: (text) => {
    let path = text.replace(/\/{2,}/g, '/').replace(/\/(?:\.\/)+/g, '/');
    for (let previous = ''; previous !== path; ) {
      previous = path;
      path = path.replace(/\/(?!\.\.\/)[^/]+\/\.\.(?=\/|$)/, '');
    }
    return path;
  },
};

function unknownTransformation(type: unknown): never {
  throw new Error(`text transformation ${String(type)} not evaluated here`);
}
