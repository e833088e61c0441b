/**
 * The one way this service builds a Lambda function: a ServiceFunction
 * (service-function.ts: the handler bundled by the local esbuild into ES
 * module chunks, the AWS SDK inside) with the defaults locked (Node.js 24 on
 * ARM64, X-Ray tracing, JSON logs filtered by the logger at the stage's
 * level, an explicit log group with the stage's retention, an execution role
 * that may write to that log group only).
 */
import { Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { secretArnEnvName, type SecretId } from '../../lambdas/shared/secret-names';
import { tableEnvName } from '../../lambdas/shared/storage/table-definitions';
import { LAMBDA_NODE_OPTIONS } from '../config/bundling';
import { SURFACE_OF_GROUP, type EndpointGroup } from '../../lambdas/shared/http/routes';
import type { TableAccess } from '../../lambdas/service/data-access';
import { serviceRoleName } from '../config/service-roles';
import { functionMemoryMb, type StageConfig } from '../config/stage-config';
import type { TableMap } from './data-tables';
import { stageRemovalPolicy } from './removal-policy';
import { PROJECT_ROOT, ServiceFunction, SERVICE_RUNTIME, type ServiceFunctionProps } from './service-function';

export { PROJECT_ROOT, ServiceFunction, SERVICE_RUNTIME } from './service-function';

/** Lambda entry of an endpoint group: `lambdas/<group>/handler.ts`, exporting `handler`. */
export function handlerEntry(group: EndpointGroup): string {
  return join(PROJECT_ROOT, 'lambdas', group, 'handler.ts');
}

/** A function's log group: the stage's retention and removal policy. */
export function serviceLogGroup(scope: Construct, id: string, config: StageConfig): logs.LogGroup {
  return new logs.LogGroup(scope, id, {
    retention: config.logRetentionDays as number as logs.RetentionDays,
    removalPolicy: stageRemovalPolicy(config),
  });
}

/**
 * A function's execution role: assumed by Lambda, allowed to create streams and put events in the
 * function's own log group and nothing else yet (each construct adds the function's statements). It
 * replaces the role NodejsFunction would create with the AWSLambdaBasicExecutionRole managed
 * policy, whose logs actions hold on every log group of the account.
 */
export function serviceFunctionRole(scope: Construct, id: string, logGroup: logs.ILogGroup, roleName?: string): iam.Role {
  const role = new iam.Role(scope, id, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'), ...(roleName ? { roleName } : {}) });
  logGroup.grantWrite(role);
  return role;
}

/** What every function of the service sets: stage, log level, source maps. */
export function serviceEnvironment(config: StageConfig): Record<string, string> {
  return {
    STAGE: config.stage,
    LOG_LEVEL: config.logLevel,
    NODE_OPTIONS: LAMBDA_NODE_OPTIONS,
    // Where X-Ray is off, the function does not even load the tracer (lambdas/shared/observability/tracer.ts).
    POWERTOOLS_TRACE_ENABLED: String(config.tracing),
  };
}

/**
 * The locked defaults of every function of the service (API groups and
 * scheduled jobs): runtime, architecture, memory, timeout, tracing, JSON
 * logs into `logGroup`, the `role` of serviceFunctionRole (the code: ServiceFunction's `entry`).
 */
export function serviceFunctionProps(config: StageConfig, logGroup: logs.ILogGroup, role: iam.IRole): Omit<ServiceFunctionProps, 'entry'> {
  return {
    runtime: SERVICE_RUNTIME,
    architecture: lambda.Architecture.ARM_64,
    memorySize: config.lambda.memoryMb,
    timeout: Duration.seconds(config.lambda.timeoutSeconds),
    tracing: config.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
    loggingFormat: lambda.LoggingFormat.JSON,
    // The logger filters by LOG_LEVEL and keeps the debug lines of its sampled invocations (1 %, logger.ts):
    // Lambda's own filter stays at DEBUG so that it does not drop them. EMF documents carry no level (INFO to Lambda).
    applicationLogLevelV2: lambda.ApplicationLogLevel.DEBUG,
    systemLogLevelV2: lambda.SystemLogLevel.INFO,
    logGroup,
    role,
  };
}

/**
 * The IAM condition limiting DynamoDB actions to items whose partition key starts with one of
 * `prefixes`. `ForAllValues`: every leading key the request names must match (a request's
 * partition key values, one for an UpdateItem); `StringLike` with `*` after each prefix. A prefix
 * may not hold IAM's wildcards itself.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html
 */
export function leadingKeyCondition(prefixes: readonly string[]): Record<string, Record<string, string[]>> {
  if (prefixes.length === 0) throw new Error('leadingKeyCondition: no prefix (the statement would allow no item; drop it instead)');
  const wild = prefixes.filter((prefix) => /[*?$]/.test(prefix) || prefix.length === 0);
  if (wild.length > 0) throw new Error(`leadingKeyCondition: prefixes may not be empty or hold * ? $: ${wild.join(', ')}`);
  return { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) } };
}

export interface ApiFunctionProps {
  readonly group: EndpointGroup;
  readonly config: StageConfig;
  /** Every table of the stage; the function sees and may use only those in `dataAccess`. */
  readonly tables: TableMap;
  /**
   * Exactly what the function may do with the tables (routes.ts `dataAccessOf`): it gets
   * TABLE_<ID> for each of those tables and an IAM statement with those actions on the table
   * (and the listed indexes), nothing else.
   */
  readonly dataAccess: readonly TableAccess[];
  /** The service secrets the function reads (routes.ts GROUP_SECRET_ACCESS): SECRET_ARN_<ID> and GetSecretValue on each. */
  readonly secrets?: ReadonlyArray<readonly [SecretId, secretsmanager.ISecret]>;
  /** Further variables the group's code reads (e.g. the invitations function's PLAYER_SITE_URL); they may not replace the ones above. */
  readonly environment?: Readonly<Record<string, string>>;
}

export class ApiFunction extends Construct {
  public readonly group: EndpointGroup;
  public readonly function: ServiceFunction;
  public readonly logGroup: logs.LogGroup;
  public readonly role: iam.Role;
  /** Every variable set so far: none may be set twice. */
  private readonly environmentNames: Set<string>;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    const { group, config, tables } = props;
    this.group = group;

    const entry = handlerEntry(group);
    if (!existsSync(entry)) {
      throw new Error(`ApiFunction ${group}: entry ${entry} does not exist (expected lambdas/${group}/handler.ts exporting handler)`);
    }
    const missing = props.dataAccess.filter((access) => !tables[access.table]).map((access) => access.table);
    if (missing.length > 0) {
      throw new Error(`ApiFunction ${group}: tables missing from props: ${missing.join(', ')}`);
    }

    const environment = {
      ...serviceEnvironment(config),
      // The front door the function serves (its edge budget in the pipeline; lambdas/shared/platform.ts).
      API_SURFACE: SURFACE_OF_GROUP[group],
      ...Object.fromEntries(props.dataAccess.map((access) => [tableEnvName(access.table), tables[access.table].tableName])),
      ...Object.fromEntries((props.secrets ?? []).map(([id, secret]) => [secretArnEnvName(id), secret.secretArn])),
    };
    const clashing = Object.keys(props.environment ?? {}).filter((name) => name in environment);
    if (clashing.length > 0) {
      throw new Error(`ApiFunction ${group}: environment may not replace ${clashing.join(', ')}`);
    }

    this.environmentNames = new Set([...Object.keys(environment), ...Object.keys(props.environment ?? {})]);

    this.logGroup = serviceLogGroup(this, 'LogGroup', config);
    // Named (lib/config/service-roles.ts): the stateful stack's key and secret policies name these roles.
    this.role = serviceFunctionRole(this, 'Role', this.logGroup, serviceRoleName(config.stage, group));
    this.function = new ServiceFunction(this, 'Function', {
      ...serviceFunctionProps(config, this.logGroup, this.role),
      description: `partner-api ${config.stage}: ${group} endpoints`,
      entry,
      // The group's own memory where the stage gives it one (StageConfig.lambda.groupMemoryMb: sign-in's full vCPU).
      memorySize: functionMemoryMb(config, group),
      environment: { ...environment, ...props.environment },
      // A ceiling and a floor for this group's function (StageConfig.reservedConcurrency; none: the account's pool).
      ...(config.reservedConcurrency[group] !== undefined ? { reservedConcurrentExecutions: config.reservedConcurrency[group] } : {}),
    });

    for (const [, secret] of props.secrets ?? []) secret.grantRead(this.function);

    for (const access of props.dataAccess) {
      const table = tables[access.table];
      this.function.addToRolePolicy(
        new iam.PolicyStatement({
          actions: [...access.actions],
          // On the listed indexes only, or on the table itself.
          resources: access.indexes ? access.indexes.map((index) => `${table.tableArn}/index/${index}`) : [table.tableArn],
          // Only items whose partition key has one of the declared prefixes (fine-grained access control).
          ...(access.leadingKeyPrefixes ? { conditions: leadingKeyCondition(access.leadingKeyPrefixes) } : {}),
        }),
      );
    }
  }

  /**
   * A further variable known only once other constructs exist (e.g. the webhook pipeline's queue URL
   * for the `webhooks` function, lib/constructs/webhook-delivery.ts). Like `environment`, it may not
   * replace a variable already set.
   */
  public addEnvironment(name: string, value: string): void {
    if (this.environmentNames.has(name)) throw new Error(`ApiFunction ${this.group}: environment may not replace ${name}`);
    this.environmentNames.add(name);
    this.function.addEnvironment(name, value);
  }
}
