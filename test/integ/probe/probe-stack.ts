/**
 * What the integration test deploys beside the stage, and only there: the provisioner (provisioner.ts), the webhook
 * receiver behind a public function URL (receiver.ts) and the small table between them and the assertions
 * (probe-store.ts). Built like the service's functions (ServiceFunction: the same esbuild bundling, so the asset hashes
 * are as deterministic; explicit log groups), and destroyed with the stack like the stage it probes.
 *
 * Names are fixed under the stage's token (`partner-api-integ-probe-…`), so the assertion stack calls them by name
 * and no stack exports anything.
 */
import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { join } from 'node:path';
import { physicalTableName, tableEnvName, TABLE_IDS } from '../../../lambdas/shared/storage/table-definitions';
import { LAMBDA_MB_PER_VCPU, type StageConfig } from '../../../lib/config/stage-config';
import { PROJECT_ROOT, ServiceFunction, serviceEnvironment, serviceFunctionProps, serviceFunctionRole, serviceLogGroup } from '../../../lib/constructs/api-function';
import { PROBE_KEY } from './probe-store';

export interface ProbeStackProps extends StackProps {
  /** The stage under test (INTEG_STAGE's configuration). */
  readonly config: StageConfig;
}

/** The probe's names: the stage's token, then `probe-…`. */
export const probeNames = (stage: string) => ({
  table: `partner-api-${stage}-probe`,
  provisioner: `partner-api-${stage}-probe-provisioner`,
  receiver: `partner-api-${stage}-probe-receiver`,
});

export class ProbeStack extends Stack {
  public readonly table: dynamodb.TableV2;
  public readonly provisioner: ServiceFunction;
  public readonly receiver: ServiceFunction;
  public readonly receiverUrl: lambda.FunctionUrl;

  constructor(scope: Construct, id: string, props: ProbeStackProps) {
    const { config, ...stackProps } = props;
    super(scope, id, { description: `partner-api ${config.stage}: the integration test's probe (provisioner, webhook receiver)`, ...stackProps });
    const names = probeNames(config.stage);

    this.table = new dynamodb.TableV2(this, 'Table', {
      tableName: names.table,
      partitionKey: { name: PROBE_KEY, type: dynamodb.AttributeType.STRING },
      billing: dynamodb.Billing.onDemand(),
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const receiverLogs = serviceLogGroup(this, 'ReceiverLogGroup', config);
    this.receiver = new ServiceFunction(this, 'Receiver', {
      ...serviceFunctionProps(config, receiverLogs, serviceFunctionRole(this, 'ReceiverRole', receiverLogs)),
      functionName: names.receiver,
      description: `partner-api ${config.stage}: the integration test's webhook receiver`,
      entry: join(PROJECT_ROOT, 'test', 'integ', 'probe', 'receiver.ts'),
      environment: { ...serviceEnvironment(config), PROBE_TABLE: this.table.tableName },
    });
    this.table.grantReadWriteData(this.receiver);
    // Public, as a partner's receiver is: what keeps strangers out is the signature the receiver checks.
    this.receiverUrl = this.receiver.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });

    const provisionerLogs = serviceLogGroup(this, 'ProvisionerLogGroup', config);
    this.provisioner = new ServiceFunction(this, 'Provisioner', {
      ...serviceFunctionProps(config, provisionerLogs, serviceFunctionRole(this, 'ProvisionerRole', provisionerLogs)),
      functionName: names.provisioner,
      description: `partner-api ${config.stage}: the integration test's provisioner (back office, web settings)`,
      entry: join(PROJECT_ROOT, 'test', 'integ', 'probe', 'provisioner.ts'),
      // Two password hashes (account creation, sign-in) and the callback's: a full vCPU, and time for the round trips.
      memorySize: LAMBDA_MB_PER_VCPU,
      timeout: Duration.minutes(1),
      environment: {
        ...serviceEnvironment(config),
        ...Object.fromEntries(TABLE_IDS.map((tableId) => [tableEnvName(tableId), physicalTableName(config.stage, tableId)])),
        PROBE_TABLE: this.table.tableName,
        RECEIVER_URL: this.receiverUrl.url,
      },
    });
    this.table.grantWriteData(this.provisioner);
    // The back office's reads and writes on the stage's tables, found by name (the admin CLI's access on `--stage`).
    const stageTables = TABLE_IDS.map((tableId) => this.formatArn({ service: 'dynamodb', resource: 'table', resourceName: physicalTableName(config.stage, tableId) }));
    this.provisioner.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'],
        resources: [...stageTables, ...stageTables.map((table) => `${table}/index/*`)],
      }),
    );
  }
}
