/**
 * A front door of the service (lib/config/surfaces.ts): one regional API
 * Gateway REST API deployed to stage `v1` (so the base URL ends with /v1),
 * one Lambda per endpoint group of the surface, and the resource tree built
 * from the surface's routes of the shared route table. The stateless stack
 * builds it twice: the partner API (API keys, the spec's envelope) and the
 * web side (the player site and web settings, for browsers); neither API
 * has a route, a function or a throttle bucket of the other.
 *
 * Every path and method that no route declares must end in 404 NOT_FOUND.
 * API Gateway answers unmatched requests itself with 403 "Missing
 * Authentication Token", so:
 * - the surface's fallback group's function (routes.ts FALLBACK_GROUPS:
 *   system on the partner API, settings on the web side) gets ANY on the
 *   root, on a root-level greedy `{proxy+}`, and on every resource the route
 *   tree creates (intermediate ones such as /partners/{partner_id} included);
 * - what still cannot reach a Lambda (a deeper unknown path below a resource
 *   that already has a `{param}` child, where API Gateway allows no second
 *   variable sibling) is caught by the MISSING_AUTHENTICATION_TOKEN gateway
 *   response, mapped to 404 NOT_FOUND.
 *
 * Gateway responses (errors API Gateway produces without a Lambda) carry the
 * error envelope in the surface's shape (error-envelope.ts `errorBody`) with
 * `request_id` = `$context.requestId`.
 */
import { CfnRule, Duration, Fn, Stack } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { API_STAGE_NAME, ENDPOINT_GROUPS, FALLBACK_GROUPS, FALLBACK_RESOURCE, groupsOf, SURFACE_OF_GROUP, surfaceOfPath, type EndpointGroup, type RouteDefinition, type Surface } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { dataAccessOf, GROUP_SECRET_ACCESS } from '../../lambdas/service/data-access';
import { ACM_CERTIFICATE_ARN, API_INTEGRATION_TIMEOUT_SECONDS, type StageConfig } from '../config/stage-config';
import { SURFACE_PROFILES, surfaceNamePrefix } from '../config/surfaces';
import { gatewayAnswers, type GatewayAnswer } from '../config/front-answers';
import { ApiFunction } from './api-function';
import type { TableMap } from './data-tables';
import type { SecretMap } from './service-secrets';
import { GATEWAY_REQUEST_ID, errorBody } from './error-envelope';
import { stageRemovalPolicy } from './removal-policy';

/** The deployment stage; part of the base URL (`…/v1`). */
export { API_STAGE_NAME };

/**
 * TLS security policy of the execute-api endpoint: TLS 1.2 and 1.3 only. The
 * enhanced `SecurityPolicy_*` policies (e.g. TLS 1.3 only) would also need an
 * endpoint access mode; not used for now.
 */
export const API_SECURITY_POLICY = 'TLS_1_2';

/** A gateway answer (lib/config/front-answers.ts) with its CDK response type. */
export interface GatewayErrorSpec extends Omit<GatewayAnswer, 'type'> {
  readonly type: apigateway.ResponseType;
}

/**
 * Headers on every gateway response. Values are static: gateway response
 * parameters can only map method request parameters, stage variables or
 * literals, not `$context` variables, so `X-Request-Id` cannot carry the
 * request id here. API Gateway's own `x-amzn-RequestId` response header and
 * the body's `request_id` carry it instead (see docs/infrastructure.md).
 */
const GATEWAY_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
};

/** What API Gateway's own errors answer on a surface (lib/config/front-answers.ts), with CDK's response types. */
export function gatewayErrors(surface: Surface): readonly GatewayErrorSpec[] {
  return gatewayAnswers(surface).map((answer) => ({ ...answer, type: apigateway.ResponseType.of(answer.type) }));
}

export interface SurfaceApiProps {
  readonly config: StageConfig;
  /** The front door to build: its routes, groups, fallback, names and error shape. */
  readonly surface: Surface;
  readonly tables: TableMap;
  readonly secrets: SecretMap;
  /** The whole route table (both surfaces; validated whole, this API takes its surface's routes); defaults to ROUTES. Tests pass extended copies. */
  readonly routes?: readonly RouteDefinition[];
  /** Extra environment variables per group of this surface (e.g. the invitations function's PLAYER_SITE_URL). */
  readonly functionEnvironment?: Readonly<Partial<Record<EndpointGroup, Readonly<Record<string, string>>>>>;
}

export class SurfaceApi extends Construct {
  public readonly surface: Surface;
  public readonly api: apigateway.RestApi;
  /** The `v1` stage (the surface's WAF web ACL associates with it). */
  public readonly stage: apigateway.Stage;
  /** One function per endpoint group of the surface (routes.ts groupsOf). */
  public readonly functions: Readonly<Partial<Record<EndpointGroup, ApiFunction>>>;
  /** The group whose function answers unknown paths and methods. */
  public readonly fallbackGroup: EndpointGroup;
  /** The routes this API serves: the surface's rows of the route table. */
  public readonly routes: readonly RouteDefinition[];
  public readonly accessLogGroup: logs.LogGroup;
  /** `{id}.execute-api.{region}.amazonaws.com`: the API's own host (a webhook callback may never point at it). */
  public readonly executeApiHost: string;
  /**
   * `https://<custom domain>/v1` when the stage gives the surface one (StageConfig.customDomains), else
   * `https://{id}.execute-api.{region}.amazonaws.com/v1`; no trailing slash.
   */
  public readonly baseUrl: string;
  /** Every host this API answers on: the execute-api host, and the custom domain if any. */
  public readonly hosts: readonly string[];
  /** The custom domain, if the stage configures one for this surface. */
  public readonly customDomain?: apigateway.DomainName;

  constructor(scope: Construct, id: string, props: SurfaceApiProps) {
    super(scope, id);
    const { config, tables, secrets, surface } = props;
    if (!(surface in SURFACE_PROFILES)) throw new Error(`SurfaceApi: unknown surface ${JSON.stringify(surface)}`);
    const profile = SURFACE_PROFILES[surface];
    const allRoutes = props.routes ?? ROUTES;
    validateRoutes(allRoutes);
    const groups = groupsOf(surface);
    const fallbackGroup = FALLBACK_GROUPS[surface];
    if (!groups.includes(fallbackGroup)) throw new Error(`SurfaceApi ${surface}: fallback group ${fallbackGroup} is not a group of the surface`);
    const foreign = Object.keys(props.functionEnvironment ?? {}).filter((group) => !groups.includes(group as EndpointGroup));
    if (foreign.length > 0) throw new Error(`SurfaceApi ${surface}: functionEnvironment names groups of another surface: ${foreign.join(', ')}`);
    this.surface = surface;
    this.fallbackGroup = fallbackGroup;
    this.routes = allRoutes.filter((route) => SURFACE_OF_GROUP[route.group] === surface);

    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: config.logRetentionDays as number as logs.RetentionDays,
      removalPolicy: stageRemovalPolicy(config),
    });

    const throttle = config.apiThrottle[surface];
    // Sign-in's own bucket (StageConfig.signInThrottle), apart from the stage default every other method gets.
    const methodOptions = Object.fromEntries(
      signInRoutes(this.routes).map((route): [string, apigateway.MethodDeploymentOptions] => [
        `${route.path}/${route.method}`,
        { throttlingRateLimit: config.signInThrottle.rateLimit, throttlingBurstLimit: config.signInThrottle.burstLimit },
      ]),
    );
    this.api = new apigateway.RestApi(this, 'RestApi', {
      restApiName: surfaceNamePrefix(config.stage, surface),
      description: `${profile.title} (${config.stage})`,
      endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
      // Access logging needs the account's API Gateway CloudWatch Logs role, an account-wide setting: the
      // account-level stack sets it once (lib/baseline-stack.ts); no stage may touch it.
      cloudWatchRole: false,
      deploy: true,
      retainDeployments: false,
      deployOptions: {
        stageName: API_STAGE_NAME,
        tracingEnabled: config.tracing,
        metricsEnabled: true,
        loggingLevel: apigateway.MethodLoggingLevel.OFF,
        dataTraceEnabled: false,
        throttlingRateLimit: throttle.rateLimit,
        throttlingBurstLimit: throttle.burstLimit,
        methodOptions,
        accessLogDestination: new apigateway.LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: ACCESS_LOG_FORMAT,
      },
    });
    this.stage = this.api.deploymentStage;
    // A new Regional REST API defaults to the legacy TLS_1_0 policy; TLS_1_2 refuses TLS 1.0/1.1 handshakes.
    (this.api.node.defaultChild as apigateway.CfnRestApi).securityPolicy = API_SECURITY_POLICY;

    const functions: Partial<Record<EndpointGroup, ApiFunction>> = {};
    const integrations: Partial<Record<EndpointGroup, apigateway.LambdaIntegration>> = {};
    for (const group of groups) {
      const fn = new ApiFunction(this, `${pascal(group)}Function`, {
        group,
        config,
        tables,
        dataAccess: dataAccessOf(group, allRoutes),
        secrets: GROUP_SECRET_ACCESS[group].map((secretId) => [secretId, secrets[secretId]] as const),
        ...(props.functionEnvironment?.[group] ? { environment: props.functionEnvironment[group] } : {}),
      });
      functions[group] = fn;
      integrations[group] = new apigateway.LambdaIntegration(fn.function, {
        proxy: true,
        // One resource-policy statement per function for the whole API instead of one per method.
        scopePermissionToMethod: false,
        timeout: Duration.seconds(API_INTEGRATION_TIMEOUT_SECONDS),
      });
    }
    this.functions = Object.freeze(functions);
    const integrationOf = (group: EndpointGroup): apigateway.LambdaIntegration => {
      const integration = integrations[group];
      if (!integration) throw new Error(`SurfaceApi ${surface}: no function for group ${group}`);
      return integration;
    };

    const routedResources = new Set<apigateway.IResource>([this.api.root]);
    for (const route of this.routes) {
      const resource = this.api.root.resourceForPath(route.path);
      for (let r: apigateway.IResource | undefined = resource; r; r = r.parentResource) routedResources.add(r);
      resource.addMethod(route.method, integrationOf(route.group));
    }

    // Everything no route declares reaches the fallback function, which answers 404 NOT_FOUND.
    const fallback = integrationOf(fallbackGroup);
    for (const resource of routedResources) resource.addMethod('ANY', fallback);
    this.api.root.resourceForPath(FALLBACK_RESOURCE).addMethod('ANY', fallback);

    // One body per response type and API, filled by substitution (no VTL, so nothing can depend on $context.path): on
    // the web side the body the player site and web settings both read, not web settings' exact shape on its paths
    // (front-answers.ts SETTINGS_SHAPE_EXACT; the web ACL's answers are exact: edge-answer-shapes.ts).
    for (const spec of gatewayErrors(surface)) {
      this.api.addGatewayResponse(spec.type.responseType, {
        type: spec.type,
        ...(spec.statusCode !== undefined ? { statusCode: String(spec.statusCode) } : {}),
        responseHeaders: quoteHeaderValues({ ...GATEWAY_RESPONSE_HEADERS, ...spec.headers }),
        templates: { 'application/json': errorBody(profile.errorShape, spec.code, GATEWAY_REQUEST_ID, spec.message) },
      });
    }

    const stack = Stack.of(this);
    // The REST API's id only (a leaf resource), never its stage or URL: functions of this very API may name the host without a cycle.
    this.executeApiHost = `${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
    const domain = config.customDomains[surface];
    if (domain) {
      this.customDomain = customDomainOf(this, domain.name, domain.certificateArn);
      // At base path `v1`: the same paths as on the execute-api host (cookie paths, WAF's path rules, join links).
      this.customDomain.addBasePathMapping(this.api, { basePath: API_STAGE_NAME, stage: this.stage });
    }
    this.hosts = domain ? [this.executeApiHost, domain.name] : [this.executeApiHost];
    this.baseUrl = `https://${domain ? domain.name : this.executeApiHost}/${API_STAGE_NAME}`;
  }
}

/**
 * JSON access log: who, what, outcome and latency. No headers (never the
 * Authorization header) and no concrete path or query string: a client that
 * wrongly puts a key in the URL (400 CREDENTIALS_IN_URL) must not leave it in
 * the logs. The resource template identifies the route.
 */
const ACCESS_LOG_FORMAT = apigateway.AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    extendedRequestId: '$context.extendedRequestId',
    requestTime: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    httpMethod: '$context.httpMethod',
    resourcePath: '$context.resourcePath',
    protocol: '$context.protocol',
    status: '$context.status',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integration.latency',
    integrationStatus: '$context.integration.status',
    // Why an integration failed (a throttled or failing Lambda, a missing permission): what execution logs would add.
    integrationError: '$context.integration.error',
    errorType: '$context.error.responseType',
    errorMessage: '$context.error.message',
    wafStatus: '$context.waf.status',
    wafResponseCode: '$context.wafResponseCode',
    xrayTraceId: '$context.xrayTraceId',
  }),
);

/**
 * A regional custom domain with the operator's certificate, TLS 1.2. The stack is
 * environment-agnostic, so the certificate's Region is checked by a template rule against the
 * Region of the deployment: a regional endpoint takes only a certificate of its own Region, and the
 * change set fails before anything changes, with a message saying so.
 */
function customDomainOf(scope: Construct, name: string, certificateArn: string): apigateway.DomainName {
  const region = ACM_CERTIFICATE_ARN.exec(certificateArn)?.[1];
  if (!region) throw new Error(`SurfaceApi: ${certificateArn} is not an ACM certificate ARN`);
  new CfnRule(scope, 'CustomDomainCertificateRegion', {
    assertions: [
      {
        assert: Fn.conditionEquals(Stack.of(scope).region, region),
        assertDescription: `The certificate of ${name} (${certificateArn}) is in ${region}; a regional API Gateway domain needs one in the Region of the deployment.`,
      },
    ],
  });
  return new apigateway.DomainName(scope, 'CustomDomain', {
    domainName: name,
    certificate: acm.Certificate.fromCertificateArn(scope, 'CustomDomainCertificate', certificateArn),
    endpointType: apigateway.EndpointType.REGIONAL,
    securityPolicy: apigateway.SecurityPolicy.TLS_1_2,
  });
}

/** The routes whose method throttles on its own (StageConfig.signInThrottle): sign-in, each attempt a password hash. */
export function signInRoutes(routes: readonly RouteDefinition[]): RouteDefinition[] {
  return routes.filter((route) => route.category === SIGN_IN_CATEGORY);
}

/** The route category of signing in (routes.ts, limits-table.ts `sign-in-*` rows). */
export const SIGN_IN_CATEGORY = 'settings-sign-in';
/** The group whose function serves signing in, and whose reservation the sign-in throttle is checked against (stage-config.ts signInPeakConcurrency). */
export const SIGN_IN_GROUP: EndpointGroup = 'sign-in';

function quoteHeaderValues(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `'${value}'`]));
}

function pascal(value: string): string {
  return value.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}

/** Route table checks that API Gateway would otherwise report late (at deploy) or never. */
export function validateRoutes(routes: readonly RouteDefinition[]): void {
  const problems: string[] = [];
  const seen = new Set<string>();
  const variableChildren = new Map<string, string>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    if (!/^\/[^/]/.test(route.path) || route.path.endsWith('/')) problems.push(`${route.id}: path ${route.path} must start with / and not end with /`);
    if (route.path.includes('+')) problems.push(`${route.id}: greedy path parameters are reserved for the fallback`);
    if (seen.has(key)) problems.push(`${route.id}: duplicate route ${key}`);
    seen.add(key);
    if (!ENDPOINT_GROUPS.includes(route.group)) {
      problems.push(`${route.id}: unknown group ${route.group}`);
    } else if (surfaceOfPath(route.path) !== SURFACE_OF_GROUP[route.group]) {
      // The pipeline picks the error shape and the edge budget by path (surfaceOfPath): the route's API must agree.
      problems.push(`${route.id}: path ${route.path} belongs to the ${surfaceOfPath(route.path)} surface, group ${route.group} to the ${SURFACE_OF_GROUP[route.group]} surface`);
    }
    // The sign-in throttle is checked against the sign-in function's reservation: every route it holds must be that
    // function's, and that function must serve nothing the throttle does not hold (its reservation is sign-in's alone).
    if ((route.category === SIGN_IN_CATEGORY) !== (route.group === SIGN_IN_GROUP)) {
      problems.push(`${route.id}: a route of category ${SIGN_IN_CATEGORY} belongs to group ${SIGN_IN_GROUP}, and that group has no other route`);
    }
    const segments = route.path.split('/').slice(1);
    segments.forEach((segment, i) => {
      if (!/^\{[a-z_]+\}$/.test(segment)) return;
      if (i === 0) problems.push(`${route.id}: a root-level path parameter would collide with the fallback {proxy+}`);
      const parent = '/' + segments.slice(0, i).join('/');
      const other = variableChildren.get(parent);
      if (other && other !== segment) problems.push(`${route.id}: ${parent} has two path parameters (${other}, ${segment}); API Gateway allows one`);
      variableChildren.set(parent, segment);
    });
  }
  if (problems.length > 0) throw new Error(`Invalid route table:\n- ${problems.join('\n- ')}`);
}
