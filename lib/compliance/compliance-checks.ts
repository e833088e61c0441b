/**
 * The compliance checks every synthesis of the app runs: cdk-nag's AwsSolutions rule pack, as a
 * CDK validation plugin on the app (cdk-nag 3 plugs into `Validations`, not Aspects). After the
 * templates are written, CDK runs the pack over every stack of the stage, prints each finding
 * with its rule id and construct path, writes `validation-report.json` into the cloud assembly,
 * and fails synthesis (`cdk synth` exits non-zero; in tests `app.synth()` throws) when a finding
 * is left that no acknowledgment covers (lib/compliance/nag-acknowledgments.ts).
 *
 * Every finding counts, whatever level the pack gives it. The pack reports a few rules (WAF on a
 * REST API, point-in-time recovery, …) as warnings, and CDK lets warnings pass once it has itself
 * suppressed a finding of the same report (an acknowledgment written in CDK's namespaced form
 * `AwsSolutions::AwsSolutions-…`, the form the CLI's report suggests): this wrapper reports every
 * finding as an error, so a warning fails synthesis either way.
 */
import { Validations, type App, type IPolicyValidationContext, type IPolicyValidationPlugin, type PolicyValidationPluginReport } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DeployReadinessChecks } from './deploy-readiness';
import { StrictCloudFormationValidate } from './cloudformation-validate';

/**
 * Registers the checks on the app: call once, before `app.synth()` (bin/app.ts). cdk-nag's pack (each finding fixed or
 * acknowledged on its resource, nag-acknowledgments.ts), AWS's template validator with its warnings as findings
 * (cloudformation-validate.ts; CDK runs it on every app, this replaces its default instance) and the deploy-readiness
 * rules (what AWS refuses that neither the validator nor cdk-nag checks, deploy-readiness/; they cannot be acknowledged).
 */
export function addComplianceChecks(app: App): void {
  Validations.of(app).addPlugins(new FindingsAsErrors(new AwsSolutionsChecks(app)), new StrictCloudFormationValidate(), new DeployReadinessChecks());
}

/** A rule pack whose every finding is an error; name and rule ids stay the pack's, so acknowledgments match as before. */
class FindingsAsErrors implements IPolicyValidationPlugin {
  public readonly name: string;
  public readonly version?: string;

  constructor(private readonly pack: IPolicyValidationPlugin) {
    this.name = pack.name;
    if (pack.version !== undefined) this.version = pack.version;
  }

  public validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const report = this.pack.validate(context);
    return {
      ...report,
      success: report.violations.length === 0,
      violations: report.violations.map((violation) =>
        violation.severity === 'warning' ? { ...violation, severity: 'error', description: `${violation.description} (a warning in the pack; a finding here)` } : violation,
      ),
    };
  }
}
