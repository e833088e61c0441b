/**
 * WAF rate-based rules generated from the `edge` rows of the limits table
 * (lambdas/shared/limits/limits-table.ts) whose `enforcedBy` is `waf`, for one
 * front door: each row names its `surface`, and each surface's web ACL gets
 * only its own rows. No number is written here: aggregate, window and limit
 * all come from the row, so changing LIMITS changes the web ACL.
 *
 * Row → rule:
 * - `ip`         → AggregateKeyType IP (the request's origin IP as WAF sees it).
 * - `credential` → AggregateKeyType CUSTOM_KEYS on the Authorization header,
 *                  normalized (COMPRESS_WHITE_SPACE, then LOWERCASE, as
 *                  normalizeCredential does in process): every distinct
 *                  credential is its own aggregation instance, so unknown but
 *                  well-formed credentials count exactly like valid ones, and
 *                  `Bearer`/`bearer` spellings of one key share one counter.
 * - `location`   → AggregateKeyType CONSTANT: one counter for every request the
 *                  scope-down statement matches (for a regional web ACL that is
 *                  the Region, the spec's "per edge location").
 * - `counts`     → scope-down: `credentialed`, "the Authorization header is
 *                  longer than 0 bytes"; `malformed-credential`, that and "the
 *                  normalized header is not `bearer pak_live_` + 64 hex" (80
 *                  bytes of `^bearer pak_live_[0-9a-f]+$`), so the rule can
 *                  never block a well-formed key.
 *
 * Rows WAF cannot express (a window other than 60/120/300/600 s, a limit
 * below 10, a `location` row without a scope-down, …) fail synthesis with
 * EdgeRateRuleError rather than silently producing a different rule. The
 * 10-second bursts are `application` rows on purpose: WAF's shortest window
 * is 60 s, so they are enforced in process (lambdas/shared/limits/edge-guard.ts).
 *
 * Blocked requests get 429 with the spec's error envelope (same code and
 * message as the Lambda's own RATE_LIMITED; on the web side the body also
 * carries them at the top level, error-envelope.ts, and a settings path gets
 * web settings' shape: edge-protection.ts answers the web ACL's rules by path,
 * edge-answer-shapes.ts), `Retry-After` = the rule's
 * window (WAF responses are static; a client that pauses for one window lets
 * WAF's look-back window slide past its burst), `X-RateLimit-Policy` = the
 * row's policy, plus the web ACL's common headers (`Cache-Control: no-store`,
 * `X-Request-Id: edge`).
 */
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { ERROR_CATALOG } from '../../lambdas/shared/errors';
import { LIVE_KEY_HEX_CHARS, LIVE_KEY_PREFIX } from '../../lambdas/shared/identity/api-keys';
import { edgeLimits, LIMITS, quotaLimits, type EdgeLimit, type Limit, type QuotaHolder, type QuotaLimit } from '../../lambdas/shared/limits/limits-table';
import { API_STAGE_NAME, SURFACE_OF_GROUP, type RouteDefinition, type Surface } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { SURFACE_PROFILES } from '../config/surfaces';
import { ANSWER_PRIORITY_SLOT } from './edge-answer-shapes';
import { EDGE_REQUEST_ID, errorBody } from './error-envelope';

/** Evaluation windows WAF accepts (RateBasedStatement.EvaluationWindowSec). */
export const WAF_EVALUATION_WINDOWS: readonly number[] = [60, 120, 300, 600];
/** Lowest rate limit WAF accepts (RateBasedStatement.Limit). */
export const WAF_MIN_RATE_LIMIT = 10;
/** Highest rate limit the WAF API reference allows (RateBasedStatement.Limit). */
export const WAF_MAX_RATE_LIMIT = 2_000_000_000;
/** Rule names and custom response body keys: `^[\w\-]+$`, 1–128 characters. */
const WAF_NAME_PATTERN = /^[\w-]{1,128}$/;

/**
 * Rate rules take priorities from here, in table order, ANSWER_PRIORITY_SLOT apart: the web side answers each rule's
 * matches by path at the two priorities after it (edge-answer-shapes.ts). Size rules are 100+ and run first; the
 * managed groups are 300+, after at most 10 rate rules (WAF's quota per web ACL).
 */
export const RATE_RULE_PRIORITY_BASE = 200;

/** Custom response body shared by every rate rule: the envelope the Lambda returns for RATE_LIMITED. */
export const RATE_LIMITED_BODY_KEY = 'RATE_LIMITED';

/** WAF requires lowercase header names in FieldToMatch.SingleHeader. */
const AUTHORIZATION_HEADER = 'authorization';
const NO_TRANSFORMATION: wafv2.CfnWebACL.TextTransformationProperty[] = [{ priority: 0, type: 'NONE' }];
/** WAF's rendering of normalizeCredential (lambdas/shared/identity/api-keys.ts). */
export const CREDENTIAL_NORMALIZATION: wafv2.CfnWebACL.TextTransformationProperty[] = [
  { priority: 0, type: 'COMPRESS_WHITE_SPACE' },
  { priority: 1, type: 'LOWERCASE' },
];

/** Scope-down of `credentialed` rows: the request carries a non-empty Authorization header. */
export const HAS_AUTHORIZATION_STATEMENT: wafv2.CfnWebACL.StatementProperty = {
  sizeConstraintStatement: {
    // singleHeader is untyped JSON in the L1, so the CloudFormation key casing (`Name`) is written out.
    fieldToMatch: { singleHeader: { Name: AUTHORIZATION_HEADER } },
    comparisonOperator: 'GT',
    size: 0,
    textTransformations: NO_TRANSFORMATION,
  },
};

/** Length of a normalized well-formed credential: `bearer `, the live-key prefix and the key's 64 hex characters. */
export const WELL_FORMED_CREDENTIAL_LENGTH = 'bearer '.length + LIVE_KEY_PREFIX.length + LIVE_KEY_HEX_CHARS;

/**
 * The shape of a well-formed credential without a length: with WELL_FORMED_CREDENTIAL_LENGTH it
 * accepts exactly what WELL_FORMED_CREDENTIAL accepts. WAF warns against large quantifier values
 * (`{64}`), so the count moves into a size constraint.
 * https://docs.aws.amazon.com/waf/latest/developerguide/waf-regex-pattern-support.html
 */
export const WELL_FORMED_CREDENTIAL_SHAPE = /^bearer pak_live_[0-9a-f]+$/;

/**
 * The normalized Authorization header is a well-formed live key (WELL_FORMED_CREDENTIAL): exactly
 * WELL_FORMED_CREDENTIAL_LENGTH bytes of WELL_FORMED_CREDENTIAL_SHAPE, both after the same
 * normalization (WAF transforms the header before measuring it, as it does before matching).
 */
export const WELL_FORMED_CREDENTIAL_STATEMENT: wafv2.CfnWebACL.StatementProperty = {
  andStatement: {
    statements: [
      {
        sizeConstraintStatement: {
          fieldToMatch: { singleHeader: { Name: AUTHORIZATION_HEADER } },
          comparisonOperator: 'EQ',
          size: WELL_FORMED_CREDENTIAL_LENGTH,
          textTransformations: CREDENTIAL_NORMALIZATION,
        },
      },
      {
        regexMatchStatement: {
          fieldToMatch: { singleHeader: { Name: AUTHORIZATION_HEADER } },
          regexString: WELL_FORMED_CREDENTIAL_SHAPE.source,
          textTransformations: CREDENTIAL_NORMALIZATION,
        },
      },
    ],
  },
};

/** Scope-down of `malformed-credential` rows: a credential is present and it is not a well-formed live key. */
export const MALFORMED_CREDENTIAL_STATEMENT: wafv2.CfnWebACL.StatementProperty = {
  andStatement: { statements: [HAS_AUTHORIZATION_STATEMENT, { notStatement: { statement: WELL_FORMED_CREDENTIAL_STATEMENT } }] },
};

const SCOPE_DOWN: Record<EdgeLimit['counts'], wafv2.CfnWebACL.StatementProperty | undefined> = {
  all: undefined,
  credentialed: HAS_AUTHORIZATION_STATEMENT,
  'malformed-credential': MALFORMED_CREDENTIAL_STATEMENT,
};

/**
 * Metrics on, sampled requests off. WAF keeps sampled requests, every header
 * included (the Authorization value, a key in a URL), for hours in the
 * console: no rule of this web ACL samples, since every request may carry a
 * credential. Operators see blocked requests through the web ACL's logging,
 * which redacts the Authorization header and the query string
 * (edge-protection.ts).
 */
export function wafVisibility(metricName: string): wafv2.CfnWebACL.VisibilityConfigProperty {
  return { cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: false };
}

export class EdgeRateRuleError extends Error {
  constructor(limit: Pick<Limit, 'policy'>, problem: string) {
    super(`Edge limit ${JSON.stringify(limit.policy)} cannot be a WAF rate-based rule: ${problem}`);
    this.name = 'EdgeRateRuleError';
  }
}

/** The edge rows WAF enforces, in table order: of one surface's web ACL, or (no surface) of both. */
export function wafEdgeLimits(limits: readonly Limit[] = LIMITS, surface?: Surface): EdgeLimit[] {
  return edgeLimits(limits).filter((limit) => limit.enforcedBy === 'waf' && (surface === undefined || limit.surface === surface));
}

/** Throws EdgeRateRuleError when WAF cannot express the row as written. */
export function checkWafExpressible(limit: EdgeLimit): void {
  if (!WAF_NAME_PATTERN.test(limit.policy)) {
    throw new EdgeRateRuleError(limit, 'the policy is used as rule name and must match ^[\\w-]{1,128}$');
  }
  if (!WAF_EVALUATION_WINDOWS.includes(limit.windowSeconds)) {
    throw new EdgeRateRuleError(
      limit,
      `windowSeconds ${limit.windowSeconds} is not a WAF evaluation window (${WAF_EVALUATION_WINDOWS.join(', ')} s); ` +
        `shorter bursts must be enforcedBy 'application'`,
    );
  }
  if (!Number.isInteger(limit.limit) || limit.limit < WAF_MIN_RATE_LIMIT || limit.limit > WAF_MAX_RATE_LIMIT) {
    throw new EdgeRateRuleError(limit, `limit ${limit.limit} must be an integer from ${WAF_MIN_RATE_LIMIT} to ${WAF_MAX_RATE_LIMIT}`);
  }
  if (limit.aggregate === 'location' && limit.counts !== 'malformed-credential') {
    throw new EdgeRateRuleError(
      limit,
      "aggregate 'location' (CONSTANT) blocks every request it counts once over its limit: count only malformed credentials, so that a handful of clients can never lock valid keys out of the Region",
    );
  }
  if (limit.aggregate === 'credential' && limit.counts === 'all') {
    throw new EdgeRateRuleError(
      limit,
      "aggregate 'credential' counts only requests carrying Authorization (WAF omits requests missing a custom key); set counts to 'credentialed'",
    );
  }
}

/** The RateBasedStatement of an edge row. */
export function rateBasedStatement(limit: EdgeLimit): wafv2.CfnWebACL.RateBasedStatementProperty {
  checkWafExpressible(limit);
  const scopeDownStatement = SCOPE_DOWN[limit.counts];
  const scopeDown = scopeDownStatement ? { scopeDownStatement } : {};
  const base = { limit: limit.limit, evaluationWindowSec: limit.windowSeconds, ...scopeDown };
  switch (limit.aggregate) {
    case 'ip':
      return { ...base, aggregateKeyType: 'IP' };
    case 'credential':
      return {
        ...base,
        aggregateKeyType: 'CUSTOM_KEYS',
        customKeys: [{ header: { name: AUTHORIZATION_HEADER, textTransformations: CREDENTIAL_NORMALIZATION } }],
      };
    case 'location':
      return { ...base, aggregateKeyType: 'CONSTANT' };
  }
}

/** Response headers of a rate rule's block: Retry-After (the window) and the policy, then the common headers. */
export function rateRuleResponseHeaders(
  limit: Pick<Limit, 'policy'> & { readonly windowSeconds: number },
  commonHeaders: readonly wafv2.CfnWebACL.CustomHTTPHeaderProperty[] = [],
): wafv2.CfnWebACL.CustomHTTPHeaderProperty[] {
  return [{ name: 'Retry-After', value: String(limit.windowSeconds) }, { name: 'X-RateLimit-Policy', value: limit.policy }, ...commonHeaders];
}

export interface EdgeRateRules {
  readonly rules: wafv2.CfnWebACL.RuleProperty[];
  readonly responseBodies: Record<string, wafv2.CfnWebACL.CustomResponseBodyProperty>;
}

export interface EdgeRateRuleOptions {
  /** The front door whose web ACL gets the rules: only its rows become rules, and the body takes its error shape. */
  readonly surface: Surface;
  /** Prefix of the CloudWatch metric names, e.g. `partner-api-dev`. */
  readonly metricPrefix: string;
  /** Defaults to LIMITS. */
  readonly limits?: readonly Limit[];
  /** The route table whose routes scope the per-route quota rules (wafRouteQuotas); defaults to ROUTES. */
  readonly routes?: readonly RouteDefinition[];
  /** Headers every custom response of the web ACL carries (Cache-Control, X-Request-Id). */
  readonly commonHeaders?: readonly wafv2.CfnWebACL.CustomHTTPHeaderProperty[];
}

/**
 * One rate-based rule per `waf` edge row of the surface, then one per quota the
 * function counts by source IP that WAF also holds on its routes
 * (wafRouteQuotas), each named after its policy, at RATE_RULE_PRIORITY_BASE +
 * ANSWER_PRIORITY_SLOT × its index among those rows.
 */
export function edgeRateRules(options: EdgeRateRuleOptions): EdgeRateRules {
  const { surface, metricPrefix, limits = LIMITS, routes = ROUTES, commonHeaders = [] } = options;
  const rows: { readonly limit: EdgeLimit | QuotaLimit; readonly statement: wafv2.CfnWebACL.RateBasedStatementProperty }[] = [
    ...wafEdgeLimits(limits, surface).map((limit) => ({ limit, statement: rateBasedStatement(limit) })),
    ...wafRouteQuotas(limits, routes, surface).map(({ limit, routes: covered }) => ({ limit, statement: routeRateBasedStatement(limit, covered) })),
  ];
  const rules = rows.map(({ limit, statement }, i): wafv2.CfnWebACL.RuleProperty => ({
    name: limit.policy,
    priority: RATE_RULE_PRIORITY_BASE + ANSWER_PRIORITY_SLOT * i,
    statement: { rateBasedStatement: statement },
    action: {
      block: {
        customResponse: {
          responseCode: ERROR_CATALOG.RATE_LIMITED.status,
          customResponseBodyKey: RATE_LIMITED_BODY_KEY,
          responseHeaders: rateRuleResponseHeaders(limit, commonHeaders),
        },
      },
    },
    visibilityConfig: wafVisibility(`${metricPrefix}-${limit.policy}`),
  }));
  const responseBodies: Record<string, wafv2.CfnWebACL.CustomResponseBodyProperty> =
    rules.length === 0 ? {} : {
          [RATE_LIMITED_BODY_KEY]: {
            contentType: 'APPLICATION_JSON',
            content: errorBody(SURFACE_PROFILES[surface].errorShape, 'RATE_LIMITED', EDGE_REQUEST_ID),
          },
        };
  return { rules, responseBodies };
}

// ── Quotas by source IP that WAF holds too, on their routes only ─────────────────────────────────

/**
 * Quota holders counted by source IP inside the function whose rows WAF also enforces, scoped to
 * the routes the row covers: sign-in attempts (`sign-in-ip`). The function counts them exactly, but
 * only after API Gateway's stage throttle; a distributed flood (many addresses, each within
 * `web-ip-minute`) could keep the sign-in method at its throttle so that every real sign-in got 429.
 * WAF refuses an address over the function's own per-IP sign-in rate before it reaches the
 * throttle. Only rows whose window WAF can express become rules (`sign-in-ip-minute`; the hour row
 * stays the function's alone). Not the player site's `player-ip` rows: a crowd behind one NAT meets
 * them in normal use, and the function answers those with its own headers and the link's limits.
 */
export const WAF_ROUTE_QUOTA_HOLDERS: readonly QuotaHolder[] = ['sign-in-ip'];

export interface WafRouteQuota {
  readonly limit: QuotaLimit;
  /** The routes of the surface whose categories the row covers. */
  readonly routes: readonly RouteDefinition[];
}

/** The quota rows WAF holds on their routes for one surface (WAF_ROUTE_QUOTA_HOLDERS, windows WAF has), with those routes. */
export function wafRouteQuotas(limits: readonly Limit[] = LIMITS, routes: readonly RouteDefinition[] = ROUTES, surface?: Surface): WafRouteQuota[] {
  return quotaLimits(limits)
    .filter((limit) => WAF_ROUTE_QUOTA_HOLDERS.includes(limit.holder) && WAF_EVALUATION_WINDOWS.includes(limit.windowSeconds) && limit.covers !== 'all')
    .map((limit) => ({
      limit,
      routes: routes.filter(
        (route) => route.category !== undefined && (limit.covers as readonly string[]).includes(route.category) && (surface === undefined || SURFACE_OF_GROUP[route.group] === surface),
      ),
    }))
    .filter((quota) => quota.routes.length > 0);
}

/**
 * How a route-scoped rule reads the URI path before its STARTS_WITH match: percent-decoded, then normalized.
 * NORMALIZE_PATH removes repeated slashes, `.` segments and `x/..` pairs that are not at the start of the path
 * (AWS WAF developer guide, "Text transformations"), so `/v1//settings/api/session`, `/v1/./settings/api/session`
 * and `/v1/x/../settings/api/session`, which a client can send as they are and API Gateway may route to the same
 * method, are counted as the route's. WAF applies transformations from the lowest priority up: decoding comes first,
 * so that encoded dots and slashes (`/v1/%2e/settings/…`, `/v1/x/%2e%2e/settings/…`) are decoded before the
 * normalization that removes them, never after it. Two of the ten transformations WAF allows per statement, 10 WCU each.
 */
export const ROUTE_PATH_TRANSFORMATIONS: wafv2.CfnWebACL.TextTransformationProperty[] = [
  { priority: 0, type: 'URL_DECODE' },
  { priority: 1, type: 'NORMALIZE_PATH' },
];

/** The path WAF sees for a route: the stage prefix and the route's template (API Gateway routes `/v1/…`). */
export function routeUriPath(route: RouteDefinition): string {
  return `/${API_STAGE_NAME}${route.path}`;
}

/**
 * A rate-based statement by source IP, scoped down to the routes' method and path: the method
 * exactly, the percent-decoded and normalized path (ROUTE_PATH_TRANSFORMATIONS) starting with the
 * route's (a trailing slash, an encoded letter, a repeated slash, a dot segment or a longer unknown
 * path is counted too, never let through uncounted). Throws EdgeRateRuleError
 * when WAF cannot express the row (window, limit) or a route has a path parameter (a prefix match
 * would then count other routes).
 */
export function routeRateBasedStatement(limit: QuotaLimit, routes: readonly RouteDefinition[]): wafv2.CfnWebACL.RateBasedStatementProperty {
  if (!WAF_NAME_PATTERN.test(limit.policy)) throw new EdgeRateRuleError(limit, 'the policy is used as rule name and must match ^[\\w-]{1,128}$');
  if (!WAF_EVALUATION_WINDOWS.includes(limit.windowSeconds)) throw new EdgeRateRuleError(limit, `windowSeconds ${limit.windowSeconds} is not a WAF evaluation window`);
  if (!Number.isInteger(limit.limit) || limit.limit < WAF_MIN_RATE_LIMIT || limit.limit > WAF_MAX_RATE_LIMIT) {
    throw new EdgeRateRuleError(limit, `limit ${limit.limit} must be an integer from ${WAF_MIN_RATE_LIMIT} to ${WAF_MAX_RATE_LIMIT} (WAF's minimum is ${WAF_MIN_RATE_LIMIT} per window)`);
  }
  if (routes.length === 0) throw new EdgeRateRuleError(limit, 'no route of the surface is covered');
  const routeStatements = routes.map((route): wafv2.CfnWebACL.StatementProperty => {
    if (route.path.includes('{')) throw new EdgeRateRuleError(limit, `route ${route.id} has a path parameter; WAF would count it by prefix`);
    return {
      andStatement: {
        statements: [
          { byteMatchStatement: { fieldToMatch: { method: {} }, positionalConstraint: 'EXACTLY', searchString: route.method, textTransformations: NO_TRANSFORMATION } },
          {
            byteMatchStatement: {
              fieldToMatch: { uriPath: {} },
              positionalConstraint: 'STARTS_WITH',
              searchString: routeUriPath(route),
              textTransformations: ROUTE_PATH_TRANSFORMATIONS,
            },
          },
        ],
      },
    };
  });
  const scopeDownStatement = routeStatements.length === 1 ? routeStatements[0] : { orStatement: { statements: routeStatements } };
  return { limit: limit.limit, evaluationWindowSec: limit.windowSeconds, aggregateKeyType: 'IP', scopeDownStatement };
}
