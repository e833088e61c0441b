/**
 * The spec's error envelope for responses that API Gateway or WAF produce
 * without running a Lambda: `{"ok":false,"error":{"code","message"},"request_id"}`.
 *
 * Messages come from the handlers' ERROR_CATALOG so that a client sees the
 * same text whichever layer rejected the request. Codes that only the gateway
 * can produce (no Lambda ever returns them) are listed in GATEWAY_ONLY_ERRORS.
 */
import { ERROR_CATALOG, type ErrorCode } from '../../lambdas/shared/errors';

/**
 * Errors only API Gateway produces. The spec allows new codes within v1
 * ("clients must handle unknown 4xx and 5xx codes safely").
 */
export const GATEWAY_ONLY_ERRORS = {
  /** Any other 4xx API Gateway answers itself (e.g. a resource-policy denial). */
  REQUEST_REJECTED: { message: 'The request was rejected before reaching the service.' },
  /** WAF blocked the request with its default action (rules with their own custom response never reach this). */
  REQUEST_BLOCKED: { message: 'The request was blocked by edge protection.' },
} as const;

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
