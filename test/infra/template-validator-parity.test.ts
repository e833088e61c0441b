/**
 * Who checks a template, and what: every template broken on purpose (fixtures/broken-templates.ts)
 * goes through AWS's validator (aws-cdk-lib's CloudFormationValidatePlugin, cfn-lint's rules; an
 * error fails synthesis under `@aws-cdk/core:validateAgainstDefaultRules`), through our strict
 * registration of it (lib/compliance/cloudformation-validate.ts: its warnings are findings) and
 * through the deploy-readiness rules, and the test records who catches it. Every fixture is
 * caught by exactly the one recorded, so:
 * - a rule of ours that AWS's validator starts to cover shows here (the fixture is caught twice):
 *   delete the rule;
 * - a mistake nothing catches fails here.
 * Templates CloudFormation accepts are refused by no one. Each deploy-readiness rule kept for a
 * gap also fails the synthesis of a construct that writes the mistake.
 */
import { App, CfnCondition, CfnResource, Fn, CloudFormationValidatePlugin, Stack, Validations, type IPolicyValidationContext, type IPolicyValidationPlugin } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StrictCloudFormationValidate } from '../../lib/compliance/cloudformation-validate';
import { checkTemplates, DEPLOY_READINESS_RULES, DeployReadinessChecks, type CfnTemplate } from '../../lib/compliance/deploy-readiness';
import { ACCEPTED_TEMPLATES, BROKEN_TEMPLATES, GAP_RULES, baseTemplate, type Catcher, type Json } from './fixtures/broken-templates';
import { cdkJsonContext, synthFailure } from './support';

const directory = mkdtempSync(join(tmpdir(), 'template-parity-'));
const validator = new CloudFormationValidatePlugin();
const strict = new StrictCloudFormationValidate();
afterAll(() => {
  validator._dispose();
  strict._dispose();
});

function violationsOf(plugin: IPolicyValidationPlugin, template: Json): { severity: string; ruleName: string }[] {
  const templatePath = join(directory, 'Parity.template.json');
  writeFileSync(templatePath, JSON.stringify(template));
  const context = { stackTemplates: [{ stackConstructPath: 'Parity', templatePath }], templatePaths: [templatePath] } as unknown as IPolicyValidationContext;
  return plugin.validate(context).violations.map(({ severity, ruleName }) => ({ severity: severity ?? 'error', ruleName }));
}

/** Everyone who refuses the template, as the fixtures name them. */
function catchers(template: Json): Catcher[] {
  const found: Catcher[] = [];
  const validatorFindings = violationsOf(validator, template);
  if (validatorFindings.some(({ severity }) => severity === 'error' || severity === 'fatal')) found.push('validator');
  else {
    const promoted = violationsOf(strict, template).filter(({ severity }) => severity === 'error');
    found.push(...promoted.map(({ ruleName }): Catcher => `validator warning ${ruleName}`));
  }
  // The template rules only: a limit rule may also trip on a broken template (an environment it cannot size).
  const ours = checkTemplates([{ stackName: 'Parity', template: template as CfnTemplate }]).map((finding) => finding.ruleId);
  found.push(...GAP_RULES.filter((rule) => ours.includes(rule)));
  return found;
}

function after(change: (template: Json) => void): Json {
  const template = baseTemplate();
  change(template);
  return template;
}

describe('templates broken on purpose', () => {
  it('start from a template no one refuses, not even for a warning', () => {
    expect(violationsOf(validator, baseTemplate())).toEqual([]);
    expect(catchers(baseTemplate())).toEqual([]);
  });

  it.each(BROKEN_TEMPLATES.map((fixture) => [fixture.name, fixture] as const))('%s: caught by exactly the one recorded', (_name, fixture) => {
    expect(catchers(after(fixture.change))).toEqual([fixture.caughtBy]);
  });

  it('has a broken template for every rule kept for a gap, each rule among those every synthesis runs', () => {
    expect(GAP_RULES.filter((rule) => !BROKEN_TEMPLATES.some((fixture) => fixture.caughtBy === rule))).toEqual([]);
    expect(GAP_RULES.filter((rule) => !DEPLOY_READINESS_RULES.some((candidate) => candidate.id === rule))).toEqual([]);
  });

  it.each(ACCEPTED_TEMPLATES.map((fixture) => [fixture.name, fixture] as const))('%s: accepted by every check', (_name, fixture) => {
    expect(catchers(after(fixture.change))).toEqual([]);
  });
});

describe('each rule kept for a gap of the validator fails the synthesis of a construct that writes the mistake', () => {
  /** An app with the strict validator and the deploy-readiness rules, as addComplianceChecks registers them (cdk-nag left out). */
  function checkedApp(): { app: App; stack: Stack } {
    const app = new App({ context: cdkJsonContext(), analyticsReporting: false });
    // One validator for every app of the file: its engine starts once (seconds), not per app.
    Validations.of(app).addPlugins(strict, new DeployReadinessChecks());
    return { app, stack: new Stack(app, 'PartnerApi-x-Stateless') };
  }

  it('intrinsic-result-shape: a handler set to Fn::Split', () => {
    const { app, stack } = checkedApp();
    const fn = new lambda.Function(stack, 'Fn', { runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => {};') });
    (fn.node.defaultChild as lambda.CfnFunction).addPropertyOverride('Handler', { 'Fn::Split': [',', 'index.handler,x'] });

    expect(synthFailure(app)).toContain('[intrinsic-result-shape] PartnerApi-x-Stateless/');
  });

  it('condition-operands: a condition on a queue’s name', () => {
    const { app, stack } = checkedApp();
    const queue = new sqs.Queue(stack, 'Queue', { enforceSSL: true });
    const condition = new CfnCondition(stack, 'NamedQ', { expression: Fn.conditionEquals(queue.queueName, 'q') });
    (queue.node.defaultChild as sqs.CfnQueue).cfnOptions.condition = condition;

    expect(synthFailure(app)).toContain('[condition-operands] PartnerApi-x-Stateless:');
  });

  it('iam-policy-grammar: an Effect in the wrong case', () => {
    const { app, stack } = checkedApp();
    const role = new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    (role.node.defaultChild as iam.CfnRole).addPropertyOverride('AssumeRolePolicyDocument.Statement.0.Effect', 'allow');

    expect(synthFailure(app)).toContain('[iam-policy-grammar] PartnerApi-x-Stateless/');
  });

  it('custom-resource-service-token: a custom resource without its provider', () => {
    const { app, stack } = checkedApp();
    new CfnResource(stack, 'Seed', { type: 'Custom::Seed', properties: { Size: 1 } });

    expect(synthFailure(app)).toContain('[custom-resource-service-token] PartnerApi-x-Stateless/');
  });

  it('the strict validator: a deprecated runtime, which the validator only warns about', () => {
    const { app, stack } = checkedApp();
    const fn = new lambda.Function(stack, 'Fn', { runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => {};') });
    (fn.node.defaultChild as lambda.CfnFunction).addPropertyOverride('Runtime', 'nodejs18.x');

    expect(synthFailure(app)).toContain('W2531');
  });
});
