/**
 * Stateless stack: everything that can be rebuilt from code — the functions,
 * the REST API, edge protection (WAF) and alarms. It receives the tables of
 * the stateful stack through typed props.
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import type { StageConfig } from './config/stage-config';
import type { TableMap } from './constructs/data-tables';
import type { SecretMap } from './constructs/service-secrets';
import { EdgeProtection } from './constructs/edge-protection';
import { Observability } from './constructs/observability';
import { PartnerApi } from './constructs/partner-api';
import { ScheduledJobs } from './constructs/scheduled-jobs';
import type { RouteDefinition } from '../lambdas/shared/http/routes';

export interface StatelessStackProps extends StackProps {
  readonly config: StageConfig;
  readonly tables: TableMap;
  readonly secrets: SecretMap;
  /** Route table override for tests; defaults to ROUTES. */
  readonly routes?: readonly RouteDefinition[];
  /** Extra WAF rules (e.g. rate-based rules). */
  readonly edgeRules?: readonly wafv2.CfnWebACL.RuleProperty[];
  readonly edgeResponseBodies?: Readonly<Record<string, wafv2.CfnWebACL.CustomResponseBodyProperty>>;
}

export class StatelessStack extends Stack {
  public readonly api: PartnerApi;
  public readonly edge: EdgeProtection;
  public readonly observability: Observability;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    const { config, tables, secrets, routes, edgeRules, edgeResponseBodies, ...stackProps } = props;
    super(scope, id, { description: `partner-api ${config.stage}: functions, REST API, WAF, alarms`, ...stackProps });

    this.api = new PartnerApi(this, 'Api', { config, tables, secrets, ...(routes ? { routes } : {}) });
    new ScheduledJobs(this, 'Jobs', { config, tables });
    this.edge = new EdgeProtection(this, 'Edge', {
      config,
      stage: this.api.stage,
      ...(edgeRules ? { additionalRules: edgeRules } : {}),
      ...(edgeResponseBodies ? { additionalResponseBodies: edgeResponseBodies } : {}),
    });
    this.observability = new Observability(this, 'Observability', {
      config,
      stage: this.api.stage,
      functions: Object.fromEntries(Object.entries(this.api.functions).map(([group, fn]) => [group, fn.function])),
      tables,
      edge: {
        webAclName: this.edge.webAclName,
        alarmingRuleMetricNames: this.edge.regionWideRuleMetricNames,
      },
    });

    new CfnOutput(this, 'ApiBaseUrl', {
      description: 'Base URL of the API; paths of the spec are relative to it',
      value: this.api.baseUrl,
    });
  }
}
