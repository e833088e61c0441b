/**
 * Stateful stack: the data that must outlive deployments (DynamoDB tables),
 * the service's secrets (Secrets Manager) and the KMS key that seals webhook
 * callback secrets (the sealed values live in the access table: losing the key
 * would make every callback's secret unreadable).
 * Kept apart from the stateless stack so functions, API and WAF can be
 * replaced or destroyed freely without touching data. The stateless stack finds
 * these by name or through SSM parameters published here, never through a
 * CloudFormation export (lib/constructs/stage-references.ts).
 */
import { Aws, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { SECRETS_KEY_USERS, serviceRoleName, type KeyUse, type ServiceRole } from './config/service-roles';
import type { StageConfig } from './config/stage-config';
import { DataTables, type TableMap } from './constructs/data-tables';
import { stageRemovalPolicy } from './constructs/removal-policy';
import { ServiceSecrets, type SecretMap } from './constructs/service-secrets';
import { StageReferencePublisher } from './constructs/stage-references';

export interface StatefulStackProps extends StackProps {
  readonly config: StageConfig;
}

export class StatefulStack extends Stack {
  /** Every table by id. */
  public readonly tables: TableMap;
  /** Every service secret by id. */
  public readonly secrets: SecretMap;
  /** Seals webhook callback secrets (encryption context `purpose` = `webhook-secret`). */
  public readonly webhookSecretsKey: kms.IKey;
  /** What the stateless stack reads of this one at each deploy. */
  public readonly references: StageReferencePublisher;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    const { config, ...stackProps } = props;
    super(scope, id, {
      description: `partner-api ${config.stage}: DynamoDB tables, secrets and the webhook secrets key`,
      // Production data: CloudFormation refuses to delete the stack until protection is turned off.
      terminationProtection: config.deletionProtection,
      ...stackProps,
    });
    const tables = new DataTables(this, 'Data', { config }).tables;
    this.tables = tables;
    this.secrets = new ServiceSecrets(this, 'Secrets', { config }).secrets;
    const retain = config.removalPolicy === 'retain';
    this.webhookSecretsKey = new kms.Key(this, 'WebhookSecretsKey', {
      description: `partner-api ${config.stage}: seals webhook callback secrets (encryption context purpose=webhook-secret)`,
      alias: webhookSecretsKeyAlias(config.stage),
      enableKeyRotation: true,
      policy: webhookSecretsKeyPolicy(config.stage),
      removalPolicy: stageRemovalPolicy(config),
      // A destroyed stage's key is deleted after KMS's shortest waiting period (its sealed secrets went with the table).
      ...(retain ? {} : { pendingWindow: Duration.days(7) }),
    });
    // The tables come last: on prod they have deletion protection, which would stop the rollback of a failed first
    // create from deleting them (the stack would end ROLLBACK_FAILED with the names taken). Whatever else can fail
    // (a secret or key name left behind by an earlier attempt) fails before any table exists.
    for (const table of Object.values(tables)) table.node.addDependency(...Object.values(this.secrets), this.webhookSecretsKey);
    this.references = new StageReferencePublisher(this, 'References', {
      config,
      resources: { tables, secrets: this.secrets, webhookSecretsKey: this.webhookSecretsKey },
    });
  }
}

/** The alias of a stage's webhook secrets key. */
export function webhookSecretsKeyAlias(stage: string): string {
  return `alias/partner-api-${stage}-webhook-secrets`;
}

/** A role of the stage by ARN, for a condition on `aws:PrincipalArn` (the role may not exist yet when this is deployed). */
export function serviceRoleArn(stage: string, role: ServiceRole): string {
  return `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/${serviceRoleName(stage, role)}`;
}

/** What the account keeps on the key: everything but using it (and granting its use), so the key stays manageable. */
export const KEY_USE_ACTIONS: readonly string[] = ['kms:Encrypt', 'kms:Decrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:CreateGrant'];

/**
 * The webhook secrets key's policy, instead of CDK's default (`kms:*` to the account root, which lets
 * any principal of the account with an IAM grant open every callback's secret):
 * - the account (and through IAM, its administrators) keeps every action except using the key and
 *   creating grants (a grant would hand out Decrypt past this policy): the key can always be
 *   described, its policy changed, rotation and deletion managed (AWS: a key policy must keep the
 *   key manageable; KMS refuses one that locks the caller out of PutKeyPolicy);
 * - Encrypt and Decrypt only for the roles of SECRETS_KEY_USERS, each with its own actions, and only
 *   under the encryption context each seals with (`purpose`: `webhook-secret` for callbacks' signing
 *   secrets, `two-factor` for TOTP seeds: the settings role cannot open a callback's secret). The
 *   principal is the account, so the role also needs its IAM grant; the condition on
 *   `aws:PrincipalArn` names the role, which the stateless stack creates later.
 * https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html
 */
export function webhookSecretsKeyPolicy(stage: string): iam.PolicyDocument {
  const account = new iam.AccountRootPrincipal();
  const statements = [
    new iam.PolicyStatement({ sid: 'AccountAdministersTheKey', principals: [account], notActions: [...KEY_USE_ACTIONS], resources: ['*'] }),
  ];
  // One statement per purpose and action, naming the roles allowed it.
  const byUse = new Map<string, { purpose: string; action: string; roles: ServiceRole[] }>();
  for (const [role, uses] of Object.entries(SECRETS_KEY_USERS) as [ServiceRole, readonly KeyUse[]][]) {
    for (const use of uses) {
      for (const action of use.actions) {
        const key = `${use.purpose} ${action}`;
        const entry = byUse.get(key) ?? { purpose: use.purpose, action, roles: [] };
        entry.roles.push(role);
        byUse.set(key, entry);
      }
    }
  }
  for (const { purpose, action, roles } of byUse.values()) {
    statements.push(
      new iam.PolicyStatement({
        sid: `${action.replace('kms:', '')}${purpose.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase())}`,
        principals: [account],
        actions: [action],
        resources: ['*'],
        conditions: {
          ArnEquals: { 'aws:PrincipalArn': roles.map((role) => serviceRoleArn(stage, role)) },
          StringEquals: { 'kms:EncryptionContext:purpose': purpose },
        },
      }),
    );
  }
  return new iam.PolicyDocument({ statements });
}
