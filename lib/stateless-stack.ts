/**
 * Stateless stack: everything that can be rebuilt from code — the functions,
 * the two front doors (lib/config/surfaces.ts: the partner API and the web
 * side, each its own REST API with its own WAF web ACL), the scheduled jobs
 * and what operators watch (alarms, their topic, the dashboard). It finds the
 * stateful stack's tables, secrets and key by name or through the SSM parameters
 * that stack publishes, never through an export (lib/constructs/stage-references.ts),
 * and it refuses to deploy into an account and Region without the account-level
 * stack (lib/baseline-stack.ts: API Gateway's logging role, WAF log delivery).
 *
 * The web API is built first and depends on nothing of the partner API's
 * functions: the partner API's invitations function gets the web side's
 * address (PLAYER_SITE_URL, the base of its join links) from it, one way.
 *
 * The webhook pipeline (WebhookDelivery) comes after both APIs: its worker and
 * the web API's `webhooks` function learn both APIs' hosts (no callback may
 * point at them). A host is the REST API's id, a resource that depends on none
 * of its methods or functions, so even the web API's own function may name it
 * without a cycle (test/infra/webhook-delivery.test.ts checks the template).
 */
import { SEALING_KEY_ENV } from '../lambdas/shared/sealing';
import { keyUseStatements, keyUsesOf } from './config/service-roles';
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { requireBaseline } from './baseline-stack';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { TABLES, TABLE_IDS } from '../lambdas/shared/storage/table-definitions';
import type { Construct } from 'constructs';
import { ENDPOINT_GROUPS, PLAYER_SITE_PATH, SETTINGS_PATH, type RouteDefinition, type Surface } from '../lambdas/shared/http/routes';
import type { StageConfig } from './config/stage-config';
import { SURFACE_PROFILES } from './config/surfaces';
import { importStageResources } from './constructs/stage-references';
import { EdgeProtection } from './constructs/edge-protection';
import { Observability } from './constructs/observability';
import { ScheduledJobs } from './constructs/scheduled-jobs';
import { SurfaceApi } from './constructs/surface-api';
import { WebhookDelivery } from './constructs/webhook-delivery';

export interface StatelessStackProps extends StackProps {
  readonly config: StageConfig;
  /** Route table override for tests (both surfaces); defaults to ROUTES. */
  readonly routes?: readonly RouteDefinition[];
  /** Extra WAF rules per surface's web ACL (e.g. rate-based rules). */
  readonly edgeRules?: Readonly<Partial<Record<Surface, readonly wafv2.CfnWebACL.RuleProperty[]>>>;
  readonly edgeResponseBodies?: Readonly<Partial<Record<Surface, Readonly<Record<string, wafv2.CfnWebACL.CustomResponseBodyProperty>>>>>;
}

export class StatelessStack extends Stack {
  /** The partner API (API keys, the spec's envelope). */
  public readonly api: SurfaceApi;
  /** The web side: the player site and web settings. */
  public readonly webApi: SurfaceApi;
  public readonly apis: Readonly<Record<Surface, SurfaceApi>>;
  /** The partner API's web ACL. */
  public readonly edge: EdgeProtection;
  /** The web side's web ACL. */
  public readonly webEdge: EdgeProtection;
  public readonly edges: Readonly<Record<Surface, EdgeProtection>>;
  public readonly jobs: ScheduledJobs;
  /** The webhook delivery pipeline: stream fan-out, delivery queue, worker, retry state machine. */
  public readonly webhooks: WebhookDelivery;
  public readonly observability: Observability;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    const { config, routes, edgeRules, edgeResponseBodies, ...stackProps } = props;
    super(scope, id, { description: `partner-api ${config.stage}: functions, REST APIs (partner, web), WAF, webhook delivery, alarms`, ...stackProps });
    requireBaseline(this);
    const { tables, secrets, webhookSecretsKey } = importStageResources(this, config);
    const common = { config, tables, secrets, ...(routes ? { routes } : {}) };

    this.webApi = new SurfaceApi(this, SURFACE_PROFILES.web.apiConstructId, { ...common, surface: 'web' });
    this.api = new SurfaceApi(this, SURFACE_PROFILES.partner.apiConstructId, {
      ...common,
      surface: 'partner',
      // Join links open the player site on the web side (lambdas/invitations/join-link.ts).
      functionEnvironment: { invitations: { PLAYER_SITE_URL: `${this.webApi.baseUrl}${PLAYER_SITE_PATH}` } },
    });
    this.apis = { partner: this.api, web: this.webApi };

    const edgeOf = (surface: Surface): EdgeProtection =>
      new EdgeProtection(this, SURFACE_PROFILES[surface].edgeConstructId, {
        config,
        surface,
        stage: this.apis[surface].stage,
        ...(routes ? { routes } : {}),
        ...(edgeRules?.[surface] ? { additionalRules: edgeRules[surface] } : {}),
        ...(edgeResponseBodies?.[surface] ? { additionalResponseBodies: edgeResponseBodies[surface] } : {}),
      });
    this.edge = edgeOf('partner');
    this.webEdge = edgeOf('web');
    this.edges = { partner: this.edge, web: this.webEdge };

    this.jobs = new ScheduledJobs(this, 'Jobs', { config, tables });

    // Every API function whose role uses the secrets key (SECRETS_KEY_USERS: the same table the key policy is built
    // from) gets the key (SEALING_KEY_ARN, read by lambdas/shared/sealing.ts sealerOf) and its uses in IAM, and no other
    // does: what a route's code seals or opens (settings: two-factor seeds; webhooks: the seed its re-check opens, and
    // callbacks' secrets) is granted by that one table. The webhooks function also has WEBHOOK_SECRET_KEY_ARN (its
    // callbacks' secrets, lib/constructs/webhook-delivery.ts): both variables name the same key, the stage's secrets key;
    // neither is renamed, a deployed function reads each.
    for (const api of [this.api, this.webApi]) {
      for (const group of ENDPOINT_GROUPS) {
        const fn = api.functions[group];
        if (!fn || keyUsesOf(group).length === 0) continue;
        fn.addEnvironment(SEALING_KEY_ENV, webhookSecretsKey.keyArn);
        for (const statement of keyUseStatements(group, webhookSecretsKey.keyArn)) fn.function.addToRolePolicy(statement);
      }
    }

    const webhooksFunction = this.webApi.functions.webhooks;
    if (!webhooksFunction) throw new Error('StatelessStack: the web API has no webhooks function (routes.ts SURFACE_OF_GROUP)');
    this.webhooks = new WebhookDelivery(this, 'Webhooks', {
      config,
      tables,
      secretsKey: webhookSecretsKey,
      forbiddenHosts: [...this.api.hosts, ...this.webApi.hosts],
      apiFunction: webhooksFunction,
    });

    const functions: Record<string, lambda.IFunction> = {};
    for (const api of [this.api, this.webApi]) {
      for (const [group, fn] of Object.entries(api.functions)) functions[group] = fn.function;
    }
    functions['entitlement-periods'] = this.jobs.entitlementPeriods;
    functions['claim-reconciler'] = this.jobs.claimReconciler;
    functions['webhook-fanout'] = this.webhooks.fanOut;
    functions['webhook-delivery'] = this.webhooks.worker;
    functions['webhook-sweeper'] = this.webhooks.sweeper;
    this.observability = new Observability(this, 'Observability', {
      config,
      apis: [this.api, this.webApi].map((api) => ({
        alarmPrefix: SURFACE_PROFILES[api.surface].alarmPrefix,
        title: SURFACE_PROFILES[api.surface].title,
        stage: api.stage,
        routes: api.routes,
      })),
      functions,
      tables,
      tableIndexes: Object.fromEntries(TABLE_IDS.map((id) => [id, TABLES[id].globalIndexes.map((index) => index.indexName)])),
      edges: [this.edge, this.webEdge].map((edge) => ({
        webAclName: edge.webAclName,
        alarmingRuleMetricNames: edge.regionWideRuleMetricNames,
        ruleMetricNames: ruleMetricNames(edge.webAcl),
      })),
      webhooks: { queue: this.webhooks.queue, deadLetterQueue: this.webhooks.deadLetterQueue, retryStateMachine: this.webhooks.retryStateMachine },
      claimReconciler: true,
    });

    new CfnOutput(this, SURFACE_PROFILES.partner.baseUrlOutput, {
      description: 'Base URL of the partner API; paths of the spec are relative to it',
      value: this.api.baseUrl,
    });
    new CfnOutput(this, SURFACE_PROFILES.web.baseUrlOutput, {
      description: `Base URL of the web side: the player site under ${PLAYER_SITE_PATH}/<id>, web settings at ${SETTINGS_PATH}`,
      value: this.webApi.baseUrl,
    });
    for (const api of [this.api, this.webApi]) {
      if (!api.customDomain) continue;
      new CfnOutput(this, `${SURFACE_PROFILES[api.surface].baseUrlOutput}DomainTarget`, {
        description: `Point ${api.customDomain.domainName}'s DNS record (CNAME or alias) at this regional host name`,
        value: api.customDomain.domainNameAliasDomainName,
      });
    }
  }
}

/** The metric name of every rule of a web ACL, in the ACL's order (the dashboard graphs each rule's blocks). */
function ruleMetricNames(webAcl: wafv2.CfnWebACL): string[] {
  const rules = Array.isArray(webAcl.rules) ? webAcl.rules : [];
  return rules.flatMap((rule) => {
    const visibility = (rule as Partial<wafv2.CfnWebACL.RuleProperty>).visibilityConfig as Partial<wafv2.CfnWebACL.VisibilityConfigProperty> | undefined;
    return typeof visibility?.metricName === 'string' ? [visibility.metricName] : [];
  });
}
