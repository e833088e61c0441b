/**
 * WAF rule statements: regular expressions WAF accepts, web ACL capacity, and the limits of
 * rate-based rules and of the statements' own fields. CloudFormation's schema checks none of
 * these; WAF refuses the web ACL (or bills the capacity above 1,500) at deploy time.
 */
import { MAX_REGEX_CHARACTERS, regexProblems } from './waf-regex';
import { rulesCapacity } from './waf-capacity';
import { defineRule, findKey, isObject, resourcesOf, type Problem } from './rule';
import { REGEX_PATTERN_SET, ruleHolders, statementsIn, WEB_ACL } from './waf-resources';

// Supported regular expression syntax in AWS WAF, and the 200-character pattern quota:
// https://docs.aws.amazon.com/waf/latest/developerguide/waf-regex-pattern-support.html
export const wafRegexSyntax = defineRule({
  id: 'waf-regex-syntax',
  title: 'WAF regular expressions use only syntax WAF supports',
  docs: 'https://docs.aws.amazon.com/waf/latest/developerguide/waf-regex-pattern-support.html',
  problems: (stacks) => {
    const patterns = [
      ...ruleHolders(stacks).flatMap((holder) =>
        statementsIn(holder)
          .filter((statement) => statement.type === 'RegexMatchStatement' && typeof statement.body.RegexString === 'string')
          .map((statement) => ({ holder, pattern: statement.body.RegexString as string, path: `${statement.path}/RegexString` })),
      ),
      ...resourcesOf(stacks, REGEX_PATTERN_SET).flatMap((holder) => {
        const list = holder.resource.Properties?.RegularExpressionList;
        return (Array.isArray(list) ? list : []).flatMap((pattern: unknown, i) =>
          typeof pattern === 'string' ? [{ holder, pattern, path: `Properties/RegularExpressionList/${i}` }] : [],
        );
      }),
    ];
    return patterns.flatMap(({ holder, pattern, path }): Problem[] => {
      const problems = regexProblems(pattern);
      if (problems.length === 0) return [];
      return [
        {
          stackName: holder.stack.stackName,
          logicalId: holder.logicalId,
          locations: [path],
          problem: `regex ${JSON.stringify(pattern)}: ${problems.join('; ')}`,
          fix:
            `Use non-capturing groups \`(?:…)\`, no lookaround, backreferences, atomic groups or possessive quantifiers, ` +
            `counted repeats of at most 20, at most 10 \`|\`, ${MAX_REGEX_CHARACTERS} characters; split a long alternation ` +
            'into several statements under an OrStatement, and check a fixed-length token with a size constraint.',
        },
      ];
    });
  },
});

/** The WCUs a web ACL's base price includes; above them every 500 WCUs cost extra. */
export const MAX_WEB_ACL_CAPACITY = 1500;

// Web ACL capacity units (WCUs) in AWS WAF:
// https://docs.aws.amazon.com/waf/latest/developerguide/aws-waf-capacity-units.html
export const wafCapacity = defineRule({
  id: 'waf-capacity',
  title: 'Each web ACL stays within the 1,500 WCUs of its base price',
  docs: 'https://docs.aws.amazon.com/waf/latest/developerguide/aws-waf-capacity-units.html',
  problems: (stacks) =>
    resourcesOf(stacks, WEB_ACL).flatMap(({ stack, logicalId, resource }): Problem[] => {
      const rules = resource.Properties?.Rules;
      const estimate = rulesCapacity(Array.isArray(rules) ? rules : []);
      const at = { stackName: stack.stackName, logicalId, locations: ['Properties/Rules'] };
      const problems: Problem[] = estimate.unknown.map((what) => ({
        ...at,
        problem: `capacity unknown for ${what}`,
        fix: 'Add its published capacity: a managed group to MANAGED_RULE_GROUPS (lib/constructs/edge-managed-rules.ts), a statement type to lib/compliance/deploy-readiness/waf-capacity.ts.',
      }));
      if (estimate.units > MAX_WEB_ACL_CAPACITY) {
        problems.push({
          ...at,
          problem: `estimated ${estimate.units} WCUs, above the ${MAX_WEB_ACL_CAPACITY} the web ACL's base price includes`,
          fix: 'Drop text transformations that do not change what the rule matches, prefer exact or prefix matches to CONTAINS, or move rules to a rule group of their own.',
        });
      }
      return problems;
    }),
});

/** Rate-based rules per web ACL or rule group. */
export const MAX_RATE_BASED_RULES = 10;
/** RateBasedStatement.Limit: 10 to 2,000,000,000 requests per evaluation window. */
export const RATE_LIMIT_RANGE = { min: 10, max: 2_000_000_000 } as const;
/** RateBasedStatement.EvaluationWindowSec: these values only. */
export const RATE_EVALUATION_WINDOWS: ReadonlySet<number> = new Set([60, 120, 300, 600]);
/** RateBasedStatement.CustomKeys: at most 5 keys. */
export const MAX_RATE_CUSTOM_KEYS = 5;
/** Text transformations per statement (or custom key). */
export const MAX_TEXT_TRANSFORMATIONS = 10;
/** Characters in a string match statement's search string. */
export const MAX_SEARCH_STRING_CHARACTERS = 200;

// AWS WAF quotas (rate-based rules per web ACL, text transformations, string match length) and the
// RateBasedStatement API reference (Limit, EvaluationWindowSec, CustomKeys):
// https://docs.aws.amazon.com/waf/latest/developerguide/limits.html
// https://docs.aws.amazon.com/waf/latest/APIReference/API_RateBasedStatement.html
export const wafRateRules = defineRule({
  id: 'waf-rate-rules',
  title: 'Rate-based rules and statement fields stay within WAF’s limits',
  docs: 'https://docs.aws.amazon.com/waf/latest/APIReference/API_RateBasedStatement.html',
  problems: (stacks) =>
    ruleHolders(stacks).flatMap((holder): Problem[] => {
      const at = { stackName: holder.stack.stackName, logicalId: holder.logicalId };
      const problems: Problem[] = [];
      const add = (path: string, problem: string, fix: string) => problems.push({ ...at, locations: [path], problem: `${problem} (see also https://docs.aws.amazon.com/waf/latest/developerguide/limits.html)`, fix });
      const rules = holder.resource.Properties?.Rules;
      const rateRules = (Array.isArray(rules) ? rules : []).filter((rule) => isObject(rule) && isObject(rule.Statement) && 'RateBasedStatement' in rule.Statement);
      if (rateRules.length > MAX_RATE_BASED_RULES) {
        add('Properties/Rules', `${rateRules.length} rate-based rules, above ${MAX_RATE_BASED_RULES}`, 'Combine rate rules that count the same key, or move some into a rule group.');
      }
      for (const statement of statementsIn(holder)) {
        if (statement.type === 'RateBasedStatement') checkRateStatement(statement.body, statement.path, add);
        if (statement.type === 'ByteMatchStatement') {
          const characters = searchStringCharacters(statement.body);
          if (characters > MAX_SEARCH_STRING_CHARACTERS) {
            add(`${statement.path}/SearchString`, `search string of ${characters} characters, above ${MAX_SEARCH_STRING_CHARACTERS}`, 'Match a shorter, distinctive part of the string.');
          }
        }
      }
      for (const { value, path } of findKey(holder.resource.Properties ?? {}, 'TextTransformations', 'Properties')) {
        if (Array.isArray(value) && value.length > MAX_TEXT_TRANSFORMATIONS) {
          add(path, `${value.length} text transformations, above ${MAX_TEXT_TRANSFORMATIONS}`, 'Keep the transformations that change what the statement matches.');
        }
      }
      return problems;
    }),
});

function checkRateStatement(body: Readonly<Record<string, unknown>>, path: string, add: (path: string, problem: string, fix: string) => void): void {
  const limit = Number(body.Limit);
  if (!Number.isInteger(limit) || limit < RATE_LIMIT_RANGE.min || limit > RATE_LIMIT_RANGE.max) {
    add(`${path}/Limit`, `rate limit ${String(body.Limit)} is not an integer from ${RATE_LIMIT_RANGE.min} to ${RATE_LIMIT_RANGE.max}`, 'Set a whole number of requests per evaluation window within the range.');
  }
  if (body.EvaluationWindowSec !== undefined && !RATE_EVALUATION_WINDOWS.has(Number(body.EvaluationWindowSec))) {
    add(`${path}/EvaluationWindowSec`, `evaluation window ${String(body.EvaluationWindowSec)} s is not one of ${[...RATE_EVALUATION_WINDOWS].join(', ')}`, 'Pick one of the windows WAF offers and scale the limit to it.');
  }
  if (Array.isArray(body.CustomKeys) && body.CustomKeys.length > MAX_RATE_CUSTOM_KEYS) {
    add(`${path}/CustomKeys`, `${body.CustomKeys.length} custom aggregation keys, above ${MAX_RATE_CUSTOM_KEYS}`, 'Aggregate on at most 5 keys.');
  }
}

/** Characters of a string match's search string, given as text or base64. */
function searchStringCharacters(body: Readonly<Record<string, unknown>>): number {
  if (typeof body.SearchString === 'string') return [...body.SearchString].length;
  if (typeof body.SearchStringBase64 === 'string') return Buffer.from(body.SearchStringBase64, 'base64').length;
  return 0;
}
