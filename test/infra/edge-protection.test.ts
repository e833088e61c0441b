import { beforeAll, describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Template } from 'aws-cdk-lib/assertions';
import * as credentialHeaders from '../../lambdas/shared/http/credential-headers';
import { COOKIE_HEADER, CREDENTIAL_HEADERS, HEADERS_WITHOUT_CREDENTIALS, JOIN_TOKEN_HEADER } from '../../lambdas/shared/http/credential-headers';
import { SETTINGS_REQUEST_HEADER } from '../../lambdas/settings/web-session';
import { REQUEST_LIMITS } from '../../lambdas/shared/http/request-rules';
import { SURFACE_OF_GROUP, type EndpointGroup, type RouteDefinition, type Surface } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { edgeLimits, LIMITS, quotaLimits, type EdgeLimit, type Limit } from '../../lambdas/shared/limits/limits-table';
import { resolveStageConfig } from '../../lib/config/stage-config';
import { SURFACE_PROFILES, SURFACES } from '../../lib/config/surfaces';
import { EdgeProtection, SIZE_RULE_PRIORITIES } from '../../lib/constructs/edge-protection';
import {
  MANAGED_RULE_GROUPS,
  ManagedRuleError,
  managedRuleGroupRules,
  type ManagedRuleAction,
  type ManagedRuleGroup,
} from '../../lib/constructs/edge-managed-rules';
import { gatewayErrors } from '../../lib/constructs/surface-api';
import { PROJECT_ROOT } from '../../lib/constructs/api-function';
import { EdgeRateRuleError, RATE_LIMITED_BODY_KEY, WELL_FORMED_CREDENTIAL_LENGTH, WELL_FORMED_CREDENTIAL_SHAPE, wafEdgeLimits, wafRouteQuotas } from '../../lib/constructs/edge-rate-rules';
import { isWellFormedCredential } from '../../lambdas/shared/identity/api-keys';
import { statementCapacity } from '../../lib/compliance/deploy-readiness/waf-capacity';
import { logicalIdByPath, resources, stage, stageLogicalId, synthStage } from './support';

const WEB_ACL = 'AWS::WAFv2::WebACL';

type Header = { Name: string; Value: string };
type CustomResponse = { ResponseCode: number; CustomResponseBodyKey: string; ResponseHeaders: Header[] };
type Statement = {
  SizeConstraintStatement?: { FieldToMatch: unknown; ComparisonOperator: string; Size: number; TextTransformations?: unknown };
  RateBasedStatement?: {
    Limit: number;
    EvaluationWindowSec?: number;
    AggregateKeyType: string;
    CustomKeys?: unknown[];
    ScopeDownStatement?: Statement;
  };
  ManagedRuleGroupStatement?: { VendorName: string; Name: string; Version?: string; RuleActionOverrides: RuleActionOverride[] };
};
type RuleActionOverride = { Name: string; ActionToUse: { Count?: Record<string, never>; Block?: { CustomResponse?: CustomResponse } } };
type Rule = {
  Name: string;
  Priority: number;
  Statement: Statement;
  /** Absent on a managed rule group's reference, which has OverrideAction and per-rule overrides instead. */
  Action?: { Block?: { CustomResponse: CustomResponse }; Count?: Record<string, never> };
  RuleLabels?: { Name: string }[];
  OverrideAction?: { None?: Record<string, never>; Count?: Record<string, never> };
  VisibilityConfig: { CloudWatchMetricsEnabled: boolean; MetricName: string; SampledRequestsEnabled: boolean };
};
type AclProperties = {
  Rules: Rule[];
  VisibilityConfig: Rule['VisibilityConfig'];
  CustomResponseBodies: Record<string, { ContentType: string; Content: string }>;
};

/** Logical id of a surface's web ACL (construct `Edge` for the partner API, `WebEdge` for the web side). */
function aclLogicalId(template: Template, surface: Surface): string {
  return logicalIdByPath(template, WEB_ACL, `/${SURFACE_PROFILES[surface].edgeConstructId}/WebAcl`);
}

function aclOf(template: Template, surface: Surface): AclProperties {
  return resources(template, WEB_ACL)[aclLogicalId(template, surface)].Properties as AclProperties;
}

function webAcl(stageName: string, surface: Surface = 'partner'): AclProperties {
  return aclOf(stage(stageName).statelessTemplate, surface);
}

/** The EdgeProtection construct alone, on a minimal REST API, with a given limits table (no Lambda, no bundling). */
function edgeTemplate(limits?: readonly Limit[], surface: Surface = 'partner'): AclProperties {
  const stack = new Stack(new App(), 'EdgeOnly');
  const api = new apigateway.RestApi(stack, 'Api', { deployOptions: { stageName: 'v1' } });
  api.root.addMethod('GET', new apigateway.MockIntegration());
  new EdgeProtection(stack, 'Edge', { config: resolveStageConfig('pr1'), surface, stage: api.deploymentStage, ...(limits ? { limits } : {}) });
  const [acl] = Object.values(resources(Template.fromStack(stack), WEB_ACL));
  return acl.Properties as AclProperties;
}

/** The body a WAF custom response of the surface must carry: the envelope, plus top-level code and message on the web side. */
function expectedEdgeBody(surface: Surface, code: string): unknown {
  const envelope = { ok: false, error: { code, message: expect.any(String) }, request_id: 'edge' };
  return surface === 'web' ? { ...envelope, code, message: expect.any(String) } : envelope;
}

function expectEdgeBody(content: string, surface: Surface, code: string): void {
  const parsed = JSON.parse(content) as { message?: string; error: { message: string } };
  expect(parsed).toEqual(expectedEdgeBody(surface, code));
  // One message, wherever a client reads it.
  if (surface === 'web') expect(parsed.message).toBe(parsed.error.message);
}

/** Policies of a surface's rate-based rules in order: its waf edge rows, then the quotas WAF holds on their routes (sign-in by IP). */
function ratePolicies(surface: Surface, limits: readonly Limit[] = LIMITS): string[] {
  return [...wafEdgeLimits(limits, surface), ...wafRouteQuotas(limits, ROUTES, surface).map((quota) => quota.limit)].map((l) => l.policy);
}

/** LIMITS with one edge row changed. */
function withEdgeRow(policy: string, change: Partial<EdgeLimit>): Limit[] {
  const found = LIMITS.some((l) => l.kind === 'edge' && l.policy === policy);
  if (!found) throw new Error(`no edge row ${policy}`);
  return LIMITS.map((l) => (l.kind === 'edge' && l.policy === policy ? { ...l, ...change } : l));
}

const HAS_AUTHORIZATION = {
  SizeConstraintStatement: {
    FieldToMatch: { SingleHeader: { Name: 'authorization' } },
    ComparisonOperator: 'GT',
    Size: 0,
    TextTransformations: [{ Priority: 0, Type: 'NONE' }],
  },
};

/** The credential is normalized as normalizeCredential does: white space compressed, then lowercased. */
const CREDENTIAL_NORMALIZATION = [
  { Priority: 0, Type: 'COMPRESS_WHITE_SPACE' },
  { Priority: 1, Type: 'LOWERCASE' },
];

const MALFORMED_CREDENTIAL = {
  AndStatement: {
    Statements: [
      HAS_AUTHORIZATION,
      {
        NotStatement: {
          Statement: {
            // 80 bytes of `bearer pak_live_` and hex, after normalization: no {64} quantifier, which WAF warns against.
            AndStatement: {
              Statements: [
                {
                  SizeConstraintStatement: {
                    FieldToMatch: { SingleHeader: { Name: 'authorization' } },
                    ComparisonOperator: 'EQ',
                    Size: 80,
                    TextTransformations: CREDENTIAL_NORMALIZATION,
                  },
                },
                {
                  RegexMatchStatement: {
                    FieldToMatch: { SingleHeader: { Name: 'authorization' } },
                    RegexString: '^bearer pak_live_[0-9a-f]+$',
                    TextTransformations: CREDENTIAL_NORMALIZATION,
                  },
                },
              ],
            },
          },
        },
      },
    ],
  },
};

const SCOPE_DOWN = { all: undefined, credentialed: HAS_AUTHORIZATION, 'malformed-credential': MALFORMED_CREDENTIAL } as const;

const AGGREGATE_KEY_TYPE = { ip: 'IP', credential: 'CUSTOM_KEYS', location: 'CONSTANT' } as const;

/**
 * The custom response that answers what rule `name` matches (on a path other than a settings one): the rule's own
 * block, or, where the web ACL answers by path (the web side: lib/constructs/edge-answer-shapes.ts), its `-answer`
 * rule's. test/infra/settings-front-shape.test.ts checks the settings answers.
 */
function answerOf(acl: AclProperties, name: string): CustomResponse {
  const rule = acl.Rules.find((r) => r.Name === name);
  const response = rule?.Action?.Block?.CustomResponse ?? acl.Rules.find((r) => r.Name === `${name}-answer`)?.Action?.Block?.CustomResponse;
  if (!response) throw new Error(`nothing answers ${name} with a custom response`);
  return response;
}

const headerValue = (response: CustomResponse, name: string) => response.ResponseHeaders.find((h) => h.Name.toLowerCase() === name.toLowerCase())?.Value;

/** Asserts that the rule named after `row`'s policy in `acl` is the WAF rendering of `row`, and answers it. */
function expectRuleFollowsRow(acl: AclProperties, row: EdgeLimit): void {
  expect(row.kind).toBe('edge');
  const rule = acl.Rules.find((r) => r.Name === row.policy);
  expect(rule, `rule for ${row.policy}`).toBeDefined();
  const statement = rule!.Statement.RateBasedStatement!;
  expect(statement).toBeDefined();
  expect(statement.AggregateKeyType).toBe(AGGREGATE_KEY_TYPE[row.aggregate]);
  expect(statement.Limit).toBe(row.limit);
  expect(statement.EvaluationWindowSec).toBe(row.windowSeconds);
  if (row.aggregate === 'credential') {
    expect(statement.CustomKeys).toEqual([{ Header: { Name: 'authorization', TextTransformations: CREDENTIAL_NORMALIZATION } }]);
  } else {
    expect(statement.CustomKeys).toBeUndefined();
  }
  expect(statement.ScopeDownStatement).toEqual(SCOPE_DOWN[row.counts]);

  const response = answerOf(acl, row.policy);
  expect(response.ResponseCode).toBe(429);
  expect(response.CustomResponseBodyKey).toBe(RATE_LIMITED_BODY_KEY);
  expect(headerValue(response, 'Retry-After')).toBe(String(row.windowSeconds));
  expect(headerValue(response, 'X-RateLimit-Policy')).toBe(row.policy);
  expect(headerValue(response, 'Cache-Control')).toBe('no-store');
  expect(rule!.VisibilityConfig).toMatchObject({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: false });
  expect(rule!.VisibilityConfig.MetricName).toMatch(new RegExp(`-${row.policy}$`));
}

// Synthesizing a stage takes tens of seconds on a busy machine: once per stage, in a hook with room for it, not in a test's budget.
beforeAll(() => {
  for (const name of ['dev', 'prod']) stage(name);
}, 300_000);

describe('edge protection (WAF)', () => {
  it('is one regional web ACL per front door, each allowing by default', () => {
    const { statelessTemplate } = stage('dev');

    statelessTemplate.resourceCountIs(WEB_ACL, 2);
    for (const [surface, name] of [
      ['partner', 'partner-api-dev-edge'],
      ['web', 'partner-api-dev-web-edge'],
    ] as const) {
      expect(webAcl('dev', surface)).toMatchObject({
        Name: name,
        Scope: 'REGIONAL',
        DefaultAction: { Allow: {} },
        VisibilityConfig: { CloudWatchMetricsEnabled: true, SampledRequestsEnabled: false, MetricName: name },
      });
    }
  });

  it.each(SURFACES)('samples no request anywhere in the %s web ACL (sampled requests keep every header, the Authorization value included), metrics on', (surface) => {
    const acl = webAcl('dev', surface);
    expect(acl.VisibilityConfig).toMatchObject({ SampledRequestsEnabled: false, CloudWatchMetricsEnabled: true });
    for (const rule of acl.Rules) expect(rule.VisibilityConfig, rule.Name).toMatchObject({ SampledRequestsEnabled: false, CloudWatchMetricsEnabled: true });
  });

  it.each([
    ['partner', 'Edge', 'aws-waf-logs-partner-api-dev'],
    ['web', 'WebEdge', 'aws-waf-logs-partner-api-dev-web'],
  ] as const)('logs only blocked requests of the %s web ACL, with its credential headers and the query string redacted, to its own aws-waf-logs- group', (surface, construct, logGroupName) => {
    const { statelessTemplate } = stage('dev');
    const aclId = aclLogicalId(statelessTemplate, surface);
    const logging = Object.values(resources(statelessTemplate, 'AWS::WAFv2::LoggingConfiguration')).find(
      (l) => JSON.stringify(l.Properties.ResourceArn) === JSON.stringify({ 'Fn::GetAtt': [aclId, 'Arn'] }),
    )!;
    expect(logging).toBeDefined();
    expect(logging.Properties.RedactedFields).toEqual([...CREDENTIAL_HEADERS[surface].map((name) => ({ SingleHeader: { Name: name } })), { QueryString: {} }]);
    expect(logging.Properties.LoggingFilter).toEqual({
      DefaultBehavior: 'DROP',
      Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
    });
    const destination = JSON.stringify(logging.Properties.LogDestinationConfigs);
    expect(destination).toMatch(new RegExp(`:log-group:",\\{"Ref":"${construct}BlockedRequestLogs\\w+"\\}\\]\\]\\}\\]$`));
    expect(destination).not.toContain(':*');
    statelessTemplate.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: logGroupName });
  });

  it('redacts the web side\'s cookies (settings_session, player_credential), the join token and a misdirected key from its logs; the partner API\'s key', () => {
    const { statelessTemplate } = stage('dev');
    const redactedHeaders = (surface: Surface): string[] => {
      const aclId = aclLogicalId(statelessTemplate, surface);
      const logging = Object.values(resources(statelessTemplate, 'AWS::WAFv2::LoggingConfiguration')).find(
        (l) => JSON.stringify(l.Properties.ResourceArn) === JSON.stringify({ 'Fn::GetAtt': [aclId, 'Arn'] }),
      )!;
      return (logging.Properties.RedactedFields as { SingleHeader?: { Name: string } }[]).flatMap((field) => (field.SingleHeader ? [field.SingleHeader.Name] : []));
    };
    expect(redactedHeaders('web').sort()).toEqual(['authorization', 'cookie', 'x-join-token']);
    expect(redactedHeaders('partner')).toEqual(['authorization']);
  });

  it('knows every header the code reads: each is a credential header of the surface whose code reads it (redacted), or declared without credentials', () => {
    const reads = headerReads(join(PROJECT_ROOT, 'lambdas'));
    expect(reads.length).toBeGreaterThan(10);
    const credentialNames = new Set(Object.values(CREDENTIAL_HEADERS).flat());
    const unknown = reads.filter((read) => !credentialNames.has(read.name) && !HEADERS_WITHOUT_CREDENTIALS.includes(read.name));
    expect(unknown.map((read) => `${read.file}: ${read.name}`)).toEqual([]);
    // A credential is read under credential-headers.ts's constant, never a literal of its own.
    expect(reads.filter((read) => credentialNames.has(read.name) && read.literal).map((read) => `${read.file}: '${read.name}'`)).toEqual([]);
    // Code of a group reads credentials only from headers its surface's logs redact; shared code from those of some surface.
    for (const read of reads.filter((r) => credentialNames.has(r.name))) {
      const group = /^lambdas\/([a-z-]+)\//.exec(read.file)?.[1] as EndpointGroup | undefined;
      const surfaces = group && group in SURFACE_OF_GROUP ? [SURFACE_OF_GROUP[group]] : SURFACES.filter((s) => CREDENTIAL_HEADERS[s].includes(read.name));
      expect(surfaces.length, `${read.file} reads ${read.name}`).toBeGreaterThan(0);
      for (const surface of surfaces) expect(CREDENTIAL_HEADERS[surface], `${read.file} reads ${read.name}`).toContain(read.name);
    }
    // And every declared credential header is read somewhere: a stale entry would hide a renamed one.
    for (const name of credentialNames) expect(reads.some((read) => read.name === name), name).toBe(true);
    expect(reads.filter((read) => read.name === JOIN_TOKEN_HEADER).map((read) => read.file)).toContain('lambdas/player/player-operations.ts');
    // The front doors of the web side read the cookies (settings' session, the player's credential).
    expect(reads.filter((read) => read.name === COOKIE_HEADER).map((read) => read.file)).toEqual(
      expect.arrayContaining(['lambdas/settings/settings-pipeline.ts', 'lambdas/player/player-pipeline.ts']),
    );
  });

  it.each(SURFACES)('refuses a key in the URL first of all %s rules: the prefix in the path or query (percent-decoded, lowercased), or a credential-named parameter', (surface) => {
    const acl = webAcl('dev', surface);
    const rule = acl.Rules.find((r) => r.Name === 'credentials-in-url')!;
    expect(Math.min(...acl.Rules.map((r) => r.Priority))).toBe(rule.Priority);
    const transformations = [
      { Priority: 0, Type: 'URL_DECODE' },
      { Priority: 1, Type: 'LOWERCASE' },
    ];
    const [path, query, names] = (rule.Statement as unknown as { OrStatement: { Statements: Record<string, Record<string, unknown>>[] } }).OrStatement.Statements;
    expect(path.ByteMatchStatement).toEqual({ FieldToMatch: { UriPath: {} }, PositionalConstraint: 'CONTAINS', SearchString: 'pak_live_', TextTransformations: transformations });
    expect(query.ByteMatchStatement).toEqual({ FieldToMatch: { QueryString: {} }, PositionalConstraint: 'CONTAINS', SearchString: 'pak_live_', TextTransformations: transformations });
    expect(names.RegexMatchStatement).toMatchObject({ FieldToMatch: { QueryString: {} }, TextTransformations: transformations });
    const pattern = String(names.RegexMatchStatement.RegexString);
    const regex = new RegExp(pattern);
    for (const query of ['api_key=x', 'a=1&token=y', 'access_token=z&b=2', 'key']) expect(regex.test(query), query).toBe(true);
    for (const query of ['keyword=x', 'cursor=abc', 'tokens=1']) expect(regex.test(query), query).toBe(false);
    // Every name of the list, as a whole parameter name only, and nothing WAF refuses: no capturing group.
    const names_ = ['key', 'apikey', 'api-key', 'api_key', 'x-api-key', 'x_api_key', 'x-api_key', 'token', 'accesstoken', 'access-token', 'access_token', 'auth', 'authorization', 'bearer', 'secret', 'client-secret', 'client_secret', 'password'];
    for (const name of names_) {
      expect(regex.test(`${name}=v`), name).toBe(true);
      expect(regex.test(`a=1&${name}`), name).toBe(true);
      expect(regex.test(`x${name}=v`), `x${name}`).toBe(false);
      expect(regex.test(`${name}s=v`), `${name}s`).toBe(false);
    }
    for (const query of ['x-apikey=1', 'xapi-key=1', 'authorisation=1', 'clientsecret=1', 'access__token=1']) expect(regex.test(query), query).toBe(false);
    expect(pattern).not.toMatch(/\((?!\?:)/);
    expect(answerOf(acl, rule.Name).ResponseCode).toBe(400);
    expect(answerOf(acl, rule.Name).CustomResponseBodyKey).toBe('CREDENTIALS_IN_URL');
    expectEdgeBody(acl.CustomResponseBodies.CREDENTIALS_IN_URL.Content, surface, 'CREDENTIALS_IN_URL');
  });

  it.each(
    SURFACES.flatMap((surface) =>
      (
        [
          ['PATH_TOO_LONG', 'path-too-long', { UriPath: {} }, REQUEST_LIMITS.pathChars, 414],
          ['QUERY_TOO_LONG', 'query-too-long', { QueryString: {} }, REQUEST_LIMITS.queryChars, 414],
        ] as const
      ).map(([code, name, field, limit, status]) => [surface, code, name, field, limit, status] as const),
    ),
  )('%s: blocks %s at the edge (%s): size > limit of the spec, custom status and the surface’s error body', (surface, code, name, field, limit, status) => {
    const acl = webAcl('dev', surface);

    const rule = acl.Rules.find((r) => r.Name === name);
    expect(rule).toBeDefined();
    expect(rule!.Statement.SizeConstraintStatement).toMatchObject({ FieldToMatch: field, ComparisonOperator: 'GT', Size: limit });
    expect(answerOf(acl, name).CustomResponseBodyKey).toBe(code);
    expect(answerOf(acl, name).ResponseCode).toBe(status);
    expect(answerOf(acl, name).ResponseHeaders).toEqual(
      expect.arrayContaining([
        { Name: 'Cache-Control', Value: 'no-store' },
        { Name: 'X-Request-Id', Value: 'edge' },
      ]),
    );

    const body = acl.CustomResponseBodies[code];
    expect(body.ContentType).toBe('APPLICATION_JSON');
    expectEdgeBody(body.Content, surface, code);
  });

  it.each(SURFACES)('leaves an oversized Authorization header to the function on %s: no rule measures it, nothing answers 431 (not a status WAF supports)', (surface) => {
    const acl = webAcl('dev', surface);
    const text = JSON.stringify(acl);

    expect(text).not.toContain('"ResponseCode":431');
    expect(Object.keys(acl.CustomResponseBodies)).not.toContain('AUTH_HEADER_TOO_LONG');
    const sizeRules = acl.Rules.filter((rule) => rule.Statement.SizeConstraintStatement);
    expect(sizeRules.map((rule) => rule.Name)).toEqual(['path-too-long', 'query-too-long']);
  });

  it.each(SURFACES)('associates the %s web ACL with its own API’s v1 stage, after the stage exists', (surface) => {
    const { statelessTemplate } = stage('dev');
    const stageId = stageLogicalId(statelessTemplate, surface);
    const aclId = aclLogicalId(statelessTemplate, surface);

    const associations = Object.values(resources(statelessTemplate, 'AWS::WAFv2::WebACLAssociation')).filter(
      (a) => JSON.stringify(a.Properties.WebACLArn) === JSON.stringify({ 'Fn::GetAtt': [aclId, 'Arn'] }),
    );
    expect(associations).toHaveLength(1);
    expect(associations[0].Properties.ResourceArn).toEqual({
      'Fn::Join': ['', expect.arrayContaining([':apigateway:', '::/restapis/', { Ref: logicalIdByPath(statelessTemplate, 'AWS::ApiGateway::RestApi', `/${SURFACE_PROFILES[surface].apiConstructId}/RestApi/Resource`) }, '/stages/', { Ref: stageId }])],
    });
    expect([associations[0].DependsOn ?? []].flat()).toContain(stageId);
    expect(resources(statelessTemplate, 'AWS::ApiGateway::Stage')[stageId].Properties.StageName).toBe('v1');
    statelessTemplate.resourceCountIs('AWS::WAFv2::WebACLAssociation', 2);
  });

  it('accepts additional rules (e.g. rate-based) after the size rules, in the web ACL they are given to only, in priority order', () => {
    const { statelessTemplate } = synthStage({
      stage: 'pr7',
      stateless: {
        edgeRules: {
          partner: [
          {
            name: 'ip-rate',
            priority: 150,
            statement: { rateBasedStatement: { limit: 180, aggregateKeyType: 'IP', evaluationWindowSec: 60 } },
            action: { block: { customResponse: { responseCode: 429, customResponseBodyKey: 'EXTRA' } } },
            visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'ip-rate', sampledRequestsEnabled: false },
          },
          ],
        },
        edgeResponseBodies: { partner: { EXTRA: { contentType: 'APPLICATION_JSON', content: '{}' } } },
      },
    });

    const acl = aclOf(statelessTemplate, 'partner');
    expect(acl.Rules.map((r) => r.Name)).toEqual([
      'credentials-in-url',
      'path-too-long',
      'query-too-long',
      'ip-rate',
      ...wafEdgeLimits(LIMITS, 'partner').map((l) => l.policy),
      ...MANAGED_RULE_GROUPS.map((g) => g.ruleName),
    ]);
    expect(Object.keys(acl.CustomResponseBodies)).toEqual(expect.arrayContaining(['EXTRA', RATE_LIMITED_BODY_KEY]));
    const web = aclOf(statelessTemplate, 'web');
    expect(web.Rules.map((r) => r.Name)).not.toContain('ip-rate');
    expect(Object.keys(web.CustomResponseBodies)).not.toContain('EXTRA');
  });

  describe('refuses an additional rule that would undo the credential guarantees', () => {
    const extraRule = (priority: number, sampledRequestsEnabled: boolean): wafv2.CfnWebACL.RuleProperty => ({
      name: 'extra',
      priority,
      statement: { byteMatchStatement: { fieldToMatch: { uriPath: {} }, positionalConstraint: 'STARTS_WITH', searchString: '/v1/', textTransformations: [{ priority: 0, type: 'NONE' }] } },
      action: { allow: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'extra', sampledRequestsEnabled },
    });

    it.each(SURFACES)('a rule of the %s web ACL that samples requests (they keep the Authorization header)', (surface) => {
      expect(() => synthStage({ stage: 'pr10', stateless: { edgeRules: { [surface]: [extraRule(150, true)] } } })).toThrow(/extra must set sampledRequestsEnabled: false/);
    });

    it.each([5, 10, 12])('a rule at priority %i, which could let a key in the URL through before credentials-in-url refuses it (or its answers do)', (priority) => {
      expect(() => synthStage({ stage: 'pr11', stateless: { edgeRules: { web: [extraRule(priority, false)] } } })).toThrow(/credentials-in-url \(10, its answers to 12\) must run first/);
    });
  });

  it('rejects an additional response body whose key collides with the generated rate-limit body', () => {
    expect(() =>
      synthStage({ stage: 'pr9', stateless: { edgeResponseBodies: { web: { [RATE_LIMITED_BODY_KEY]: { contentType: 'APPLICATION_JSON', content: '{}' } } } } }),
    ).toThrow(/duplicate custom response body key/);
  });

  it('rejects an additional rule whose priority collides with a size rule', () => {
    expect(() =>
      synthStage({
        stage: 'pr8',
        stateless: {
          edgeRules: {
            partner: [
            {
              name: 'clash',
              priority: 100,
              statement: { sizeConstraintStatement: { fieldToMatch: { body: {} }, comparisonOperator: 'GT', size: 1, textTransformations: [{ priority: 0, type: 'NONE' }] } },
              action: { block: {} },
              visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'clash', sampledRequestsEnabled: false },
            },
            ],
          },
        },
      }),
    ).toThrow(/duplicate rule priority/);
  });
});

describe('edge protection: rate-based rules generated from LIMITS', () => {
  const wafRows = wafEdgeLimits(LIMITS);

  it('has edge rows enforced by WAF on both front doors (the table is not empty of them)', () => {
    for (const surface of SURFACES) expect(wafEdgeLimits(LIMITS, surface).length, surface).toBeGreaterThan(0);
  });

  it.each(wafRows.map((row) => [row.policy, row.surface, row] as const))('renders %s as a blocking rate-based rule of the %s web ACL only', (policy, surface, row) => {
    expectRuleFollowsRow(webAcl('dev', surface), row);
    const other: Surface = surface === 'partner' ? 'web' : 'partner';
    expect(webAcl('dev', other).Rules.map((r) => r.Name)).not.toContain(policy);
  });

  it('limits the web side by source IP to the web-ip-minute row: 60 requests per minute, every request counted', () => {
    const row = edgeLimits(LIMITS).find((l) => l.policy === 'web-ip-minute')!;
    expect(row).toMatchObject({ surface: 'web', aggregate: 'ip', windowSeconds: 60, limit: 60, counts: 'all', enforcedBy: 'waf' });

    const rule = webAcl('dev', 'web').Rules.find((r) => r.Name === 'web-ip-minute')!;
    expect(rule.Statement.RateBasedStatement).toEqual({ AggregateKeyType: 'IP', EvaluationWindowSec: row.windowSeconds, Limit: row.limit });
    const answer = answerOf(webAcl('dev', 'web'), 'web-ip-minute');
    expect(headerValue(answer, 'Retry-After')).toBe('60');
    expect(headerValue(answer, 'X-RateLimit-Policy')).toBe('web-ip-minute');
    expect(answer.ResponseCode).toBe(429);
  });

  it.each(['dev', 'prod'])('has exactly one rate-based rule per waf edge row of each surface, none for application rows, on %s', (name) => {
    for (const surface of SURFACES) {
      const rules = webAcl(name, surface).Rules;
      expect(rules.filter((r) => r.Statement.RateBasedStatement).map((r) => r.Name)).toEqual(ratePolicies(surface));
      const applicationPolicies = edgeLimits(LIMITS).filter((l) => l.enforcedBy === 'application').map((l) => l.policy);
      expect(applicationPolicies).toEqual(expect.arrayContaining(['edge-ip-burst', 'web-ip-burst']));
      const names = new Set(rules.map((r) => r.Name));
      for (const policy of applicationPolicies) expect(names.has(policy), policy).toBe(false);
    }
  });

  it.each(SURFACES)('evaluates the %s size rules first, then the rate rules in table order', (surface) => {
    const acl = webAcl('dev', surface);
    const rate = acl.Rules.filter((r) => r.Statement.RateBasedStatement);
    const priorities = rate.map((r) => r.Priority);
    expect(Math.min(...priorities)).toBeGreaterThan(Math.max(...SIZE_RULE_PRIORITIES));
    expect([...rate].sort((a, b) => a.Priority - b.Priority).map((r) => r.Name)).toEqual(ratePolicies(surface));
  });

  it('refuses sign-in attempts from one address over the function\'s per-IP sign-in rate at the edge, before the stage throttle: POST of the sign-in route, by IP', () => {
    const row = quotaLimits(LIMITS).find((l) => l.holder === 'sign-in-ip' && l.windowSeconds === 60)!;
    expect(row).toMatchObject({ policy: 'sign-in-ip-minute', limit: 10, covers: ['settings-sign-in'] });
    const signIn = (ROUTES as readonly RouteDefinition[]).filter((route) => route.category === 'settings-sign-in');
    expect(signIn.map((route) => `${route.method} ${route.path}`)).toEqual(['POST /settings/api/session']);

    const rule = webAcl('dev', 'web').Rules.find((r) => r.Name === row.policy)!;
    expect(rule).toBeDefined();
    expect(rule.Statement.RateBasedStatement).toEqual({
      AggregateKeyType: 'IP',
      EvaluationWindowSec: row.windowSeconds,
      Limit: row.limit,
      ScopeDownStatement: {
        AndStatement: {
          Statements: [
            { ByteMatchStatement: { FieldToMatch: { Method: {} }, PositionalConstraint: 'EXACTLY', SearchString: 'POST', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } },
            {
              ByteMatchStatement: {
                FieldToMatch: { UriPath: {} },
                PositionalConstraint: 'STARTS_WITH',
                SearchString: '/v1/settings/api/session',
                // Decoded, then normalized (repeated slashes, dot segments): every spelling API Gateway may route here is counted.
                TextTransformations: [
                  { Priority: 0, Type: 'URL_DECODE' },
                  { Priority: 1, Type: 'NORMALIZE_PATH' },
                ],
              },
            },
          ],
        },
      },
    });
    const answer = answerOf(webAcl('dev', 'web'), row.policy);
    expect(answer.ResponseCode).toBe(429);
    expect(headerValue(answer, 'Retry-After')).toBe(String(row.windowSeconds));
    expect(headerValue(answer, 'X-RateLimit-Policy')).toBe(row.policy);
    expect(webAcl('dev', 'partner').Rules.map((r) => r.Name)).not.toContain(row.policy);
    // The hour row has no WAF window: the function alone holds it.
    expect(webAcl('dev', 'web').Rules.map((r) => r.Name)).not.toContain('sign-in-ip-hour');
  });

  it('answers on the partner API with the spec’s JSON envelope: ok false, code RATE_LIMITED, request_id edge', () => {
    const body = webAcl('dev', 'partner').CustomResponseBodies[RATE_LIMITED_BODY_KEY];
    expect(body.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(body.Content)).toEqual({ ok: false, error: { code: 'RATE_LIMITED', message: expect.any(String) }, request_id: 'edge' });
  });

  it('answers on the web side with a body both the player site and web settings read: the envelope plus top-level code and message', () => {
    const body = webAcl('dev', 'web').CustomResponseBodies[RATE_LIMITED_BODY_KEY];
    expect(body.ContentType).toBe('APPLICATION_JSON');
    expectEdgeBody(body.Content, 'web', 'RATE_LIMITED');
  });
});

describe('edge protection follows the limits table it is given', () => {
  it.each(SURFACES)('defaults to LIMITS, the %s rows', (surface) => {
    const acl = edgeTemplate(undefined, surface);
    expect(acl.Rules.filter((r) => r.Statement.RateBasedStatement).map((r) => r.Name)).toEqual(ratePolicies(surface));
  });

  it.each(wafEdgeLimits().map((row) => [row.policy, row] as const))('changes the %s rule when its numbers change', (policy, row) => {
    const changed: EdgeLimit = { ...row, limit: row.limit * 2 + 7 };
    const limits = withEdgeRow(policy, { limit: changed.limit });

    const acl = edgeTemplate(limits, row.surface);

    expectRuleFollowsRow(acl, changed);
  });

  it('adds a rule when a row moves to WAF, and drops the rules and their body when no row is left', () => {
    const limits = withEdgeRow('edge-ip-burst', { enforcedBy: 'waf', windowSeconds: 60 });
    const row = limits.find((l): l is EdgeLimit => l.kind === 'edge' && l.policy === 'edge-ip-burst')!;
    const moved = edgeTemplate(limits);
    expectRuleFollowsRow(moved, row);

    const none = edgeTemplate(LIMITS.filter((l) => l.kind !== 'edge'));
    expect(none.Rules.some((r) => r.Statement.RateBasedStatement)).toBe(false);
    expect(none.CustomResponseBodies[RATE_LIMITED_BODY_KEY]).toBeUndefined();
  });

  it('follows the sign-in row: a changed limit changes the rule; below WAF\'s minimum of 10 synthesis fails', () => {
    const withSignIn = (limit: number): Limit[] => LIMITS.map((l) => (l.kind === 'quota' && l.policy === 'sign-in-ip-minute' ? { ...l, limit } : l));
    const rule = edgeTemplate(withSignIn(25), 'web').Rules.find((r) => r.Name === 'sign-in-ip-minute')!;
    expect(rule.Statement.RateBasedStatement!.Limit).toBe(25);
    expect(() => edgeTemplate(withSignIn(5), 'web')).toThrow(EdgeRateRuleError);
  });

  it('moves a rule to the other front door’s web ACL when its row changes surface', () => {
    const limits = withEdgeRow('edge-ip-minute', { surface: 'web' });
    expect(edgeTemplate(limits, 'partner').Rules.map((r) => r.Name)).not.toContain('edge-ip-minute');
    expect(edgeTemplate(limits, 'web').Rules.map((r) => r.Name)).toEqual(expect.arrayContaining(['edge-ip-minute', 'web-ip-minute']));
  });

  it('applies the scope-down of each row\'s counting', () => {
    const acl = edgeTemplate(withEdgeRow('edge-ip-minute', { counts: 'credentialed' }));
    expect(acl.Rules.find((r) => r.Name === 'edge-ip-minute')!.Statement.RateBasedStatement!.ScopeDownStatement).toEqual(HAS_AUTHORIZATION);
  });

  it('never lets the Region-wide authentication rule count (and so block) a well-formed key', () => {
    const rule = edgeTemplate(LIMITS).Rules.find((r) => r.Name === 'edge-authentication-minute')!;
    expect(rule.Statement.RateBasedStatement!.AggregateKeyType).toBe('CONSTANT');
    expect(rule.Statement.RateBasedStatement!.ScopeDownStatement).toEqual(MALFORMED_CREDENTIAL);
  });

  it('recognizes exactly the credentials the function calls well-formed: the size and shape at the edge match WELL_FORMED_CREDENTIAL', () => {
    // WAF's evaluation of WELL_FORMED_CREDENTIAL_STATEMENT: both statements see the header after the same transformations.
    const wafWellFormed = (header: string) => {
      const transformed = header.replace(/\s+/g, ' ').toLowerCase();
      return Buffer.byteLength(transformed) === WELL_FORMED_CREDENTIAL_LENGTH && WELL_FORMED_CREDENTIAL_SHAPE.test(transformed);
    };
    const key = `pak_live_${'0123456789abcdef'.repeat(4)}`;
    const samples = [
      `Bearer ${key}`,
      `bearer ${key}`,
      `BEARER   ${key.toUpperCase()}`,
      `Bearer\t${key}`,
      `Bearer ${key}0`,
      `Bearer ${key.slice(0, -1)}`,
      `Bearer ${key.slice(0, -1)}g`,
      `Bearer  ${key} `,
      ` Bearer ${key}`,
      `Bearer pak_live_${'f'.repeat(63)}`,
      `Bearer pak_live_${'f'.repeat(65)}`,
      `Token ${key}`,
      `Bearer pak_test_${'0'.repeat(64)}`,
      `Bearer pak_live_${'0'.repeat(62)}é`,
      '',
      'Bearer',
    ];
    for (const header of samples) expect(wafWellFormed(header), JSON.stringify(header)).toBe(isWellFormedCredential(header));
    expect(samples.filter(isWellFormedCredential).length).toBeGreaterThan(2);
  });

  it.each([
    ['a 10-second window', 'edge-ip-minute', { windowSeconds: 10 as const }, /windowSeconds 10 is not a WAF evaluation window/],
    ['a limit below WAF’s minimum of 10', 'edge-credential-minute', { limit: 9 }, /limit 9 must be an integer from 10/],
    ['a fractional limit', 'edge-ip-minute', { limit: 180.5 }, /limit 180.5 must be an integer/],
    ['a location row counting every request', 'edge-authentication-minute', { counts: 'all' }, /count only malformed credentials/],
    ['a location row counting valid keys', 'edge-authentication-minute', { counts: 'credentialed' }, /count only malformed credentials/],
    ['a credential row counting uncredentialed requests', 'edge-credential-minute', { counts: 'all' }, /set counts to 'credentialed'/],
    ['a policy that is not a valid rule name', 'edge-ip-minute', { policy: 'edge ip' }, /must match/],
  ])('fails synthesis clearly on %s', (_what, policy, change, message) => {
    const limits = withEdgeRow(policy, change as Partial<EdgeLimit>);
    expect(() => edgeTemplate(limits)).toThrow(EdgeRateRuleError);
    expect(() => edgeTemplate(limits)).toThrow(message);
  });
});

/**
 * The rules of each group as the WAF developer guide lists them (baseline and
 * known-bad-inputs rule groups). WAF silently ignores an override whose name
 * the group lacks, so a misspelt name in MANAGED_RULE_GROUPS would leave that
 * rule blocking with WAF's default response: this list is the independent check.
 */
const DOCUMENTED_RULES: Readonly<Record<string, readonly string[]>> = {
  AWSManagedRulesCommonRuleSet: [
    'NoUserAgent_HEADER',
    'UserAgent_BadBots_HEADER',
    'SizeRestrictions_QUERYSTRING',
    'SizeRestrictions_Cookie_HEADER',
    'SizeRestrictions_BODY',
    'SizeRestrictions_URIPATH',
    'EC2MetaDataSSRF_BODY',
    'EC2MetaDataSSRF_COOKIE',
    'EC2MetaDataSSRF_URIPATH',
    'EC2MetaDataSSRF_QUERYARGUMENTS',
    'GenericLFI_QUERYARGUMENTS',
    'GenericLFI_URIPATH',
    'GenericLFI_BODY',
    'RestrictedExtensions_URIPATH',
    'RestrictedExtensions_QUERYARGUMENTS',
    'GenericRFI_QUERYARGUMENTS',
    'GenericRFI_BODY',
    'GenericRFI_URIPATH',
    'CrossSiteScripting_COOKIE',
    'CrossSiteScripting_QUERYARGUMENTS',
    'CrossSiteScripting_BODY',
    'CrossSiteScripting_URIPATH',
  ],
  AWSManagedRulesKnownBadInputsRuleSet: [
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
  ],
};

const managedRulesOf = (acl: AclProperties) => acl.Rules.filter((r) => r.Statement.ManagedRuleGroupStatement);

/** The override of one rule of a group, as synthesized. */
function overrideOf(acl: AclProperties, group: string, rule: string): RuleActionOverride {
  const reference = managedRulesOf(acl).find((r) => r.Statement.ManagedRuleGroupStatement!.Name === group);
  const override = reference?.Statement.ManagedRuleGroupStatement!.RuleActionOverrides.find((o) => o.Name === rule);
  if (!override) throw new Error(`no override of ${group}/${rule}`);
  return override;
}

const actionOf = (override: RuleActionOverride): ManagedRuleAction | 'other' =>
  override.ActionToUse.Count ? 'count' : override.ActionToUse.Block ? 'block' : 'other';

/** The web ACL's answer to a managed rule's matches by its label, after both groups (the web side: edge-answer-shapes.ts), if any. */
function labelAnswerOf(acl: AclProperties, group: string, rule: string): CustomResponse | undefined {
  const reference = managedRulesOf(acl).find((r) => r.Statement.ManagedRuleGroupStatement!.Name === group)!;
  return acl.Rules.find((r) => r.Name === `${reference.Name}-${rule}-answer`)?.Action?.Block?.CustomResponse;
}

/** What the web ACL does with a managed rule's matches: its override's action, or `block` where it counts them and answers them by their label. */
function managedActionOf(acl: AclProperties, group: string, rule: string): ManagedRuleAction | 'other' {
  const action = actionOf(overrideOf(acl, group, rule));
  return action === 'count' && labelAnswerOf(acl, group, rule) ? 'block' : action;
}

/** The custom response a managed rule's block answers with: its override's, or the answer by its label. */
function managedAnswerOf(acl: AclProperties, group: string, rule: string): CustomResponse | undefined {
  return overrideOf(acl, group, rule).ActionToUse.Block?.CustomResponse ?? labelAnswerOf(acl, group, rule);
}

/**
 * Web ACL capacity units, estimated by the deploy-readiness rule's estimator (the developer guide's
 * per-statement costs; lib/compliance/deploy-readiness/waf-capacity.ts): not WAF's CheckCapacity.
 */
const aclCapacity = (acl: AclProperties) =>
  acl.Rules.reduce((sum, rule) => sum + statementCapacity(rule.Statement), 0) +
  // 1 WCU for every 5 labels the web ACL's rules define (the web side's counting rules: edge-answer-shapes.ts).
  Math.ceil(acl.Rules.reduce((count, rule) => count + (rule.RuleLabels?.length ?? 0), 0) / 5);

/** The exclusions table of docs/edge-protection.md: rule → [partner, web, answer]. */
function documentedChoices(): Map<string, readonly string[]> {
  const doc = readFileSync(join(PROJECT_ROOT, 'docs/edge-protection.md'), 'utf8');
  const rows = new Map<string, readonly string[]>();
  for (const line of doc.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    // | group | `Rule` | partner | web | answer | why |
    const rule = /^`(\w+)`$/.exec(cells[2] ?? '')?.[1];
    if (rule && (cells[3] === 'count' || cells[3] === 'block')) rows.set(rule, [cells[3], cells[4], cells[5].replace(/`/g, '')]);
  }
  return rows;
}

describe('edge protection: AWS managed rule groups', () => {
  it.each(SURFACES)('evaluates the core rule set, then known bad inputs, after every rule of the service’s own in the %s web ACL', (surface) => {
    const acl = webAcl('dev', surface);
    const managed = managedRulesOf(acl);
    expect(managed.map((r) => [r.Name, r.Statement.ManagedRuleGroupStatement!.VendorName, r.Statement.ManagedRuleGroupStatement!.Name])).toEqual([
      ['aws-common-rule-set', 'AWS', 'AWSManagedRulesCommonRuleSet'],
      ['aws-known-bad-inputs', 'AWS', 'AWSManagedRulesKnownBadInputsRuleSet'],
    ]);
    // The web side answers some managed rules by their labels, after both groups (edge-answer-shapes.ts).
    const isManagedAnswer = (r: Rule) => managed.some((group) => r.Name.startsWith(`${group.Name}-`));
    const own = acl.Rules.filter((r) => !r.Statement.ManagedRuleGroupStatement && !isManagedAnswer(r));
    expect(Math.min(...managed.map((r) => r.Priority))).toBeGreaterThan(Math.max(...own.map((r) => r.Priority)));
    expect(managed[0].Priority).toBeLessThan(managed[1].Priority);
    for (const answer of acl.Rules.filter(isManagedAnswer)) expect(answer.Priority, answer.Name).toBeGreaterThan(managed[1].Priority);
    expect(acl.Rules.filter(isManagedAnswer).length).toBe(surface === 'web' ? 6 : 0);
    for (const rule of managed) {
      // `None`: each rule's own (overridden) action applies. `Count` here would turn every block into a count.
      expect(rule.OverrideAction, rule.Name).toEqual({ None: {} });
      expect(rule.Action, rule.Name).toBeUndefined();
      expect(rule.VisibilityConfig).toEqual({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: false, MetricName: `partner-api-dev${SURFACE_PROFILES[surface].nameSuffix}-${rule.Name}` });
      // Unpinned: AWS keeps the default version current, static versions expire.
      expect(rule.Statement.ManagedRuleGroupStatement!.Version).toBeUndefined();
    }
  });

  it.each(SURFACES)('gives every documented rule of both groups an explicit action in the %s web ACL, and no rule the groups lack', (surface) => {
    const acl = webAcl('dev', surface);
    for (const [group, documented] of Object.entries(DOCUMENTED_RULES)) {
      const reference = managedRulesOf(acl).find((r) => r.Statement.ManagedRuleGroupStatement!.Name === group)!;
      const names = reference.Statement.ManagedRuleGroupStatement!.RuleActionOverrides.map((o) => o.Name);
      expect([...names].sort(), group).toEqual([...documented].sort());
      for (const name of names) expect(['count', 'block'], name).toContain(actionOf(overrideOf(acl, group, name)));
    }
  });

  it('never blocks a partner request for free text (invitation notes in the body, the player_name filter in the query) or a missing User-Agent', () => {
    const acl = webAcl('dev', 'partner');
    const counted = [
      'NoUserAgent_HEADER',
      ...['EC2MetaDataSSRF', 'GenericLFI', 'GenericRFI', 'CrossSiteScripting'].flatMap((family) => [`${family}_BODY`, `${family}_QUERYARGUMENTS`]),
      'RestrictedExtensions_QUERYARGUMENTS',
    ];
    for (const rule of counted) expect(actionOf(overrideOf(acl, 'AWSManagedRulesCommonRuleSet', rule)), rule).toBe('count');
  });

  it('never blocks a web request for free text in its body (passwords, player messages, names, webhook addresses)', () => {
    const acl = webAcl('dev', 'web');
    for (const rule of ['EC2MetaDataSSRF_BODY', 'GenericLFI_BODY', 'GenericRFI_BODY', 'CrossSiteScripting_BODY']) {
      expect(actionOf(overrideOf(acl, 'AWSManagedRulesCommonRuleSet', rule)), rule).toBe('count');
    }
  });

  it.each(SURFACES)('blocks in the %s web ACL what no valid request carries: exploit payloads anywhere, attack patterns in paths and cookies, scanner user agents, oversized bodies', (surface) => {
    const acl = webAcl('dev', surface);
    for (const rule of DOCUMENTED_RULES.AWSManagedRulesKnownBadInputsRuleSet) {
      expect(managedActionOf(acl, 'AWSManagedRulesKnownBadInputsRuleSet', rule), rule).toBe('block');
    }
    const blocked = [
      'UserAgent_BadBots_HEADER',
      'SizeRestrictions_BODY',
      'SizeRestrictions_Cookie_HEADER',
      ...['EC2MetaDataSSRF', 'GenericLFI', 'GenericRFI', 'CrossSiteScripting', 'RestrictedExtensions'].map((family) => `${family}_URIPATH`),
      'EC2MetaDataSSRF_COOKIE',
      'CrossSiteScripting_COOKIE',
    ];
    for (const rule of blocked) expect(managedActionOf(acl, 'AWSManagedRulesCommonRuleSet', rule), rule).toBe('block');
  });

  it('blocks on the web side, where every client is a browser and no route takes a query parameter, a missing User-Agent and attack patterns in query arguments', () => {
    const acl = webAcl('dev', 'web');
    for (const rule of ['NoUserAgent_HEADER', 'CrossSiteScripting_QUERYARGUMENTS', 'GenericLFI_QUERYARGUMENTS', 'GenericRFI_QUERYARGUMENTS']) {
      expect(managedActionOf(acl, 'AWSManagedRulesCommonRuleSet', rule), rule).toBe('block');
    }
  });

  it.each(
    SURFACES.flatMap((surface) =>
      (
        [
          ['SizeRestrictions_BODY', 413, 'BODY_TOO_LARGE'],
          ['SizeRestrictions_QUERYSTRING', 414, 'QUERY_TOO_LONG'],
          ['SizeRestrictions_URIPATH', 414, 'PATH_TOO_LONG'],
        ] as const
      ).map(([rule, status, code]) => [surface, rule, status, code] as const),
    ),
  )('%s: a %s block answers %i %s in the surface’s error shape, with the edge headers', (surface, rule, status, code) => {
    const acl = webAcl('dev', surface);
    // The web side counts the rule and answers it by its label, by path (test/infra/settings-front-shape.test.ts).
    expect(actionOf(overrideOf(acl, 'AWSManagedRulesCommonRuleSet', rule))).toBe(surface === 'web' ? 'count' : 'block');
    const response = managedAnswerOf(acl, 'AWSManagedRulesCommonRuleSet', rule)!;
    expect(response.ResponseCode).toBe(status);
    expect(response.CustomResponseBodyKey).toBe(code);
    expect(response.ResponseHeaders).toEqual([
      { Name: 'Cache-Control', Value: 'no-store' },
      { Name: 'X-Request-Id', Value: 'edge' },
    ]);
    expect(acl.CustomResponseBodies[code].ContentType).toBe('APPLICATION_JSON');
    expectEdgeBody(acl.CustomResponseBodies[code].Content, surface, code);
  });

  it.each(SURFACES)('answers every %s managed block with the spec’s code where it names the condition, else with WAF’s default block (API Gateway’s WAF_FILTERED answer)', (surface) => {
    const sizeAnswers: Record<string, readonly [number, string]> = {
      SizeRestrictions_BODY: [413, 'BODY_TOO_LARGE'],
      SizeRestrictions_QUERYSTRING: [414, 'QUERY_TOO_LONG'],
      SizeRestrictions_URIPATH: [414, 'PATH_TOO_LONG'],
    };
    const acl = webAcl('dev', surface);
    const blocks = managedRulesOf(acl).flatMap((rule) => rule.Statement.ManagedRuleGroupStatement!.RuleActionOverrides.filter((o) => o.ActionToUse.Block));
    expect(blocks.length).toBeGreaterThan(20);
    for (const { Name, ActionToUse } of blocks) {
      const response = ActionToUse.Block!.CustomResponse;
      if (sizeAnswers[Name]) {
        expect([response?.ResponseCode, response?.CustomResponseBodyKey], Name).toEqual(sizeAnswers[Name]);
        expect(acl.CustomResponseBodies[response!.CustomResponseBodyKey], Name).toBeDefined();
      } else {
        // No custom response: two fewer of the web ACL's 100 custom response headers per rule.
        expect(ActionToUse.Block, Name).toEqual({});
      }
    }
    expect(Object.keys(acl.CustomResponseBodies)).not.toContain('REQUEST_BLOCKED');
  });

  it.each(SURFACES)('leaves REQUEST_BLOCKED on %s to API Gateway’s WAF_FILTERED response (403, the envelope, its request id), as for rules AWS adds later', (surface) => {
    const filtered = gatewayErrors(surface).find((spec) => spec.type.responseType === 'WAF_FILTERED')!;
    expect([filtered.statusCode, filtered.code]).toEqual([403, 'REQUEST_BLOCKED']);
    expect(overrideOf(webAcl('dev', surface), 'AWSManagedRulesKnownBadInputsRuleSet', 'Log4JRCE_HEADER').ActionToUse.Block).toEqual({});
  });

  it.each(SURFACES)('uses at most half of WAF’s 100 custom response headers on the %s web ACL (room for rules to come)', (surface) => {
    const headers = (JSON.stringify(webAcl('prod', surface)).match(/"ResponseHeaders":\[[^\]]*\]/g) ?? []).reduce(
      (count, list) => count + (list.match(/"Name"/g) ?? []).length,
      0,
    );
    expect(headers).toBeGreaterThan(0);
    expect(headers).toBeLessThanOrEqual(50);
  });

  it.each(['dev', 'prod'])('keeps both web ACLs within the 1,500 capacity units of the base price on %s (estimated)', (name) => {
    const partner = aclCapacity(webAcl(name, 'partner'));
    const web = aclCapacity(webAcl(name, 'web'));
    // The figures docs/edge-protection.md gives: the managed groups' 900 plus the service's own rules.
    expect([partner, web]).toEqual([1087, 1054]);
    for (const capacity of [partner, web]) expect(capacity).toBeLessThanOrEqual(1500);
  });

  it('is documented rule by rule in docs/edge-protection.md, with the actions and answers the web ACLs get', () => {
    const documented = documentedChoices();
    const declared = MANAGED_RULE_GROUPS.flatMap((group) => group.rules);
    expect([...documented.keys()].sort()).toEqual(declared.map((rule) => rule.name).sort());
    for (const rule of declared) {
      const answer = rule.partner === 'count' && rule.web === 'count' ? '—' : `${rule.code ?? 'REQUEST_BLOCKED'}`;
      expect(documented.get(rule.name), rule.name).toEqual([rule.partner, rule.web, expect.stringContaining(answer)]);
    }
  });

  describe('refuses a managed group whose overrides WAF would silently ignore', () => {
    const group = (rules: ManagedRuleGroup['rules']): ManagedRuleGroup => ({ vendorName: 'AWS', name: 'AWSManagedRulesCommonRuleSet', ruleName: 'crs', capacity: 700, rules });

    it('a rule name WAF cannot match', () => {
      expect(() => managedRuleGroupRules({ surface: 'partner', metricPrefix: 'p', groups: [group([{ name: 'Cross Site', partner: 'count', web: 'count' }])] })).toThrow(
        ManagedRuleError,
      );
    });

    it('a rule listed twice (one of its actions would be lost)', () => {
      const twice = group([
        { name: 'GenericLFI_BODY', partner: 'count', web: 'count' },
        { name: 'GenericLFI_BODY', partner: 'block', web: 'block' },
      ]);
      expect(() => managedRuleGroupRules({ surface: 'web', metricPrefix: 'p', groups: [twice] })).toThrow(/listed twice: GenericLFI_BODY/);
    });
  });
});

interface HeaderRead {
  /** Path from the project root. */
  readonly file: string;
  /** The header's name, lowercase. */
  readonly name: string;
  /** Written as a string literal at the call, not a constant. */
  readonly literal: boolean;
}

/** Constants a header may be read under, by identifier: credential-headers.ts's and the settings' request header. */
const HEADER_CONSTANTS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(credentialHeaders as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === 'string')),
  SETTINGS_REQUEST_HEADER,
};

/** Helpers that read a header by a name their caller passes: their callers' names are found instead. */
const PASS_THROUGH_READS: readonly string[] = ['lambdas/shared/http/api-event.ts: key', 'lambdas/shared/http/api-event.ts: name', 'lambdas/settings/web-session.ts: name'];

/**
 * Every header the code under `dir` reads: `headers.get(…)`, `headers.has(…)`, `header(event, …)` and web-session.ts's
 * `single(…)`, with a literal name or a known constant. An identifier that is neither fails, unless it is a pass-through helper's parameter.
 */
function headerReads(dir: string): HeaderRead[] {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    // Build output (the pages' bundles, scripts/page-bundles.ts): their sources under page/ are read instead.
    .filter((entry) => !entry.name.endsWith('.generated.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
  const reads: HeaderRead[] = [];
  const calls = /(?:headers\.(?:get|has)\(|\bheader\(event,\s*|\bsingle\()\s*([^,)]+?)\s*\)/g;
  for (const path of files) {
    const file = relative(PROJECT_ROOT, path).split('\\').join('/');
    for (const match of readFileSync(path, 'utf8').matchAll(calls)) {
      const argument = match[1];
      const literal = /^(['"])([^'"]+)\1$/.exec(argument);
      if (literal) {
        reads.push({ file, name: literal[2].toLowerCase(), literal: true });
      } else if (argument in HEADER_CONSTANTS) {
        reads.push({ file, name: HEADER_CONSTANTS[argument], literal: false });
      } else if (!PASS_THROUGH_READS.includes(`${file}: ${argument}`)) {
        throw new Error(`${file} reads a header under ${argument}: add its constant to credential-headers.ts (or HEADER_CONSTANTS here)`);
      }
    }
  }
  return reads;
}
