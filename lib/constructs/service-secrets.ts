/**
 * The service's secrets (lambdas/shared/secret-names.ts) in AWS Secrets
 * Manager, one per id and stage: `partner-api/<stage>/<id>-key`, a generated
 * 64-character value that never appears in code, templates or a function's
 * environment (functions get the ARN and read it at run time). They live in
 * the stateful stack: replacing the functions must not change them, and a
 * retained stage keeps them when its stack is deleted.
 */
import { Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { SECRET_IDS, SECRET_PURPOSES, secretName, type SecretId } from '../../lambdas/shared/secret-names';
import { secretReaders, serviceRoleName } from '../config/service-roles';
import type { StageConfig } from '../config/stage-config';
import { stageRemovalPolicy } from './removal-policy';

export type SecretMap = Readonly<Record<SecretId, secretsmanager.ISecret>>;

/**
 * How CloudFormation generates each secret's first value. Pinned: CloudFormation generates a new
 * value whenever `GenerateSecretString` changes, which is an unannounced rotation (every cursor and
 * join link signed with the old value is refused at once). Rotate on purpose instead
 * (docs/operations.md, secret rotation). test/infra/data-tables.test.ts and the upgrade guard
 * (npm run upgrade-check) fail on any change here.
 */
export const SECRET_GENERATION: Readonly<secretsmanager.SecretStringGenerator> = Object.freeze({
  passwordLength: 64,
  excludePunctuation: true,
  includeSpace: false,
});

export interface ServiceSecretsProps {
  readonly config: StageConfig;
}

export class ServiceSecrets extends Construct {
  public readonly secrets: SecretMap;

  constructor(scope: Construct, id: string, props: ServiceSecretsProps) {
    super(scope, id);
    const { config } = props;
    const secrets: Partial<Record<SecretId, secretsmanager.ISecret>> = {};
    for (const secretId of SECRET_IDS) {
      const secret = new secretsmanager.Secret(this, secretId.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase()), {
        secretName: secretName(config.stage, secretId),
        description: `partner-api ${config.stage}: ${SECRET_PURPOSES[secretId]}`,
        generateSecretString: { ...SECRET_GENERATION },
        removalPolicy: stageRemovalPolicy(config),
      });
      secret.addToResourcePolicy(onlyItsReaders(config.stage, secretId));
      secrets[secretId] = secret;
    }
    this.secrets = Object.freeze(secrets as Record<SecretId, secretsmanager.ISecret>);
  }
}

/**
 * A secret's resource policy: nobody but its functions' roles (routes.ts GROUP_SECRET_ACCESS) may
 * read its value, whatever IAM grants elsewhere in the account (`invitation-token` is the master key
 * of every join link). A Deny to every principal whose `aws:PrincipalArn` is not one of those
 * roles: the form AWS documents for "only this role", since `NotPrincipal` would have to name the
 * assumed-role session and a condition may name a role the stateless stack creates later. Only
 * `GetSecretValue` is denied: CloudFormation (create, update, delete), a rotation by hand
 * (`put-secret-value`, docs/operations.md) and describing the secret still work. Break glass: an
 * administrator removes the resource policy (`delete-resource-policy`), which CloudTrail records.
 * https://docs.aws.amazon.com/secretsmanager/latest/userguide/auth-and-access_examples.html
 */
export function onlyItsReaders(stage: string, secretId: SecretId): iam.PolicyStatement {
  const readers = secretReaders(secretId).map((role) => `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/${serviceRoleName(stage, role)}`);
  return new iam.PolicyStatement({
    sid: 'ValueReadOnlyByItsFunctions',
    effect: iam.Effect.DENY,
    principals: [new iam.AnyPrincipal()],
    actions: ['secretsmanager:GetSecretValue'],
    resources: ['*'],
    conditions: { ArnNotEquals: { 'aws:PrincipalArn': readers } },
  });
}
