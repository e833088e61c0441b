/**
 * The spec's error envelope for responses that API Gateway or WAF produce
 * without running a Lambda: `{"ok":false,"error":{"code","message"},"request_id"}`.
 * On the web side the same body also carries `code` and `message` at the top
 * level (web settings' error shape), so one static body serves the player
 * site and web settings alike (errorBody, shape `web`): what API Gateway's
 * gateway responses answer there, one body per API. Where a body can follow
 * the path (WAF's custom responses, one per rule), a settings path gets web
 * settings' own `{"code","message","request_id"}` (shape `settings`;
 * lib/config/front-answers.ts frontAnswerShape).
 *
 * Messages come from the handlers' ERROR_CATALOG so that a client sees the
 * same text whichever layer rejected the request. Codes that only the gateway
 * can produce (no Lambda ever returns them) are listed in GATEWAY_ONLY_ERRORS.
 */
import { ERROR_CATALOG, type ErrorCode } from '../../lambdas/shared/errors';
import type { ErrorShape } from '../config/surfaces';

/**
 * The bodies a front door's own answers take: a surface's gateway shape (`api`, `web`), or web settings' (`settings`),
 * which only answers that can follow the path give (lib/config/front-answers.ts).
 */
export type BodyShape = ErrorShape | 'settings';

/**
 * Errors only API Gateway produces. The spec allows new codes within v1
 * ("clients must handle unknown 4xx and 5xx codes safely").
 */
export const GATEWAY_ONLY_ERRORS = {
  /** Any other 4xx API Gateway answers itself (e.g. a resource-policy denial). */
  REQUEST_REJECTED: { message: 'The request was rejected before reaching the service.' },
  /**
   * Edge protection refused the request and the spec has no code for why: a managed rule's block
   * (a WAF custom response, edge-managed-rules.ts), or WAF's default block, which API Gateway answers
   * with its WAF_FILTERED gateway response (surface-api.ts). Both answer REQUEST_BLOCKED_STATUS.
   */
  REQUEST_BLOCKED: { message: 'The request was blocked by edge protection.' },
} as const;

/** Status of REQUEST_BLOCKED, wherever it is answered: WAF_FILTERED's default, 403. */
export const REQUEST_BLOCKED_STATUS = 403;

export type EnvelopeCode = ErrorCode | keyof typeof GATEWAY_ONLY_ERRORS;

/** Request id WAF custom responses carry: WAF bodies are static and cannot reference the API Gateway request id. */
export const EDGE_REQUEST_ID = 'edge';

/** API Gateway substitutes this in gateway response templates (simple substitution, no VTL). */
export const GATEWAY_REQUEST_ID = '$context.requestId';

export function envelopeMessage(code: EnvelopeCode, override?: string): string {
  if (override) return override;
  if (code in GATEWAY_ONLY_ERRORS) return GATEWAY_ONLY_ERRORS[code as keyof typeof GATEWAY_ONLY_ERRORS].message;
  return ERROR_CATALOG[code as ErrorCode].message;
}

/** The error envelope as a JSON string. */
export function errorEnvelope(code: EnvelopeCode, requestId: string, message?: string): string {
  return JSON.stringify({ ok: false, error: { code, message: envelopeMessage(code, message) }, request_id: requestId });
}

/**
 * The web side's error body: the envelope plus top-level `code` and `message`
 * (`{"ok":false,"code","message","error":{"code","message"},"request_id"}`), which
 * satisfies both the player site's envelope and web settings' `{code, message, request_id}`.
 */
export function webErrorBody(code: EnvelopeCode, requestId: string, message?: string): string {
  const text = envelopeMessage(code, message);
  return JSON.stringify({ ok: false, code, message: text, error: { code, message: text }, request_id: requestId });
}

/** Web settings' error body (docs/web-settings.md "Shapes"): `{"code","message","request_id"}` and nothing else, as its functions answer. */
export function settingsErrorBody(code: EnvelopeCode, requestId: string, message?: string): string {
  return JSON.stringify({ code, message: envelopeMessage(code, message), request_id: requestId });
}

/** The error body of a front door's gateway and WAF responses, in the shape given (frontAnswerShape, lib/config/surfaces.ts). */
export function errorBody(shape: BodyShape, code: EnvelopeCode, requestId: string, message?: string): string {
  if (shape === 'settings') return settingsErrorBody(code, requestId, message);
  return shape === 'web' ? webErrorBody(code, requestId, message) : errorEnvelope(code, requestId, message);
}
