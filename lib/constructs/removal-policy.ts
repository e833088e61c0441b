/**
 * What happens to a stage's resources when CloudFormation stops managing them, declared once.
 *
 * Retained stages (staging, prod) keep their data and logs when a resource is removed, replaced or
 * its stack deleted, but never when the resource's *creation* is rolled back: plain `Retain` also
 * applies to a failed create, which leaves every custom-named resource (tables, secrets, log groups)
 * behind, and the retry of that first deploy then fails with "already exists".
 * `RetainExceptOnCreate` deletes what a failed create made and keeps what a successful one made.
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-attribute-deletionpolicy.html
 * (lib/compliance/deploy-readiness, `no-retain-on-create`, refuses a plain Retain on every synthesis.)
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import type { StageConfig } from '../config/stage-config';

export function stageRemovalPolicy(config: Pick<StageConfig, 'removalPolicy'>): RemovalPolicy {
  return config.removalPolicy === 'retain' ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY;
}
