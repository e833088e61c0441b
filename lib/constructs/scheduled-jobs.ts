/**
 * The service's scheduled jobs: functions that run on a clock, not behind
 * the API, each every minute: `entitlement-periods` (lambdas/jobs/entitlement-periods),
 * which writes the `entitlement.updated` event of each organization grant
 * that started or ended, and `claim-reconciler` (lambdas/jobs/claim-reconciler),
 * which finishes invitation claims left `claiming`.
 *
 * The function is built like the API's (api-function.ts: Node.js 24 on
 * ARM64, X-Ray, JSON logs in an explicit log group, the SDK bundled by local
 * esbuild) with least privilege: Query on the domain table's `gsi1` index
 * only, UpdateItem and PutItem on the table (TransactWriteItems is
 * authorized per item action, so these two cover the job's transactions).
 *
 * EventBridge Scheduler invokes it through a role of its own (no Lambda
 * resource policy: the function's only resource-policy entry stays the API's
 * kind), allowed to invoke the function's unqualified ARN only (the schedule
 * never names a version or alias), without retries or a flexible window: the
 * next minute's run picks up whatever a failed run left, since every run
 * looks back over the catch-up window.
 */
import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { join } from 'node:path';
import { DUE_INDEX } from '../../lambdas/entitlements/period-transitions';
import { tableEnvName } from '../../lambdas/shared/storage/table-definitions';
import type { StageConfig } from '../config/stage-config';
import { PROJECT_ROOT, ServiceFunction, serviceEnvironment, serviceFunctionProps, serviceFunctionRole, serviceLogGroup } from './api-function';
import type { TableMap } from './data-tables';

/** How often the entitlement-periods job runs. */
export const ENTITLEMENT_PERIODS_RATE = Duration.minutes(1);

export interface ScheduledJobsProps {
  readonly config: StageConfig;
  readonly tables: TableMap;
}

export class ScheduledJobs extends Construct {
  public readonly entitlementPeriods: ServiceFunction;
  public readonly logGroup: logs.LogGroup;
  public readonly schedule: scheduler.Schedule;
  public readonly claimReconciler: ServiceFunction;
  public readonly claimReconcilerSchedule: scheduler.Schedule;

  constructor(scope: Construct, id: string, props: ScheduledJobsProps) {
    super(scope, id);
    const { config, tables } = props;
    const domain = tables.domain;

    this.logGroup = serviceLogGroup(this, 'EntitlementPeriodsLogGroup', config);
    this.entitlementPeriods = new ServiceFunction(this, 'EntitlementPeriods', {
      ...serviceFunctionProps(config, this.logGroup, serviceFunctionRole(this, 'EntitlementPeriodsRole', this.logGroup)),
      description: `partner-api ${config.stage}: entitlement-periods job (period start and end events)`,
      entry: join(PROJECT_ROOT, 'lambdas', 'jobs', 'entitlement-periods', 'handler.ts'),
      // A failed run is not retried: the next minute's run covers it.
      retryAttempts: 0,
      environment: { ...serviceEnvironment(config), [tableEnvName('domain')]: domain.tableName },
    });

    // Find due grants: the transition markers' index, never the table (no Scan).
    this.entitlementPeriods.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: [`${domain.tableArn}/index/${DUE_INDEX}`] }),
    );
    // Move a grant's marker and put its events (the actions of TransactWriteItems' items).
    this.entitlementPeriods.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'], resources: [domain.tableArn] }),
    );

    this.schedule = new scheduler.Schedule(this, 'EntitlementPeriodsSchedule', {
      description: `partner-api ${config.stage}: run the entitlement-periods job every minute`,
      schedule: scheduler.ScheduleExpression.rate(ENTITLEMENT_PERIODS_RATE),
      timeWindow: scheduler.TimeWindow.off(),
      target: new InvokeFunctionOnly(this.entitlementPeriods, { retryAttempts: 0, maxEventAge: Duration.minutes(1) }),
    });

    // claim-reconciler: finishes claims left `claiming` (lambdas/invitations/claim-reconciler.ts).
    const reconcilerLogs = serviceLogGroup(this, 'ClaimReconcilerLogGroup', config);
    this.claimReconciler = new ServiceFunction(this, 'ClaimReconciler', {
      ...serviceFunctionProps(config, reconcilerLogs, serviceFunctionRole(this, 'ClaimReconcilerRole', reconcilerLogs)),
      description: `partner-api ${config.stage}: claim-reconciler job (claims left claiming)`,
      entry: join(PROJECT_ROOT, 'lambdas', 'jobs', 'claim-reconciler', 'handler.ts'),
      retryAttempts: 0,
      environment: { ...serviceEnvironment(config), [tableEnvName('domain')]: domain.tableName },
    });
    // The claim markers are partitions of the table (Query), then the invitation (GetItem), the ticket
    // (GetItem, PutItem) and the joining transaction (UpdateItem, PutItem, DeleteItem).
    this.claimReconciler.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
        resources: [domain.tableArn],
      }),
    );
    this.claimReconcilerSchedule = new scheduler.Schedule(this, 'ClaimReconcilerSchedule', {
      description: `partner-api ${config.stage}: run the claim-reconciler job every minute`,
      schedule: scheduler.ScheduleExpression.rate(Duration.minutes(1)),
      timeWindow: scheduler.TimeWindow.off(),
      target: new InvokeFunctionOnly(this.claimReconciler, { retryAttempts: 0, maxEventAge: Duration.minutes(1) }),
    });
  }
}

/**
 * LambdaInvoke whose role may invoke the function's unqualified ARN and nothing else. CDK's target
 * uses `grantInvoke`, which adds `<function ARN>:*` (every version and alias) for schedules that
 * never name one.
 */
export class InvokeFunctionOnly extends targets.LambdaInvoke {
  constructor(
    private readonly target: lambda.IFunction,
    props: targets.ScheduleTargetBaseProps,
  ) {
    super(target, props);
  }

  protected override addTargetActionToRole(role: iam.IRole): void {
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.target.functionArn] }));
  }
}
