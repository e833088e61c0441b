/**
 * AWS managed rule groups in each front door's web ACL: the core rule set
 * (AWSManagedRulesCommonRuleSet, 700 WCU) and known bad inputs
 * (AWSManagedRulesKnownBadInputsRuleSet, 200 WCU), evaluated after the
 * service's own rules (MANAGED_RULE_PRIORITY_BASE, 300+): a key in the URL,
 * an oversized request or a flood gets its precise answer, and is counted by
 * the rate rules, before any generic pattern looks at it.
 *
 * Every rule of both groups gets an explicit action per surface
 * (MANAGED_RULE_GROUPS; docs/edge-protection.md gives the reason for each):
 * - `count` where the rule inspects something a valid request may carry
 *   (free text: invitation notes, the player_name filter, passwords, player
 *   messages; a missing User-Agent on the partner API). The rule still labels
 *   and counts the request; the service's own validation decides.
 * - `block` elsewhere. Where the spec names the condition (413 BODY_TOO_LARGE,
 *   414 QUERY_TOO_LONG / PATH_TOO_LONG), with a custom response in the
 *   surface's error shape (error-envelope.ts) and the web ACL's common headers
 *   (`Cache-Control: no-store`, `X-Request-Id: edge`). Everywhere else with
 *   WAF's default block, which API Gateway answers with its WAF_FILTERED
 *   gateway response (surface-api.ts): 403 REQUEST_BLOCKED in the surface's
 *   envelope, with API Gateway's own request id. No custom response there:
 *   each would spend two of the web ACL's 100 custom response headers
 *   (https://docs.aws.amazon.com/waf/latest/developerguide/limits.html) on an
 *   answer API Gateway already gives, and a rule AWS adds later answers the
 *   same way.
 *
 * WAF silently ignores an override whose rule name the group does not have,
 * so the names are checked here against WAF's name pattern and in the infra
 * tests against the documented rule list. A rule AWS adds in a later version
 * blocks with WAF's default response too. The groups are not pinned to a
 * version (AWS updates the default version; static versions expire).
 */
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { ERROR_CATALOG } from '../../lambdas/shared/errors';
import type { Surface } from '../../lambdas/shared/http/routes';
import { wafVisibility } from './edge-rate-rules';
import { REQUEST_BLOCKED_STATUS, type EnvelopeCode } from './error-envelope';

export type ManagedRuleAction = 'block' | 'count';

/** Codes a managed rule's block may answer: the spec's where it names the condition, REQUEST_BLOCKED otherwise. */
export type ManagedBlockCode = 'REQUEST_BLOCKED' | 'BODY_TOO_LARGE' | 'QUERY_TOO_LONG' | 'PATH_TOO_LONG';

export interface ManagedRuleChoice {
  /** The rule's name inside the group (case-sensitive). */
  readonly name: string;
  readonly partner: ManagedRuleAction;
  readonly web: ManagedRuleAction;
  /** What a block answers; defaults to REQUEST_BLOCKED. */
  readonly code?: ManagedBlockCode;
}

export interface ManagedRuleGroup {
  readonly vendorName: 'AWS';
  readonly name: string;
  /** Name of the web ACL rule that references the group (and of its metric, after the surface's prefix). */
  readonly ruleName: string;
  /** Web ACL capacity units the group takes (the developer guide's figure). */
  readonly capacity: number;
  /** Every rule of the group, each with its action per surface. */
  readonly rules: readonly ManagedRuleChoice[];
}

/** Managed groups take priorities from here, in MANAGED_RULE_GROUPS order (rate rules are 200+ and run first). */
export const MANAGED_RULE_PRIORITY_BASE = 300;

/** What a block without a code of its own answers. */
export const REQUEST_BLOCKED: ManagedBlockCode = 'REQUEST_BLOCKED';

const BLOCK = { partner: 'block', web: 'block' } as const;
const COUNT_ON_PARTNER = { partner: 'count', web: 'block' } as const;
const COUNT = { partner: 'count', web: 'count' } as const;

export const MANAGED_RULE_GROUPS: readonly ManagedRuleGroup[] = [
  {
    vendorName: 'AWS',
    name: 'AWSManagedRulesCommonRuleSet',
    ruleName: 'aws-common-rule-set',
    capacity: 700,
    rules: [
      // The spec asks for no User-Agent: server integrations may send none. Browsers always send one.
      { name: 'NoUserAgent_HEADER', ...COUNT_ON_PARTNER },
      { name: 'UserAgent_BadBots_HEADER', ...BLOCK },
      // Same threshold as query-too-long (2048 bytes), which runs first; 1024 bytes is above path-too-long's 512.
      { name: 'SizeRestrictions_QUERYSTRING', ...BLOCK, code: 'QUERY_TOO_LONG' },
      { name: 'SizeRestrictions_Cookie_HEADER', ...BLOCK },
      // Over 8 KB is over the 4096-byte limit the pipeline applies on every route; WAF inspects only the first 8 KB.
      { name: 'SizeRestrictions_BODY', ...BLOCK, code: 'BODY_TOO_LARGE' },
      { name: 'SizeRestrictions_URIPATH', ...BLOCK, code: 'PATH_TOO_LONG' },
      // Bodies carry free text on both surfaces (notes; passwords, player messages, names, webhook addresses): counted.
      // Paths and cookies carry only fixed words and opaque ids: blocked. Query arguments: the partner API's
      // player_name filter is free text (counted); no route of the web side takes a query parameter (blocked).
      { name: 'EC2MetaDataSSRF_BODY', ...COUNT },
      { name: 'EC2MetaDataSSRF_COOKIE', ...BLOCK },
      { name: 'EC2MetaDataSSRF_URIPATH', ...BLOCK },
      { name: 'EC2MetaDataSSRF_QUERYARGUMENTS', ...COUNT_ON_PARTNER },
      { name: 'GenericLFI_QUERYARGUMENTS', ...COUNT_ON_PARTNER },
      { name: 'GenericLFI_URIPATH', ...BLOCK },
      { name: 'GenericLFI_BODY', ...COUNT },
      { name: 'RestrictedExtensions_URIPATH', ...BLOCK },
      { name: 'RestrictedExtensions_QUERYARGUMENTS', ...COUNT_ON_PARTNER },
      { name: 'GenericRFI_QUERYARGUMENTS', ...COUNT_ON_PARTNER },
      { name: 'GenericRFI_BODY', ...COUNT },
      { name: 'GenericRFI_URIPATH', ...BLOCK },
      { name: 'CrossSiteScripting_COOKIE', ...BLOCK },
      { name: 'CrossSiteScripting_QUERYARGUMENTS', ...COUNT_ON_PARTNER },
      { name: 'CrossSiteScripting_BODY', ...COUNT },
      { name: 'CrossSiteScripting_URIPATH', ...BLOCK },
    ],
  },
  {
    vendorName: 'AWS',
    name: 'AWSManagedRulesKnownBadInputsRuleSet',
    ruleName: 'aws-known-bad-inputs',
    capacity: 200,
    // Exploit payloads (Log4Shell lookups, serialized Java objects), never valid input anywhere: all blocked.
    rules: [
      'JavaDeserializationRCE_HEADER',
      'JavaDeserializationRCE_BODY',
      'JavaDeserializationRCE_URIPATH',
      'JavaDeserializationRCE_QUERYSTRING',
      'Host_localhost_HEADER',
      'PROPFIND_METHOD',
      'ExploitablePaths_URIPATH',
      'Log4JRCE_HEADER',
      'Log4JRCE_QUERYSTRING',
      'Log4JRCE_BODY',
      'Log4JRCE_URIPATH',
    ].map((name) => ({ name, ...BLOCK })),
  },
];

/** RuleActionOverride.Name: `^[0-9A-Za-z_-]{1,128}$`. */
const OVERRIDE_NAME_PATTERN = /^[\w-]{1,128}$/;

export class ManagedRuleError extends Error {
  constructor(group: ManagedRuleGroup, problem: string) {
    super(`Managed rule group ${group.name}: ${problem}`);
    this.name = 'ManagedRuleError';
  }
}

/** The HTTP status a block with this code answers. */
export function managedBlockStatus(code: ManagedBlockCode): number {
  return code === 'REQUEST_BLOCKED' ? REQUEST_BLOCKED_STATUS : ERROR_CATALOG[code].status;
}

export interface ManagedRuleOptions {
  readonly surface: Surface;
  /** Prefix of the CloudWatch metric names, e.g. `partner-api-dev`. */
  readonly metricPrefix: string;
  /** Headers every custom response of the web ACL carries (Cache-Control, X-Request-Id). */
  readonly commonHeaders?: readonly wafv2.CfnWebACL.CustomHTTPHeaderProperty[];
  /** Defaults to MANAGED_RULE_GROUPS. */
  readonly groups?: readonly ManagedRuleGroup[];
}

export interface ManagedRules {
  readonly rules: wafv2.CfnWebACL.RuleProperty[];
  /** The codes whose custom response bodies the rules reference (the body key is the code; never REQUEST_BLOCKED). */
  readonly responseCodes: readonly EnvelopeCode[];
}

/** One web ACL rule per managed group, at MANAGED_RULE_PRIORITY_BASE + its index, every rule of the group overridden. */
export function managedRuleGroupRules(options: ManagedRuleOptions): ManagedRules {
  const { surface, metricPrefix, commonHeaders = [], groups = MANAGED_RULE_GROUPS } = options;
  const codes = new Set<EnvelopeCode>();
  const rules = groups.map((group, i): wafv2.CfnWebACL.RuleProperty => {
    checkGroup(group);
    const ruleActionOverrides = group.rules.map((choice): wafv2.CfnWebACL.RuleActionOverrideProperty => {
      if (choice[surface] === 'count') return { name: choice.name, actionToUse: { count: {} } };
      const code = choice.code ?? REQUEST_BLOCKED;
      // WAF's default block: API Gateway's WAF_FILTERED gateway response answers REQUEST_BLOCKED.
      if (code === REQUEST_BLOCKED) return { name: choice.name, actionToUse: { block: {} } };
      codes.add(code);
      return {
        name: choice.name,
        actionToUse: {
          block: { customResponse: { responseCode: managedBlockStatus(code), customResponseBodyKey: code, responseHeaders: [...commonHeaders] } },
        },
      };
    });
    return {
      name: group.ruleName,
      priority: MANAGED_RULE_PRIORITY_BASE + i,
      // `none`: each rule's own (overridden) action applies; `count` here would turn every block into a count.
      overrideAction: { none: {} },
      statement: { managedRuleGroupStatement: { vendorName: group.vendorName, name: group.name, ruleActionOverrides } },
      visibilityConfig: wafVisibility(`${metricPrefix}-${group.ruleName}`),
    };
  });
  return { rules, responseCodes: [...codes] };
}

function checkGroup(group: ManagedRuleGroup): void {
  const names = group.rules.map((rule) => rule.name);
  const invalid = names.filter((name) => !OVERRIDE_NAME_PATTERN.test(name));
  if (invalid.length > 0) throw new ManagedRuleError(group, `invalid rule names ${invalid.join(', ')} (WAF would ignore their overrides)`);
  const duplicates = names.filter((name, i) => names.indexOf(name) !== i);
  if (duplicates.length > 0) throw new ManagedRuleError(group, `rules listed twice: ${[...new Set(duplicates)].join(', ')}`);
  if (!OVERRIDE_NAME_PATTERN.test(group.ruleName)) throw new ManagedRuleError(group, `rule name ${JSON.stringify(group.ruleName)} must match ^[\\w-]{1,128}$`);
}
