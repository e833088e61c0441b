/**
 * The service's secrets (lambdas/shared/secret-names.ts) in AWS Secrets
 * Manager, one per id and stage: `partner-api/<stage>/<id>`, a generated
 * 64-character value that never appears in code, templates or a function's
 * environment (functions get the ARN and read it at run time). They live in
 * the stateful stack: replacing the functions must not change them, and a
 * retained stage keeps them when its stack is deleted.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { SECRET_IDS, SECRET_PURPOSES, type SecretId } from '../../lambdas/shared/secret-names';
import type { StageConfig } from '../config/stage-config';

export type SecretMap = Readonly<Record<SecretId, secretsmanager.ISecret>>;

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
        secretName: `partner-api/${config.stage}/${secretId}`,
        description: `partner-api ${config.stage}: ${SECRET_PURPOSES[secretId]}`,
        generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
        removalPolicy: config.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      });
      secrets[secretId] = secret;
    }
    this.secrets = Object.freeze(secrets as Record<SecretId, secretsmanager.ISecret>);
  }
}
