/**
 * Custom domains (StageConfig.customDomains, issue 21 finding 11): a front door served on a domain
 * the operator owns, through a regional API Gateway custom domain mapped at base path `v1`; the
 * join links, the webhook pipeline's own-host list and the outputs follow it; the certificate's
 * Region is checked by a template rule; the long-lived stages synthesize offline without one.
 */
import { describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { buildBaseline } from '../../lib/app-stacks';
import { addComplianceChecks } from '../../lib/compliance/compliance-checks';
import { assertValidStageConfig, LONG_LIVED_STAGES, resolveStageConfig, StageConfigError } from '../../lib/config/stage-config';
import { cdkJsonContext, functionLogicalId, resources, restApiLogicalId, stage, stageLogicalId, synthFailure, synthStage } from './support';
import { buildStages } from '../../lib/app-stacks';

const CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f0e0d0c-0b0a-0908-0706-050403020100';
const WEB = { web: { name: 'play.example.com', certificateArn: CERTIFICATE } };

describe('custom domains', () => {
  const synthesized = synthStage({ stage: 'pr1', customDomains: WEB });
  const template = synthesized.statelessTemplate;

  it('serves the web side on the operator\'s domain: regional, TLS 1.2, the certificate given, mapped at v1 to the web API\'s stage', () => {
    const domains = Object.entries(resources(template, 'AWS::ApiGateway::DomainName'));
    expect(domains).toHaveLength(1);
    const [domainId, domain] = domains[0];
    expect(domain.Properties).toMatchObject({
      DomainName: 'play.example.com',
      RegionalCertificateArn: CERTIFICATE,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    const mappings = Object.values(resources(template, 'AWS::ApiGateway::BasePathMapping'));
    expect(mappings).toHaveLength(1);
    expect(mappings[0].Properties).toEqual({
      DomainName: { Ref: domainId },
      RestApiId: { Ref: restApiLogicalId(template, 'web') },
      Stage: { Ref: stageLogicalId(template, 'web') },
      BasePath: 'v1',
    });
  });

  it('checks at deploy time that the certificate is in the Region of the deployment (the stacks are environment-agnostic)', () => {
    const rules = (template.toJSON() as { Rules: Record<string, { Assertions: { Assert: unknown; AssertDescription: string }[] }> }).Rules;
    const rule = Object.entries(rules).find(([id]) => id.includes('CustomDomainCertificateRegion'))?.[1];
    expect(rule).toBeDefined();
    expect(rule!.Assertions[0].Assert).toEqual({ 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'eu-west-1'] });
    expect(rule!.Assertions[0].AssertDescription).toContain('eu-west-1');
  });

  it('makes join links, the web base URL and the webhook pipeline\'s own hosts follow the domain, and outputs the DNS target', () => {
    const invitations = resources(template, 'AWS::Lambda::Function')[functionLogicalId(template, 'invitations')];
    const variables = (invitations.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.PLAYER_SITE_URL).toBe('https://play.example.com/v1/join');
    const outputs = (template.toJSON() as { Outputs: Record<string, { Value: unknown }> }).Outputs;
    expect(outputs.WebBaseUrl.Value).toBe('https://play.example.com/v1');
    expect(JSON.stringify(outputs.WebBaseUrlDomainTarget.Value)).toContain('RegionalDomainName');
    const webhooks = resources(template, 'AWS::Lambda::Function')[functionLogicalId(template, 'webhooks')];
    const hosts = JSON.stringify((webhooks.Properties.Environment as { Variables: Record<string, unknown> }).Variables);
    expect(hosts).toContain('play.example.com');
    expect(hosts).toContain('.execute-api.');
  });

  it('passes every compliance check with a domain', () => {
    const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
    addComplianceChecks(app);
    buildBaseline(app);
    buildStages(app, { stage: 'prod', customDomains: { ...WEB, partner: { name: 'api.example.com', certificateArn: CERTIFICATE } } });
    expect(synthFailure(app)).toBeUndefined();
  }, 240_000);

  it.each(LONG_LIVED_STAGES)('leaves %s on its execute-api hosts: no domain, nothing to look up, synthesis offline', (name) => {
    expect(resolveStageConfig(name).customDomains).toEqual({});
    expect(resources(stage(name).statelessTemplate, 'AWS::ApiGateway::DomainName')).toEqual({});
  });

  it.each([
    ['a host name with capitals', { name: 'Play.Example.com', certificateArn: CERTIFICATE }, /not a lowercase host name/],
    ['an AWS host', { name: 'abc.execute-api.eu-west-1.amazonaws.com', certificateArn: CERTIFICATE }, /not an AWS one/],
    ['a certificate of another service', { name: 'play.example.com', certificateArn: 'arn:aws:iam::123456789012:server-certificate/x' }, /not an ACM certificate ARN/],
    ['a bare name', { name: 'localhost', certificateArn: CERTIFICATE }, /not a lowercase host name/],
  ])('refuses %s', (_, web, message) => {
    const config = { ...resolveStageConfig('pr1'), customDomains: { web } };
    expect(() => assertValidStageConfig(config)).toThrow(StageConfigError);
    expect(() => assertValidStageConfig(config)).toThrow(message);
  });

  it('refuses one domain for both front doors', () => {
    const config = { ...resolveStageConfig('pr1'), customDomains: { web: WEB.web, partner: WEB.web } };
    expect(() => assertValidStageConfig(config)).toThrow(/given to two front doors/);
  });
});
