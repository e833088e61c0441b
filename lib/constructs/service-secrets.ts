/**
 * The service's secrets (lambdas/shared/secret-names.ts) in AWS Secrets
 * Manager, one per id and stage: `partner-api/<stage>/<id>-key`, a generated
 * 64-character value that never appears in code, templates or a function's
 * environment (functions get the ARN and read it at run time). They live in
 * the stateful stack: replacing the functions must not change them, and a
 * retained stage keeps them when its stack is deleted.
 */
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { SECRET_IDS, SECRET_PURPOSES, secretName, type SecretId } from '../../lambdas/shared/secret-names';
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
      secrets[secretId] = secret;
    }
    this.secrets = Object.freeze(secrets as Record<SecretId, secretsmanager.ISecret>);
  }
}
