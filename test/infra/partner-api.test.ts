import { describe, it, expect } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { ENDPOINT_GROUPS, FALLBACK_GROUP, ROUTES, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { TABLE_IDS, tableEnvName } from '../../lambdas/shared/storage/table-definitions';
import { resolveStageConfig } from '../../lib/config/stage-config';
import { GATEWAY_ERRORS, validateRoutes } from '../../lib/constructs/partner-api';
import { SPEC_ROUTES, functionLogicalId, methodTargets, resources, stage, synthStage } from './support';

const FUNCTION = 'AWS::Lambda::Function';

describe('stateless stack: functions', () => {
  it('creates one function per endpoint group', () => {
    const { statelessTemplate } = stage('dev');

    statelessTemplate.resourceCountIs(FUNCTION, ENDPOINT_GROUPS.length);
    for (const group of ENDPOINT_GROUPS) expect(functionLogicalId(statelessTemplate, group)).toBeTruthy();
  });

  it.each(['dev', 'prod'])('runs every %s function on Node.js 22, ARM64, with X-Ray and JSON logs', (name) => {
    const { statelessTemplate, config } = stage(name);

    for (const fn of Object.values(resources(statelessTemplate, FUNCTION))) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogFormat: 'JSON', ApplicationLogLevel: config.logLevel },
        MemorySize: config.lambda.memoryMb,
        Timeout: config.lambda.timeoutSeconds,
      });
    }
  });

  it('tells every function its stage, log level and each table name, and enables source maps', () => {
    const { statelessTemplate, config } = stage('dev');
    const tableVariables = Object.fromEntries(TABLE_IDS.map((id) => [tableEnvName(id), Match.anyValue()]));

    statelessTemplate.allResourcesProperties(FUNCTION, {
      Environment: {
        Variables: {
          STAGE: 'dev',
          LOG_LEVEL: config.logLevel,
          NODE_OPTIONS: '--enable-source-maps',
          ...tableVariables,
        },
      },
    });
  });

  it('grants every function read/write on the tables and their indexes', () => {
    const { statelessTemplate } = stage('dev');

    const policies = Object.values(resources(statelessTemplate, 'AWS::IAM::Policy'));
    const dynamoPolicies = policies.filter((p) => JSON.stringify(p.Properties).includes('dynamodb:PutItem'));
    expect(dynamoPolicies).toHaveLength(ENDPOINT_GROUPS.length);
    for (const policy of dynamoPolicies) {
      const text = JSON.stringify(policy.Properties);
      for (const action of ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']) {
        expect(text).toContain(action);
      }
      expect(text).toContain('/index/*');
    }
  });

  it.each([
    ['dev', 7, 'Delete'],
    ['pr-123', 7, 'Delete'],
    ['staging', 30, 'Retain'],
    ['prod', 30, 'Retain'],
  ])('keeps %s function and access logs for %i days (%s on stack deletion)', (name, days, policy) => {
    const { statelessTemplate } = stage(name);

    const logGroups = Object.values(resources(statelessTemplate, 'AWS::Logs::LogGroup'));
    expect(logGroups).toHaveLength(ENDPOINT_GROUPS.length + 1);
    for (const logGroup of logGroups) {
      expect(logGroup.Properties.RetentionInDays).toBe(days);
      expect(logGroup.DeletionPolicy).toBe(policy);
    }
  });
});

describe('stateless stack: REST API', () => {
  it('is a regional TLS 1.2+ API deployed to stage v1 with tracing, metrics, JSON access logs and the stage throttle', () => {
    for (const name of ['dev', 'prod']) {
      const { statelessTemplate } = stage(name);
      const config = resolveStageConfig(name);

      statelessTemplate.hasResourceProperties('AWS::ApiGateway::RestApi', {
        EndpointConfiguration: { Types: ['REGIONAL'] },
        SecurityPolicy: 'TLS_1_2',
      });
      statelessTemplate.hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: 'v1',
        TracingEnabled: true,
        AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"') },
        MethodSettings: [
          Match.objectLike({
            HttpMethod: '*',
            ResourcePath: '/*',
            MetricsEnabled: true,
            ThrottlingRateLimit: config.apiThrottle.rateLimit,
            ThrottlingBurstLimit: config.apiThrottle.burstLimit,
          }),
        ],
      });
    }
  });

  it('writes access logs as valid JSON without request headers or the concrete path', () => {
    const { statelessTemplate } = stage('dev');

    const [apiStage] = Object.values(resources(statelessTemplate, 'AWS::ApiGateway::Stage'));
    const format = (apiStage.Properties.AccessLogSetting as { Format: string }).Format;
    const parsed = JSON.parse(format) as Record<string, string>;
    expect(parsed).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
    expect(format.toLowerCase()).not.toContain('authorization');
    // A key wrongly sent in the URL must not end up in the logs.
    expect(Object.values(parsed)).not.toContain('$context.path');
  });

  it('outputs the base URL ending in /v1', () => {
    const { statelessTemplate } = stage('dev');

    const output = statelessTemplate.findOutputs('ApiBaseUrl').ApiBaseUrl as { Value: { 'Fn::Join': [string, unknown[]] } };
    const parts = output.Value['Fn::Join'][1];
    expect(parts[parts.length - 1]).toMatch(/\/v1$/);
  });

  it('routes every declared route of ROUTES to its group’s function', () => {
    const { statelessTemplate } = stage('dev');
    const targets = methodTargets(statelessTemplate);

    for (const route of ROUTES) {
      expect(targets.get(`${route.method} ${route.path}`), route.id).toBe(functionLogicalId(statelessTemplate, route.group));
    }
  });

  it('sends unknown paths and methods to the fallback function: ANY on /, /{proxy+} and every route resource', () => {
    const { statelessTemplate } = stage('dev');
    const targets = methodTargets(statelessTemplate);
    const fallback = functionLogicalId(statelessTemplate, FALLBACK_GROUP);

    expect(targets.get('ANY /')).toBe(fallback);
    expect(targets.get('ANY /{proxy+}')).toBe(fallback);
    for (const route of ROUTES) expect(targets.get(`ANY ${route.path}`)).toBe(fallback);
  });

  describe('with every endpoint of the spec', () => {
    const synthesized = synthStage({ stage: 'dev', stateless: { routes: SPEC_ROUTES } });
    const { statelessTemplate } = synthesized;
    const targets = methodTargets(statelessTemplate);

    it('creates each route as a method invoking its group’s function', () => {
      for (const route of SPEC_ROUTES) {
        expect(targets.get(`${route.method} ${route.path}`), route.id).toBe(functionLogicalId(statelessTemplate, route.group));
      }
    });

    it('puts ANY → fallback on every resource of the tree, intermediate ones included', () => {
      const fallback = functionLogicalId(statelessTemplate, FALLBACK_GROUP);
      const resourcePaths = new Set<string>(['/']);
      for (const route of SPEC_ROUTES) {
        const segments = route.path.split('/').slice(1);
        segments.forEach((_, i) => resourcePaths.add('/' + segments.slice(0, i + 1).join('/')));
      }
      expect(resourcePaths).toContain('/partners');
      expect(resourcePaths).toContain('/partners/{partner_id}');
      expect(resourcePaths).toContain('/partners/{partner_id}/invitations/{invitation_id}');

      for (const path of resourcePaths) expect(targets.get(`ANY ${path}`), path).toBe(fallback);
      expect(targets.get('ANY /{proxy+}')).toBe(fallback);
      // Nothing but declared routes and the fallback ANY methods exist.
      expect(targets.size).toBe(SPEC_ROUTES.length + resourcePaths.size + 1);
    });

    it('keeps the Lambda resource policies small: one API-wide permission per function', () => {
      statelessTemplate.resourceCountIs('AWS::Lambda::Permission', ENDPOINT_GROUPS.length);
      statelessTemplate.allResourcesProperties('AWS::Lambda::Permission', {
        Principal: 'apigateway.amazonaws.com',
        SourceArn: { 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/\\*/\\*/\\*$')])] },
      });
    });

    it('uses Lambda proxy integrations', () => {
      statelessTemplate.allResourcesProperties('AWS::ApiGateway::Method', {
        AuthorizationType: 'NONE',
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
    });
  });
});

describe('stateless stack: gateway responses', () => {
  const { statelessTemplate } = stage('dev');
  const byType = new Map(
    Object.values(resources(statelessTemplate, 'AWS::ApiGateway::GatewayResponse')).map((r) => [
      r.Properties.ResponseType as string,
      r.Properties as {
        StatusCode?: string;
        ResponseParameters: Record<string, string>;
        ResponseTemplates: Record<string, string>;
      },
    ]),
  );

  it.each(GATEWAY_ERRORS.map((e) => [e.type.responseType, e] as const))(
    '%s answers with the error envelope and Cache-Control: no-store',
    (type, spec) => {
      const response = byType.get(type);
      expect(response).toBeDefined();
      const body = JSON.parse(response!.ResponseTemplates['application/json']) as unknown;
      expect(body).toEqual({
        ok: false,
        error: { code: spec.code, message: expect.any(String) },
        request_id: '$context.requestId',
      });
      expect(response!.ResponseParameters['gatewayresponse.header.Cache-Control']).toBe("'no-store'");
    },
  );

  it.each([
    ['MISSING_AUTHENTICATION_TOKEN', '404', 'NOT_FOUND'],
    ['REQUEST_TOO_LARGE', '413', 'BODY_TOO_LARGE'],
    ['THROTTLED', '429', 'RATE_LIMITED'],
    ['INTEGRATION_TIMEOUT', '504', 'INTERNAL_ERROR'],
    ['INTEGRATION_FAILURE', '502', 'INTERNAL_ERROR'],
    ['WAF_FILTERED', '403', 'REQUEST_BLOCKED'],
  ])('maps %s to %s %s', (type, status, code) => {
    const response = byType.get(type)!;
    expect(response.StatusCode).toBe(status);
    expect(JSON.parse(response.ResponseTemplates['application/json'])).toMatchObject({ error: { code } });
  });

  it('keeps the status API Gateway chose for the DEFAULT_4XX and DEFAULT_5XX families', () => {
    expect(byType.get('DEFAULT_4XX')!.StatusCode).toBeUndefined();
    expect(byType.get('DEFAULT_5XX')!.StatusCode).toBeUndefined();
  });

  it('tells throttled clients when to retry and which policy rejected them', () => {
    expect(byType.get('THROTTLED')!.ResponseParameters).toMatchObject({
      'gatewayresponse.header.Retry-After': "'1'",
      'gatewayresponse.header.X-RateLimit-Policy': "'api-stage'",
    });
  });
});

describe('validateRoutes', () => {
  const base: RouteDefinition = { id: 'a', method: 'GET', path: '/a', group: 'system', auth: 'none', query: [], body: 'none' };

  it('accepts the service’s route table', () => {
    expect(() => validateRoutes(ROUTES)).not.toThrow();
    expect(() => validateRoutes(SPEC_ROUTES)).not.toThrow();
  });

  it.each<[string, RouteDefinition[]]>([
    ['duplicate route', [base, { ...base, id: 'b' }]],
    ['must start with /', [{ ...base, path: 'a' }]],
    ['root-level path parameter', [{ ...base, path: '/{id}' }]],
    ['two path parameters', [{ ...base, path: '/a/{x}' }, { ...base, id: 'b', path: '/a/{y}/z' }]],
    ['greedy path parameters', [{ ...base, path: '/a/{rest+}' }]],
  ])('rejects a table with a %s', (message, routes) => {
    expect(() => validateRoutes(routes)).toThrow(message);
  });
});
