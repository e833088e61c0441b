/**
 * The local counterpart of the web ACL's request rules (lib/constructs/
 * edge-protection.ts), applied by the local front before it builds an event,
 * on the raw request as WAF sees it:
 * - a live-key prefix anywhere in the URI or query (after percent-decoding
 *   and lowercasing, as WAF's URL_DECODE and LOWERCASE transformations do),
 *   a credential-named query parameter, or a key in the target's userinfo or
 *   fragment: 400 CREDENTIALS_IN_URL;
 * - the raw path and query string over their limits: 414 PATH_TOO_LONG /
 *   QUERY_TOO_LONG.
 * The front answers each in the shape the web ACL gives the path (local/
 * http-front.ts frontErrorResponse, responder `edge`): web settings'
 * `{code, message, request_id}` on a settings path, as the web side's answers
 * by path do (lib/constructs/edge-answer-shapes.ts).
 * An Authorization header over its limit is not WAF's: WAF cannot answer 431
 * (not a status it supports for custom responses), so the function answers
 * 431 AUTH_HEADER_TOO_LONG itself, as deployed. The Lambda keeps its own checks
 * (a lower bound for the query length, since API Gateway hands it only decoded
 * parameters).
 */
import type { ErrorCode } from '../lambdas/shared/errors';
import { CREDENTIAL_PARAMETER, decodeLeniently, holdsLiveKey, REQUEST_LIMITS } from '../lambdas/shared/http/request-rules';
import { parseQuery, type RequestTarget } from './request-target';

const LIVE_KEY_PREFIX_ANY_CASE = /pak_live_/i;

/** The code WAF would block this request with, if any. */
export function wafRequestRefusal(target: RequestTarget): ErrorCode | undefined {
  const uriAndQuery = `${target.path}?${target.query ?? ''}`;
  if (LIVE_KEY_PREFIX_ANY_CASE.test(decodeLeniently(uriAndQuery))) return 'CREDENTIALS_IN_URL';
  if ([...parseQuery(target.query).keys()].some((name) => CREDENTIAL_PARAMETER.test(name))) return 'CREDENTIALS_IN_URL';
  if ([target.userinfo, target.fragment].some((part) => part !== undefined && holdsLiveKey(part))) return 'CREDENTIALS_IN_URL';
  if (target.path.length > REQUEST_LIMITS.pathChars) return 'PATH_TOO_LONG';
  if ((target.query ?? '').length > REQUEST_LIMITS.queryChars) return 'QUERY_TOO_LONG';
  return undefined;
}
