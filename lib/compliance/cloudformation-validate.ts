/**
 * AWS's own template validator, strict: aws-cdk-lib's `CloudFormationValidatePlugin`
 * (`@aws/cloudformation-validate`, cfn-lint's rules over the CloudFormation registry schemas:
 * properties, required fields, types, enums, patterns, lengths, Ref/GetAtt/Sub targets,
 * DependsOn, conditions, mappings, parameters, circular dependencies), which
 * `@aws-cdk/core:validateAgainstDefaultRules` (cdk.json) makes fail synthesis on an error.
 *
 * The validator reports some mistakes CloudFormation refuses only as warnings (a value outside an
 * enum, W3030; a deprecated Lambda runtime, W2531), and CDK lets warnings pass. Registered here
 * instead of the default instance (an app runs one), every warning is a finding too, except the
 * ones in TOLERATED, which describe what CloudFormation itself accepts.
 */
import { CloudFormationValidatePlugin, type IPolicyValidationContext, type PolicyValidationPluginReport } from 'aws-cdk-lib';

/** Warnings that describe templates CloudFormation accepts as they are; each with why. */
export const TOLERATED: Readonly<Record<string, string>> = {
  W9003: 'a scalar of another type CloudFormation converts on the way in ("30" for an integer, "true" for a boolean)',
};

export class StrictCloudFormationValidate extends CloudFormationValidatePlugin {
  public validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const report = super.validate(context);
    const violations = report.violations.map((violation) =>
      violation.severity === 'warning' && !Object.hasOwn(TOLERATED, violation.ruleName)
        ? { ...violation, severity: 'error', description: `${violation.description} (a warning of the validator; a finding here)` }
        : violation,
    );
    return { ...report, violations, success: violations.every((violation) => violation.severity !== 'error' && violation.severity !== 'fatal') };
  }
}
