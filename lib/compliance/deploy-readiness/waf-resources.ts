/**
 * Where the WAF rules look: web ACLs and rule groups (both hold rules, custom responses and
 * response bodies), their statements at any depth (inside AND/OR/NOT, scope-downs and managed
 * groups), and their custom responses (rule actions, managed-rule overrides, the default action).
 */
import { findKey, isObject, resourcesOf, type LocatedResource, type StackTemplate } from './rule';

export const WEB_ACL = 'AWS::WAFv2::WebACL';
export const RULE_GROUP = 'AWS::WAFv2::RuleGroup';
export const REGEX_PATTERN_SET = 'AWS::WAFv2::RegexPatternSet';

/** Web ACLs and rule groups: each has its own quotas of custom headers and bodies. */
export function ruleHolders(stacks: readonly StackTemplate[]): LocatedResource[] {
  return resourcesOf(stacks, WEB_ACL, RULE_GROUP);
}

export interface FoundStatement {
  /** `ByteMatchStatement`, `RateBasedStatement`, … */
  readonly type: string;
  readonly body: Readonly<Record<string, unknown>>;
  /** Path of the statement's body, e.g. `Properties/Rules/2/Statement/RateBasedStatement`. */
  readonly path: string;
}

/** Every statement of a web ACL or rule group, nested ones included, in document order. */
export function statementsIn(holder: LocatedResource): FoundStatement[] {
  const found: FoundStatement[] = [];
  const addStatement = (value: unknown, path: string): void => {
    if (!isObject(value)) return;
    for (const [type, body] of Object.entries(value)) found.push({ type, body: isObject(body) ? body : {}, path: `${path}/${type}` });
  };
  const visit = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, `${path}/${i}`));
      return;
    }
    if (!isObject(node)) return;
    for (const [key, child] of Object.entries(node)) {
      if (key === 'Statement' || key === 'ScopeDownStatement') addStatement(child, `${path}/${key}`);
      if (key === 'Statements' && Array.isArray(child)) child.forEach((item: unknown, i) => addStatement(item, `${path}/${key}/${i}`));
      visit(child, `${path}/${key}`);
    }
  };
  visit(holder.resource.Properties ?? {}, 'Properties');
  return found;
}

/** Every custom response of a web ACL or rule group, with its path. */
export function customResponsesIn(holder: LocatedResource): { readonly response: Readonly<Record<string, unknown>>; readonly path: string }[] {
  return findKey(holder.resource.Properties ?? {}, 'CustomResponse', 'Properties').flatMap(({ value, path }) => (isObject(value) ? [{ response: value, path }] : []));
}
