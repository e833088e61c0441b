/**
 * The service's own CloudWatch metrics (embedded metric format, written by
 * Powertools Metrics in the functions): one catalog that the code emitting
 * them and the stack's dashboard and alarms (lib/constructs/observability.ts)
 * both read, so a renamed metric or dimension cannot leave a widget or an
 * alarm watching nothing. CDK-free.
 *
 * Every metric carries the dimensions `service` (SERVICE_NAME: Powertools
 * Metrics always adds it, also to single metrics) and `stage` (the
 * function's STAGE), then the dimensions listed for it, nothing else: the
 * dashboard and alarms query exactly these sets (CloudWatch matches a metric
 * only by its full set of dimensions).
 */

/** Namespace of every metric the service emits. */
export const METRIC_NAMESPACE = 'PartnerApi';

/** Powertools' `service` dimension (and the logger's service name). */
export const SERVICE_NAME = 'partner-api';

/** Dimensions every metric carries, in this order, before its own. */
export const SERVICE_DIMENSION = 'service';
export const STAGE_DIMENSION = 'stage';

/** The dimensions every metric of a stage carries (CloudWatch matches a metric by its full set). */
export const commonDimensions = (stage: string): Record<string, string> => ({ [SERVICE_DIMENSION]: SERVICE_NAME, [STAGE_DIMENSION]: stage });

export interface MetricSpec {
  readonly name: string;
  /** Dimensions besides `service` and `stage`, in order. */
  readonly dimensions: readonly string[];
  readonly unit: 'Count' | 'Seconds' | 'Milliseconds';
}

export const METRICS = {
  /** One per API request answered (both surfaces), by route id and status class. */
  requests: {
    name: 'Requests',
    dimensions: ['route', 'status_class'],
    unit: 'Count',
  },
  /** Time from the function's first look at a request to its answer, by route (the function's part of API Gateway's latency). */
  requestLatency: {
    name: 'RequestLatency',
    dimensions: ['route'],
    unit: 'Milliseconds',
  },
  /** Quota rejections (429 RATE_LIMITED and the settings/player quota rows), by the limits table policy. */
  quotaRejections: {
    name: 'QuotaRejections',
    dimensions: ['policy'],
    unit: 'Count',
  },
  /** In-function edge rejections (the edge guard's per-IP and per-credential budgets), by policy. */
  edgeRejections: {
    name: 'EdgeRejections',
    dimensions: ['policy'],
    unit: 'Count',
  },
  /** Concurrency rejections (CONCURRENCY_LIMITED), by policy. */
  concurrencyRejections: {
    name: 'ConcurrencyRejections',
    dimensions: ['policy'],
    unit: 'Count',
  },
  /** Webhook delivery attempts by outcome and attempt number (1–8). */
  webhookAttempts: {
    name: 'WebhookAttempts',
    dimensions: ['outcome', 'attempt'],
    unit: 'Count',
  },
  /** Deliveries that ended: delivered, failed (after the last attempt) or cancelled. */
  webhookDeliveries: {
    name: 'WebhookDeliveries',
    dimensions: ['outcome'],
    unit: 'Count',
  },
  /** Webhook deliveries the sweeper found overdue and queued again (lambdas/webhooks/delivery-sweeper.ts), per run: 0 when healthy. */
  webhookDeliveriesSwept: {
    name: 'WebhookDeliveriesSwept',
    dimensions: [],
    unit: 'Count',
  },
  /** Player claims by outcome (claimed, already_claimed, unavailable, ticket_deferred, …). */
  claims: {
    name: 'Claims',
    dimensions: ['outcome'],
    unit: 'Count',
  },
  /** The claim reconciler's outcomes per run (joined, deferred, cleared). */
  reconcilerOutcomes: {
    name: 'ReconcilerOutcomes',
    dimensions: ['outcome'],
    unit: 'Count',
  },
  /** Claims still `claiming` that the reconciler found in a run. */
  claimingBacklog: {
    name: 'ClaimingBacklog',
    dimensions: [],
    unit: 'Count',
  },
  /** Age of the oldest claim still `claiming` at a reconciler run (0 when none). */
  claimingOldestAge: {
    name: 'ClaimingOldestAgeSeconds',
    dimensions: [],
    unit: 'Seconds',
  },
  /**
   * A container's first invocation, by function: Powertools' own ColdStart metric
   * (captureColdStartMetric names it and its dimension; observability/metrics.ts).
   */
  coldStarts: {
    name: 'ColdStart',
    dimensions: ['function_name'],
    unit: 'Count',
  },
} as const satisfies Record<string, MetricSpec>;

export type MetricId = keyof typeof METRICS;

/**
 * How long a claim may stay `claiming` before something is wrong: the
 * reconciler runs every minute and leaves claims younger than one minute to
 * the player's own request, so a healthy stage finishes every claim within
 * about two minutes; five gives room for a slow ticket store.
 */
export const CLAIMING_RECONCILIATION_BOUND_SECONDS = 300;

/** The status class dimension value of an HTTP status. */
export function statusClass(status: number): '2xx' | '3xx' | '4xx' | '5xx' {
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  return '2xx';
}
