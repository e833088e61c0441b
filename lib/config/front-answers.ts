/**
 * The answers a front door gives without running a function: API Gateway's gateway responses and its WAF web ACL's
 * custom responses (and, locally, the front that stands in for both: local/http-front.ts). Plain data (no CDK types):
 * the REST API construct configures its gateway responses from GATEWAY_ANSWERS, the OpenAPI documents declare every
 * one of FRONT_ANSWERS on every operation of the surface, and an infrastructure test fails when a synthesized gateway
 * response or WAF custom response answers a code this list does not hold (test/infra/front-answers.test.ts).
 */
import { isSettingsPath, surfaceOfPath } from '../../lambdas/shared/http/routes';
import type { BodyShape, EnvelopeCode } from '../constructs/error-envelope';
import { SURFACE_PROFILES, type Surface } from './surfaces';

/**
 * Who gives a front answer, which decides whether its body can follow the path addressed (docs/web-settings.md
 * "Shapes"; docs/infrastructure.md, "Front answers on a settings path"):
 * - `edge`: the web ACL's custom responses. A custom response body is one per rule, and the web side's web ACL answers
 *   a settings path by rules of its own (lib/constructs/edge-answer-shapes.ts): web settings' shape, exactly.
 * - `gateway`: API Gateway's gateway responses, one per response type and REST API, whose template API Gateway fills by
 *   simple substitution, never through VTL: nothing in it can depend on `$context.path`. The web side's REST API serves
 *   the player site and web settings on one host, so its body is the `web` shape: web settings' `{code, message,
 *   request_id}` with the envelope's `ok` and `error` beside it, which both read.
 */
export type FrontResponder = 'edge' | 'gateway';

/** Whether a responder answers a settings path in web settings' shape exactly, or in the web side's gateway shape, which holds it. */
export const SETTINGS_SHAPE_EXACT: Readonly<Record<FrontResponder, boolean>> = { edge: true, gateway: false };

/** The body of a front answer by `responder` to `path` (below the stage): its surface's gateway shape, or web settings' exactly where it can be. */
export function frontAnswerShape(responder: FrontResponder, path: string): BodyShape {
  if (isSettingsPath(path) && SETTINGS_SHAPE_EXACT[responder]) return 'settings';
  return SURFACE_PROFILES[surfaceOfPath(path)].errorShape;
}

/** API Gateway's gateway response types this service configures (`apigateway.ResponseType.of(type)`). */
export type GatewayResponseType =
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'RESOURCE_NOT_FOUND'
  | 'REQUEST_TOO_LARGE'
  | 'THROTTLED'
  | 'INTEGRATION_TIMEOUT'
  | 'INTEGRATION_FAILURE'
  | 'WAF_FILTERED';

export interface GatewayAnswer {
  readonly type: GatewayResponseType;
  /** Omitted: keep the status API Gateway chose (only for the DEFAULT_* families: `statuses` lists the ones it can be). */
  readonly statusCode?: number;
  /** The statuses a DEFAULT_* family can carry here (documentation: which operations may see them). */
  readonly statuses?: readonly number[];
  readonly code: EnvelopeCode;
  readonly message?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * What API Gateway's own errors answer on a surface. The stage throttle's 429 names the surface's
 * throttle policy (spec: edge rejections name the policy): `api-stage` on the partner API,
 * `web-stage` on the web side, whose stage throttles apart.
 */
export function gatewayAnswers(surface: Surface): readonly GatewayAnswer[] {
  return [
    // A resource-policy denial (403), a request the front cannot take (400), a header block over its limit (431: 10 KB on
    // API Gateway, Node's 16 KiB on the local front), a request line or chunk it cannot read in time or at all (408, 413).
    { type: 'DEFAULT_4XX', code: 'REQUEST_REJECTED', statuses: [400, 403, 408, 413, 431] },
    { type: 'DEFAULT_5XX', code: 'INTERNAL_ERROR', statuses: [500] },
    // Unknown resource or method that no ANY method caught.
    { type: 'MISSING_AUTHENTICATION_TOKEN', statusCode: 404, code: 'NOT_FOUND' },
    { type: 'RESOURCE_NOT_FOUND', statusCode: 404, code: 'NOT_FOUND' },
    // API Gateway's own payload limit (10 MB); the spec's 4096-byte body limit is enforced by WAF and the function.
    { type: 'REQUEST_TOO_LARGE', statusCode: 413, code: 'BODY_TOO_LARGE' },
    {
      type: 'THROTTLED',
      statusCode: 429,
      code: 'RATE_LIMITED',
      headers: { 'Retry-After': '1', 'X-RateLimit-Policy': SURFACE_PROFILES[surface].throttlePolicy },
    },
    { type: 'INTEGRATION_TIMEOUT', statusCode: 504, code: 'INTERNAL_ERROR', message: 'The service did not answer in time.' },
    { type: 'INTEGRATION_FAILURE', statusCode: 502, code: 'INTERNAL_ERROR' },
    { type: 'WAF_FILTERED', statusCode: 403, code: 'REQUEST_BLOCKED' },
  ];
}

/** The front's body read deadline (a body that does not arrive in 5 s; local/http-front.ts, as API Gateway's: a `gateway` answer). */
export const FRONT_BODY_DEADLINE_ANSWER: FrontAnswer = { status: 408, code: 'REQUEST_TIMEOUT' };

/**
 * The web ACL's custom responses (lib/constructs/edge-protection.ts, edge-rate-rules.ts, edge-managed-rules.ts), by
 * status: the same on both surfaces (test/infra/front-answers.test.ts compares them with the synthesized web ACLs).
 */
const EDGE_ANSWERS: readonly FrontAnswer[] = [
  { status: 400, code: 'CREDENTIALS_IN_URL' },
  { status: 403, code: 'REQUEST_BLOCKED' },
  { status: 413, code: 'BODY_TOO_LARGE' },
  { status: 414, code: 'PATH_TOO_LONG' },
  { status: 414, code: 'QUERY_TOO_LONG' },
  { status: 429, code: 'RATE_LIMITED' },
];

export interface FrontAnswer {
  readonly status: number;
  readonly code: EnvelopeCode;
}

/**
 * Every (status, code) a front door of `surface` can answer before (or instead of) a function, on any of its
 * operations: its body has the shape frontAnswerShape gives (`errorBody`): the surface's gateway shape, or web
 * settings' own for the web ACL's answers to a settings path. 404 NOT_FOUND is left out: it answers paths no operation has.
 */
export function frontAnswers(surface: Surface): readonly FrontAnswer[] {
  const answers = new Map<string, FrontAnswer>();
  const add = (answer: FrontAnswer) => answers.set(`${answer.status} ${answer.code}`, answer);
  for (const gateway of gatewayAnswers(surface)) {
    if (gateway.code === 'NOT_FOUND') continue;
    for (const status of gateway.statusCode !== undefined ? [gateway.statusCode] : (gateway.statuses ?? [])) add({ status, code: gateway.code });
  }
  EDGE_ANSWERS.forEach(add);
  add(FRONT_BODY_DEADLINE_ANSWER);
  return [...answers.values()].sort((a, b) => a.status - b.status || a.code.localeCompare(b.code));
}
