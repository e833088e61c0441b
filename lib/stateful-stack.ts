/**
 * Stateful stack: the data that must outlive deployments (DynamoDB tables)
 * and the service's secrets (Secrets Manager).
 * Kept apart from the stateless stack so functions, API and WAF can be
 * replaced or destroyed freely without touching data.
 */
import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { StageConfig } from './config/stage-config';
import { DataTables, type TableMap } from './constructs/data-tables';
import { ServiceSecrets, type SecretMap } from './constructs/service-secrets';

export interface StatefulStackProps extends StackProps {
  readonly config: StageConfig;
}

export class StatefulStack extends Stack {
  /** Every table by id, for the stateless stack. */
  public readonly tables: TableMap;
  /** Every service secret by id, for the stateless stack. */
  public readonly secrets: SecretMap;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    const { config, ...stackProps } = props;
    super(scope, id, {
      description: `partner-api ${config.stage}: DynamoDB tables and secrets`,
      // Production data: CloudFormation refuses to delete the stack until protection is turned off.
      terminationProtection: config.deletionProtection,
      ...stackProps,
    });
    this.tables = new DataTables(this, 'Data', { config }).tables;
    this.secrets = new ServiceSecrets(this, 'Secrets', { config }).secrets;
  }
}
