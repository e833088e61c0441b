/**
 * Deploy-readiness checks: what AWS refuses (or bills, or regrets) at deploy time although the
 * CloudFormation schema and cdk-nag accept it, checked on every synthesis. A CDK validation plugin
 * like the cdk-nag wrapper (../compliance-checks.ts registers both): it reads the synthesized
 * templates, and every finding is an error, so `cdk synth` exits 1 and `app.synth()` throws.
 *
 * Each rule lives with its service area and names the AWS page it encodes; checkTemplates runs
 * them all on plain templates, for tests and scripts that hold templates rather than an app.
 */
import { Stack, type IPolicyValidationContext, type IPolicyValidationPlugin, type PolicyValidationPluginReport, type PolicyViolation } from 'aws-cdk-lib';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { alarmMetricMath } from './alarm-rules';
import { iamInlinePolicySize } from './iam-rules';
import { lambdaEnvironmentSize } from './lambda-rules';
import { secretNameSuffix, uniquePhysicalNames } from './names-rules';
import type { CfnTemplate, DeployFinding, DeployRule, StackTemplate } from './rule';
import { noRetainOnCreate, noStrongCrossStackReference, stackSize } from './stack-rules';
import { conditionOperands, customResourceServiceToken, iamPolicyGrammar, intrinsicResultShape } from './template-rules';
import { wafLoggingRedaction } from './waf-logging-rules';
import { wafCustomResponseLimits, wafCustomResponseStatus } from './waf-response-rules';
import { wafCapacity, wafRateRules, wafRegexSyntax } from './waf-statement-rules';

export type { CfnTemplate, DeployFinding, DeployRule, StackTemplate } from './rule';

export const DEPLOY_READINESS_RULES: readonly DeployRule[] = [
  wafCustomResponseStatus,
  wafRegexSyntax,
  wafCustomResponseLimits,
  wafCapacity,
  wafRateRules,
  wafLoggingRedaction,
  lambdaEnvironmentSize,
  iamInlinePolicySize,
  alarmMetricMath,
  stackSize,
  noRetainOnCreate,
  noStrongCrossStackReference,
  uniquePhysicalNames,
  secretNameSuffix,
  intrinsicResultShape,
  conditionOperands,
  iamPolicyGrammar,
  customResourceServiceToken,
];

/** Every finding of every rule on the given templates (all stacks of one synthesis, so names are compared across them). */
export function checkTemplates(stacks: readonly StackTemplate[]): DeployFinding[] {
  return DEPLOY_READINESS_RULES.flatMap((rule) => rule.check(stacks));
}

/** The checks as a CDK validation plugin: `Validations.of(app).addPlugins(new DeployReadinessChecks())`. */
export class DeployReadinessChecks implements IPolicyValidationPlugin {
  public readonly name = 'DeployReadiness';
  public readonly ruleIds = DEPLOY_READINESS_RULES.map((rule) => rule.id);

  public validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const stackNames = stackNamesByTemplateFile(context);
    const read = context.stackTemplates.map((entry) => {
      const text = readFileSync(entry.templatePath, 'utf8');
      const stackName = stackNames.get(basename(entry.templatePath)) ?? basename(entry.templatePath).replace(/\.template\.json$/, '');
      return { stackName, entry, stack: { stackName, template: JSON.parse(text) as CfnTemplate, templateBytes: Buffer.byteLength(text, 'utf8') } };
    });
    const byStack = new Map(read.map(({ stackName, entry }) => [stackName, entry]));
    const violations = checkTemplates(read.map(({ stack }) => stack)).map((finding): PolicyViolation => {
      const entry = byStack.get(finding.stackName);
      return {
        ruleName: finding.ruleId,
        description: finding.message,
        fix: finding.fix,
        // Fatal, not error: CDK lets a `Validations.acknowledge` silence an error, never a fatal finding. AWS's limits
        // are not ours to waive; a project budget (the header headroom, the resource headroom) changes in its rule.
        severity: 'fatal',
        violatingResources: [
          finding.logicalId === undefined
            ? { constructPath: entry?.stackConstructPath ?? finding.stackName, locations: [...finding.locations] }
            : { resourceLogicalId: finding.logicalId, ...(entry ? { templatePath: entry.templatePath } : {}), locations: [...finding.locations] },
        ],
      };
    });
    return { success: violations.length === 0, violations };
  }
}

/** Stack names by template file name: a stack's name may differ from its construct id. */
function stackNamesByTemplateFile(context: IPolicyValidationContext): Map<string, string> {
  const stacks = context.appConstruct.node.findAll().filter((construct): construct is Stack => Stack.isStack(construct));
  return new Map(stacks.map((stack) => [stack.templateFile, stack.stackName]));
}
