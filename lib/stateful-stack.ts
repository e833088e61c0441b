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
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
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
