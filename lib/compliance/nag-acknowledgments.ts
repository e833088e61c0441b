/**
 * The cdk-nag AwsSolutions findings this service accepts, each acknowledged on the one
 * CloudFormation resource it concerns with the reason it stands (never on a stack or a whole
 * construct tree). Every other finding fails synthesis (compliance-checks.ts).
 * docs/infrastructure.md ("Compliance checks (cdk-nag)") has a row per rule acknowledged here, and
 * test/infra/nag.test.ts fails when the two disagree or when an acknowledgment covers no finding.
 *
 * Several acknowledgments follow from a fact checked here rather than from a list of resources, so
 * they hold for a new resource only when the fact does: L1 for a function on the runtime the
 * service pins, IAM5 `Resource::*` for a policy whose wildcard statements hold only actions that
 * AWS offers on no narrower resource, APIG4/COG4 for a method by the authentication its route
 * declares. A new finding of another kind surfaces; to accept one, add it here on its resource,
 * with a reason a reviewer accepts, and add its row to the docs' table.
 */
import { Stack, Validations, type CfnResource } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { SECRET_PURPOSES, type SecretId } from '../../lambdas/shared/secret-names';
import type { RouteDefinition } from '../../lambdas/shared/http/routes';
import type { StageStacks } from '../app-stacks';
import type { BaselineStack } from '../baseline-stack';
import type { SurfaceApi } from '../constructs/surface-api';

/**
 * Actions AWS authorizes on `*` only (no resource type to name): X-Ray's trace upload and
 * sampling (active tracing of functions and the state machine), DynamoDB's ListStreams (the
 * stream event source's poller), and CloudWatch Logs' log-delivery actions (Step Functions'
 * logging, which AWS documents with `"Resource": "*"`).
 */
export const ACTIONS_WITHOUT_RESOURCE_TYPES: readonly string[] = [
  'xray:PutTraceSegments',
  'xray:PutTelemetryRecords',
  'xray:GetSamplingRules',
  'xray:GetSamplingTargets',
  'dynamodb:ListStreams',
  'logs:CreateLogDelivery',
  'logs:GetLogDelivery',
  'logs:UpdateLogDelivery',
  'logs:DeleteLogDelivery',
  'logs:ListLogDeliveries',
  'logs:PutResourcePolicy',
  'logs:DescribeResourcePolicies',
  'logs:DescribeLogGroups',
];

/** Why a method of a REST API has no API Gateway authorizer (APIG4) and no Cognito user pool authorizer (COG4), by its route's `auth`. */
const UNAUTHORIZED_METHOD_REASONS: Readonly<Record<RouteDefinition['auth'] | 'fallback', string>> = {
  key:
    'The API key is authenticated in the function, not by an API Gateway authorizer: the pipeline (lambdas/shared/http/pipeline.ts) ' +
    'reads the key, and the admission re-checks its standing (revocation, account, organization) inside the same DynamoDB write that ' +
    'counts its quotas, answering with the spec’s 401/403 envelopes. An authorizer would be a second check whose cached result could ' +
    'not take part in that write. Partners authenticate with keys, never with Cognito.',
  none: 'Public by the spec: the health check takes no credential.',
  player:
    'The player site is public by design: a player opens a join link without an account. The function refuses any Authorization ' +
    'header (API_KEY_NOT_ACCEPTED) and counts the player limits by source IP and join link; there is no user pool to authorize against.',
  web:
    'Web settings before a session exists (the page, signing in and out): nothing to authorize yet. The function applies the ' +
    'cross-site request checks and counts sign-in attempts by source IP and e-mail address.',
  session:
    'Web settings: the function checks the cross-site request rules and the session cookie (HttpOnly, Secure, SameSite=Strict) ' +
    'against the service’s own accounts, then counts the call on the session’s account in one admission write; the service has ' +
    'its own accounts, not a Cognito user pool.',
  fallback:
    'Catch-all for undeclared paths and methods: the fallback function answers 404 NOT_FOUND with the envelope and touches no ' +
    'data. An authorizer would turn unknown paths into 401/403, where the spec wants 404.',
};

const REQUEST_VALIDATION_REASON =
  'Requests are validated by the function’s pipeline against each route’s declaration (lambdas/shared/http/request-rules.ts, ' +
  'contract.ts: sizes, encodings, credentials in the URL, the declared query names, a JSON object body or none), answering with ' +
  'the spec’s codes (e.g. 422 UNKNOWN_PARAMETER, 400 BODY_NOT_ALLOWED). An API Gateway request validator would need a model per ' +
  'method, duplicating those declarations, and would answer with its own BAD_REQUEST_* outside the spec’s codes.';

const EXECUTION_LOGGING_REASON =
  'Every request is in the stage’s JSON access log (status, error type and message, the integration’s status, latency and error, ' +
  'WAF status, X-Ray trace id) in a log group with the stage’s retention. Execution logs, even at ERROR, go to a group API Gateway ' +
  'creates itself (API-Gateway-Execution-Logs_<api>/v1: outside the stack, no retention, outliving the stage), and with data ' +
  'tracing they record request details the access log leaves out on purpose (a key wrongly put in the URL).';

const ACCOUNT_LOG_ROLE_REASON =
  'The account-level role API Gateway uses to write the logs of every REST API of the account and Region (AWS::ApiGateway::Account). ' +
  'AmazonAPIGatewayPushToCloudWatchLogs is the policy AWS documents for it; it must reach log groups API Gateway names and creates ' +
  'itself, so there is no narrower resource list to write.';

/** Acknowledges the accepted findings of a stage's stacks (lib/app-stacks.ts calls it for every stage). */
export function acknowledgeNagFindings(stacks: StageStacks): void {
  acknowledgeSecretsWithoutRotation(stacks.stateful.secrets);
  for (const api of [stacks.stateless.api, stacks.stateless.webApi]) acknowledgeSurfaceApi(api);
  for (const stack of [stacks.stateful, stacks.stateless]) acknowledgeWildcardsWithoutResourceTypes(stack);
}

/** Acknowledges the accepted findings of the account-level stack (lib/app-stacks.ts buildBaseline). */
export function acknowledgeBaselineFindings(baseline: BaselineStack): void {
  acknowledge(
    cfnOf(baseline.apiGatewayLogRole),
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    ACCOUNT_LOG_ROLE_REASON,
  );
}

function acknowledge(resource: IConstruct | undefined, id: string, reason: string): void {
  if (!resource) throw new Error(`acknowledgeNagFindings: no resource to acknowledge ${id} on`);
  Validations.of(resource).acknowledge({ id, reason });
}

/** The CloudFormation resource of an L2 construct: acknowledgments go on it, not on the construct's whole tree. */
function cfnOf(construct: IConstruct): CfnResource {
  const resource = construct.node.defaultChild;
  if (!resource) throw new Error(`acknowledgeNagFindings: ${construct.node.path} has no CloudFormation resource`);
  return resource as CfnResource;
}

/** SMG4: the service's secrets are HMAC keys that only the service reads; rotating one invalidates what it signed. */
function acknowledgeSecretsWithoutRotation(secrets: StageStacks['stateful']['secrets']): void {
  for (const [id, secret] of Object.entries(secrets) as [SecretId, IConstruct][]) {
    acknowledge(
      cfnOf(secret),
      'AwsSolutions-SMG4',
      `Rotated by hand, never on a schedule. ${SECRET_PURPOSES[id]}: a scheduled rotation would invalidate what players and ` +
        'partners hold on a timer. No database or third party shares the value; docs/records.md gives the rotation command.',
    );
  }
}

/** One front door: request validation (APIG2), execution logging (APIG6), each method's authentication (APIG4, COG4). */
function acknowledgeSurfaceApi(surfaceApi: SurfaceApi): void {
  const restApi = surfaceApi.api;
  acknowledge(cfnOf(restApi), 'AwsSolutions-APIG2', REQUEST_VALIDATION_REASON);
  acknowledge(cfnOf(surfaceApi.stage), 'AwsSolutions-APIG6', EXECUTION_LOGGING_REASON);
  for (const method of restApi.methods) {
    const reason = UNAUTHORIZED_METHOD_REASONS[routeOf(surfaceApi, method)?.auth ?? 'fallback'];
    acknowledge(cfnOf(method), 'AwsSolutions-APIG4', reason);
    acknowledge(cfnOf(method), 'AwsSolutions-COG4', reason);
  }
}

/** The route a method serves, or none for the fallback's ANY methods. */
function routeOf(surfaceApi: SurfaceApi, method: apigateway.Method): RouteDefinition | undefined {
  return surfaceApi.routes.find((route) => route.method === method.httpMethod && route.path === method.resource.path);
}


/**
 * IAM5 `Resource::*`: each IAM policy whose statements on `*` hold only ACTIONS_WITHOUT_RESOURCE_TYPES.
 * A policy with any other action on `*` is not covered, so its finding fails synthesis.
 */
function acknowledgeWildcardsWithoutResourceTypes(stack: Stack): void {
  for (const construct of stack.node.findAll()) {
    if (!(construct instanceof iam.Policy)) continue;
    const actions = actionsOnAnyResource(stack, construct.document);
    if (actions.length === 0 || !actions.every((action) => ACTIONS_WITHOUT_RESOURCE_TYPES.includes(action))) continue;
    acknowledge(
      cfnOf(construct),
      'AwsSolutions-IAM5[Resource::*]',
      `Only ${actions.join(', ')} on "*": AWS authorizes these actions on no narrower resource (X-Ray tracing, a stream ` +
        'poller’s ListStreams, Step Functions’ log delivery). Every other statement of the policy names its resources.',
    );
  }
}

/** The actions of a policy document's Allow statements whose resources include `*`, sorted. */
function actionsOnAnyResource(stack: Stack, document: iam.PolicyDocument): string[] {
  const resolved = stack.resolve(document.toJSON()) as { Statement?: { Effect: string; Action?: string | string[]; Resource?: unknown }[] } | undefined;
  const actions = new Set<string>();
  for (const statement of resolved?.Statement ?? []) {
    if (statement.Effect !== 'Allow' || ![statement.Resource].flat().includes('*')) continue;
    for (const action of [statement.Action ?? []].flat()) actions.add(action);
  }
  return [...actions].sort();
}
