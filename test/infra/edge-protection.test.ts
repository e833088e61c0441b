import { describe, it, expect } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { REQUEST_LIMITS } from '../../lambdas/shared/http/request-rules';
import { LIMITS, type EdgeLimit, type Limit } from '../../lambdas/shared/limits/limits-table';
import { resolveStageConfig } from '../../lib/config/stage-config';
import { EdgeProtection, SIZE_RULE_PRIORITIES } from '../../lib/constructs/edge-protection';
import { EdgeRateRuleError, RATE_LIMITED_BODY_KEY, wafEdgeLimits } from '../../lib/constructs/edge-rate-rules';
import { logicalIdByPath, resources, stage, synthStage } from './support';

const WEB_ACL = 'AWS::WAFv2::WebACL';

type Header = { Name: string; Value: string };
type Statement = {
  SizeConstraintStatement?: { FieldToMatch: unknown; ComparisonOperator: string; Size: number; TextTransformations?: unknown };
  RateBasedStatement?: {
    Limit: number;
    EvaluationWindowSec?: number;
    AggregateKeyType: string;
    CustomKeys?: unknown[];
    ScopeDownStatement?: Statement;
  };
};
type Rule = {
  Name: string;
  Priority: number;
  Statement: Statement;
  Action: { Block?: { CustomResponse: { ResponseCode: number; CustomResponseBodyKey: string; ResponseHeaders: Header[] } } };
  VisibilityConfig: { CloudWatchMetricsEnabled: boolean; MetricName: string; SampledRequestsEnabled: boolean };
};
type AclProperties = {
  Rules: Rule[];
  VisibilityConfig: Rule['VisibilityConfig'];
  CustomResponseBodies: Record<string, { ContentType: string; Content: string }>;
};

function aclOf(template: Template): AclProperties {
  const [acl] = Object.values(resources(template, WEB_ACL));
  return acl.Properties as AclProperties;
}

function webAcl(stageName: string): AclProperties {
  return aclOf(stage(stageName).statelessTemplate);
}

/** The EdgeProtection construct alone, on a minimal REST API, with a given limits table (no Lambda, no bundling). */
function edgeTemplate(limits?: readonly Limit[]): AclProperties {
  const stack = new Stack(new App(), 'EdgeOnly');
  const api = new apigateway.RestApi(stack, 'Api', { deployOptions: { stageName: 'v1' } });
  api.root.addMethod('GET', new apigateway.MockIntegration());
  new EdgeProtection(stack, 'Edge', { config: resolveStageConfig('pr-1'), stage: api.deploymentStage, ...(limits ? { limits } : {}) });
  return aclOf(Template.fromStack(stack));
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
            RegexMatchStatement: {
              FieldToMatch: { SingleHeader: { Name: 'authorization' } },
              RegexString: '^bearer pak_live_[0-9a-f]{64}$',
              TextTransformations: CREDENTIAL_NORMALIZATION,
            },
          },
        },
      },
    ],
  },
};

const SCOPE_DOWN = { all: undefined, credentialed: HAS_AUTHORIZATION, 'malformed-credential': MALFORMED_CREDENTIAL } as const;

const AGGREGATE_KEY_TYPE = { ip: 'IP', credential: 'CUSTOM_KEYS', location: 'CONSTANT' } as const;

const headerValue = (rule: Rule, name: string) =>
  rule.Action.Block?.CustomResponse.ResponseHeaders.find((h) => h.Name.toLowerCase() === name.toLowerCase())?.Value;

/** Asserts that `rule` is the WAF rendering of `row`. */
function expectRuleFollowsRow(rule: Rule | undefined, row: EdgeLimit): void {
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

  const response = rule!.Action.Block!.CustomResponse;
  expect(response.ResponseCode).toBe(429);
  expect(response.CustomResponseBodyKey).toBe(RATE_LIMITED_BODY_KEY);
  expect(headerValue(rule!, 'Retry-After')).toBe(String(row.windowSeconds));
  expect(headerValue(rule!, 'X-RateLimit-Policy')).toBe(row.policy);
  expect(headerValue(rule!, 'Cache-Control')).toBe('no-store');
  expect(rule!.VisibilityConfig).toMatchObject({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: false });
  expect(rule!.VisibilityConfig.MetricName).toMatch(new RegExp(`-${row.policy}$`));
}

describe('edge protection (WAF)', () => {
  it('is one regional web ACL that allows by default', () => {
    const { statelessTemplate } = stage('dev');

    statelessTemplate.resourceCountIs(WEB_ACL, 1);
    statelessTemplate.hasResourceProperties(WEB_ACL, {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      VisibilityConfig: { CloudWatchMetricsEnabled: true, SampledRequestsEnabled: false, MetricName: 'partner-api-dev-edge' },
    });
  });

  it('samples no request anywhere (sampled requests keep every header, the Authorization value included), metrics on', () => {
    const acl = webAcl('dev');
    expect(acl.VisibilityConfig).toMatchObject({ SampledRequestsEnabled: false, CloudWatchMetricsEnabled: true });
    for (const rule of acl.Rules) expect(rule.VisibilityConfig, rule.Name).toMatchObject({ SampledRequestsEnabled: false, CloudWatchMetricsEnabled: true });
  });

  it('logs only blocked requests, with the Authorization header and the query string redacted, to an aws-waf-logs- group', () => {
    const { statelessTemplate } = stage('dev');
    const [logging] = Object.values(resources(statelessTemplate, 'AWS::WAFv2::LoggingConfiguration'));
    expect(logging.Properties.RedactedFields).toEqual([{ SingleHeader: { Name: 'authorization' } }, { QueryString: {} }]);
    expect(logging.Properties.LoggingFilter).toEqual({
      DefaultBehavior: 'DROP',
      Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
    });
    const destination = JSON.stringify(logging.Properties.LogDestinationConfigs);
    expect(destination).toMatch(/:log-group:",\{"Ref":"EdgeBlockedRequestLogs\w+"\}\]\]\}\]$/);
    expect(destination).not.toContain(':*');
    statelessTemplate.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: 'aws-waf-logs-partner-api-dev' });
  });

  it('refuses a key in the URL first of all rules: the prefix in the path or query (percent-decoded, lowercased), or a credential-named parameter', () => {
    const acl = webAcl('dev');
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
    const regex = new RegExp(String(names.RegexMatchStatement.RegexString));
    for (const query of ['api_key=x', 'a=1&token=y', 'access_token=z&b=2', 'key']) expect(regex.test(query), query).toBe(true);
    for (const query of ['keyword=x', 'cursor=abc', 'tokens=1']) expect(regex.test(query), query).toBe(false);
    expect(rule.Action.Block!.CustomResponse.ResponseCode).toBe(400);
    expect(rule.Action.Block!.CustomResponse.CustomResponseBodyKey).toBe('CREDENTIALS_IN_URL');
    expect(JSON.parse(acl.CustomResponseBodies.CREDENTIALS_IN_URL.Content)).toMatchObject({ ok: false, error: { code: 'CREDENTIALS_IN_URL' } });
  });

  it.each([
    ['PATH_TOO_LONG', { UriPath: {} }, REQUEST_LIMITS.pathChars, 414],
    ['QUERY_TOO_LONG', { QueryString: {} }, REQUEST_LIMITS.queryChars, 414],
    ['AUTH_HEADER_TOO_LONG', { SingleHeader: { Name: 'authorization' } }, REQUEST_LIMITS.authorizationChars, 431],
  ])('blocks %s at the edge: size > limit of the spec, custom status and envelope', (code, field, limit, status) => {
    const acl = webAcl('dev');

    const rule = acl.Rules.find((r) => r.Action.Block?.CustomResponse.CustomResponseBodyKey === code);
    expect(rule).toBeDefined();
    expect(rule!.Statement.SizeConstraintStatement).toMatchObject({ FieldToMatch: field, ComparisonOperator: 'GT', Size: limit });
    expect(rule!.Action.Block!.CustomResponse.ResponseCode).toBe(status);
    expect(rule!.Action.Block!.CustomResponse.ResponseHeaders).toEqual(
      expect.arrayContaining([
        { Name: 'Cache-Control', Value: 'no-store' },
        { Name: 'X-Request-Id', Value: 'edge' },
      ]),
    );

    const body = acl.CustomResponseBodies[code];
    expect(body.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(body.Content)).toEqual({ ok: false, error: { code, message: expect.any(String) }, request_id: 'edge' });
  });

  it('associates the web ACL with the API’s v1 stage, after the stage exists', () => {
    const { statelessTemplate } = stage('dev');
    const stageId = logicalIdByPath(statelessTemplate, 'AWS::ApiGateway::Stage', '/DeploymentStage.v1/Resource');
    const aclId = logicalIdByPath(statelessTemplate, WEB_ACL, '/Edge/WebAcl');

    statelessTemplate.hasResource('AWS::WAFv2::WebACLAssociation', {
      Properties: {
        WebACLArn: { 'Fn::GetAtt': [aclId, 'Arn'] },
        ResourceArn: {
          'Fn::Join': ['', Match.arrayWith([':apigateway:', '::/restapis/', '/stages/', { Ref: stageId }])],
        },
      },
      DependsOn: Match.arrayWith([stageId]),
    });
    expect(resources(statelessTemplate, 'AWS::ApiGateway::Stage')[stageId].Properties.StageName).toBe('v1');
    statelessTemplate.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
  });

  it('accepts additional rules (e.g. rate-based) after the size rules', () => {
    const { statelessTemplate } = synthStage({
      stage: 'pr-7',
      stateless: {
        edgeRules: [
          {
            name: 'ip-rate',
            priority: 150,
            statement: { rateBasedStatement: { limit: 180, aggregateKeyType: 'IP', evaluationWindowSec: 60 } },
            action: { block: { customResponse: { responseCode: 429, customResponseBodyKey: 'EXTRA' } } },
            visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'ip-rate', sampledRequestsEnabled: false },
          },
        ],
        edgeResponseBodies: { EXTRA: { contentType: 'APPLICATION_JSON', content: '{}' } },
      },
    });

    const acl = aclOf(statelessTemplate);
    expect(acl.Rules.map((r) => r.Name)).toEqual([
      'credentials-in-url',
      'path-too-long',
      'query-too-long',
      'auth-header-too-long',
      ...wafEdgeLimits().map((l) => l.policy),
      'ip-rate',
    ]);
    expect(Object.keys(acl.CustomResponseBodies)).toEqual(expect.arrayContaining(['EXTRA', RATE_LIMITED_BODY_KEY]));
  });

  describe('refuses an additional rule that would undo the credential guarantees', () => {
    const extraRule = (priority: number, sampledRequestsEnabled: boolean): wafv2.CfnWebACL.RuleProperty => ({
      name: 'extra',
      priority,
      statement: { byteMatchStatement: { fieldToMatch: { uriPath: {} }, positionalConstraint: 'STARTS_WITH', searchString: '/v1/', textTransformations: [{ priority: 0, type: 'NONE' }] } },
      action: { allow: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'extra', sampledRequestsEnabled },
    });

    it('a rule that samples requests (they keep the Authorization header)', () => {
      expect(() => synthStage({ stage: 'pr-10', stateless: { edgeRules: [extraRule(150, true)] } })).toThrow(/extra must set sampledRequestsEnabled: false/);
    });

    it.each([5, 10])('a rule at priority %i, which could let a key in the URL through before credentials-in-url refuses it', (priority) => {
      expect(() => synthStage({ stage: 'pr-11', stateless: { edgeRules: [extraRule(priority, false)] } })).toThrow(/credentials-in-url \(10\) must run first/);
    });
  });

  it('rejects an additional response body whose key collides with the generated rate-limit body', () => {
    expect(() =>
      synthStage({ stage: 'pr-9', stateless: { edgeResponseBodies: { [RATE_LIMITED_BODY_KEY]: { contentType: 'APPLICATION_JSON', content: '{}' } } } }),
    ).toThrow(/duplicate custom response body key/);
  });

  it('rejects an additional rule whose priority collides with a size rule', () => {
    expect(() =>
      synthStage({
        stage: 'pr-8',
        stateless: {
          edgeRules: [
            {
              name: 'clash',
              priority: 100,
              statement: { sizeConstraintStatement: { fieldToMatch: { body: {} }, comparisonOperator: 'GT', size: 1, textTransformations: [{ priority: 0, type: 'NONE' }] } },
              action: { block: {} },
              visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'clash', sampledRequestsEnabled: false },
            },
          ],
        },
      }),
    ).toThrow(/duplicate rule priority/);
  });
});

describe('edge protection: rate-based rules generated from LIMITS', () => {
  const wafRows = wafEdgeLimits(LIMITS);

  it('has edge rows enforced by WAF (the table is not empty of them)', () => {
    expect(wafRows.length).toBeGreaterThan(0);
  });

  it.each(wafRows.map((row) => [row.policy, row] as const))('renders %s as a blocking rate-based rule', (_policy, row) => {
    const acl = webAcl('dev');
    expectRuleFollowsRow(
      acl.Rules.find((r) => r.Name === row.policy),
      row,
    );
  });

  it('has exactly one rate-based rule per waf edge row, none for application rows, identical in dev and prod', () => {
    for (const name of ['dev', 'prod']) {
      const rateRules = webAcl(name).Rules.filter((r) => r.Statement.RateBasedStatement);
      expect(rateRules.map((r) => r.Name)).toEqual(wafRows.map((l) => l.policy));
    }
    const applicationPolicies = LIMITS.filter((l) => l.kind === 'edge' && l.enforcedBy === 'application').map((l) => l.policy);
    expect(applicationPolicies.length).toBeGreaterThan(0);
    const names = new Set(webAcl('dev').Rules.map((r) => r.Name));
    for (const policy of applicationPolicies) expect(names.has(policy), policy).toBe(false);
  });

  it('evaluates the size rules first, then the rate rules in table order', () => {
    const acl = webAcl('dev');
    const rate = acl.Rules.filter((r) => r.Statement.RateBasedStatement);
    const priorities = rate.map((r) => r.Priority);
    expect(Math.min(...priorities)).toBeGreaterThan(Math.max(...SIZE_RULE_PRIORITIES));
    expect([...rate].sort((a, b) => a.Priority - b.Priority).map((r) => r.Name)).toEqual(wafRows.map((l) => l.policy));
  });

  it('answers with the spec’s JSON envelope: ok false, code RATE_LIMITED, request_id edge', () => {
    const body = webAcl('dev').CustomResponseBodies[RATE_LIMITED_BODY_KEY];
    expect(body.ContentType).toBe('APPLICATION_JSON');
    const parsed = JSON.parse(body.Content) as unknown;
    expect(parsed).toEqual({ ok: false, error: { code: 'RATE_LIMITED', message: expect.any(String) }, request_id: 'edge' });
  });
});

describe('edge protection follows the limits table it is given', () => {
  it('defaults to LIMITS', () => {
    const acl = edgeTemplate();
    expect(acl.Rules.filter((r) => r.Statement.RateBasedStatement).map((r) => r.Name)).toEqual(wafEdgeLimits().map((l) => l.policy));
  });

  it.each(wafEdgeLimits().map((row) => [row.policy, row] as const))('changes the %s rule when its numbers change', (policy, row) => {
    const changed: EdgeLimit = { ...row, limit: row.limit * 2 + 7 };
    const limits = withEdgeRow(policy, { limit: changed.limit });

    const acl = edgeTemplate(limits);

    expectRuleFollowsRow(
      acl.Rules.find((r) => r.Name === policy),
      changed,
    );
  });

  it('adds a rule when a row moves to WAF, and drops the rules and their body when no row is left', () => {
    const limits = withEdgeRow('edge-ip-burst', { enforcedBy: 'waf', windowSeconds: 60 });
    const row = limits.find((l): l is EdgeLimit => l.kind === 'edge' && l.policy === 'edge-ip-burst')!;
    const moved = edgeTemplate(limits);
    expectRuleFollowsRow(
      moved.Rules.find((r) => r.Name === 'edge-ip-burst'),
      row,
    );

    const none = edgeTemplate(LIMITS.filter((l) => l.kind !== 'edge'));
    expect(none.Rules.some((r) => r.Statement.RateBasedStatement)).toBe(false);
    expect(none.CustomResponseBodies[RATE_LIMITED_BODY_KEY]).toBeUndefined();
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
