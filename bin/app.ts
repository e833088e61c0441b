/**
 * CDK app: the account-level stack `PartnerApi-Baseline` and the two stacks of one stage, all
 * environment-agnostic (no account/region, no lookups, so `cdk synth` needs neither credentials
 * nor network).
 *
 *   npx cdk deploy PartnerApi-Baseline                       # once per account and Region
 *   npx cdk synth -c stage=dev                               # dev | staging | prod | any ephemeral name (pr123)
 *   npx cdk deploy -c stage=pr123 'PartnerApi-pr123-*'       # the stage's two stacks (docs/deploying.md)
 *
 * Every synthesis runs the compliance checks (lib/compliance/compliance-checks.ts: cdk-nag's
 * AwsSolutions pack, the deploy-readiness rules, the templates against the CloudFormation resource
 * specification) and fails on any finding nobody acknowledged.
 *
 * Before anything is built, the web pages' browser code is bundled into its generated modules
 * (scripts/page-bundles.ts): the settings and player functions are bundled with pages built from
 * the very sources being deployed, whatever ran before (`cdk synth` and `cdk deploy` do not go through npm).
 */
import { App } from 'aws-cdk-lib';
import { buildBaseline, buildStages } from '../lib/app-stacks';
import { addComplianceChecks } from '../lib/compliance/compliance-checks';
import { writePageModules } from '../scripts/page-bundles';

await writePageModules();

const app = new App();
addComplianceChecks(app);
const stage: unknown = app.node.tryGetContext('stage') ?? 'dev';
if (app.node.tryGetContext('notifyEmail') !== undefined) {
  // A per-deploy value removed the alarm subscription on every deploy that forgot it.
  throw new Error('-c notifyEmail is gone: set alarms.notifyEmail in the stage overrides of lib/config/stage-config.ts and commit it (docs/deploying.md).');
}

buildBaseline(app);
buildStages(app, { stage: String(stage) });
app.synth();
