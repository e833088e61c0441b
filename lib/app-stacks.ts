/**
 * The stacks of one stage, wired together: `PartnerApi-<stage>-Stateful`
 * (tables) and `PartnerApi-<stage>-Stateless` (functions, API, WAF, alarms);
 * and the account-level stack `PartnerApi-Baseline` (buildBaseline) that every
 * stage of an account and Region assumes,
 * both stacks and every taggable resource tagged with service and stage, and the cdk-nag
 * findings the service accepts acknowledged on their resources (lib/compliance). bin/app.ts and
 * the infrastructure tests both build stages through here; bin/app.ts also runs the checks
 * (lib/compliance/compliance-checks.ts).
 */
import { Tags, type App } from 'aws-cdk-lib';
import { BaselineStack } from './baseline-stack';
import { acknowledgeBaselineFindings, acknowledgeNagFindings } from './compliance/nag-acknowledgments';
import { resolveStageConfig, type StageConfig } from './config/stage-config';
import { StatefulStack } from './stateful-stack';
import { StatelessStack, type StatelessStackProps } from './stateless-stack';

export const SERVICE_TAG = 'partner-api';

export interface BuildStageOptions {
  readonly stage: string;
  /** Test hook: an alarm e-mail over the stage config's (deployments take it from lib/config/stage-config.ts only). */
  readonly notifyEmail?: string;
  /** Test hook: custom domains over the stage config's (deployments set them in lib/config/stage-config.ts). */
  readonly customDomains?: StageConfig['customDomains'];
  /** Test hooks: extra stateless props (route table, WAF rules). */
  readonly stateless?: Partial<Pick<StatelessStackProps, 'routes' | 'edgeRules' | 'edgeResponseBodies'>>;
  /** Test hook: `false` leaves the findings unacknowledged (test/infra/nag.test.ts checks each acknowledgment covers one). */
  readonly acknowledgeNagFindings?: boolean;
}

export interface StageStacks {
  readonly config: StageConfig;
  readonly stateful: StatefulStack;
  readonly stateless: StatelessStack;
}

export function stackName(stage: string, part: 'Stateful' | 'Stateless'): string {
  return `PartnerApi-${stage}-${part}`;
}

export function buildStages(app: App, options: BuildStageOptions): StageStacks {
  const config = resolveStageConfig(options.stage, {
    ...(options.notifyEmail ? { notifyEmail: options.notifyEmail } : {}),
    ...(options.customDomains ? { customDomains: options.customDomains } : {}),
  });
  const tags = { service: SERVICE_TAG, stage: config.stage };

  const stateful = new StatefulStack(app, stackName(config.stage, 'Stateful'), { config, tags });
  const stateless = new StatelessStack(app, stackName(config.stage, 'Stateless'), {
    config,
    tags,
    ...options.stateless,
  });
  stateless.addStackDependency(stateful);

  for (const stack of [stateful, stateless]) {
    for (const [key, value] of Object.entries(tags)) Tags.of(stack).add(key, value);
  }
  const stacks = { config, stateful, stateless };
  if (options.acknowledgeNagFindings !== false) acknowledgeNagFindings(stacks);
  return stacks;
}

/** The account-level stack (lib/baseline-stack.ts), tagged with the service, its accepted cdk-nag findings acknowledged. */
export function buildBaseline(app: App, options: Pick<BuildStageOptions, 'acknowledgeNagFindings'> = {}): BaselineStack {
  const baseline = new BaselineStack(app);
  Tags.of(baseline).add('service', SERVICE_TAG);
  if (options.acknowledgeNagFindings !== false) acknowledgeBaselineFindings(baseline);
  return baseline;
}
