/**
 * The web side's web ACL answers each request in the shape of the path it addressed: web settings' `{code, message,
 * request_id}` on a settings path (docs/web-settings.md "Shapes"), the web side's body elsewhere (the envelope with
 * `code` and `message` on top, which the player site reads). A WAF custom response is one static body per rule, and a
 * rule cannot choose between two, so each of the service's rules that answers with a custom response answers in two
 * steps (lib/config/front-answers.ts FrontResponder `edge`):
 * 1. the rule itself counts and labels what it matches (`front-answer:<rule>`), with everything else of it unchanged:
 *    a rate-based rule labels only the requests of an aggregation instance over its limit, while it rate limits them
 *    (https://docs.aws.amazon.com/waf/latest/developerguide/waf-rule-label-add.html), and counts exactly as before;
 * 2. the next two priorities answer the labelled requests: `<rule>-settings` those on a settings path, with the settings
 *    body, and `<rule>-answer` the rest, with the rule's own body; both with the rule's status and headers. Together they
 *    block whatever the rule matched, before any later rule sees it, as the rule's own block did.
 * Each rule of the service's therefore holds ANSWER_PRIORITY_SLOT priorities (edge-protection.ts, edge-rate-rules.ts).
 *
 * The managed rule groups' rules that answer with a custom response (the CRS size rules: edge-managed-rules.ts) count
 * instead of blocking, and are answered the same way by the labels AWS gives them, after both groups
 * (MANAGED_ANSWER_PRIORITY_BASE): a rule group cannot be followed by a rule of the web ACL between two of its own rules.
 * A managed block without a custom response (REQUEST_BLOCKED) stays WAF's default block, which API Gateway answers with
 * its WAF_FILTERED gateway response: one body per API (front-answers.ts, `gateway`).
 *
 * A settings path is the raw URI path WAF sees: the stage prefix, `/settings`, then `/` or its end, as the function
 * reads it (lambdas/shared/http/routes.ts isSettingsPath on the event's path); no transformation, so an encoded or
 * doubled spelling gets the web side's body, which holds the settings shape's fields too.
 */
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { API_STAGE_NAME, SETTINGS_PATH } from '../../lambdas/shared/http/routes';
import { EDGE_REQUEST_ID, errorBody, type EnvelopeCode } from './error-envelope';

/** Priorities each answering rule of the service's holds: its own, its settings answer's, its other answer's. */
export const ANSWER_PRIORITY_SLOT = 3;

/** The managed groups' answers come after both groups (300, 301: edge-managed-rules.ts MANAGED_RULE_PRIORITY_BASE). */
export const MANAGED_ANSWER_PRIORITY_BASE = 400;

/** Namespace of the labels the service's counting rules add (WAF prefixes them with the web ACL's own namespace). */
export const ANSWER_LABEL_NAMESPACE = 'front-answer';

/** Suffixes of the answer rules' names and metric names. */
export const SETTINGS_ANSWER_SUFFIX = '-settings';
export const OTHER_ANSWER_SUFFIX = '-answer';

/**
 * The labels the core rule set adds for its rules that answer with a custom response (the developer guide's
 * "Baseline rule groups" page, CRS: https://docs.aws.amazon.com/waf/latest/developerguide/aws-managed-rule-groups-baseline.html).
 * A label is not always the rule's name (`SizeRestrictions_URIPATH` labels `…SizeRestrictions_URIPath`): a wrong one
 * would leave the counted rule unanswered, so a rule answering with a custom response on the web side must be listed here.
 */
export const MANAGED_RULE_LABELS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  AWSManagedRulesCommonRuleSet: {
    SizeRestrictions_BODY: 'awswaf:managed:aws:core-rule-set:SizeRestrictions_Body',
    SizeRestrictions_QUERYSTRING: 'awswaf:managed:aws:core-rule-set:SizeRestrictions_QueryString',
    SizeRestrictions_URIPATH: 'awswaf:managed:aws:core-rule-set:SizeRestrictions_URIPath',
  },
};

const NONE: wafv2.CfnWebACL.TextTransformationProperty[] = [{ priority: 0, type: 'NONE' }];

/** A settings path, as WAF sees the URI path: routes.ts isSettingsPath below the stage prefix. */
export const SETTINGS_URI_PATH_PATTERN = `^/${API_STAGE_NAME}${SETTINGS_PATH}(?:/|$)`;

/** A settings path, as WAF sees the URI path (3 WCU). */
export const SETTINGS_PATH_STATEMENT: wafv2.CfnWebACL.StatementProperty = {
  regexMatchStatement: { fieldToMatch: { uriPath: {} }, regexString: SETTINGS_URI_PATH_PATTERN, textTransformations: NONE },
};

/** The settings body's key for a body key. */
export const settingsBodyKey = (key: string): string => `${key}_SETTINGS`;

export interface PathShapedRules {
  readonly rules: wafv2.CfnWebACL.RuleProperty[];
  /** The settings bodies the answers reference (the other answers reference the rules' own bodies). */
  readonly responseBodies: Record<string, wafv2.CfnWebACL.CustomResponseBodyProperty>;
  /** For each rule answered by path, the names of the rules that block for it. */
  readonly answeredBy: Readonly<Record<string, readonly string[]>>;
}

interface Answered {
  /** The rule whose matches are answered: its name, priority of its first answer, metric name. */
  readonly name: string;
  readonly priority: number;
  readonly metricName: string;
  readonly visibility: wafv2.CfnWebACL.VisibilityConfigProperty;
  /** Matches the requests the rule labelled. */
  readonly labelled: wafv2.CfnWebACL.StatementProperty;
  readonly response: wafv2.CfnWebACL.CustomResponseProperty;
}

/** What a custom response body answers, by its key: `codeOfBody` (every body key the rules reference). */
export type BodyCodes = Readonly<Record<string, EnvelopeCode>>;

/**
 * The service's own rules (credentials in the URL, size, rate), each that blocks with a custom response answered by path:
 * counting and labelling at its priority, its answers at the next two (ANSWER_PRIORITY_SLOT).
 */
export function answerOwnRulesByPath(rules: readonly wafv2.CfnWebACL.RuleProperty[], codeOfBody: BodyCodes): PathShapedRules {
  const out: wafv2.CfnWebACL.RuleProperty[] = [];
  const answered: Answered[] = [];
  for (const rule of rules) {
    const response = customResponseOf(rule.action as wafv2.CfnWebACL.RuleActionProperty | undefined);
    if (!response) {
      out.push(rule);
      continue;
    }
    const label = `${ANSWER_LABEL_NAMESPACE}:${rule.name}`;
    const visibility = rule.visibilityConfig as wafv2.CfnWebACL.VisibilityConfigProperty;
    out.push({ ...rule, action: { count: {} }, ruleLabels: [{ name: label }] });
    answered.push({ name: rule.name, priority: rule.priority + 1, metricName: visibility.metricName, visibility, labelled: labelMatch(label), response });
  }
  return withAnswers(out, answered, codeOfBody);
}

/**
 * The managed group references with every override that blocks with a custom response turned to a count, and those
 * rules answered by path by their AWS labels (MANAGED_RULE_LABELS), from MANAGED_ANSWER_PRIORITY_BASE, two priorities each.
 */
export function answerManagedRulesByPath(rules: readonly wafv2.CfnWebACL.RuleProperty[], codeOfBody: BodyCodes): PathShapedRules {
  const answered: Answered[] = [];
  const out = rules.map((rule): wafv2.CfnWebACL.RuleProperty => {
    const statement = (rule.statement as wafv2.CfnWebACL.StatementProperty).managedRuleGroupStatement as wafv2.CfnWebACL.ManagedRuleGroupStatementProperty | undefined;
    if (!statement) return rule;
    const visibility = rule.visibilityConfig as wafv2.CfnWebACL.VisibilityConfigProperty;
    const overrides = ((statement.ruleActionOverrides ?? []) as wafv2.CfnWebACL.RuleActionOverrideProperty[]).map((override) => {
      const response = customResponseOf(override.actionToUse as wafv2.CfnWebACL.RuleActionProperty);
      if (!response) return override;
      const label = MANAGED_RULE_LABELS[statement.name]?.[override.name];
      if (!label) throw new Error(`EdgeProtection: ${statement.name}/${override.name} answers with a custom response, but its label is not in MANAGED_RULE_LABELS: it could not be answered by path`);
      const name = `${rule.name}-${override.name}`;
      answered.push({
        name,
        priority: MANAGED_ANSWER_PRIORITY_BASE + answered.length * (ANSWER_PRIORITY_SLOT - 1),
        metricName: `${visibility.metricName}-${override.name}`,
        visibility,
        labelled: labelMatch(label),
        response,
      });
      return { name: override.name, actionToUse: { count: {} } };
    });
    return { ...rule, statement: { managedRuleGroupStatement: { ...statement, ruleActionOverrides: overrides } } };
  });
  return withAnswers(out, answered, codeOfBody);
}

/** `rules` followed by each answered rule's two answers (settings path first), and the settings bodies they reference. */
function withAnswers(rules: wafv2.CfnWebACL.RuleProperty[], answered: readonly Answered[], codeOfBody: BodyCodes): PathShapedRules {
  const responseBodies: Record<string, wafv2.CfnWebACL.CustomResponseBodyProperty> = {};
  const answeredBy: Record<string, string[]> = {};
  const answers = answered.flatMap((rule): wafv2.CfnWebACL.RuleProperty[] => {
    const key = rule.response.customResponseBodyKey;
    const code = key === undefined ? undefined : codeOfBody[key];
    if (key === undefined || !code) throw new Error(`EdgeProtection: no code known for custom response body ${key}: its settings body cannot be written`);
    responseBodies[settingsBodyKey(key)] = { contentType: 'APPLICATION_JSON', content: errorBody('settings', code, EDGE_REQUEST_ID) };
    const answer = (suffix: string, priority: number, statement: wafv2.CfnWebACL.StatementProperty, bodyKey: string): wafv2.CfnWebACL.RuleProperty => ({
      name: `${rule.name}${suffix}`,
      priority,
      statement,
      action: { block: { customResponse: { ...rule.response, customResponseBodyKey: bodyKey } } },
      visibilityConfig: { ...rule.visibility, metricName: `${rule.metricName}${suffix}` },
    });
    const pair = [
      answer(SETTINGS_ANSWER_SUFFIX, rule.priority, { andStatement: { statements: [rule.labelled, SETTINGS_PATH_STATEMENT] } }, settingsBodyKey(key)),
      answer(OTHER_ANSWER_SUFFIX, rule.priority + 1, rule.labelled, key),
    ];
    answeredBy[rule.name] = pair.map((r) => r.name);
    return pair;
  });
  return { rules: [...rules, ...answers], responseBodies, answeredBy };
}

function labelMatch(key: string): wafv2.CfnWebACL.StatementProperty {
  return { labelMatchStatement: { scope: 'LABEL', key } };
}

function customResponseOf(action: wafv2.CfnWebACL.RuleActionProperty | undefined): wafv2.CfnWebACL.CustomResponseProperty | undefined {
  const block = action?.block as wafv2.CfnWebACL.BlockActionProperty | undefined;
  return block?.customResponse as wafv2.CfnWebACL.CustomResponseProperty | undefined;
}
