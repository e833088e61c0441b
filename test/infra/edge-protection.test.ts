import { describe, it, expect } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { REQUEST_LIMITS } from '../../lambdas/shared/http/request-rules';
import { logicalIdByPath, resources, stage, synthStage } from './support';

const WEB_ACL = 'AWS::WAFv2::WebACL';

type Rule = {
  Name: string;
  Priority: number;
  Statement: { SizeConstraintStatement?: { FieldToMatch: unknown; ComparisonOperator: string; Size: number } };
  Action: { Block?: { CustomResponse: { ResponseCode: number; CustomResponseBodyKey: string; ResponseHeaders: { Name: string; Value: string }[] } } };
};

function webAcl(stageName: string) {
  const { statelessTemplate } = stage(stageName);
  const [acl] = Object.values(resources(statelessTemplate, WEB_ACL));
  return acl.Properties as {
    Rules: Rule[];
    CustomResponseBodies: Record<string, { ContentType: string; Content: string }>;
  };
}

describe('edge protection (WAF)', () => {
  it('is one regional web ACL that allows by default', () => {
    const { statelessTemplate } = stage('dev');

    statelessTemplate.resourceCountIs(WEB_ACL, 1);
    statelessTemplate.hasResourceProperties(WEB_ACL, {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      VisibilityConfig: { CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true, MetricName: 'partner-api-dev-edge' },
    });
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
  });

  it('accepts additional rules (e.g. rate-based) after the size rules', () => {
    const { statelessTemplate } = synthStage({
      stage: 'pr-7',
      stateless: {
        edgeRules: [
          {
            name: 'ip-rate',
            priority: 10,
            statement: { rateBasedStatement: { limit: 180, aggregateKeyType: 'IP', evaluationWindowSec: 60 } },
            action: { block: { customResponse: { responseCode: 429, customResponseBodyKey: 'RATE_LIMITED' } } },
            visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'ip-rate', sampledRequestsEnabled: true },
          },
        ],
        edgeResponseBodies: { RATE_LIMITED: { contentType: 'APPLICATION_JSON', content: '{}' } },
      },
    });

    const [acl] = Object.values(resources(statelessTemplate, WEB_ACL));
    const rules = acl.Properties.Rules as Rule[];
    expect(rules.map((r) => r.Name)).toEqual(['path-too-long', 'query-too-long', 'auth-header-too-long', 'ip-rate']);
    expect(Object.keys(acl.Properties.CustomResponseBodies as object)).toContain('RATE_LIMITED');
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
              visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'clash', sampledRequestsEnabled: true },
            },
          ],
        },
      }),
    ).toThrow(/duplicate rule priority/);
  });
});
