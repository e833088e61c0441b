/**
 * CDK app: two environment-agnostic stacks per stage (no account/region, no
 * lookups, so `cdk synth` needs neither credentials nor network).
 *
 *   npx cdk synth -c stage=dev          # dev | staging | prod | any ephemeral name (pr-123)
 *   npx cdk deploy -c stage=pr-123 --all
 *   -c notifyEmail=ops@example.com      # alarm e-mail where alarms are enabled
 *
 * Every synthesis runs cdk-nag's AwsSolutions checks and fails on a finding that
 * lib/compliance/nag-acknowledgments.ts does not acknowledge.
 */
import { App } from 'aws-cdk-lib';
import { buildStages } from '../lib/app-stacks';
import { addComplianceChecks } from '../lib/compliance/compliance-checks';

const app = new App();
addComplianceChecks(app);
const stage: unknown = app.node.tryGetContext('stage') ?? 'dev';
const notifyEmail: unknown = app.node.tryGetContext('notifyEmail');

buildStages(app, {
  stage: String(stage),
  ...(typeof notifyEmail === 'string' && notifyEmail !== '' ? { notifyEmail } : {}),
});
app.synth();
