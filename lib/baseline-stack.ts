/**
 * The account-level stack `PartnerApi-Baseline`: what exists once per AWS account and Region
 * whatever the number of stages, deployed once before the first stage
 * (`npx cdk deploy PartnerApi-Baseline`, docs/deploying.md). Stages assume it and never touch
 * it, so two stages in one account can neither overwrite each other's settings nor race to
 * create them, and deleting a stage leaves nothing account-wide behind.
 *
 * - API Gateway's CloudWatch Logs role (AWS::ApiGateway::Account): one setting per account and
 *   Region, without which no stage's access logging can be deployed.
 *   https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-logging.html
 * - The CloudWatch Logs resource policy that lets WAF deliver to every stage's blocked-request log
 *   group (`aws-waf-logs-partner-api-*`). Without it, enabling WAF logging adds each log group's ARN
 *   to an account-level policy (5,120 characters at most, 10 policies per account and Region): one
 *   more line per stage and web ACL, until a deploy fails. Granted up front with a wildcard over the
 *   service's WAF log groups, log delivery finds its permission and adds nothing.
 *   https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/AWS-logs-infrastructure-CWL.html
 * - `/partner-api/baseline/version`: the stage stacks read it as a parameter, so a stage deployed
 *   where the baseline is missing (or too old) fails at once, when its change set is created,
 *   with a message that says what to deploy, instead of halfway through its first deploy.
 *
 * The role, the account setting and the resource policy outlive a deletion of the stack
 * (RETAIN_ON_UPDATE_OR_DELETE: a rolled-back first create still cleans up), so stages deployed
 * elsewhere in the account keep logging; the version parameter goes with the stack, so no stage
 * deploys again until the baseline is back.
 */
import { CfnRule, Fn, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';

/** The account-level stack's name (`cdk deploy PartnerApi-Baseline`). */
export const BASELINE_STACK_NAME = 'PartnerApi-Baseline';

/** Where the baseline says which version of it is deployed. */
export const BASELINE_VERSION_PARAMETER = '/partner-api/baseline/version';

/**
 * The baseline's version. Raise it when a stage comes to depend on something new here, and add it
 * to BASELINE_VERSIONS_ACCEPTED once stages built from this tree work with it.
 */
export const BASELINE_VERSION = '1';

/** The baseline versions the stages of this tree can deploy against. */
export const BASELINE_VERSIONS_ACCEPTED: readonly string[] = ['1'];

/** The prefix of every stage's WAF log group: WAF delivers only to groups named `aws-waf-logs-…`. */
export const WAF_LOG_GROUP_PREFIX = 'aws-waf-logs-partner-api-';

export class BaselineStack extends Stack {
  /** The role API Gateway writes every REST API's logs with, in this account and Region. */
  public readonly apiGatewayLogRole: iam.Role;
  public readonly apiGatewayAccount: apigateway.CfnAccount;
  public readonly wafLogDelivery: logs.CfnResourcePolicy;

  constructor(scope: Construct, id: string = BASELINE_STACK_NAME, props: StackProps = {}) {
    super(scope, id, {
      description: 'partner-api account baseline: API Gateway logging role, WAF log delivery; shared by every stage of the account and Region',
      // Every stage of the account relies on it.
      terminationProtection: true,
      ...props,
    });
    const keep = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;

    this.apiGatewayLogRole = new iam.Role(this, 'ApiGatewayLogRole', {
      description: 'partner-api: API Gateway writes the access logs of every REST API of the account with this role',
      assumedBy: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs')],
    });
    this.apiGatewayLogRole.applyRemovalPolicy(keep);
    this.apiGatewayAccount = new apigateway.CfnAccount(this, 'ApiGatewayAccount', { cloudWatchRoleArn: this.apiGatewayLogRole.roleArn });
    this.apiGatewayAccount.applyRemovalPolicy(keep);

    const { account, region, partition } = this;
    this.wafLogDelivery = new logs.CfnResourcePolicy(this, 'WafLogDelivery', {
      policyName: 'partner-api-baseline-waf-log-delivery',
      policyDocument: JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'WafLogDeliveryToPartnerApiLogGroups',
            Effect: 'Allow',
            Principal: { Service: 'delivery.logs.amazonaws.com' },
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Resource: `arn:${partition}:logs:${region}:${account}:log-group:${WAF_LOG_GROUP_PREFIX}*:log-stream:*`,
            Condition: {
              StringEquals: { 'aws:SourceAccount': account },
              ArnLike: { 'aws:SourceArn': `arn:${partition}:logs:${region}:${account}:*` },
            },
          },
        ],
      }),
    });
    this.wafLogDelivery.applyRemovalPolicy(keep);

    new ssm.StringParameter(this, 'Version', {
      parameterName: BASELINE_VERSION_PARAMETER,
      stringValue: BASELINE_VERSION,
      description: 'partner-api: the version of the account baseline (read by every stage stack at deploy)',
    });
  }
}

/**
 * In a stage stack: fail the deploy before it starts when the account has no baseline, or one too
 * old. The parameter is resolved when the change set is created ("Parameters: [...] cannot be
 * found" when the baseline was never deployed); the rule checks its version.
 */
export function requireBaseline(stack: Stack): void {
  const version = ssm.StringParameter.valueForStringParameter(stack, BASELINE_VERSION_PARAMETER);
  new CfnRule(stack, 'BaselineDeployed', {
    assertions: [
      {
        assert: Fn.conditionContains([...BASELINE_VERSIONS_ACCEPTED], version),
        assertDescription:
          `The account baseline (${BASELINE_STACK_NAME}) in this account and Region is a version this stage cannot use ` +
          `(accepted: ${BASELINE_VERSIONS_ACCEPTED.join(', ')}). Deploy it first: npx cdk deploy ${BASELINE_STACK_NAME} (docs/deploying.md).`,
      },
    ],
  });
}
