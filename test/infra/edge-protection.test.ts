import { describe, it, expect } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Template } from 'aws-cdk-lib/assertions';
import { REQUEST_LIMITS } from '../../lambdas/shared/http/request-rules';
import type { Surface } from '../../lambdas/shared/http/routes';
import { edgeLimits, LIMITS, type EdgeLimit, type Limit } from '../../lambdas/shared/limits/limits-table';
import { resolveStageConfig } from '../../lib/config/stage-config';
import { SURFACE_PROFILES, SURFACES } from '../../lib/config/surfaces';
import { EdgeProtection, SIZE_RULE_PRIORITIES } from '../../lib/constructs/edge-protection';
import { EdgeRateRuleError, RATE_LIMITED_BODY_KEY, wafEdgeLimits } from '../../lib/constructs/edge-rate-rules';
import { logicalIdByPath, resources, stage, stageLogicalId, synthStage } from './support';

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
  new EdgeProtection(stack, 'Edge', { config: resolveStageConfig('pr-1'), surface, stage: api.deploymentStage, ...(limits ? { limits } : {}) });
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
  expect(row.kind).toBe('edge');
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
  ] as const)('logs only blocked requests of the %s web ACL, with the Authorization header and the query string redacted, to its own aws-waf-logs- group', (surface, construct, logGroupName) => {
    const { statelessTemplate } = stage('dev');
    const aclId = aclLogicalId(statelessTemplate, surface);
    const logging = Object.values(resources(statelessTemplate, 'AWS::WAFv2::LoggingConfiguration')).find(
      (l) => JSON.stringify(l.Properties.ResourceArn) === JSON.stringify({ 'Fn::GetAtt': [aclId, 'Arn'] }),
    )!;
    expect(logging).toBeDefined();
    expect(logging.Properties.RedactedFields).toEqual([{ SingleHeader: { Name: 'authorization' } }, { QueryString: {} }]);
    expect(logging.Properties.LoggingFilter).toEqual({
      DefaultBehavior: 'DROP',
      Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
    });
    const destination = JSON.stringify(logging.Properties.LogDestinationConfigs);
    expect(destination).toMatch(new RegExp(`:log-group:",\\{"Ref":"${construct}BlockedRequestLogs\\w+"\\}\\]\\]\\}\\]$`));
    expect(destination).not.toContain(':*');
    statelessTemplate.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: logGroupName });
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
    const regex = new RegExp(String(names.RegexMatchStatement.RegexString));
    for (const query of ['api_key=x', 'a=1&token=y', 'access_token=z&b=2', 'key']) expect(regex.test(query), query).toBe(true);
    for (const query of ['keyword=x', 'cursor=abc', 'tokens=1']) expect(regex.test(query), query).toBe(false);
    expect(rule.Action.Block!.CustomResponse.ResponseCode).toBe(400);
    expect(rule.Action.Block!.CustomResponse.CustomResponseBodyKey).toBe('CREDENTIALS_IN_URL');
    expectEdgeBody(acl.CustomResponseBodies.CREDENTIALS_IN_URL.Content, surface, 'CREDENTIALS_IN_URL');
  });

  it.each(
    SURFACES.flatMap((surface) =>
      (
        [
          ['PATH_TOO_LONG', { UriPath: {} }, REQUEST_LIMITS.pathChars, 414],
          ['QUERY_TOO_LONG', { QueryString: {} }, REQUEST_LIMITS.queryChars, 414],
          ['AUTH_HEADER_TOO_LONG', { SingleHeader: { Name: 'authorization' } }, REQUEST_LIMITS.authorizationChars, 431],
        ] as const
      ).map(([code, field, limit, status]) => [surface, code, field, limit, status] as const),
    ),
  )('%s: blocks %s at the edge: size > limit of the spec, custom status and the surface’s error body', (surface, code, field, limit, status) => {
    const acl = webAcl('dev', surface);

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
    expectEdgeBody(body.Content, surface, code);
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

  it('accepts additional rules (e.g. rate-based) after the size rules, in the web ACL they are given to only', () => {
    const { statelessTemplate } = synthStage({
      stage: 'pr-7',
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
      'auth-header-too-long',
      ...wafEdgeLimits(LIMITS, 'partner').map((l) => l.policy),
      'ip-rate',
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
      expect(() => synthStage({ stage: 'pr-10', stateless: { edgeRules: { [surface]: [extraRule(150, true)] } } })).toThrow(/extra must set sampledRequestsEnabled: false/);
    });

    it.each([5, 10])('a rule at priority %i, which could let a key in the URL through before credentials-in-url refuses it', (priority) => {
      expect(() => synthStage({ stage: 'pr-11', stateless: { edgeRules: { web: [extraRule(priority, false)] } } })).toThrow(/credentials-in-url \(10\) must run first/);
    });
  });

  it('rejects an additional response body whose key collides with the generated rate-limit body', () => {
    expect(() =>
      synthStage({ stage: 'pr-9', stateless: { edgeResponseBodies: { web: { [RATE_LIMITED_BODY_KEY]: { contentType: 'APPLICATION_JSON', content: '{}' } } } } }),
    ).toThrow(/duplicate custom response body key/);
  });

  it('rejects an additional rule whose priority collides with a size rule', () => {
    expect(() =>
      synthStage({
        stage: 'pr-8',
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
    expectRuleFollowsRow(
      webAcl('dev', surface).Rules.find((r) => r.Name === policy),
      row,
    );
    const other: Surface = surface === 'partner' ? 'web' : 'partner';
    expect(webAcl('dev', other).Rules.map((r) => r.Name)).not.toContain(policy);
  });

  it('limits the web side by source IP to the web-ip-minute row: 60 requests per minute, every request counted', () => {
    const row = edgeLimits(LIMITS).find((l) => l.policy === 'web-ip-minute')!;
    expect(row).toMatchObject({ surface: 'web', aggregate: 'ip', windowSeconds: 60, limit: 60, counts: 'all', enforcedBy: 'waf' });

    const rule = webAcl('dev', 'web').Rules.find((r) => r.Name === 'web-ip-minute')!;
    expect(rule.Statement.RateBasedStatement).toEqual({ AggregateKeyType: 'IP', EvaluationWindowSec: row.windowSeconds, Limit: row.limit });
    expect(headerValue(rule, 'Retry-After')).toBe('60');
    expect(headerValue(rule, 'X-RateLimit-Policy')).toBe('web-ip-minute');
    expect(rule.Action.Block!.CustomResponse.ResponseCode).toBe(429);
  });

  it.each(['dev', 'prod'])('has exactly one rate-based rule per waf edge row of each surface, none for application rows, on %s', (name) => {
    for (const surface of SURFACES) {
      const rules = webAcl(name, surface).Rules;
      expect(rules.filter((r) => r.Statement.RateBasedStatement).map((r) => r.Name)).toEqual(wafEdgeLimits(LIMITS, surface).map((l) => l.policy));
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
    expect([...rate].sort((a, b) => a.Priority - b.Priority).map((r) => r.Name)).toEqual(wafEdgeLimits(LIMITS, surface).map((l) => l.policy));
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
    expect(acl.Rules.filter((r) => r.Statement.RateBasedStatement).map((r) => r.Name)).toEqual(wafEdgeLimits(LIMITS, surface).map((l) => l.policy));
  });

  it.each(wafEdgeLimits().map((row) => [row.policy, row] as const))('changes the %s rule when its numbers change', (policy, row) => {
    const changed: EdgeLimit = { ...row, limit: row.limit * 2 + 7 };
    const limits = withEdgeRow(policy, { limit: changed.limit });

    const acl = edgeTemplate(limits, row.surface);

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
