/**
 * The deployed integration test (docs/deploying.md, "A throwaway stage: the integration test"): integ-runner deploys
 * the integ stage (INTEG_STAGE: its two stacks, built by buildStages exactly as bin/app.ts builds any stage, with the
 * feature flags of cdk.json) and the probe beside it, runs the assertions below as a user's first check of a new
 * stage, then destroys everything.
 *
 *   npm run integ              # with AWS credentials and AWS_REGION: deploy, assert, destroy, rewrite the snapshot
 *   npm run integ:snapshot     # offline: the synthesized templates against integ.partner-api.ts.snapshot/
 *
 * The account and Region need what every stage needs first: the CDK bootstrap and `PartnerApi-Baseline`.
 */
import { App, Aspects, CfnResource, Duration, Fn, RemovalPolicy, type IAspect, type Stack } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import { ExpectedResult, IntegTest } from '@aws-cdk/integ-tests-alpha';
import type { IConstruct } from 'constructs';
import { buildStages } from '../../lib/app-stacks';
import { cdkJsonContext } from '../../lib/compliance/upgrade/release-snapshots';
import { INTEG_STAGE } from '../../lib/config/stage-config';
import { SURFACE_PROFILES } from '../../lib/config/surfaces';
import { EDGE_REQUEST_ID } from '../../lib/constructs/error-envelope';
import { writePageModules } from '../../scripts/page-bundles';
import { eventKey, PROBE_KEY } from './probe/probe-store';
import { ProbeStack, probeNames } from './probe/probe-stack';
import { prepareForIntegRunner } from './runner-assembly';

await writePageModules();

// The project's feature flags over integ-runner's own recommended set: the integ stage is synthesized as deployed
// stages are. No stack traces in the assembly's metadata (of constructs, of acknowledgments): they name this machine's
// paths, and the snapshot must be the same from any clone.
const app = new App({
  postCliContext: { ...cdkJsonContext(), 'aws:cdk:disable-stack-trace': true, 'aws:cdk:disable-creation-stack-traces': true },
});
const stage = buildStages(app, { stage: INTEG_STAGE });
const probe = new ProbeStack(app, `PartnerApi-${INTEG_STAGE}-Probe`, { config: stage.config });

const integ = new IntegTest(app, 'PartnerApiInteg', {
  testCases: [stage.stateful, stage.stateless, probe],
  // Never updated in place: every run deploys the stage anew and destroys it (and the stage's bundles stay out of the
  // snapshot). For the same reason no change to it is destructive.
  stackUpdateWorkflow: false,
  allowDestroy: resourceTypes([stage.stateful, stage.stateless, probe]),
});
Aspects.of(integ).add(throwawayAssertions());

// The stage's URLs, from its stack's outputs (what `cdk deploy --outputs-file` writes for a user).
const apiBaseUrl = Fn.getStackOutput(stage.stateless.stackName, SURFACE_PROFILES.partner.baseUrlOutput);
const webBaseUrl = Fn.getStackOutput(stage.stateless.stackName, SURFACE_PROFILES.web.baseUrlOutput);
const names = probeNames(INTEG_STAGE);

// The first account, organization and key (the back office, as the admin CLI), and the manager's webhook callback to
// the probe's receiver (web settings, through the web front door), verified: the provisioner fails the run otherwise.
const onboarding = integ.assertions.invokeFunction({
  functionName: names.provisioner,
  payload: JSON.stringify({ step: 'onboard', web_base_url: webBaseUrl }),
});
const partnerId = onboarding.getAttString('Payload.partner_id');
const key = onboarding.getAttString('Payload.key');

// 1. The partner API's front door answers.
integ.assertions
  .httpApiCall(`${apiBaseUrl}/health`)
  .expect(ExpectedResult.objectLike({ status: 200, body: { ok: true, data: { status: 'ok', version: 'v1' } } }));

// 2. The new key is the organization's.
integ.assertions
  .httpApiCall(`${apiBaseUrl}/me`, { headers: { Authorization: `Bearer ${key}` } })
  .expect(ExpectedResult.objectLike({ status: 200, body: { ok: true, data: { partner_id: partnerId } } }));

// 3. A key in the URL never reaches the API: the web ACL refuses it with the service's envelope (docs/edge-protection.md).
// Asked again for a few minutes: a new web ACL association can take a moment to apply (meanwhile the function itself
// refuses the key, with its own request id instead of `edge`).
integ.assertions
  .httpApiCall(`${apiBaseUrl}/me?api_key=${key}`)
  .expect(
    ExpectedResult.objectLike({
      status: 400,
      headers: { 'x-request-id': [EDGE_REQUEST_ID] },
      body: { ok: false, error: { code: 'CREDENTIALS_IN_URL' }, request_id: EDGE_REQUEST_ID },
    }),
  )
  .waitForAssertions({ totalTimeout: Duration.minutes(5), interval: Duration.seconds(15), backoffRate: 1 });

// 4. A business event reaches the callback, signed: the operator records a screening, and the receiver (which checks
// every signature with the callback's secret) records the verified `record.created` within the bound.
const recording = integ.assertions.invokeFunction({
  functionName: names.provisioner,
  payload: JSON.stringify({ step: 'record', partner_id: partnerId }),
});
integ.assertions
  .awsApiCall('DynamoDB', 'getItem', {
    TableName: names.table,
    Key: { [PROBE_KEY]: { S: eventKey(recording.getAttString('Payload.event_id')) } },
    ConsistentRead: true,
  })
  .expect(ExpectedResult.objectLike({ Item: { type: { S: 'record.created' }, partner_id: { S: partnerId }, signature: { S: 'verified' } } }))
  .waitForAssertions({ totalTimeout: Duration.minutes(10), interval: Duration.seconds(15), backoffRate: 1 });

prepareForIntegRunner(app.synth().directory);

/** Every CloudFormation resource type of `stacks`. */
function resourceTypes(stacks: readonly Stack[]): string[] {
  const types = stacks.flatMap((stack) => stack.node.findAll().filter(CfnResource.isCfnResource).map((resource) => resource.cfnResourceType));
  return [...new Set(types)].sort();
}

/**
 * Two changes to the stack integ-tests builds for the assertions:
 * - each of its functions (the assertion provider, the waiter's) logs into a log group the stack destroys, instead of
 *   the `/aws/lambda/…` group Lambda would create and nothing delete;
 * - each assertion's `salt` (the synthesis time, so that a kept stack runs it again on its next deploy) is fixed, so
 *   the snapshot is the same on every synthesis: integ-runner creates the stack on every run and destroys it, so each
 *   assertion runs once a run anyway (after `--no-clean`, destroy the stacks before running again).
 */
function throwawayAssertions(): IAspect {
  return {
    visit(node: IConstruct): void {
      if (!CfnResource.isCfnResource(node)) return;
      if (node.cfnResourceType.startsWith('Custom::DeployAssert')) node.addPropertyOverride('salt', 'integ-runner');
      const provider = node.node.scope;
      if (node.cfnResourceType === 'AWS::Lambda::Function' && provider && !provider.node.tryFindChild('LogGroup')) {
        const logGroup = new logs.CfnLogGroup(provider, 'LogGroup', { retentionInDays: 1 });
        logGroup.applyRemovalPolicy(RemovalPolicy.DESTROY);
        node.addPropertyOverride('LoggingConfig.LogGroup', logGroup.ref);
      }
    },
  };
}
