/**
 * The spec's success and error envelopes and the headers every response
 * carries (`X-Request-Id`, `Cache-Control: no-store`).
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ApiError } from '../errors';
import { isSettingsPath } from './routes';

const BASE_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
} as const;

export function successResponse(
  requestId: string,
  data: unknown,
  status = 200,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: { ...BASE_HEADERS, ...headers, 'X-Request-Id': requestId },
    body: JSON.stringify({ ok: true, data, request_id: requestId }),
  };
}

/**
 * A page of the player site (text/html), with the headers that keep it to itself: its content
 * security policy (given by the page: the hashes of its inline script and style), no referrer, no
 * framing, no caching.
 */
export function pageResponse(requestId: string, html: string, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode: 200,
    headers: {
      ...BASE_HEADERS,
      'Content-Type': 'text/html; charset=utf-8',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      ...headers,
      'X-Request-Id': requestId,
    },
    body: html,
  };
}

export function errorResponse(requestId: string, error: ApiError, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode: error.status,
    headers: { ...BASE_HEADERS, ...headers, ...error.headers, 'X-Request-Id': requestId },
    body: JSON.stringify({ ok: false, error: { code: error.code, message: error.message }, request_id: requestId }),
  };
}

/**
 * Web settings' shapes (the spec's "Web settings errors": session-based, not part of the open API
 * envelope): a success is its JSON object as is; an error is `{code, message, request_id}` at the
 * top level. Headers as everywhere (`X-Request-Id`, no caching).
 */
export function settingsResponse(requestId: string, data: unknown, status = 200, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode: status, headers: { ...BASE_HEADERS, ...headers, 'X-Request-Id': requestId }, body: JSON.stringify(data) };
}

export function settingsErrorResponse(requestId: string, error: ApiError, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode: error.status,
    headers: { ...BASE_HEADERS, ...headers, ...error.headers, 'X-Request-Id': requestId },
    body: JSON.stringify({ code: error.code, message: error.message, request_id: requestId }),
  };
}

/** The error response for a request to `path` (relative to the stage): web settings' shape under /settings, the envelope elsewhere. */
export function errorResponseFor(path: string, requestId: string, error: ApiError, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return isSettingsPath(path) ? settingsErrorResponse(requestId, error, headers) : errorResponse(requestId, error, headers);
}
