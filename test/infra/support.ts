/**
 * Helpers for the infrastructure tests: build a stage's stacks the way
 * bin/app.ts does, with the feature flags of cdk.json, and read the
 * synthesized templates. Bundling is skipped (context
 * `aws:cdk:bundling-stacks: []`) except where a test asks for it.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildStages, type BuildStageOptions, type StageStacks } from '../../lib/app-stacks';
import { cdkJsonContext } from '../../lib/compliance/upgrade/release-snapshots';
import type { RouteDefinition, Surface } from '../../lambdas/shared/http/routes';
import { SURFACE_PROFILES } from '../../lib/config/surfaces';
import { physicalTableName, type TableId } from '../../lambdas/shared/storage/table-definitions';
import { stageReferenceNames } from '../../lib/constructs/stage-references';

type Json = Record<string, unknown>;

/** The `context` of cdk.json (feature flags), without the default stage: as bin/app.ts gets it from the CLI. */
export { cdkJsonContext };

export interface SynthesizedStage extends StageStacks {
  readonly statefulTemplate: Template;
  readonly statelessTemplate: Template;
}

export function synthStage(options: BuildStageOptions & { readonly bundle?: boolean; readonly outdir?: string }): SynthesizedStage {
  const { bundle = false, outdir, ...buildOptions } = options;
  const app = new App({
    context: {
      ...cdkJsonContext(),
      // The CLI sets these; tests find resources by construct path and assets by path.
      'aws:cdk:enable-path-metadata': true,
      'aws:cdk:enable-asset-metadata': true,
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
    },
    ...(outdir ? { outdir } : {}),
  });
  const stacks = buildStages(app, buildOptions);
  return {
    ...stacks,
    statefulTemplate: Template.fromStack(stacks.stateful),
    statelessTemplate: Template.fromStack(stacks.stateless),
  };
}

const cache = new Map<string, SynthesizedStage>();

/** Synthesized stage with the service's own routes, shared across tests of a file. */
export function stage(name: string): SynthesizedStage {
  let synthesized = cache.get(name);
  if (!synthesized) {
    synthesized = synthStage({ stage: name });
    cache.set(name, synthesized);
  }
  return synthesized;
}

type CfnResource = { Type: string; Properties: Json; Metadata?: Json; DependsOn?: string | string[]; DeletionPolicy?: string; UpdateReplacePolicy?: string };

export function resources(template: Template, type: string): Record<string, CfnResource> {
  return template.findResources(type) as Record<string, CfnResource>;
}

/** Logical id of a construct's CloudFormation resource, by the end of its construct path. */
export function logicalIdByPath(template: Template, type: string, pathSuffix: string): string {
  const matches = Object.entries(resources(template, type)).filter(([, r]) =>
    String(r.Metadata?.['aws:cdk:path'] ?? '').endsWith(pathSuffix),
  );
  if (matches.length !== 1) throw new Error(`expected one ${type} at …${pathSuffix}, found ${matches.length}`);
  return matches[0][0];
}

/** Logical id of the Lambda function of an endpoint group. */
export function functionLogicalId(template: Template, group: string): string {
  const construct = group.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
  return logicalIdByPath(template, 'AWS::Lambda::Function', `/${construct}Function/Function/Resource`);
}

/** Logical id of a surface's REST API (the partner API is construct `Api`, the web side `WebApi`). */
export function restApiLogicalId(template: Template, surface: Surface): string {
  return logicalIdByPath(template, 'AWS::ApiGateway::RestApi', `/${SURFACE_PROFILES[surface].apiConstructId}/RestApi/Resource`);
}

/** Logical id of a surface's `v1` stage. */
export function stageLogicalId(template: Template, surface: Surface): string {
  return logicalIdByPath(template, 'AWS::ApiGateway::Stage', `/${SURFACE_PROFILES[surface].apiConstructId}/RestApi/DeploymentStage.v1/Resource`);
}

/**
 * Every API Gateway method of one REST API as `METHOD /path` → logical id of
 * the Lambda it invokes, with paths rebuilt from the Resource tree (root is `/`).
 */
export function methodTargets(template: Template, restApiId: string): Map<string, string> {
  const apiResources = resources(template, 'AWS::ApiGateway::Resource');
  const pathOf = (resourceId: unknown): string => {
    const ref = (resourceId as { Ref?: string }).Ref;
    if (!ref) return ''; // Fn::GetAtt RootResourceId
    const resource = apiResources[ref];
    return `${pathOf(resource.Properties.ParentId)}/${String(resource.Properties.PathPart)}`;
  };
  const targets = new Map<string, string>();
  for (const method of Object.values(resources(template, 'AWS::ApiGateway::Method'))) {
    if ((method.Properties.RestApiId as { Ref?: string }).Ref !== restApiId) continue;
    const props = method.Properties as {
      HttpMethod: string;
      ResourceId: unknown;
      Integration: { Type: string; Uri: { 'Fn::Join': [string, unknown[]] } };
    };
    const target = props.Integration.Uri['Fn::Join'][1].find(
      (part): part is { 'Fn::GetAtt': [string, string] } => typeof part === 'object' && part !== null && 'Fn::GetAtt' in part,
    );
    targets.set(`${props.HttpMethod} ${pathOf(props.ResourceId) || '/'}`, target ? target['Fn::GetAtt'][0] : 'none');
  }
  return targets;
}

/** Every endpoint of the spec, spread over the existing groups, to exercise a deeper route tree. */
export const SPEC_ROUTES: readonly RouteDefinition[] = [
  { id: 'health', method: 'GET', path: '/health', group: 'system', auth: 'none', query: [], body: 'none' },
  { id: 'me', method: 'GET', path: '/me', group: 'identity', auth: 'key', query: [], body: 'none' },
  { id: 'entitlements', method: 'GET', path: '/entitlements', group: 'entitlements', auth: 'key', query: [], body: 'none' },
  { id: 'record', method: 'GET', path: '/records/{uuid}', group: 'records', auth: 'key', query: [], body: 'none' },
  { id: 'orgRecords', method: 'GET', path: '/partners/{partner_id}/records', group: 'identity', auth: 'key', query: [], body: 'none' },
  { id: 'orgRecord', method: 'GET', path: '/partners/{partner_id}/records/{record_id}', group: 'records', auth: 'key', query: [], body: 'none' },
  { id: 'orgEntitlements', method: 'GET', path: '/partners/{partner_id}/entitlements', group: 'entitlements', auth: 'key', query: [], body: 'none' },
  { id: 'listInvitations', method: 'GET', path: '/partners/{partner_id}/invitations', group: 'invitations', auth: 'key', query: [], body: 'none' },
  { id: 'createInvitation', method: 'POST', path: '/partners/{partner_id}/invitations', group: 'invitations', auth: 'key', query: [], body: 'json' },
  { id: 'invitation', method: 'GET', path: '/partners/{partner_id}/invitations/{invitation_id}', group: 'invitations', auth: 'key', query: [], body: 'none' },
  { id: 'invitationLink', method: 'GET', path: '/partners/{partner_id}/invitations/{invitation_id}/link', group: 'invitations', auth: 'key', query: [], body: 'none' },
  { id: 'revokeInvitation', method: 'POST', path: '/partners/{partner_id}/invitations/{invitation_id}/revoke', group: 'invitations', auth: 'key', query: [], body: 'none' },
  { id: 'tickets', method: 'GET', path: '/partners/{partner_id}/tickets', group: 'tickets', auth: 'key', query: [], body: 'none' },
  { id: 'ticket', method: 'GET', path: '/partners/{partner_id}/tickets/{invitation_id}', group: 'tickets', auth: 'key', query: [], body: 'none' },
  // The web side: the player site and web settings (not API operations, but served by the stack's web API).
  { id: 'playerPage', method: 'GET', path: '/join/{invitation_id}', group: 'player', auth: 'player', query: [], body: 'none' },
  { id: 'playerView', method: 'GET', path: '/join/{invitation_id}/view', group: 'player', auth: 'player', query: [], body: 'none' },
  { id: 'playerClaim', method: 'POST', path: '/join/{invitation_id}/claim', group: 'player', auth: 'player', query: [], body: 'json' },
  { id: 'playerMessage', method: 'POST', path: '/join/{invitation_id}/messages', group: 'player', auth: 'player', query: [], body: 'json' },
  { id: 'settingsPage', method: 'GET', path: '/settings', group: 'settings', auth: 'web', query: [], body: 'none' },
  { id: 'signIn', method: 'POST', path: '/settings/api/session', group: 'settings', auth: 'web', query: [], body: 'json' },
  { id: 'signOut', method: 'DELETE', path: '/settings/api/session', group: 'settings', auth: 'web', query: [], body: 'none' },
  { id: 'keyRevoke', method: 'POST', path: '/settings/api/keys/{key_id}/revoke', group: 'settings', auth: 'session', query: [], body: 'none' },
];

/**
 * A table's ARN as the stateless stack writes it: formatArn of the stage's deterministic table name
 * in the stack's own account and Region (no export, lib/constructs/stage-references.ts).
 */
export function statelessTableArn(stageName: string, id: TableId, suffix = ''): unknown {
  return {
    'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':dynamodb:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:table/${physicalTableName(stageName, id)}${suffix}`]],
  };
}

/** An index's ARN as the stateless stack writes it (the table's ARN and `/index/<name>`, joined into one string). */
export const statelessIndexArn = (stageName: string, id: TableId, indexName: string): unknown => statelessTableArn(stageName, id, `/index/${indexName}`);

/**
 * The `Ref` of the stateless template's CloudFormation parameter that reads one SSM parameter the
 * stateful stack publishes (lib/constructs/stage-references.ts), found by the parameter's default.
 */
export function ssmParameterRef(template: Template, parameterName: string): { Ref: string } {
  const parameters = (template.toJSON() as { Parameters?: Record<string, { Type: string; Default?: string }> }).Parameters ?? {};
  const found = Object.entries(parameters).filter(([, p]) => p.Type === 'AWS::SSM::Parameter::Value<String>' && p.Default === parameterName);
  if (found.length !== 1) throw new Error(`expected one SSM-typed parameter reading ${parameterName}, found ${found.length}`);
  return { Ref: found[0][0] };
}

/** The SSM parameter names a stage's stateful stack publishes for its stateless stack. */
export { stageReferenceNames };

/** The message `app.synth()` fails with (a validation plugin's findings, a construct's error), or undefined when it succeeds. */
export function synthFailure(app: App): string | undefined {
  try {
    app.synth();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
