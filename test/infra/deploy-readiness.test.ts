/**
 * Deploy-readiness checks (lib/compliance/deploy-readiness): for each rule, a throwaway app holding
 * what AWS would refuse fails synthesis with the rule's id, the stack and logical id and the AWS
 * page in the message, and the corrected construct synthesizes; the regex tokenizer, the intrinsic
 * size estimate and the capacity estimator on their own; addComplianceChecks registers the plugin;
 * and the service's real stages, with the account baseline, synthesize with no finding.
 *
 * A failure of the last test lists each finding as its message: fix the construct, not the rule.
 */
import { App, Aws, CfnElement, CfnOutput, CfnResource, Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBaseline, buildStages } from '../../lib/app-stacks';
import { addComplianceChecks } from '../../lib/compliance/compliance-checks';
import { checkTemplates, DEPLOY_READINESS_RULES, DeployReadinessChecks, type CfnTemplate, type DeployFinding } from '../../lib/compliance/deploy-readiness';
import { ARN_BOUND, maxJsonLength, maxStringLength, NAME_BOUND, QUEUE_URL_BOUND, UnboundedValueError, type IntrinsicScope, type Measure } from '../../lib/compliance/deploy-readiness/intrinsics';
import { estimateCapacity, statementCapacity } from '../../lib/compliance/deploy-readiness/waf-capacity';
import { regexProblems, tokenizeRegex } from '../../lib/compliance/deploy-readiness/waf-regex';
import { cdkJsonContext, synthFailure } from './support';

/** A full synthesis of three stages on a loaded two-core machine; a limit, not an assertion. */
const SYNTH_TIMEOUT_MS = 180_000;

/** An app that runs only the deploy-readiness checks (no version-reporting resource, so counts are exact). */
function readinessApp(): App {
  const app = new App({ context: cdkJsonContext(), analyticsReporting: false });
  Validations.of(app).addPlugins(new DeployReadinessChecks());
  return app;
}

/** A stack named like one of a stage's. */
function stageStack(app: App, part: 'Stateful' | 'Stateless' = 'Stateless', stage = 'x'): Stack {
  return new Stack(app, `PartnerApi-${stage}-${part}`);
}


/** `stack/logical id` of a CloudFormation element, as findings name it. */
function where(element: CfnElement): string {
  const stack = Stack.of(element);
  return `${stack.stackName}/${stack.resolve(element.logicalId) as string}`;
}

/** Synthesis fails with this rule's finding at `at` (a `stack/logical id` or a stack name), the rule's page in the message. */
function expectFinding(app: App, ruleId: string, at: string): string {
  const failure = synthFailure(app);
  const rule = DEPLOY_READINESS_RULES.find((candidate) => candidate.id === ruleId);
  expect(rule, ruleId).toBeDefined();
  expect(failure).toContain(`[${ruleId}] ${at}:`);
  expect(failure).toContain(rule!.docs);
  return failure!;
}

// ── WAF ─────────────────────────────────────────────────────────────────────────────────────────

const visibility = (metricName: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({ cloudWatchMetricsEnabled: false, metricName, sampledRequestsEnabled: false });
const NONE = [{ priority: 0, type: 'NONE' }];

/** A block with a custom response; CloudFormation wants at least one header in it. */
function blockWith(code: number, headers = 1): wafv2.CfnWebACL.RuleActionProperty {
  const responseHeaders = Array.from({ length: headers }, (_, i) => ({ name: `X-Header-${i}`, value: 'v' }));
  return { block: { customResponse: { responseCode: code, responseHeaders } } };
}

function sizeRule(priority: number, action: wafv2.CfnWebACL.RuleActionProperty = { block: {} }, textTransformations = NONE): wafv2.CfnWebACL.RuleProperty {
  return {
    name: `size-${priority}`,
    priority,
    action,
    statement: { sizeConstraintStatement: { fieldToMatch: { uriPath: {} }, comparisonOperator: 'GT', size: 512, textTransformations } },
    visibilityConfig: visibility(`size-${priority}`),
  };
}

function regexRule(pattern: string): wafv2.CfnWebACL.RuleProperty {
  return {
    name: 'regex',
    priority: 1,
    action: { block: {} },
    statement: { regexMatchStatement: { fieldToMatch: { queryString: {} }, regexString: pattern, textTransformations: NONE } },
    visibilityConfig: visibility('regex'),
  };
}

function containsRule(priority: number): wafv2.CfnWebACL.RuleProperty {
  const textTransformations = ['URL_DECODE', 'LOWERCASE', 'HTML_ENTITY_DECODE', 'COMPRESS_WHITE_SPACE'].map((type, i) => ({ priority: i, type }));
  return {
    name: `contains-${priority}`,
    priority,
    action: { block: {} },
    statement: { byteMatchStatement: { fieldToMatch: { uriPath: {} }, positionalConstraint: 'CONTAINS', searchString: 'x', textTransformations } },
    visibilityConfig: visibility(`contains-${priority}`),
  };
}

function managedRule(name: string, priority: number, overrides: wafv2.CfnWebACL.RuleActionOverrideProperty[] = []): wafv2.CfnWebACL.RuleProperty {
  return {
    name,
    priority,
    overrideAction: { none: {} },
    statement: { managedRuleGroupStatement: { vendorName: 'AWS', name, ruleActionOverrides: overrides } },
    visibilityConfig: visibility(name),
  };
}

function rateRule(priority: number, statement: Partial<wafv2.CfnWebACL.RateBasedStatementProperty> = {}): wafv2.CfnWebACL.RuleProperty {
  return {
    name: `rate-${priority}`,
    priority,
    action: { block: {} },
    statement: { rateBasedStatement: { limit: 100, aggregateKeyType: 'IP', evaluationWindowSec: 60, ...statement } },
    visibilityConfig: visibility(`rate-${priority}`),
  };
}

function webAcl(stack: Stack, props: Partial<wafv2.CfnWebACLProps> = {}): wafv2.CfnWebACL {
  return new wafv2.CfnWebACL(stack, 'WebAcl', {
    name: 'partner-api-x-edge',
    scope: 'REGIONAL',
    defaultAction: { allow: {} },
    visibilityConfig: visibility('partner-api-x-edge'),
    rules: [],
    ...props,
  });
}

/** A broken web ACL fails synthesis with the rule at the ACL; the corrected one synthesizes. */
function expectWebAclRule(ruleId: string, broken: Partial<wafv2.CfnWebACLProps>, corrected: Partial<wafv2.CfnWebACLProps>): string {
  const app = readinessApp();
  const message = expectFinding(app, ruleId, where(webAcl(stageStack(app), broken)));
  const fixed = readinessApp();
  webAcl(stageStack(fixed), corrected);
  expect(synthFailure(fixed)).toBeUndefined();
  return message;
}

describe('waf-custom-response-status', () => {
  const places: ReadonlyArray<readonly [string, (code: number) => Partial<wafv2.CfnWebACLProps>]> = [
    ['a rule’s action', (code) => ({ rules: [sizeRule(1, blockWith(code))] })],
    ['the default action', (code) => ({ defaultAction: blockWith(code) })],
    ['a managed rule’s override', (code) => ({ rules: [managedRule('AWSManagedRulesCommonRuleSet', 300, [{ name: 'SizeRestrictions_BODY', actionToUse: blockWith(code) }])] })],
  ];

  it.each(places)('fails synthesis on 431 (which WAF does not support) in %s, and passes 400', (_, place) => {
    const message = expectWebAclRule('waf-custom-response-status', place(431), place(400));

    expect(message).toContain('custom response status 431');
  });
});

describe('waf-regex-syntax', () => {
  it.each([
    ['capturing groups', '(^|&)(key|token)(=|&|$)', '(?:^|&)(?:key|token)(?:=|&|$)'],
    ['a quantifier above 20', '^bearer pak_live_[0-9a-f]{64}$', '^bearer pak_live_[0-9a-f]+$'],
    ['more than 10 `|`', 'a|b|c|d|e|f|g|h|i|j|k|l', 'a|b|c|d|e|f|g|h|i|j|k'],
    ['lookahead', 'key(?==)', 'key='],
  ])('fails synthesis on %s in a regex match statement, and passes the rewritten pattern', (_, broken, corrected) => {
    const message = expectWebAclRule('waf-regex-syntax', { rules: [regexRule(broken)] }, { rules: [regexRule(corrected)] });

    expect(message).toContain(JSON.stringify(broken));
  });

  it('fails synthesis on a regex pattern set entry WAF refuses, and passes a supported one', () => {
    const app = readinessApp();
    const patterns = new wafv2.CfnRegexPatternSet(stageStack(app), 'Patterns', { name: 'partner-api-x-patterns', scope: 'REGIONAL', regularExpressionList: ['^ok$', '(?>atomic)'] });

    expect(expectFinding(app, 'waf-regex-syntax', where(patterns))).toContain('atomic group');

    const fixed = readinessApp();
    new wafv2.CfnRegexPatternSet(stageStack(fixed), 'Patterns', { name: 'partner-api-x-patterns', scope: 'REGIONAL', regularExpressionList: ['^ok$', '(?:atomic)'] });
    expect(synthFailure(fixed)).toBeUndefined();
  });
});

describe('WAF regex tokenizer', () => {
  const kinds = (pattern: string) => tokenizeRegex(pattern).map((token) => [token.kind, token.text]);

  it('reads a class, an escape and quoted text as one token each, so a `(` inside them opens no group', () => {
    expect(kinds('[](]\\((?:a)\\Q(b\\E')).toEqual([
      ['class', '[](]'],
      ['escape', '\\('],
      ['group', '(?:'],
      ['char', 'a'],
      ['close', ')'],
      ['quoted', '\\Q(b\\E'],
    ]);
  });

  it('ends a class at its first unescaped `]`, past an escaped one and a POSIX class', () => {
    expect(kinds('[^\\]a[:alpha:]](')).toEqual([
      ['class', '[^\\]a[:alpha:]]'],
      ['group', '('],
    ]);
  });

  it('reads counted repeats with their bounds, lazy and possessive suffixes, and a `{` that counts nothing as a character', () => {
    const quantifiers = tokenizeRegex('a{2}b{3,}c{4,25}+d*?e{x}').filter((token) => token.kind === 'quantifier');

    expect(quantifiers.map((token) => [token.text, token.kind === 'quantifier' ? [token.bounds, token.possessive] : []])).toEqual([
      ['{2}', [[2], false]],
      ['{3,}', [[3], false]],
      ['{4,25}+', [[4, 25], true]],
      ['*?', [[], false]],
    ]);
    expect(kinds('e{x}')).toEqual([
      ['char', 'e'],
      ['char', '{'],
      ['char', 'x'],
      ['char', '}'],
    ]);
  });

  it.each([
    ['(a)', 'capturing group'],
    ['(?<n>a)', 'named capturing group'],
    ["(?'n'a)", 'named capturing group'],
    ['(?P<n>a)', 'named capturing group'],
    ['(?=a)', 'lookaround'],
    ['(?!a)', 'lookaround'],
    ['(?<=a)b', 'lookaround'],
    ['(?<!a)b', 'lookaround'],
    ['(?R)', 'subroutine call or recursion'],
    ['(?1)', 'subroutine call or recursion'],
    ['(?&n)', 'subroutine call or recursion'],
    ['(?P>n)', 'subroutine call or recursion'],
    ['\\g1', 'backreference or subroutine call'],
    ['(?(1)a|b)', 'conditional'],
    ['(*FAIL)', 'backtracking control verb'],
    ['\\C', 'single-byte directive'],
    ['\\R', 'newline directive'],
    ['a\\Kb', 'match reset directive'],
    ['(?C1)', 'callout'],
    ['(?>a)', 'atomic group'],
    ['a*+', 'possessive quantifier'],
    ['a++', 'possessive quantifier'],
    ['a?+', 'possessive quantifier'],
    ['a{2}+', 'possessive quantifier'],
    ['\\1', 'backreference'],
    ['\\k<n>', 'backreference'],
    ['(?P=n)', 'backreference'],
    ['a{21}', 'counts to 21'],
    ['a{1,21}', 'counts to 21'],
    ['a{21,}', 'counts to 21'],
    ['a|b|c|d|e|f|g|h|i|j|k|l', '11 `|` branches'],
    ['a'.repeat(201), '201 characters'],
    ['[a', 'never closed'],
    ['a\\', 'lone backslash'],
    ['(?:a', 'never closed'],
    ['a)', 'unmatched'],
  ])('reports %j: %s', (pattern, construct) => {
    expect(regexProblems(pattern).join('; ')).toContain(construct);
  });

  it.each(['(?:a|b)', '(?i)abc', '(?i:abc)', '[(]\\)', '\\Qa(b\\E', 'a{2,20}', 'a*?b+?c??', '^\\d+$', 'a(?#note)b', 'a{x}', 'a|b|c|d|e|f|g|h|i|j|k', 'a'.repeat(200), '\\x{41}\\p{L}'])(
    'accepts %j',
    (pattern) => {
      expect(regexProblems(pattern)).toEqual([]);
    },
  );

  it('reports both patterns the web ACLs held: three capturing groups and 13 `|`, and a repeat of 64', () => {
    const credentials = regexProblems('(^|&)(api[-_]?key|x[-_]api[-_]key|key|token|access[-_]?token|auth|authorization|bearer|secret|password|client[-_]secret)(=|&|$)');
    expect(credentials.filter((problem) => problem.startsWith('capturing group'))).toHaveLength(3);
    expect(credentials).toContain('13 `|` branches, above the 10 this project allows');
    expect(regexProblems('^bearer pak_live_[0-9a-f]{64}$')).toEqual(['quantifier `{64}` at 25 counts to 64, above the 20 this project allows']);
  });
});

describe('waf-custom-response-limits', () => {
  const bodies = (count: number, content = '{}') => Object.fromEntries(Array.from({ length: count }, (_, i) => [`BODY_${i}`, { contentType: 'APPLICATION_JSON', content }]));

  it.each<[string, Partial<wafv2.CfnWebACLProps>, Partial<wafv2.CfnWebACLProps>, string]>([
    ['52 headers over 13 rules (above 50)', { rules: Array.from({ length: 13 }, (_, i) => sizeRule(i, blockWith(403, 4))) }, { rules: Array.from({ length: 12 }, (_, i) => sizeRule(i, blockWith(403, 4))) }, '52 custom response headers'],
    ['11 headers in one response', { rules: [sizeRule(1, blockWith(403, 11))] }, { rules: [sizeRule(1, blockWith(403, 10))] }, '11 headers in one custom response'],
    ['51 response bodies', { customResponseBodies: bodies(51) }, { customResponseBodies: bodies(50) }, '51 custom response bodies'],
    // 2,049 two-byte characters: 4,098 bytes, though only 2,049 characters.
    ['a body of 4,098 bytes', { customResponseBodies: bodies(1, 'é'.repeat(2049)) }, { customResponseBodies: bodies(1, 'é'.repeat(2048)) }, 'holds 4098 bytes'],
  ])('fails synthesis on %s, and passes one under the limit', (_, broken, corrected, expected) => {
    expect(expectWebAclRule('waf-custom-response-limits', broken, corrected)).toContain(expected);
  });
});

describe('waf-capacity', () => {
  const managed = [managedRule('AWSManagedRulesCommonRuleSet', 300), managedRule('AWSManagedRulesKnownBadInputsRuleSet', 301)];

  it('fails synthesis on an estimated 1,550 WCUs (900 managed, 13 CONTAINS rules with 4 transformations), and passes 1,500', () => {
    const message = expectWebAclRule(
      'waf-capacity',
      { rules: [...Array.from({ length: 13 }, (_, i) => containsRule(i)), ...managed] },
      { rules: [...Array.from({ length: 12 }, (_, i) => containsRule(i)), ...managed] },
    );

    expect(message).toContain('estimated 1550 WCUs');
  });

  it('fails synthesis on a managed group whose capacity is not declared', () => {
    const message = expectWebAclRule('waf-capacity', { rules: [managedRule('AWSManagedRulesSQLiRuleSet', 300)] }, { rules: managed });

    expect(message).toContain('capacity unknown for managed rule group AWS/AWSManagedRulesSQLiRuleSet');
  });

  it('prices statements at the developer guide’s costs', () => {
    const transformations = [{ Priority: 0, Type: 'URL_DECODE' }, { Priority: 1, Type: 'LOWERCASE' }];
    expect(statementCapacity({ ByteMatchStatement: { PositionalConstraint: 'CONTAINS', FieldToMatch: { UriPath: {} }, TextTransformations: transformations } })).toBe(30);
    expect(statementCapacity({ ByteMatchStatement: { PositionalConstraint: 'EXACTLY', FieldToMatch: { UriPath: {} }, TextTransformations: [{ Priority: 0, Type: 'NONE' }] } })).toBe(2);
    expect(statementCapacity({ RegexMatchStatement: { FieldToMatch: { QueryString: {} }, TextTransformations: transformations } })).toBe(23);
    expect(statementCapacity({ RegexMatchStatement: { FieldToMatch: { JsonBody: {} }, TextTransformations: [] } })).toBe(6);
    expect(statementCapacity({ SizeConstraintStatement: { FieldToMatch: { AllQueryArguments: {} }, TextTransformations: [] } })).toBe(11);
    expect(statementCapacity({ RegexPatternSetReferenceStatement: { FieldToMatch: { UriPath: {} }, TextTransformations: [] } })).toBe(25);
    expect(
      statementCapacity({
        RateBasedStatement: {
          CustomKeys: [{ Header: { Name: 'authorization', TextTransformations: transformations } }],
          ScopeDownStatement: { NotStatement: { Statement: { SizeConstraintStatement: { FieldToMatch: { UriPath: {} }, TextTransformations: [] } } } },
        },
      }),
    ).toBe(2 + 30 + 20 + 1);
    expect(statementCapacity({ OrStatement: { Statements: [{ GeoMatchStatement: {} }, { LabelMatchStatement: {} }, { IPSetReferenceStatement: {} }] } })).toBe(3);
    expect(statementCapacity({ ManagedRuleGroupStatement: { VendorName: 'AWS', Name: 'AWSManagedRulesCommonRuleSet' } })).toBe(700);
    expect(estimateCapacity({ AndStatement: { Statements: [{ XssMatchStatement: {} }, { GeoMatchStatement: {} }] } })).toEqual({ units: 1, unknown: ['XssMatchStatement'] });
    expect(() => statementCapacity({ XssMatchStatement: {} })).toThrow('no capacity known for XssMatchStatement');
  });
});

describe('waf-rate-rules', () => {
  const keys = (count: number) => Array.from({ length: count }, (_, i) => ({ header: { name: `h${i}`, textTransformations: NONE } }));
  const transformations = (count: number) => ['LOWERCASE', 'URL_DECODE', 'HTML_ENTITY_DECODE', 'COMPRESS_WHITE_SPACE', 'CMD_LINE', 'BASE64_DECODE', 'HEX_DECODE', 'MD5', 'REPLACE_COMMENTS', 'ESCAPE_SEQ_DECODE', 'SQL_HEX_DECODE'].slice(0, count).map((type, i) => ({ priority: i, type }));
  const searchRule = (length: number): wafv2.CfnWebACL.RuleProperty => ({
    name: 'search',
    priority: 1,
    action: { block: {} },
    statement: { byteMatchStatement: { fieldToMatch: { uriPath: {} }, positionalConstraint: 'EXACTLY', searchString: 's'.repeat(length), textTransformations: NONE } },
    visibilityConfig: visibility('search'),
  });

  it.each([
    ['11 rate-based rules', Array.from({ length: 11 }, (_, i) => rateRule(i)), Array.from({ length: 10 }, (_, i) => rateRule(i)), '11 rate-based rules'],
    ['a limit of 5', [rateRule(1, { limit: 5 })], [rateRule(1, { limit: 10 })], 'rate limit 5'],
    ['a limit above 2,000,000,000', [rateRule(1, { limit: 2_000_000_001 })], [rateRule(1, { limit: 2_000_000_000 })], 'rate limit 2000000001'],
    ['a 30-second window', [rateRule(1, { evaluationWindowSec: 30 })], [rateRule(1, { evaluationWindowSec: 300 })], 'evaluation window 30 s'],
    ['6 custom keys', [rateRule(1, { aggregateKeyType: 'CUSTOM_KEYS', customKeys: keys(6) })], [rateRule(1, { aggregateKeyType: 'CUSTOM_KEYS', customKeys: keys(5) })], '6 custom aggregation keys'],
    ['11 text transformations', [sizeRule(1, { block: {} }, transformations(11))], [sizeRule(1, { block: {} }, transformations(10))], '11 text transformations'],
    ['a search string of 201 characters', [searchRule(201)], [searchRule(200)], 'search string of 201 characters'],
  ])('fails synthesis on %s, and passes one within the limit', (_, broken, corrected, expected) => {
    expect(expectWebAclRule('waf-rate-rules', { rules: broken }, { rules: corrected })).toContain(expected);
  });
});

describe('waf-logging-redaction', () => {
  const loggingApp = (redactedFields: wafv2.CfnLoggingConfiguration.FieldToMatchProperty[]): { app: App; logging: wafv2.CfnLoggingConfiguration } => {
    const app = readinessApp();
    const logging = new wafv2.CfnLoggingConfiguration(stageStack(app), 'Logging', {
      resourceArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/partner-api-x-edge/1',
      logDestinationConfigs: ['arn:aws:logs:eu-west-1:123456789012:log-group:aws-waf-logs-partner-api-x'],
      redactedFields,
    });
    return { app, logging };
  };
  const header = (name: string): wafv2.CfnLoggingConfiguration.FieldToMatchProperty => ({ singleHeader: { Name: name } });

  it.each([
    ['101 redacted fields', Array.from({ length: 101 }, (_, i) => header(`h${i}`)), Array.from({ length: 100 }, (_, i) => header(`h${i}`)), '101 redacted fields'],
    ['a JSON body', [{ jsonBody: { matchPattern: { all: {} }, matchScope: 'ALL' } }], [{ queryString: {} }], 'is not exactly one of'],
    ['a header name WAF never matches (`Cookie`)', [header('Cookie')], [header('cookie')], 'is not a lowercase name'],
    ['one header twice', [header('cookie'), header('cookie')], [header('cookie'), header('x-join-token')], 'redacted twice'],
  ])('fails synthesis on %s, and passes the corrected list', (_, broken, corrected, expected) => {
    const failing = loggingApp(broken);
    expect(expectFinding(failing.app, 'waf-logging-redaction', where(failing.logging))).toContain(expected);
    expect(synthFailure(loggingApp(corrected).app)).toBeUndefined();
  });
});

// ── Lambda, IAM, CloudWatch ────────────────────────────────────────────────────────────────────

function cfnFunction(stack: Stack, variables: Record<string, string>): lambda.CfnFunction {
  return new lambda.CfnFunction(stack, 'Fn', {
    runtime: 'nodejs24.x',
    handler: 'index.handler',
    role: 'arn:aws:iam::123456789012:role/partner-api-x-fn',
    code: { zipFile: 'exports.handler = async () => ({});' },
    environment: { variables },
  });
}

describe('lambda-environment-size', () => {
  it.each([
    ['4,100 literal characters', () => ({ BIG: 'x'.repeat(4100) }), () => ({ BIG: 'x'.repeat(4000) }), 'environment of up to 4110 bytes'],
    ['a reserved key', () => ({ AWS_REGION: 'eu-west-1' }), () => ({ SERVICE_REGION: 'eu-west-1' }), 'sets AWS_REGION, reserved by the Lambda runtime'],
  ])('fails synthesis on %s, and passes the corrected environment', (_, broken, corrected, expected) => {
    const app = readinessApp();
    const fn = cfnFunction(stageStack(app), broken());
    expect(expectFinding(app, 'lambda-environment-size', where(fn))).toContain(expected);

    const fixed = readinessApp();
    cfnFunction(stageStack(fixed), corrected());
    expect(synthFailure(fixed)).toBeUndefined();
  });

  it('counts a queue ARN at its upper bound, not at the length it will have: 20 of them fail, 10 pass', () => {
    const withQueueArns = (app: App, count: number) => {
      const stack = stageStack(app);
      const queue = new sqs.CfnQueue(stack, 'Queue');
      return cfnFunction(stack, Object.fromEntries(Array.from({ length: count }, (_, i) => [`QUEUE_${i}`, queue.attrArn])));
    };
    const app = readinessApp();
    // Resolved, 20 ARNs of about 60 characters are some 1,600 bytes; bounded at 256 each, over 4 KB.
    expect(expectFinding(app, 'lambda-environment-size', where(withQueueArns(app, 20)))).toContain('estimated upper bound');

    const fixed = readinessApp();
    withQueueArns(fixed, 10);
    expect(synthFailure(fixed)).toBeUndefined();
  });
});

describe('iam-inline-policy-size', () => {
  /** `count` resource ARNs of 200 characters each. */
  const arns = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => `arn:aws:sqs:eu-west-1:123456789012:partner-api-x-${String(from + i).padStart(3, '0')}-`.padEnd(200, 'q'));

  function roleWithPolicies(app: App, perPolicy: number): iam.Role {
    const role = new iam.Role(stageStack(app), 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: { Inline: new iam.PolicyDocument({ statements: [new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: arns(0, perPolicy) })] }) },
    });
    // An AWS::IAM::Policy attached by Ref: the role's default policy.
    role.addToPolicy(new iam.PolicyStatement({ actions: ['sqs:ReceiveMessage'], resources: arns(perPolicy, perPolicy) }));
    return role;
  }

  it('fails synthesis on two policies of some 6,100 characters each on one role (12,200 together), and passes two of 4,100', () => {
    const app = readinessApp();
    const role = roleWithPolicies(app, 30);

    const message = expectFinding(app, 'iam-inline-policy-size', where(role.node.defaultChild as CfnElement));
    expect(message).toMatch(/inline policies of up to 12\d{3} characters together .*above IAM's 10240/);

    const fixed = readinessApp();
    roleWithPolicies(fixed, 20);
    expect(synthFailure(fixed)).toBeUndefined();
  });
});

describe('alarm-metric-math', () => {
  const metric = (metricName: string) =>
    new cloudwatch.Metric({ namespace: 'AWS/SQS', metricName, dimensionsMap: { QueueName: 'partner-api-x-jobs' }, period: Duration.minutes(1), statistic: 'Sum' });

  function mathAlarm(app: App, expression: string, usingMetrics: Record<string, cloudwatch.IMetric>): cloudwatch.Alarm {
    return new cloudwatch.Alarm(stageStack(app), 'Alarm', {
      metric: new cloudwatch.MathExpression({ expression, usingMetrics, period: Duration.minutes(1) }),
      threshold: 1,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  it('fails synthesis on a sum of metrics without FILL, and passes the filled sum', () => {
    const usingMetrics = { sent: metric('NumberOfMessagesSent'), received: metric('NumberOfMessagesReceived') };
    const app = readinessApp();
    const alarm = mathAlarm(app, 'sent + received', usingMetrics);

    expect(expectFinding(app, 'alarm-metric-math', where(alarm.node.defaultChild as CfnElement))).toContain('reads sent, received without FILL');

    const fixed = readinessApp();
    mathAlarm(fixed, 'FILL(sent, 0) + FILL(received, 0)', usingMetrics);
    expect(synthFailure(fixed)).toBeUndefined();
  });

  it('fails synthesis on 11 metrics, and passes 10', () => {
    // CDK's MathExpression refuses 11 metrics itself; a template can still hold them (L1, another tool, an escape hatch).
    const alarmOn = (app: App, count: number) =>
      new cloudwatch.CfnAlarm(stageStack(app), 'Alarm', {
        comparisonOperator: 'GreaterThanThreshold',
        evaluationPeriods: 1,
        threshold: 1,
        metrics: [
          { id: 'total', expression: Array.from({ length: count }, (_, i) => `FILL(m${i}, 0)`).join(' + '), returnData: true },
          ...Array.from({ length: count }, (_, i) => ({ id: `m${i}`, returnData: false, metricStat: { metric: { namespace: 'AWS/SQS', metricName: `Metric${i}` }, period: 60, stat: 'Sum' } })),
        ],
      });
    const app = readinessApp();

    expect(expectFinding(app, 'alarm-metric-math', where(alarmOn(app, 11)))).toContain('11 metrics, above the 10');

    const fixed = readinessApp();
    alarmOn(fixed, 10);
    expect(synthFailure(fixed)).toBeUndefined();
  });

  it('fails synthesis when two entries return data, and passes one', () => {
    const alarmReturning = (app: App, metricReturns: boolean) =>
      new cloudwatch.CfnAlarm(stageStack(app), 'Alarm', {
        comparisonOperator: 'GreaterThanThreshold',
        evaluationPeriods: 1,
        threshold: 1,
        metrics: [
          { id: 'total', expression: 'FILL(sent, 0)', returnData: true },
          { id: 'sent', returnData: metricReturns, metricStat: { metric: { namespace: 'AWS/SQS', metricName: 'NumberOfMessagesSent' }, period: 60, stat: 'Sum' } },
        ],
      });
    const app = readinessApp();

    expect(expectFinding(app, 'alarm-metric-math', where(alarmReturning(app, true)))).toContain('2 entries may return data (total, sent)');

    const fixed = readinessApp();
    alarmReturning(fixed, false);
    expect(synthFailure(fixed)).toBeUndefined();
  });
});

// ── Stacks ─────────────────────────────────────────────────────────────────────────────────────

describe('stack-size', () => {
  const handles = (stack: Stack, count: number) => {
    for (let i = 0; i < count; i += 1) new CfnResource(stack, `Handle${i}`, { type: 'AWS::CloudFormation::WaitConditionHandle' });
  };

  it.each([
    ['401 resources (above the 400 kept below the quota of 500)', (stack: Stack) => handles(stack, 401), (stack: Stack) => handles(stack, 400), '401 resources'],
    [
      '201 outputs',
      (stack: Stack) => (handles(stack, 1), Array.from({ length: 201 }, (_, i) => new CfnOutput(stack, `Out${i}`, { value: 'v' }))),
      (stack: Stack) => (handles(stack, 1), Array.from({ length: 200 }, (_, i) => new CfnOutput(stack, `Out${i}`, { value: 'v' }))),
      '201 outputs',
    ],
    [
      'a template over 1,000,000 bytes',
      (stack: Stack) => new CfnResource(stack, 'Padded', { type: 'AWS::CloudFormation::WaitConditionHandle' }).addMetadata('padding', 'p'.repeat(1_000_000)),
      (stack: Stack) => new CfnResource(stack, 'Padded', { type: 'AWS::CloudFormation::WaitConditionHandle' }).addMetadata('padding', 'p'.repeat(900_000)),
      'above 1000000',
    ],
  ])('fails synthesis on %s, and passes one within it', (_, broken, corrected, expected) => {
    const app = readinessApp();
    broken(stageStack(app));
    expect(expectFinding(app, 'stack-size', 'PartnerApi-x-Stateless')).toContain(expected);

    const fixed = readinessApp();
    corrected(stageStack(fixed));
    expect(synthFailure(fixed)).toBeUndefined();
  });

  it('reports more than 200 parameters or mappings', () => {
    const many = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`P${i}`, { Type: 'String' }]));
    const findings = checkTemplates([{ stackName: 'PartnerApi-x-Stateless', template: { Resources: {}, Parameters: many(201), Mappings: many(201) } }]);

    expect(findings.map((finding) => finding.message)).toEqual([
      expect.stringContaining('[stack-size] PartnerApi-x-Stateless: 201 parameters'),
      expect.stringContaining('[stack-size] PartnerApi-x-Stateless: 201 mappings'),
    ]);
    expect(checkTemplates([{ stackName: 'PartnerApi-x-Stateless', template: { Resources: {}, Parameters: many(200), Mappings: many(200) } }])).toEqual([]);
  });
});

describe('no-retain-on-create', () => {
  it('fails synthesis on DeletionPolicy Retain, and passes RetainExceptOnCreate', () => {
    const app = readinessApp();
    const queue = new sqs.Queue(stageStack(app), 'Queue', { removalPolicy: RemovalPolicy.RETAIN });

    expect(expectFinding(app, 'no-retain-on-create', where(queue.node.defaultChild as CfnElement))).toContain('RetainExceptOnCreate');

    const fixed = readinessApp();
    new sqs.Queue(stageStack(fixed), 'Queue', { removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE });
    expect(synthFailure(fixed)).toBeUndefined();
  });
});

describe('no-strong-cross-stack-reference', () => {
  it('fails synthesis on a CDK cross-stack reference (the export and the import), and passes an ARN rebuilt from the name', () => {
    const app = readinessApp();
    const deadLetters = new sqs.Queue(stageStack(app, 'Stateful'), 'DeadLetters', { queueName: 'partner-api-x-dead-letters' });
    const jobs = new sqs.Queue(stageStack(app, 'Stateless'), 'Jobs', { deadLetterQueue: { queue: deadLetters, maxReceiveCount: 3 } });

    const message = expectFinding(app, 'no-strong-cross-stack-reference', where(jobs.node.defaultChild as CfnElement));
    expect(message).toMatch(/\[no-strong-cross-stack-reference\] PartnerApi-x-Stateful\/ExportsOutput\w+: output exports/);

    const fixed = readinessApp();
    new sqs.Queue(stageStack(fixed, 'Stateful'), 'DeadLetters', { queueName: 'partner-api-x-dead-letters' });
    const stateless = stageStack(fixed, 'Stateless');
    const weak = sqs.Queue.fromQueueArn(stateless, 'DeadLettersByName', stateless.formatArn({ service: 'sqs', resource: 'partner-api-x-dead-letters' }));
    new sqs.Queue(stateless, 'Jobs', { deadLetterQueue: { queue: weak, maxReceiveCount: 3 } });
    expect(synthFailure(fixed)).toBeUndefined();
  });
});

// ── Names ──────────────────────────────────────────────────────────────────────────────────────

describe('unique-physical-names', () => {
  const queue = (stack: Stack, queueName: unknown, id = 'Queue') => new sqs.CfnQueue(stack, id, { queueName: queueName as string });

  it.each([
    ['a name without the stage token', (app: App) => where(queue(stageStack(app), 'jobs')), 'holds no stage token partner-api-x'],
    ['a token another stage name extends', (app: App) => where(queue(stageStack(app), 'partner-api-xy-jobs')), 'holds the token of stage xy'],
    ['a token followed by a computed part', (app: App) => where(queue(stageStack(app), Fn.join('', ['partner-api-x', Aws.REGION]))), 'holds no stage token'],
    ['a stage name with a hyphen', (app: App) => (new Stack(app, 'PartnerApi-x-y-Stateless'), 'PartnerApi-x-y-Stateless'), 'does not match'],
    ['the reserved stage name baseline', (app: App) => (new Stack(app, 'PartnerApi-baseline-Stateful'), 'PartnerApi-baseline-Stateful'), 'reserved'],
    ['a name chosen in a stack of no stage', (app: App) => where(queue(new Stack(app, 'Tools'), 'partner-api-x-jobs')), 'stack whose name says no stage'],
    [
      'one name claimed twice',
      (app: App) => {
        queue(stageStack(app, 'Stateful'), 'partner-api-x-jobs');
        return where(queue(stageStack(app, 'Stateless'), 'partner-api-x-jobs'));
      },
      'is also claimed by PartnerApi-x-Stateful/Queue',
    ],
    [
      'a function name above 64 characters',
      (app: App) => where(new lambda.CfnFunction(stageStack(app), 'Fn', { role: 'arn:aws:iam::123456789012:role/r', code: { zipFile: 'x' }, functionName: `partner-api-x-${'f'.repeat(51)}` })),
      '65 characters, above the 64',
    ],
    [
      'an IAM role name without the Region (IAM names are account-wide)',
      (app: App) => where(new iam.CfnRole(stageStack(app), 'Role', { assumeRolePolicyDocument: {}, roleName: 'partner-api-x-webhooks' })),
      'holds no Region',
    ],
    [
      'an IAM role name that a long Region would push past 64 characters',
      (app: App) => where(new iam.CfnRole(stageStack(app), 'Role', { assumeRolePolicyDocument: {}, roleName: `partner-api-x-${'r'.repeat(33)}-${Aws.REGION}` })),
      'at least 66 characters, above the 64',
    ],
    [
      'a named type the table does not list',
      (app: App) => where(new CfnResource(stageStack(app), 'Tick', { type: 'AWS::Events::Rule', properties: { Name: 'partner-api-x-tick', ScheduleExpression: 'rate(1 minute)' } })),
      'add it there',
    ],
  ])('fails synthesis on %s', (_, build, expected) => {
    const app = readinessApp();
    const at = build(app);

    expect(expectFinding(app, 'unique-physical-names', at)).toContain(expected);
  });

  it('passes names holding their own stage token, in two stages and the baseline', () => {
    const app = readinessApp();
    queue(stageStack(app, 'Stateless', 'x'), 'partner-api-x-jobs');
    queue(stageStack(app, 'Stateless', 'x2'), 'partner-api-x2-jobs');
    const stateful = stageStack(app, 'Stateful', 'x');
    queue(stateful, Fn.join('-', ['partner-api-x', Aws.REGION]));
    new secretsmanager.CfnSecret(stateful, 'Secret', { name: 'partner-api/x/cursor-signing' });
    queue(new Stack(app, 'PartnerApi-Baseline'), 'partner-api-baseline-audit');
    new iam.CfnRole(stateful, 'Role', { assumeRolePolicyDocument: { Version: '2012-10-17', Statement: [] }, roleName: `partner-api-x-webhooks-${Aws.REGION}` });

    expect(synthFailure(app)).toBeUndefined();
  });
});

describe('secret-name-suffix', () => {
  it('fails synthesis on a secret name ending in a hyphen and six characters, and passes a renamed one', () => {
    const app = readinessApp();
    const secret = new secretsmanager.CfnSecret(stageStack(app, 'Stateful'), 'Secret', { name: 'partner-api/x/record-cursor' });

    expect(expectFinding(app, 'secret-name-suffix', where(secret))).toContain('"partner-api/x/record-cursor" ends with a hyphen and six characters');

    const fixed = readinessApp();
    new secretsmanager.CfnSecret(stageStack(fixed, 'Stateful'), 'Secret', { name: 'partner-api/x/record-cursor-key' });
    expect(synthFailure(fixed)).toBeUndefined();
  });
});

// ── The estimate, the rule table, the registration ───────────────────────────────────────────────

describe('intrinsic size estimate', () => {
  const template: CfnTemplate = {
    Parameters: {
      Ssm: { Type: 'AWS::SSM::Parameter::Value<String>' },
      Choice: { Type: 'String', AllowedValues: ['dev', 'staging'] },
      Short: { Type: 'String', MaxLength: 5 },
    },
    Resources: {
      Fn: { Type: 'AWS::Lambda::Function' },
      Queue: { Type: 'AWS::SQS::Queue' },
      Table: { Type: 'AWS::DynamoDB::Table' },
      Widget: { Type: 'Custom::Widget' },
    },
    Outputs: { FnName: { Value: { Ref: 'Fn' }, Export: { Name: 'Exporter:FnName' } } },
  };
  const scope = (measure: Measure = 'characters'): IntrinsicScope => ({ template, stacks: [{ stackName: 'Exporter', template }], measure });
  const bound = (value: unknown, measure?: Measure) => maxStringLength(value, scope(measure));

  it('counts literals exactly, in characters or in UTF-8 bytes', () => {
    expect(bound('abc')).toBe(3);
    expect(bound('é')).toBe(1);
    expect(bound('é', 'utf8-bytes')).toBe(2);
  });

  it('adds up the parts of Fn::Join and Fn::Sub, pseudo parameters at their bounds', () => {
    expect(bound({ 'Fn::Join': ['-', ['a', { Ref: 'AWS::Region' }, { Ref: 'AWS::AccountId' }]] })).toBe(1 + 20 + 12 + 2);
    expect(bound({ 'Fn::Sub': 'arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:${Queue.QueueName}/${!Literal}' })).toBe(
      'arn::sqs:::/'.length + 10 + 20 + 12 + NAME_BOUND + '${Literal}'.length,
    );
    expect(bound({ 'Fn::Sub': ['${Name}-x', { Name: { Ref: 'AWS::StackName' } }] })).toBe(128 + 2);
  });

  it('bounds Ref and Fn::GetAtt by resource type and attribute, an ARN’s bound when neither says more', () => {
    expect(bound({ Ref: 'Fn' })).toBe(64);
    expect(bound({ Ref: 'Queue' })).toBe(QUEUE_URL_BOUND);
    expect(bound({ Ref: 'Widget' })).toBe(ARN_BOUND);
    expect(bound({ 'Fn::GetAtt': ['Queue', 'Arn'] })).toBe(ARN_BOUND);
    expect(bound({ 'Fn::GetAtt': ['Table', 'StreamArn'] })).toBe(ARN_BOUND + '/stream/2024-01-01T00:00:00.000'.length);
    expect(bound({ 'Fn::GetAtt': 'Widget.ServiceToken' })).toBe(ARN_BOUND);
  });

  it('bounds a parameter by its allowed values, its MaxLength, else its type', () => {
    expect(bound({ Ref: 'Ssm' })).toBe(256);
    expect(bound({ Ref: 'Choice' })).toBe('staging'.length);
    expect(bound({ Ref: 'Short' })).toBe(5);
  });

  it('follows Fn::ImportValue to the exported value, takes the longer branch of Fn::If and the source of a Select over Split', () => {
    expect(bound({ 'Fn::ImportValue': 'Exporter:FnName' })).toBe(64);
    expect(bound({ 'Fn::If': ['Cond', 'short', { Ref: 'AWS::StackName' }] })).toBe(128);
    expect(bound({ 'Fn::Select': [1, { 'Fn::Split': ['/', { 'Fn::GetAtt': ['Queue', 'Arn'] }] }] })).toBe(ARN_BOUND);
    expect(bound({ 'Fn::Select': [1, ['a', 'bcd']] })).toBe(3);
  });

  it('refuses what it cannot bound rather than guess', () => {
    expect(() => bound({ Ref: 'Missing' })).toThrow(UnboundedValueError);
    expect(() => bound({ 'Fn::GetAZs': '' })).toThrow(UnboundedValueError);
    expect(() => bound({ 'Fn::Join': [',', { 'Fn::GetAZs': '' }] })).toThrow(UnboundedValueError);
    expect(() => bound(['a list'])).toThrow(UnboundedValueError);
  });

  it('sizes JSON as IAM and Lambda measure it: no white space, a resolved intrinsic as a quoted string', () => {
    const literal = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['s3:GetObject'], Resource: '*', Condition: { Bool: { x: true } } }] };
    expect(maxJsonLength(literal, scope())).toBe(JSON.stringify(literal).length);
    expect(maxJsonLength({ TABLE: { Ref: 'Table' } }, scope('utf8-bytes'))).toBe('{"TABLE":""}'.length + NAME_BOUND);
    expect(maxJsonLength({ a: 'x', b: { 'Fn::If': ['Cond', { Ref: 'AWS::NoValue' }, 'yy'] } }, scope())).toBe('{"a":"x","b":"yy"}'.length);
  });
});

describe('the rule table', () => {
  it('gives every rule a unique id and the AWS documentation page it encodes', () => {
    const ids = DEPLOY_READINESS_RULES.map((rule) => rule.id);

    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of DEPLOY_READINESS_RULES) {
      expect(rule.id).toMatch(/^[a-z]+(?:-[a-z]+)+$/);
      expect(rule.docs, rule.id).toMatch(/^https:\/\/docs\.aws\.amazon\.com\/[\w./#-]+$/);
      expect(rule.title.length, rule.id).toBeGreaterThan(0);
    }
  });

  it('is registered by addComplianceChecks beside cdk-nag, as plugin DeployReadiness', () => {
    const app = new App({ context: cdkJsonContext() });
    addComplianceChecks(app);
    const stack = stageStack(app);
    const acl = webAcl(stack, { rules: [sizeRule(1, blockWith(431))] });
    new sqs.Queue(stack, 'PlainQueue');

    const failure = synthFailure(app);

    expect(failure).toContain(`[waf-custom-response-status] ${where(acl)}:`);
    expect(failure).toContain('(DeployReadiness)');
    // cdk-nag still runs beside it: a queue without TLS enforcement is one of its findings.
    expect(failure).toContain('AwsSolutions-SQS4');
  });
});

describe('the service’s stages', () => {
  let findings: readonly DeployFinding[];

  beforeAll(() => {
    // One account's view: the baseline and the three stages in one synthesis, so names are compared across stages.
    const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
    buildBaseline(app);
    for (const stage of ['dev', 'staging', 'prod']) buildStages(app, { stage });
    const assembly = app.synth();
    findings = checkTemplates(assembly.stacks.map((stack) => ({ stackName: stack.stackName, template: stack.template as CfnTemplate })));
  }, SYNTH_TIMEOUT_MS);

  it('dev, staging and prod, with the account baseline, have no deploy-readiness finding', () => {
    expect(findings.map((finding) => finding.message)).toEqual([]);
  });
});
