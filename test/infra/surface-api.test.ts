import { joinLinkKey, playerIpKey } from '../../lambdas/player/player-admission';
import { PLAYER_COUNTER_KEY_PREFIXES } from '../../lambdas/player/player-counter-keys';
import { describe, it, expect } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { secretArnEnvName } from '../../lambdas/shared/secret-names';
import { ENDPOINT_GROUPS, FALLBACK_GROUPS, groupsOf, SURFACE_OF_GROUP, type EndpointGroup, type RouteDefinition, type Surface } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { dataAccessOf, GROUP_SECRET_ACCESS } from '../../lambdas/service/data-access';
import { RECORD_LIST_INDEXES, TABLE_IDS, physicalTableName, tableEnvName, type TableId } from '../../lambdas/shared/storage/table-definitions';
import { functionMemoryMb, resolveStageConfig } from '../../lib/config/stage-config';
import { SURFACE_PROFILES, SURFACES } from '../../lib/config/surfaces';
import { gatewayErrors, validateRoutes } from '../../lib/constructs/surface-api';
import { WEBHOOK_PIPELINE } from '../../lib/constructs/webhook-delivery';
import {
  SPEC_ROUTES,
  functionLogicalId,
  logicalIdByPath,
  methodTargets,
  resources,
  restApiLogicalId,
  ssmParameterRef,
  stage,
  stageLogicalId,
  stageReferenceNames,
  statelessTableArn,
  synthStage,
} from './support';

const FUNCTION = 'AWS::Lambda::Function';

/** Every resource path a route table creates, intermediate ones included, and the root. */
function resourcePathsOf(routes: readonly RouteDefinition[]): Set<string> {
  const paths = new Set<string>(['/']);
  for (const route of routes) {
    const segments = route.path.split('/').slice(1);
    segments.forEach((_, i) => paths.add('/' + segments.slice(0, i + 1).join('/')));
  }
  return paths;
}

const routesOf = (surface: Surface, routes: readonly RouteDefinition[] = ROUTES) => routes.filter((route) => SURFACE_OF_GROUP[route.group] === surface);

describe('stateless stack: functions', () => {
  it('creates one function per endpoint group (settings included), inside its surface’s API', () => {
    const { statelessTemplate } = stage('dev');

    expect(ENDPOINT_GROUPS).toContain('settings');
    // And the two scheduled jobs, the webhook fan-out, delivery worker and sweeper.
    statelessTemplate.resourceCountIs(FUNCTION, ENDPOINT_GROUPS.length + 5);
    for (const group of ENDPOINT_GROUPS) {
      const fn = resources(statelessTemplate, FUNCTION)[functionLogicalId(statelessTemplate, group)];
      const path = String(fn.Metadata?.['aws:cdk:path']);
      expect(path, group).toContain(`/${SURFACE_PROFILES[SURFACE_OF_GROUP[group]].apiConstructId}/`);
    }
  });

  it.each(['dev', 'prod'])('runs every %s function on Node.js 24, ARM64, with X-Ray and JSON logs', (name) => {
    const { statelessTemplate, config } = stage(name);
    // The webhook delivery worker is behind no API: its timeout covers a batch of attempts (webhook-delivery.ts).
    const worker = logicalIdByPath(statelessTemplate, FUNCTION, '/Webhooks/Worker/Resource');
    const fanOut = logicalIdByPath(statelessTemplate, FUNCTION, '/Webhooks/FanOut/Resource');
    // Sign-in runs on a full vCPU (lambda.groupMemoryMb): its every call is a password hash.
    const signIn = functionLogicalId(statelessTemplate, 'sign-in');

    for (const [id, fn] of Object.entries(resources(statelessTemplate, FUNCTION))) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogFormat: 'JSON', ApplicationLogLevel: 'DEBUG' },
        MemorySize: id === signIn ? functionMemoryMb(config, 'sign-in') : config.lambda.memoryMb,
        Timeout: id === worker ? WEBHOOK_PIPELINE.worker.timeoutSeconds : id === fanOut ? WEBHOOK_PIPELINE.fanOut.timeoutSeconds : config.lambda.timeoutSeconds,
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
  /** A table appears in the stateless template by its deterministic name (no cross-stack import). */
  const tableReference = (id: TableId) => `:table/${physicalTableName('dev', id)}`;
  const variablesOf = (group: EndpointGroup) =>
    (resources(statelessTemplate, FUNCTION)[functionLogicalId(statelessTemplate, group)].Properties as { Environment: { Variables: Record<string, unknown> } })
      .Environment.Variables;

  it('tells every endpoint function which front door it serves (its edge budget)', () => {
    for (const group of ENDPOINT_GROUPS) expect(variablesOf(group).API_SURFACE, group).toBe(SURFACE_OF_GROUP[group]);
  });

  /** The IAM statements of a function's role that mention DynamoDB. */
  function dynamoStatements(group: EndpointGroup): { Action: string | string[]; Resource: unknown; Condition?: unknown }[] {
    const fn = resources(statelessTemplate, FUNCTION)[functionLogicalId(statelessTemplate, group)];
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const policies = Object.values(resources(statelessTemplate, 'AWS::IAM::Policy')).filter((p) =>
      (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId),
    );
    return policies
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement)
      .filter((statement) => JSON.stringify(statement.Action).includes('dynamodb:'));
  }

  /** A table's ARN as the stateless stack builds it from the table's name. */
  const tableArn = (id: TableId) => statelessTableArn('dev', id);
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
    const granted = statements.map((statement) => ({ tables: tableNamesIn(statement), actions: actionsOf(statement), condition: statement.Condition }));
    expect(granted).toEqual(
      declared.map((access) => ({
        tables: [access.table],
        actions: [...access.actions].sort(),
        condition: access.leadingKeyPrefixes ? { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': access.leadingKeyPrefixes.map((prefix) => `${prefix}*`) } } : undefined,
      })),
    );
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

  it('lets the unauthenticated player function write only its counter items of access (dynamodb:LeadingKeys on PLAYER#IP# and PLAYER#LINK#), never a password hash, session, key or grant', () => {
    const onAccess = dynamoStatements('player').filter((statement) => tableNamesIn(statement).includes('access'));
    expect(onAccess).toHaveLength(1);
    expect(actionsOf(onAccess[0])).toEqual(['dynamodb:UpdateItem']);
    expect(onAccess[0].Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PLAYER#IP#*', 'PLAYER#LINK#*'] } });
    // The same prefixes the admission builds its keys with.
    expect(playerIpKey('192.0.2.1').pk.startsWith(PLAYER_COUNTER_KEY_PREFIXES[0])).toBe(true);
    expect(joinLinkKey('inv_1').pk.startsWith(PLAYER_COUNTER_KEY_PREFIXES[1])).toBe(true);
  });

  it('gives records Query on the record list indexes only, never on the table', () => {
    const query = dynamoStatements('records').filter((statement) => actionsOf(statement).includes('dynamodb:Query'));
    expect(query).toHaveLength(1);
    const text = JSON.stringify(query[0].Resource);
    for (const index of Object.values(RECORD_LIST_INDEXES)) expect(text).toContain(`/index/${index.indexName}`);
    expect([query[0].Resource].flat()).toHaveLength(Object.keys(RECORD_LIST_INDEXES).length);
  });

  it('gives settings (web settings over the back office) exactly dataAccessOf(settings): the access table only (and its gsi1 for memberships), no key admission of its own', () => {
    const declared = dataAccessOf('settings');
    expect(declared.map((access) => access.table)).toEqual(['access', 'access']);
    expect(declared[1]).toEqual({ table: 'access', actions: ['dynamodb:Query'], indexes: ['gsi1'] });
    const statements = dynamoStatements('settings');
    expect(statements.map((statement) => ({ tables: tableNamesIn(statement), actions: actionsOf(statement) }))).toEqual(
      declared.map((access) => ({ tables: [access.table], actions: [...access.actions].sort() })),
    );
    expect(statements[0].Resource).toEqual(tableArn('access'));
    expect(JSON.stringify(statements[1].Resource)).toContain('/index/gsi1');
    expect(Object.keys(variablesOf('settings')).filter((name) => name.startsWith('TABLE_'))).toEqual([tableEnvName('access')]);
  });

  it('lets every function of the stack write logs to its own log group and no other (no managed policy such as AWSLambdaBasicExecutionRole)', () => {
    const functions = Object.entries(resources(statelessTemplate, FUNCTION));
    expect(functions.length).toBeGreaterThan(ENDPOINT_GROUPS.length);
    for (const [id, fn] of functions) {
      const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      expect(resources(statelessTemplate, 'AWS::IAM::Role')[roleId].Properties.ManagedPolicyArns, id).toBeUndefined();
      const logGroupId = (fn.Properties as { LoggingConfig: { LogGroup: { Ref: string } } }).LoggingConfig.LogGroup.Ref;
      const logStatements = Object.values(resources(statelessTemplate, 'AWS::IAM::Policy'))
        .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
        .flatMap((p) => (p.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement)
        .filter((statement) => JSON.stringify(statement.Action).includes('logs:'));
      expect(logStatements.map((statement) => ({ actions: actionsOf(statement), resource: statement.Resource })), id).toEqual([
        { actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] } },
      ]);
    }
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
    // Each secret by the ARN the stateful stack published (an SSM-typed parameter, never an export), and its environment variable the same.
    const published = GROUP_SECRET_ACCESS[group].map((id) => ssmParameterRef(statelessTemplate, stageReferenceNames('dev').secretArn(id)));
    expect(statements.map((statement) => statement.Resource)).toEqual(expect.arrayContaining(published));
    for (const statement of statements) {
      expect(actionsOf(statement)).toEqual(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']);
      expect(JSON.stringify(statement.Resource)).not.toContain('*');
    }
    // The environment carries an ARN reference, not a value.
    for (const id of GROUP_SECRET_ACCESS[group]) {
      expect(variables[secretArnEnvName(id)]).toEqual(ssmParameterRef(statelessTemplate, stageReferenceNames('dev').secretArn(id)));
    }
  });
});

describe('stateless stack: logs', () => {
  it.each([
    ['dev', 'Delete'],
    ['pr123', 'Delete'],
    // Retained when deleted or replaced, never when a failed first create rolls back (a retry would find them).
    ['staging', 'RetainExceptOnCreate'],
    ['prod', 'RetainExceptOnCreate'],
  ])('keeps %s function, access and WAF logs for the stage’s retention (%s on stack deletion)', (name, policy) => {
    const { statelessTemplate, config } = stage(name);
    const days = config.logRetentionDays;

    const logGroups = Object.values(resources(statelessTemplate, 'AWS::Logs::LogGroup'));
    // One per function (endpoint groups, the two jobs, the webhook fan-out and worker), the webhook retry state machine's,
    // and per front door the API's access log and WAF's blocked-request log.
    expect(logGroups).toHaveLength(ENDPOINT_GROUPS.length + 5 + 1 + 2 * SURFACES.length);
    for (const logGroup of logGroups) {
      expect(logGroup.Properties.RetentionInDays).toBe(days);
      expect(logGroup.DeletionPolicy).toBe(policy);
    }
  });
});

describe('stateless stack: the partner API and the web side, two REST APIs', () => {
  it.each(['dev', 'prod'])('builds on %s one regional TLS 1.2+ API per surface, each deployed to stage v1 with tracing, metrics, JSON access logs and its own throttle', (name) => {
    const { statelessTemplate } = stage(name);
    const config = resolveStageConfig(name);

    statelessTemplate.resourceCountIs('AWS::ApiGateway::RestApi', 2);
    statelessTemplate.resourceCountIs('AWS::ApiGateway::Stage', 2);
    for (const surface of SURFACES) {
      const api = resources(statelessTemplate, 'AWS::ApiGateway::RestApi')[restApiLogicalId(statelessTemplate, surface)];
      expect(api.Properties).toMatchObject({
        Name: surface === 'partner' ? `partner-api-${name}` : `partner-api-${name}-web`,
        EndpointConfiguration: { Types: ['REGIONAL'] },
        SecurityPolicy: 'TLS_1_2',
      });
      const apiStage = resources(statelessTemplate, 'AWS::ApiGateway::Stage')[stageLogicalId(statelessTemplate, surface)];
      expect(apiStage.Properties).toMatchObject({
        StageName: 'v1',
        RestApiId: { Ref: restApiLogicalId(statelessTemplate, surface) },
        TracingEnabled: true,
        // The stage default; the web side adds sign-in's own bucket (below).
        MethodSettings: expect.arrayContaining([
          expect.objectContaining({
            HttpMethod: '*',
            ResourcePath: '/*',
            MetricsEnabled: true,
            ThrottlingRateLimit: config.apiThrottle[surface].rateLimit,
            ThrottlingBurstLimit: config.apiThrottle[surface].burstLimit,
          }),
        ]),
      });
      expect((apiStage.Properties.AccessLogSetting as { Format: string }).Format).toMatch(/"requestId":"\$context.requestId"/);
    }
    // The two stages throttle apart: distinct buckets, from distinct config entries.
    expect(config.apiThrottle.web).not.toEqual(config.apiThrottle.partner);
  });

  it.each(['dev', 'staging', 'prod'])('throttles sign-in on %s in a bucket of its own (signInThrottle), within the web stage\'s, and nothing else apart from the default', (name) => {
    const { statelessTemplate } = stage(name);
    const config = resolveStageConfig(name);
    const settingsOf = (surface: Surface) =>
      resources(statelessTemplate, 'AWS::ApiGateway::Stage')[stageLogicalId(statelessTemplate, surface)].Properties.MethodSettings as Record<string, unknown>[];
    const web = settingsOf('web');
    expect(web.filter((setting) => setting.ResourcePath !== '/*')).toEqual([
      expect.objectContaining({
        HttpMethod: 'POST',
        ResourcePath: '/~1settings~1api~1session',
        ThrottlingRateLimit: config.signInThrottle.rateLimit,
        ThrottlingBurstLimit: config.signInThrottle.burstLimit,
      }),
    ]);
    expect(config.signInThrottle.rateLimit).toBeLessThanOrEqual(config.apiThrottle.web.rateLimit);
    expect(settingsOf('partner').map((setting) => setting.ResourcePath)).toEqual(['/*']);
  });

  it.each(['dev', 'prod'])('reserves concurrency on %s exactly as configured: the web side\'s functions capped on prod, the partner API\'s left to the account pool', (name) => {
    const { statelessTemplate } = stage(name);
    const config = resolveStageConfig(name);
    for (const group of ENDPOINT_GROUPS) {
      const fn = resources(statelessTemplate, 'AWS::Lambda::Function')[functionLogicalId(statelessTemplate, group)];
      expect(fn.Properties.ReservedConcurrentExecutions, group).toBe(config.reservedConcurrency[group]);
      if (SURFACE_OF_GROUP[group] === 'partner') expect(fn.Properties.ReservedConcurrentExecutions, group).toBeUndefined();
    }
    if (name === 'prod') for (const group of ['player', 'settings', 'sign-in', 'webhooks'] as const) expect(config.reservedConcurrency[group], group).toBeGreaterThan(0);
  });

  it('writes each API’s access logs, to its own log group, as valid JSON without request headers or the concrete path', () => {
    const { statelessTemplate } = stage('dev');

    const destinations = new Set<string>();
    for (const surface of SURFACES) {
      const apiStage = resources(statelessTemplate, 'AWS::ApiGateway::Stage')[stageLogicalId(statelessTemplate, surface)];
      const setting = apiStage.Properties.AccessLogSetting as { Format: string; DestinationArn: unknown };
      destinations.add(JSON.stringify(setting.DestinationArn));
      const parsed = JSON.parse(setting.Format) as Record<string, string>;
      // The integration's error stands in for execution logs, which are off (lib/compliance/nag-acknowledgments.ts, APIG6).
      expect(parsed).toMatchObject({ requestId: '$context.requestId', status: '$context.status', integrationError: '$context.integration.error' });
      expect(setting.Format.toLowerCase()).not.toContain('authorization');
      // A key wrongly sent in the URL must not end up in the logs.
      expect(Object.values(parsed)).not.toContain('$context.path');
    }
    expect(destinations.size).toBe(2);
  });

  it.each(['dev', 'prod', 'pr123'])('leaves the account’s API Gateway CloudWatch role to the account baseline on %s: no account setting, no log role of its own', (name) => {
    const { statelessTemplate, statefulTemplate } = stage(name);

    for (const template of [statelessTemplate, statefulTemplate]) template.resourceCountIs('AWS::ApiGateway::Account', 0);
    const roles = Object.values(resources(statelessTemplate, 'AWS::IAM::Role'));
    expect(roles.filter((role) => JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('apigateway.amazonaws.com'))).toEqual([]);
  });

  it.each([
    ['ApiBaseUrl', 'partner'],
    ['WebBaseUrl', 'web'],
  ] as const)('outputs %s: the %s API’s base URL, ending in /v1', (output, surface) => {
    const { statelessTemplate } = stage('dev');

    const value = (statelessTemplate.findOutputs(output)[output] as { Value: { 'Fn::Join': [string, unknown[]] } }).Value;
    const parts = value['Fn::Join'][1];
    expect(parts[0]).toBe('https://');
    expect(parts[1]).toEqual({ Ref: restApiLogicalId(statelessTemplate, surface) });
    expect(parts[parts.length - 1]).toMatch(/\/v1$/);
  });

  it('gives the invitations function PLAYER_SITE_URL = the web API’s base URL + /join, and no other function', () => {
    const { statelessTemplate } = stage('dev');
    const functions = resources(statelessTemplate, FUNCTION);
    const invitations = functions[functionLogicalId(statelessTemplate, 'invitations')];

    const url = (invitations.Properties.Environment as { Variables: Record<string, { 'Fn::Join': [string, unknown[]] }> }).Variables.PLAYER_SITE_URL;
    expect(url['Fn::Join'][1]).toEqual([
      'https://',
      { Ref: restApiLogicalId(statelessTemplate, 'web') },
      '.execute-api.',
      { Ref: 'AWS::Region' },
      '.',
      { Ref: 'AWS::URLSuffix' },
      '/v1/join',
    ]);
    const others = Object.entries(functions).filter(([id, fn]) => id !== functionLogicalId(statelessTemplate, 'invitations') && JSON.stringify(fn.Properties).includes('PLAYER_SITE_URL'));
    expect(others).toEqual([]);
  });

  it('keeps the web API free of any reference to the partner API’s functions (no cycle: only the invitations function points at the web API)', () => {
    const { statelessTemplate } = stage('dev');
    const partnerFunctions = groupsOf('partner').map((group) => functionLogicalId(statelessTemplate, group));
    const template = statelessTemplate.toJSON() as { Resources: Record<string, { Metadata?: Record<string, unknown> }> };

    const webResources = Object.values(template.Resources).filter((r) => String(r.Metadata?.['aws:cdk:path']).includes('/WebApi/'));
    expect(webResources.length).toBeGreaterThan(0);
    for (const resource of webResources) {
      for (const id of partnerFunctions) expect(JSON.stringify(resource)).not.toContain(`"${id}"`);
    }
  });

  describe.each(SURFACES)('the %s API', (surface) => {
    const { statelessTemplate } = stage('dev');
    const targets = methodTargets(statelessTemplate, restApiLogicalId(statelessTemplate, surface));
    const own = routesOf(surface);
    const other = routesOf(surface === 'partner' ? 'web' : 'partner');

    it('routes each of its surface’s routes to its group’s function', () => {
      expect(own.length).toBeGreaterThan(0);
      for (const route of own) {
        expect(targets.get(`${route.method} ${route.path}`), route.id).toBe(functionLogicalId(statelessTemplate, route.group));
      }
    });

    it('has no route, no resource and no function of the other surface', () => {
      const otherPaths = [...resourcePathsOf(other)].filter((path) => path !== '/');
      for (const key of targets.keys()) {
        const path = key.slice(key.indexOf(' ') + 1);
        expect(otherPaths, key).not.toContain(path);
      }
      const otherFunctions = groupsOf(surface === 'partner' ? 'web' : 'partner').map((group) => functionLogicalId(statelessTemplate, group));
      for (const target of targets.values()) expect(otherFunctions).not.toContain(target);
      // Exactly its own routes and the fallback's ANY methods.
      expect(targets.size).toBe(own.length + resourcePathsOf(own).size + 1);
    });

    it(`sends unknown paths and methods to its own fallback function (${FALLBACK_GROUPS[surface]}): ANY on /, /{proxy+} and every route resource`, () => {
      const fallback = functionLogicalId(statelessTemplate, FALLBACK_GROUPS[surface]);

      expect(targets.get('ANY /')).toBe(fallback);
      expect(targets.get('ANY /{proxy+}')).toBe(fallback);
      for (const path of resourcePathsOf(own)) expect(targets.get(`ANY ${path}`), path).toBe(fallback);
    });
  });

  it('serves web settings’ sign-out (DELETE /settings/api/session) on the web API by the settings function, and sign-in by its own', () => {
    const { statelessTemplate } = stage('dev');
    const web = methodTargets(statelessTemplate, restApiLogicalId(statelessTemplate, 'web'));
    const settings = functionLogicalId(statelessTemplate, 'settings');

    expect(web.get('DELETE /settings/api/session')).toBe(settings);
    expect(web.get('POST /settings/api/session')).toBe(functionLogicalId(statelessTemplate, 'sign-in'));
    expect(web.get('GET /settings/api/session')).toBe(settings);
    expect(web.get('GET /settings')).toBe(settings);
    expect(web.get('GET /join/{invitation_id}')).toBe(functionLogicalId(statelessTemplate, 'player'));
    const partner = methodTargets(statelessTemplate, restApiLogicalId(statelessTemplate, 'partner'));
    expect([...partner.keys()].filter((key) => key.includes('/settings') || key.includes('/join'))).toEqual([]);
  });

  describe('with every endpoint of the spec', () => {
    const synthesized = synthStage({ stage: 'dev', stateless: { routes: SPEC_ROUTES } });
    const { statelessTemplate } = synthesized;

    it.each(SURFACES)('creates each %s route as a method invoking its group’s function, and ANY → fallback on every resource of its tree', (surface) => {
      const targets = methodTargets(statelessTemplate, restApiLogicalId(statelessTemplate, surface));
      const own = routesOf(surface, SPEC_ROUTES);
      for (const route of own) {
        expect(targets.get(`${route.method} ${route.path}`), route.id).toBe(functionLogicalId(statelessTemplate, route.group));
      }
      const fallback = functionLogicalId(statelessTemplate, FALLBACK_GROUPS[surface]);
      const paths = resourcePathsOf(own);
      for (const path of paths) expect(targets.get(`ANY ${path}`), path).toBe(fallback);
      expect(targets.get('ANY /{proxy+}')).toBe(fallback);
      // Nothing but declared routes and the fallback ANY methods exist.
      expect(targets.size).toBe(own.length + paths.size + 1);
    });

    it('reaches intermediate resources of the deep trees', () => {
      const partnerPaths = resourcePathsOf(routesOf('partner', SPEC_ROUTES));
      expect(partnerPaths).toContain('/partners');
      expect(partnerPaths).toContain('/partners/{partner_id}');
      expect(partnerPaths).toContain('/partners/{partner_id}/invitations/{invitation_id}');
      const webPaths = resourcePathsOf(routesOf('web', SPEC_ROUTES));
      expect(webPaths).toContain('/settings/api');
      expect(webPaths).toContain('/settings/api/keys/{key_id}');
    });

    it('keeps the Lambda resource policies small: one API-wide permission per function, for its own API only', () => {
      // Per function a route or fallback of this table invokes (a group without a route here, e.g. webhooks, has none).
      const invoked = new Set([...SPEC_ROUTES.map((route) => route.group), ...Object.values(FALLBACK_GROUPS)]);
      statelessTemplate.resourceCountIs('AWS::Lambda::Permission', invoked.size);
      statelessTemplate.allResourcesProperties('AWS::Lambda::Permission', {
        Principal: 'apigateway.amazonaws.com',
        SourceArn: { 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/\\*/\\*/\\*$')])] },
      });
      for (const permission of Object.values(resources(statelessTemplate, 'AWS::Lambda::Permission'))) {
        const target = (permission.Properties.FunctionName as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
        const group = ENDPOINT_GROUPS.find((g) => functionLogicalId(statelessTemplate, g) === target)!;
        expect(JSON.stringify(permission.Properties.SourceArn)).toContain(`"${restApiLogicalId(statelessTemplate, SURFACE_OF_GROUP[group])}"`);
      }
    });

    it('uses Lambda proxy integrations', () => {
      statelessTemplate.allResourcesProperties('AWS::ApiGateway::Method', {
        AuthorizationType: 'NONE',
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
    });
  });

  it('refuses a route table that puts a route on the wrong front door', () => {
    const stray: RouteDefinition = { id: 'stray', method: 'GET', path: '/join/{invitation_id}/debug', group: 'system', auth: 'none', query: [], body: 'none' };
    expect(() => synthStage({ stage: 'pr12', stateless: { routes: [...SPEC_ROUTES, stray] } })).toThrow(/stray: path .* belongs to the web surface, group system to the partner surface/);
  });
});

type GatewayResponse = { StatusCode?: string; ResponseParameters: Record<string, string>; ResponseTemplates: Record<string, string> };

function gatewayResponses(surface: Surface): Map<string, GatewayResponse> {
  const { statelessTemplate } = stage('dev');
  const apiId = restApiLogicalId(statelessTemplate, surface);
  return new Map(
    Object.values(resources(statelessTemplate, 'AWS::ApiGateway::GatewayResponse'))
      .filter((r) => (r.Properties.RestApiId as { Ref: string }).Ref === apiId)
      .map((r) => [r.Properties.ResponseType as string, r.Properties as GatewayResponse]),
  );
}

describe('stateless stack: gateway responses', () => {
  it.each(SURFACES)('answers every API Gateway error of the %s API with a response of its own', (surface) => {
    expect([...gatewayResponses(surface).keys()].sort()).toEqual(gatewayErrors(surface).map((e) => e.type.responseType).sort());
  });

  describe('partner API', () => {
    const byType = gatewayResponses('partner');

    it.each(gatewayErrors('partner').map((e) => [e.type.responseType, e] as const))(
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

    it('tells throttled clients when to retry and which policy rejected them', () => {
      expect(byType.get('THROTTLED')!.ResponseParameters).toMatchObject({
        'gatewayresponse.header.Retry-After': "'1'",
        'gatewayresponse.header.X-RateLimit-Policy': "'api-stage'",
      });
    });
  });

  describe('web API (player site and web settings)', () => {
    const byType = gatewayResponses('web');

    it.each(gatewayErrors('web').map((e) => [e.type.responseType, e] as const))(
      '%s answers with a body both shapes accept: the envelope (player site) and top-level code and message (web settings)',
      (type, spec) => {
        const response = byType.get(type);
        expect(response).toBeDefined();
        const body = JSON.parse(response!.ResponseTemplates['application/json']) as { code: string; message: string; error: { code: string; message: string } };
        expect(body).toEqual({
          ok: false,
          code: spec.code,
          message: expect.any(String),
          error: { code: spec.code, message: body.message },
          request_id: '$context.requestId',
        });
        expect(body.message.length).toBeGreaterThan(0);
        expect(response!.ResponseParameters['gatewayresponse.header.Cache-Control']).toBe("'no-store'");
      },
    );

    it('names the web stage’s own throttle policy on a throttled request', () => {
      expect(byType.get('THROTTLED')!.ResponseParameters).toMatchObject({
        'gatewayresponse.header.Retry-After': "'1'",
        'gatewayresponse.header.X-RateLimit-Policy': "'web-stage'",
      });
    });
  });

  describe.each(SURFACES)('%s API statuses', (surface) => {
    const byType = gatewayResponses(surface);

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
    ['belongs to the web surface, group system to the partner surface', [{ ...base, path: '/settings/x' }]],
    ['belongs to the partner surface, group settings to the web surface', [{ ...base, group: 'settings' }]],
    // The sign-in throttle is checked against the sign-in function's reservation: that function is sign-in's alone.
    ['a route of category settings-sign-in belongs to group sign-in', [{ ...base, path: '/settings/x', group: 'settings', category: 'settings-sign-in' }]],
    ['a route of category settings-sign-in belongs to group sign-in', [{ ...base, path: '/settings/x', group: 'sign-in' }]],
  ])('rejects a table with a route that %s', (message, routes) => {
    expect(() => validateRoutes(routes)).toThrow(message);
  });
});
