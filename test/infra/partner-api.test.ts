import { describe, it, expect } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { secretArnEnvName } from '../../lambdas/shared/secret-names';
import { dataAccessOf, ENDPOINT_GROUPS, GROUP_SECRET_ACCESS, FALLBACK_GROUP, ROUTES, type EndpointGroup, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { RECORD_LIST_INDEXES, TABLE_IDS, tableEnvName } from '../../lambdas/shared/storage/table-definitions';
import { resolveStageConfig } from '../../lib/config/stage-config';
import { GATEWAY_ERRORS, validateRoutes } from '../../lib/constructs/partner-api';
import { SPEC_ROUTES, functionLogicalId, methodTargets, resources, stage, synthStage } from './support';

const FUNCTION = 'AWS::Lambda::Function';

describe('stateless stack: functions', () => {
  it('creates one function per endpoint group', () => {
    const { statelessTemplate } = stage('dev');

    statelessTemplate.resourceCountIs(FUNCTION, ENDPOINT_GROUPS.length + 2);
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

  it('tells every function its stage and log level, and enables source maps', () => {
    const { statelessTemplate, config } = stage('dev');

    statelessTemplate.allResourcesProperties(FUNCTION, {
      Environment: { Variables: Match.objectLike({ STAGE: 'dev', LOG_LEVEL: config.logLevel, NODE_OPTIONS: '--enable-source-maps' }) },
    });
  });
});

describe('stateless stack: least privilege, per function', () => {
  const { statelessTemplate } = stage('dev');
  /** Table references cross from the stateful stack as imports named after the table construct (`AccessTable…Arn`). */
  const tableReference = (id: string) => `${id[0].toUpperCase()}${id.slice(1)}Table`;
  const variablesOf = (group: EndpointGroup) =>
    (resources(statelessTemplate, FUNCTION)[functionLogicalId(statelessTemplate, group)].Properties as { Environment: { Variables: Record<string, unknown> } })
      .Environment.Variables;

  /** The IAM statements of a function's role that mention DynamoDB. */
  function dynamoStatements(group: EndpointGroup): { Action: string | string[]; Resource: unknown }[] {
    const fn = resources(statelessTemplate, FUNCTION)[functionLogicalId(statelessTemplate, group)];
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const policies = Object.values(resources(statelessTemplate, 'AWS::IAM::Policy')).filter((p) =>
      (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId),
    );
    return policies
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement)
      .filter((statement) => JSON.stringify(statement.Action).includes('dynamodb:'));
  }

  /** A table's ARN as the stateless stack imports it from the stateful stack. */
  const tableArn = (id: string) => ({ 'Fn::ImportValue': expect.stringMatching(new RegExp(`${tableReference(id)}\\w*Arn\\w*$`)) as unknown });
  const actionsOf = (statement: { Action: string | string[] }) => [statement.Action].flat().sort();
  const tableNamesIn = (statement: { Resource: unknown }) => {
    const text = JSON.stringify(statement.Resource);
    return TABLE_IDS.filter((id) => text.includes(tableReference(id)));
  };

  it('gives system (health, the 404 fallback) no DynamoDB permission and no table name', () => {
    expect(dynamoStatements('system')).toEqual([]);
    for (const id of TABLE_IDS) expect(variablesOf('system')).not.toHaveProperty(tableEnvName(id));
  });

  it('gives identity (GET /me) exactly GetItem and UpdateItem on the access table, no index, and only that table name', () => {
    const statements = dynamoStatements('identity');
    expect(statements).toHaveLength(1);
    expect(actionsOf(statements[0])).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    // One resource: the access table's ARN itself (no index ARN, no `/*`).
    expect(statements[0].Resource).toEqual(tableArn('access'));
    expect(Object.keys(variablesOf('identity')).filter((name) => name.startsWith('TABLE_'))).toEqual([tableEnvName('access')]);
  });

  it.each(ENDPOINT_GROUPS)('grants %s exactly what routes.ts declares for it (dataAccessOf), and never a scan or a table-wide wildcard', (group) => {
    const declared = dataAccessOf(group);
    const statements = dynamoStatements(group);
    const granted = statements.map((statement) => ({ tables: tableNamesIn(statement), actions: actionsOf(statement) }));
    expect(granted).toEqual(declared.map((access) => ({ tables: [access.table], actions: [...access.actions].sort() })));
    statements.forEach((statement, i) => {
      expect(actionsOf(statement).some((action) => action === 'dynamodb:*' || action === 'dynamodb:Scan')).toBe(false);
      const text = JSON.stringify(statement.Resource);
      expect(text.includes('/index/*')).toBe(false);
      const statementResources = [statement.Resource].flat();
      const indexes = declared[i].indexes;
      if (indexes) {
        // Exactly the declared indexes, each by name, and not the table itself.
        expect(statementResources).toHaveLength(indexes.length);
        for (const index of indexes) expect(text).toContain(`/index/${index}`);
      } else {
        // The table's ARN alone.
        expect(statementResources).toEqual([tableArn(declared[i].table)]);
      }
    });
    const tableVariables = Object.keys(variablesOf(group)).filter((name) => name.startsWith('TABLE_')).sort();
    expect(tableVariables).toEqual([...new Set(declared.map((access) => tableEnvName(access.table)))].sort());
  });

  it('gives records Query on the record list indexes only, never on the table', () => {
    const query = dynamoStatements('records').filter((statement) => actionsOf(statement).includes('dynamodb:Query'));
    expect(query).toHaveLength(1);
    const text = JSON.stringify(query[0].Resource);
    for (const index of Object.values(RECORD_LIST_INDEXES)) expect(text).toContain(`/index/${index.indexName}`);
    expect([query[0].Resource].flat()).toHaveLength(Object.keys(RECORD_LIST_INDEXES).length);
  });

  it.each(ENDPOINT_GROUPS)('lets %s read exactly the secrets its group declares (GROUP_SECRET_ACCESS), by ARN, never their values', (group) => {
    const fn = resources(statelessTemplate, FUNCTION)[functionLogicalId(statelessTemplate, group)];
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const statements = Object.values(resources(statelessTemplate, 'AWS::IAM::Policy'))
      .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement)
      .filter((statement) => JSON.stringify(statement.Action).includes('secretsmanager:'));
    const variables = variablesOf(group);
    const secretVariables = Object.keys(variables).filter((name) => name.startsWith('SECRET_'));
    expect(secretVariables.sort()).toEqual(GROUP_SECRET_ACCESS[group].map(secretArnEnvName).sort());
    expect(statements).toHaveLength(GROUP_SECRET_ACCESS[group].length);
    for (const statement of statements) {
      expect(actionsOf(statement)).toEqual(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']);
      expect(JSON.stringify(statement.Resource)).not.toContain('*');
    }
    // The environment carries an ARN reference, not a value.
    for (const name of secretVariables) expect(JSON.stringify(variables[name])).toMatch(/Fn::ImportValue/);
  });
});

describe('stateless stack: logs', () => {
  it.each([
    ['dev', 7, 'Delete'],
    ['pr-123', 7, 'Delete'],
    ['staging', 30, 'Retain'],
    ['prod', 30, 'Retain'],
  ])('keeps %s function, access and WAF logs for %i days (%s on stack deletion)', (name, days, policy) => {
    const { statelessTemplate } = stage(name);

    const logGroups = Object.values(resources(statelessTemplate, 'AWS::Logs::LogGroup'));
    // One per function, the API's access log, and WAF's blocked-request log.
    expect(logGroups).toHaveLength(ENDPOINT_GROUPS.length + 4);
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
