/**
 * How the stateless stack finds the stateful stack's resources without a strong cross-stack
 * reference. An `Fn::ImportValue` pins the export it reads: the stateful stack can then neither
 * drop nor change it ("Export … cannot be deleted as it is in use"), so a change that stops using
 * a value, or a stream whose ARN changes with its view type, would lock the stage.
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-stack-exports.html
 *
 * Two mechanisms, no export at all:
 * - What is deterministic is computed: the tables' names (physicalTableName) and ARNs (formatArn of
 *   the name in the stack's own account and Region).
 * - What AWS chooses (the domain stream's ARN, the secrets' ARNs with their random suffix, the
 *   webhook secrets key's ARN) the stateful stack publishes as SSM parameters under
 *   `/partner-api/<stage>/stateful/…`, and the stateless stack reads them as CloudFormation
 *   parameters of type `AWS::SSM::Parameter::Value<String>`, resolved on every create and update.
 *   The CDK CLI never skips deploying a stack with such parameters ("some parameters come from
 *   SSM so we have to assume they may have changed"), so `cdk deploy --all` carries a new stream
 *   ARN to its consumer in the same run. A weak `Fn::GetStackOutput` reference would not: the
 *   CLI skips a stack whose template did not change, and the stale value would stay.
 *
 * The stateless stack still depends on the stateful one (deploy order only).
 */
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { SECRET_IDS, type SecretId } from '../../lambdas/shared/secret-names';
import { TABLE_IDS, TABLES, physicalTableName, type TableId } from '../../lambdas/shared/storage/table-definitions';
import type { StageConfig } from '../config/stage-config';
import type { TableMap } from './data-tables';
import type { SecretMap } from './service-secrets';

/** The SSM parameter names one stage's stateful stack publishes. */
export const stageReferenceNames = (stage: string) => ({
  streamArn: (table: TableId) => `/partner-api/${stage}/stateful/${table}-table-stream-arn`,
  secretArn: (secret: SecretId) => `/partner-api/${stage}/stateful/${secret}-secret-arn`,
  webhookSecretsKeyArn: `/partner-api/${stage}/stateful/webhook-secrets-key-arn`,
});

/** The tables that have a stream (table-definitions.ts `stream`): the domain table. */
const STREAM_TABLES: readonly TableId[] = TABLE_IDS.filter((id) => 'stream' in TABLES[id] && TABLES[id].stream !== undefined);

export interface PublishedStageResources {
  readonly tables: Readonly<Record<TableId, dynamodb.TableV2>>;
  readonly secrets: SecretMap;
  readonly webhookSecretsKey: kms.IKey;
}

/** In the stateful stack: one SSM parameter per value AWS chooses that the stateless stack needs. */
export class StageReferencePublisher extends Construct {
  public readonly parameters: readonly ssm.StringParameter[];

  constructor(scope: Construct, id: string, props: { readonly config: StageConfig; readonly resources: PublishedStageResources }) {
    super(scope, id);
    const names = stageReferenceNames(props.config.stage);
    const { tables, secrets, webhookSecretsKey } = props.resources;
    const parameter = (constructId: string, parameterName: string, value: string, what: string) =>
      new ssm.StringParameter(this, constructId, {
        parameterName,
        stringValue: value,
        description: `partner-api ${props.config.stage}: ${what} (read by the stateless stack at each deploy)`,
      });
    const published: ssm.StringParameter[] = [];
    for (const table of STREAM_TABLES) {
      const streamArn = tables[table].tableStreamArn;
      if (!streamArn) throw new Error(`StageReferencePublisher: the ${table} table has no stream`);
      published.push(parameter(`${pascal(table)}StreamArn`, names.streamArn(table), streamArn, `the ${table} table's stream ARN`));
    }
    for (const secret of SECRET_IDS) {
      published.push(parameter(`${pascal(secret)}SecretArn`, names.secretArn(secret), secrets[secret].secretArn, `the ${secret} secret's ARN`));
    }
    published.push(parameter('WebhookSecretsKeyArn', names.webhookSecretsKeyArn, webhookSecretsKey.keyArn, 'the webhook secrets key ARN'));
    this.parameters = published;
  }
}

export interface StageResources {
  readonly tables: TableMap;
  readonly secrets: SecretMap;
  readonly webhookSecretsKey: kms.IKey;
}

/** In the stateless stack: the stage's tables, secrets and key, by name or through the published parameters. */
export function importStageResources(scope: Construct, config: StageConfig): StageResources {
  const names = stageReferenceNames(config.stage);
  const read = (parameterName: string) => ssm.StringParameter.valueForStringParameter(scope, parameterName);

  const tables = Object.fromEntries(
    TABLE_IDS.map((table) => {
      // By name: CDK builds the ARN with formatArn in this stack's account and Region.
      const imported = dynamodb.TableV2.fromTableAttributes(scope, `${pascal(table)}Table`, {
        tableName: physicalTableName(config.stage, table),
        ...(STREAM_TABLES.includes(table) ? { tableStreamArn: read(names.streamArn(table)) } : {}),
      });
      return [table, imported];
    }),
  ) as Record<TableId, dynamodb.ITableV2>;

  const secrets = Object.fromEntries(
    SECRET_IDS.map((secret) => [secret, secretsmanager.Secret.fromSecretCompleteArn(scope, `${pascal(secret)}Secret`, read(names.secretArn(secret)))]),
  ) as Record<SecretId, secretsmanager.ISecret>;

  const webhookSecretsKey = kms.Key.fromKeyArn(scope, 'WebhookSecretsKey', read(names.webhookSecretsKeyArn));
  return { tables: Object.freeze(tables), secrets: Object.freeze(secrets), webhookSecretsKey };
}

function pascal(value: string): string {
  return value.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}
