/**
 * The two front doors of a stage (routes.ts `Surface`), as the infrastructure
 * builds them: each its own API Gateway REST API (stage `v1`) with its own
 * WAF web ACL, named and shaped here once. The partner API serves server
 * integrations with API keys and the spec's envelope; the web side serves
 * browsers (the player site and web settings), whose error bodies must also
 * satisfy web settings' top-level `{code, message}` shape.
 *
 * Plain data (no CDK types), like stage-config.ts: the constructs, the stack
 * and the tests read it.
 */
import type { Surface } from '../../lambdas/shared/http/routes';

export type { Surface };

/** Every surface, in the order the stack builds them (the web API first: the partner API's invitations function links to it). */
export const SURFACES: readonly Surface[] = ['web', 'partner'];

/**
 * Which body gateway and WAF responses carry: `api`, the spec's envelope
 * `{ok:false,error:{code,message},request_id}`; `web`, that envelope plus a
 * top-level `code` and `message`, so one static body serves both the player
 * site (envelope) and web settings (top-level shape).
 */
export type ErrorShape = 'api' | 'web';

export interface SurfaceProfile {
  readonly surface: Surface;
  /** Id of the REST API construct in the stateless stack (the partner API keeps `Api`, so its logical ids and URL never change). */
  readonly apiConstructId: string;
  /** Id of the WAF construct in the stateless stack. */
  readonly edgeConstructId: string;
  /** Appended to `partner-api-<stage>` in the API's, the web ACL's, the log groups' and the metrics' names. */
  readonly nameSuffix: string;
  readonly title: string;
  readonly errorShape: ErrorShape;
  /** X-RateLimit-Policy of the stage throttle's 429 (API Gateway's THROTTLED gateway response). */
  readonly throttlePolicy: string;
  /** Prefix of the API-level alarm names (`<prefix>-5xx`, `<prefix>-p99-latency`). */
  readonly alarmPrefix: string;
  /** Stack output holding the base URL (`…/v1`). */
  readonly baseUrlOutput: string;
}

export const SURFACE_PROFILES: Readonly<Record<Surface, SurfaceProfile>> = {
  partner: {
    surface: 'partner',
    apiConstructId: 'Api',
    edgeConstructId: 'Edge',
    nameSuffix: '',
    title: 'Partner API v1',
    errorShape: 'api',
    throttlePolicy: 'api-stage',
    alarmPrefix: 'api',
    baseUrlOutput: 'ApiBaseUrl',
  },
  web: {
    surface: 'web',
    apiConstructId: 'WebApi',
    edgeConstructId: 'WebEdge',
    nameSuffix: '-web',
    title: 'Web side v1 (player site, web settings)',
    errorShape: 'web',
    throttlePolicy: 'web-stage',
    alarmPrefix: 'web-api',
    baseUrlOutput: 'WebBaseUrl',
  },
};

/** `partner-api-<stage>` for the partner API, `partner-api-<stage>-web` for the web side. */
export function surfaceNamePrefix(stage: string, surface: Surface): string {
  return `partner-api-${stage}${SURFACE_PROFILES[surface].nameSuffix}`;
}
