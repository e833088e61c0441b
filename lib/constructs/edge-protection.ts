/**
 * Edge protection: a regional WAFv2 web ACL associated with one front door's
 * `v1` stage (lib/config/surfaces.ts; the stack builds one per surface, so the
 * partner API and the web side spend separate rate budgets). Default action
 * allow; the rules here refuse requests that carry a key in the URL or break
 * the spec's request limits before API Gateway or a Lambda spends anything on
 * them (or traces their URL). The limits are the handlers' REQUEST_LIMITS,
 * which the pipeline applies on every surface, so the edge and the Lambda
 * agree (the Lambda keeps the same checks for traffic WAF lets through, e.g.
 * the local stack).
 *
 * Order: the credentials-in-URL rule first (CREDENTIALS_IN_URL_PRIORITY,
 * 10), size rules next (SIZE_RULE_PRIORITIES, 100 and 103), then the rate-based
 * rules generated from the surface's `edge` rows of the limits table that WAF
 * enforces (edge-rate-rules.ts; RATE_RULE_PRIORITY_BASE, 200, 203, …, in table
 * order; the `limits` prop defaults to LIMITS), then the AWS managed rule groups
 * with the surface's exclusions (edge-managed-rules.ts; MANAGED_RULE_PRIORITY_BASE,
 * 300+; docs/edge-protection.md). Each of the service's rules holds three
 * priorities (ANSWER_PRIORITY_SLOT): on the web side, the two after it answer
 * its matches by path (below).
 *
 * Every request may carry a credential, so no rule samples requests (metrics
 * stay on); blocked requests are logged with every header the surface reads a
 * credential from (lambdas/shared/http/credential-headers.ts) and the query
 * string redacted.
 *
 * Custom responses carry the spec's error envelope, in the surface's error
 * shape (the web side's adds top-level `code` and `message`), and on the web
 * side a settings path gets web settings' `{code, message, request_id}`: each
 * rule that answers with a custom response counts and labels its matches, and
 * two rules after it answer them by path (edge-answer-shapes.ts; the managed
 * groups' by their AWS labels, after both groups). WAF bodies are static text,
 * so `request_id` is the literal "edge" (also sent as X-Request-Id).
 *
 * Further rules come in through `additionalRules`/`additionalResponseBodies`;
 * they must come after the credentials-in-URL rule and its answers, and sample
 * nothing. Pick priorities from 13 to 99 to evaluate a rule before the size
 * rules, higher to evaluate it after (avoiding the size, rate and managed rules'
 * own and their answers'). Priorities, names and body keys must be unique; their
 * bodies are theirs (not answered by path).
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { CREDENTIAL_HEADERS } from '../../lambdas/shared/http/credential-headers';
import { CREDENTIAL_PARAMETER_NAMES, REQUEST_LIMITS } from '../../lambdas/shared/http/request-rules';
import { LIVE_KEY_PREFIX } from '../../lambdas/shared/identity/api-keys';
import { ERROR_CATALOG, type ErrorCode } from '../../lambdas/shared/errors';
import { SETTINGS_PATH, surfaceOfPath, type RouteDefinition, type Surface } from '../../lambdas/shared/http/routes';
import { LIMITS, type Limit } from '../../lambdas/shared/limits/limits-table';
import type { StageConfig } from '../config/stage-config';
import { SURFACE_PROFILES, surfaceNamePrefix } from '../config/surfaces';
import { EDGE_REQUEST_ID, errorBody, type EnvelopeCode } from './error-envelope';
import { ANSWER_PRIORITY_SLOT, answerManagedRulesByPath, answerOwnRulesByPath, type BodyCodes, type PathShapedRules } from './edge-answer-shapes';
import { managedRuleGroupRules } from './edge-managed-rules';
import { edgeRateRules, RATE_LIMITED_BODY_KEY, wafVisibility } from './edge-rate-rules';
import { stageRemovalPolicy } from './removal-policy';

export interface EdgeProtectionProps {
  readonly config: StageConfig;
  /** The front door this web ACL protects: names, rate rows and the error shape of its responses. */
  readonly surface: Surface;
  /** The API stage to protect (the surface's). */
  readonly stage: apigateway.Stage;
  /** The limits table whose `waf` edge rows of the surface become rate-based rules; defaults to LIMITS. */
  readonly limits?: readonly Limit[];
  /** The route table scoping the per-route quota rules (sign-in by source IP: edge-rate-rules.ts wafRouteQuotas); defaults to ROUTES. */
  readonly routes?: readonly RouteDefinition[];
  /**
   * Extra rules, each with a unique name and priority above CREDENTIALS_IN_URL_PRIORITY, and
   * sampled requests off (checkAdditionalRule).
   */
  readonly additionalRules?: readonly wafv2.CfnWebACL.RuleProperty[];
  /** Custom response bodies the extra rules reference, by key. */
  readonly additionalResponseBodies?: Readonly<Record<string, wafv2.CfnWebACL.CustomResponseBodyProperty>>;
}

interface SizeRule {
  readonly name: string;
  readonly code: ErrorCode;
  readonly fieldToMatch: wafv2.CfnWebACL.FieldToMatchProperty;
  /** Requests whose component is larger than this many bytes are blocked. */
  readonly maxSize: number;
}

/**
 * The spec's request limits as WAF size constraints. WAF measures bytes of
 * the raw component: the URI path includes the `/v1` stage prefix (as the
 * Lambda's fullPath check does) and stays percent-encoded; the query string
 * excludes the `?`.
 *
 * Not here: the Authorization header's limit. The spec answers it with 431,
 * which is not among the status codes WAF supports for custom responses
 * (https://docs.aws.amazon.com/waf/latest/developerguide/customizing-the-response-status-codes.html:
 * the 4xx it lists stop at 429), and a WAF block with any other status would
 * contradict the spec's answer. The function answers 431 AUTH_HEADER_TOO_LONG
 * itself, among its transport rules and before any store call; the edge
 * still counts such requests (a header over the limit is a malformed
 * credential for the rate rules), so a flood of them is shed by WAF's 429.
 * docs/edge-protection.md, "Oversized Authorization header".
 */
export const SIZE_RULES: readonly SizeRule[] = [
  { name: 'path-too-long', code: 'PATH_TOO_LONG', fieldToMatch: { uriPath: {} }, maxSize: REQUEST_LIMITS.pathChars },
  { name: 'query-too-long', code: 'QUERY_TOO_LONG', fieldToMatch: { queryString: {} }, maxSize: REQUEST_LIMITS.queryChars },
];

export const SIZE_RULE_PRIORITIES: readonly number[] = SIZE_RULES.map((_, i) => 100 + ANSWER_PRIORITY_SLOT * i);

/**
 * Evaluated before every other rule: a key in the URL is refused before API Gateway logs or traces the URL (on the web
 * side by its answers at the next two priorities, before any other rule: edge-answer-shapes.ts).
 */
export const CREDENTIALS_IN_URL_PRIORITY = 10;
/** The last priority the credentials-in-URL rule holds (its answers'); additional rules come after it. */
export const CREDENTIALS_IN_URL_LAST_PRIORITY = CREDENTIALS_IN_URL_PRIORITY + ANSWER_PRIORITY_SLOT - 1;
export const CREDENTIALS_IN_URL_RULE_NAME = 'credentials-in-url';

/** Percent-decoding, then lowercasing: `pak%5Flive_` and `PAK_LIVE_` are the prefix too. */
const DECODED_LOWERCASE: wafv2.CfnWebACL.TextTransformationProperty[] = [
  { priority: 0, type: 'URL_DECODE' },
  { priority: 1, type: 'LOWERCASE' },
];

/**
 * The rule that refuses credentials in the URL at the edge (400
 * CREDENTIALS_IN_URL): the live-key prefix anywhere in the URI path or the
 * query string, or a credential-named query parameter (the Lambda's own list,
 * CREDENTIAL_PARAMETER_NAMES). API Gateway's X-Ray trace records the URL with
 * its query string; a request WAF blocks never reaches it.
 */
export function credentialsInUrlRule(prefix: string): wafv2.CfnWebACL.RuleProperty {
  // Same rule on both surfaces: the web side takes no key at all, so a key in its URL is a leak just the same.
  const keyPrefixIn = (fieldToMatch: wafv2.CfnWebACL.FieldToMatchProperty): wafv2.CfnWebACL.StatementProperty => ({
    byteMatchStatement: { fieldToMatch, positionalConstraint: 'CONTAINS', searchString: LIVE_KEY_PREFIX, textTransformations: DECODED_LOWERCASE },
  });
  return {
    name: CREDENTIALS_IN_URL_RULE_NAME,
    priority: CREDENTIALS_IN_URL_PRIORITY,
    statement: {
      orStatement: {
        statements: [
          keyPrefixIn({ uriPath: {} }),
          keyPrefixIn({ queryString: {} }),
          {
            regexMatchStatement: {
              fieldToMatch: { queryString: {} },
              // Non-capturing groups only: WAF refuses capturing subexpressions.
              regexString: `(?:^|&)(?:${CREDENTIAL_PARAMETER_NAMES})(?:=|&|$)`,
              textTransformations: DECODED_LOWERCASE,
            },
          },
        ],
      },
    },
    action: {
      block: {
        customResponse: {
          responseCode: ERROR_CATALOG.CREDENTIALS_IN_URL.status,
          customResponseBodyKey: 'CREDENTIALS_IN_URL',
          responseHeaders: [...EDGE_RESPONSE_HEADERS],
        },
      },
    },
    visibilityConfig: wafVisibility(`${prefix}-${CREDENTIALS_IN_URL_RULE_NAME}`),
  };
}

/**
 * Fields WAF replaces with `REDACTED` in a surface's logs: where credentials travel (or wrongly
 * travel): every header the surface's code reads a credential from (CREDENTIAL_HEADERS, the same
 * constants the pipeline, the player site and web settings read them under), and the query string.
 * WAF redacts only UriPath, QueryString, SingleHeader (lowercase name) and Method, at most 100 fields
 * (the deploy-readiness check `waf-logging-redaction`).
 */
export function redactedFields(surface: Surface): wafv2.CfnLoggingConfiguration.FieldToMatchProperty[] {
  // singleHeader is untyped JSON in the L1, so the CloudFormation key casing (`Name`) is written out.
  return [...CREDENTIAL_HEADERS[surface].map((name) => ({ singleHeader: { Name: name } })), { queryString: {} }];
}

/** Headers on every WAF custom response. WAF sets Content-Type from the body's content type. */
export const EDGE_RESPONSE_HEADERS: readonly wafv2.CfnWebACL.CustomHTTPHeaderProperty[] = [
  { name: 'Cache-Control', value: 'no-store' },
  { name: 'X-Request-Id', value: EDGE_REQUEST_ID },
];

export class EdgeProtection extends Construct {
  public readonly surface: Surface;
  public readonly webAcl: wafv2.CfnWebACL;
  public readonly association: wafv2.CfnWebACLAssociation;
  /** The generated rate-based rules, in priority order. */
  public readonly rateRules: readonly wafv2.CfnWebACL.RuleProperty[];
  /** The AWS managed rule groups with this surface's overrides, in priority order. */
  public readonly managedRules: readonly wafv2.CfnWebACL.RuleProperty[];
  /** Name of the web ACL (the WebACL dimension of WAF metrics). */
  public readonly webAclName: string;
  /**
   * Metric names of the rules that block for the rate rules aggregating all traffic of the Region (CONSTANT key): the
   * rule's own, or its answers' where the web ACL answers it by path (its own then only counts).
   */
  public readonly regionWideRuleMetricNames: readonly string[];
  /** Where WAF logs the requests it blocks, credentials redacted. */
  public readonly logGroup: logs.LogGroup;
  public readonly logging: wafv2.CfnLoggingConfiguration;

  constructor(scope: Construct, id: string, props: EdgeProtectionProps) {
    super(scope, id);
    const { config, stage, surface } = props;
    if (!(surface in SURFACE_PROFILES)) throw new Error(`EdgeProtection: unknown surface ${JSON.stringify(surface)}`);
    this.surface = surface;
    const { errorShape } = SURFACE_PROFILES[surface];
    const prefix = surfaceNamePrefix(config.stage, surface);
    const additionalRules = props.additionalRules ?? [];
    additionalRules.forEach(checkAdditionalRule);
    const additionalBodies = props.additionalResponseBodies ?? {};

    const credentialsRule = credentialsInUrlRule(prefix);
    const sizeRules = SIZE_RULES.map((rule, i) => sizeRuleProperty(prefix, rule, SIZE_RULE_PRIORITIES[i]));
    const rate = edgeRateRules({
      surface,
      metricPrefix: prefix,
      limits: props.limits ?? LIMITS,
      ...(props.routes ? { routes: props.routes } : {}),
      commonHeaders: EDGE_RESPONSE_HEADERS,
    });
    this.rateRules = rate.rules;
    const managed = managedRuleGroupRules({ surface, metricPrefix: prefix, commonHeaders: EDGE_RESPONSE_HEADERS });
    this.webAclName = `${prefix}-edge`;

    // One body per code, keyed by the code: the size rules and the managed groups' size rules share theirs.
    const envelopeCodes = new Set<EnvelopeCode>(['CREDENTIALS_IN_URL', ...SIZE_RULES.map((rule) => rule.code), ...managed.responseCodes]);
    const envelopeBodies = Object.fromEntries(
      [...envelopeCodes].map((code): [string, wafv2.CfnWebACL.CustomResponseBodyProperty] => [
        code,
        { contentType: 'APPLICATION_JSON', content: errorBody(errorShape, code, EDGE_REQUEST_ID) },
      ]),
    );
    // The surface that serves web settings answers its settings paths in their shape (edge-answer-shapes.ts).
    const codeOfBody: BodyCodes = { ...Object.fromEntries([...envelopeCodes].map((code) => [code, code])), [RATE_LIMITED_BODY_KEY]: 'RATE_LIMITED' };
    const byPath = surfaceOfPath(SETTINGS_PATH) === surface;
    const unchanged = (rules: readonly wafv2.CfnWebACL.RuleProperty[]): PathShapedRules => ({ rules: [...rules], responseBodies: {}, answeredBy: {} });
    const own = (byPath ? answerOwnRulesByPath : unchanged)([credentialsRule, ...sizeRules, ...rate.rules], codeOfBody);
    const managedByPath = (byPath ? answerManagedRulesByPath : unchanged)(managed.rules, codeOfBody);
    this.managedRules = managedByPath.rules.filter((rule) => (rule.statement as wafv2.CfnWebACL.StatementProperty).managedRuleGroupStatement);
    const rules = [...own.rules, ...managedByPath.rules, ...additionalRules].sort((a, b) => a.priority - b.priority);
    checkUnique('rule priority', rules.map((r) => String(r.priority)));
    checkUnique('rule name', rules.map((r) => r.name));
    const metricOf = (name: string) => (rules.find((rule) => rule.name === name)!.visibilityConfig as wafv2.CfnWebACL.VisibilityConfigProperty).metricName;
    this.regionWideRuleMetricNames = rate.rules
      .filter((rule) => (rule.statement as { rateBasedStatement?: { aggregateKeyType?: string } }).rateBasedStatement?.aggregateKeyType === 'CONSTANT')
      .flatMap((rule) => (own.answeredBy[rule.name] ?? [rule.name]).map(metricOf));
    const generatedBodies = { ...envelopeBodies, ...rate.responseBodies, ...own.responseBodies, ...managedByPath.responseBodies };
    checkUnique('custom response body key', [...Object.keys(generatedBodies), ...Object.keys(additionalBodies)]);

    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      name: `${prefix}-edge`,
      // WAF descriptions allow no parentheses.
      description: `Edge protection for partner-api ${config.stage}${surface === 'web' ? ' web side, player site and web settings' : ''}`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: wafVisibility(`${prefix}-edge`),
      customResponseBodies: { ...generatedBodies, ...additionalBodies },
      rules,
    });

    // Blocked requests are logged with the surface's credential headers and the query string redacted (sampling is off).
    this.logGroup = new logs.LogGroup(this, 'BlockedRequestLogs', {
      // WAF delivers only to log groups whose name starts with `aws-waf-logs-`.
      logGroupName: `aws-waf-logs-${prefix}`,
      retention: config.logRetentionDays as number as logs.RetentionDays,
      removalPolicy: stageRemovalPolicy(config),
    });
    this.logging = new wafv2.CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      // WAF wants the log group ARN without the `:*` suffix CDK's logGroupArn carries.
      logDestinationConfigs: [
        Stack.of(this).formatArn({ service: 'logs', resource: 'log-group', arnFormat: ArnFormat.COLON_RESOURCE_NAME, resourceName: this.logGroup.logGroupName }),
      ],
      redactedFields: redactedFields(surface),
      // Untyped JSON in the L1: CloudFormation's key casing is written out.
      loggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
      },
    });

    this.association = new wafv2.CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
    // WAF rejects an association with a stage that does not exist yet. Today the ARN references the stage
    // resource; the explicit dependency keeps the order if the ARN is ever built from a literal stage name.
    this.association.node.addDependency(stage);
  }
}

function sizeRuleProperty(prefix: string, rule: SizeRule, priority: number): wafv2.CfnWebACL.RuleProperty {
  return {
    name: rule.name,
    priority,
    statement: {
      sizeConstraintStatement: {
        fieldToMatch: rule.fieldToMatch,
        comparisonOperator: 'GT',
        size: rule.maxSize,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    },
    action: {
      block: {
        customResponse: {
          responseCode: ERROR_CATALOG[rule.code].status,
          customResponseBodyKey: rule.code,
          responseHeaders: [...EDGE_RESPONSE_HEADERS],
        },
      },
    },
    visibilityConfig: wafVisibility(`${prefix}-${rule.name}`),
  };
}

/**
 * An extra rule may not undo what the web ACL guarantees: that a key in the URL is refused before
 * any other rule can let the request through (to API Gateway's trace), and that no rule keeps
 * sampled requests (every header, the Authorization value included).
 */
function checkAdditionalRule(rule: wafv2.CfnWebACL.RuleProperty): void {
  if (rule.priority <= CREDENTIALS_IN_URL_LAST_PRIORITY) {
    throw new Error(
      `EdgeProtection: additional rule ${rule.name} has priority ${rule.priority}; ${CREDENTIALS_IN_URL_RULE_NAME} (${CREDENTIALS_IN_URL_PRIORITY}, ` +
        `its answers to ${CREDENTIALS_IN_URL_LAST_PRIORITY}) must run first`,
    );
  }
  const visibility = rule.visibilityConfig as Partial<wafv2.CfnWebACL.VisibilityConfigProperty>;
  if (visibility.sampledRequestsEnabled !== false) {
    throw new Error(
      `EdgeProtection: additional rule ${rule.name} must set sampledRequestsEnabled: false (sampled requests keep the Authorization header); use wafVisibility()`,
    );
  }
}

function checkUnique(what: string, values: readonly string[]): void {
  const duplicates = values.filter((v, i) => values.indexOf(v) !== i);
  if (duplicates.length > 0) throw new Error(`EdgeProtection: duplicate ${what}: ${[...new Set(duplicates)].join(', ')}`);
}
