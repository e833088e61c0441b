/**
 * The request headers that carry credentials, and on which front door the code reads each: the
 * partner API's key in `Authorization`; on the web side the session and player cookies in `Cookie`
 * (`settings_session`, `player_credential`), the join link's token in `X-Join-Token`, and
 * `Authorization`, read there only to refuse a key (API_KEY_NOT_ACCEPTED) that still must not be
 * logged. Lowercase, as API Gateway's events are read (api-event.ts) and as WAF requires header
 * names in `SingleHeader`.
 *
 * One declaration, two readers: the code that reads a credential reads it under these names, and
 * each web ACL's logging redacts exactly its surface's list (lib/constructs/edge-protection.ts), so a
 * credential header added here is redacted at the next synthesis. test/infra/edge-protection.test.ts
 * scans lambdas/ for every header the code reads and fails on one that is neither here nor in
 * HEADERS_WITHOUT_CREDENTIALS.
 */
import type { Surface } from './routes';

export const AUTHORIZATION_HEADER = 'authorization';
export const COOKIE_HEADER = 'cookie';
export const JOIN_TOKEN_HEADER = 'x-join-token';

/** Per front door, every header its requests may carry a credential in (WAF logs redact these). */
export const CREDENTIAL_HEADERS: Readonly<Record<Surface, readonly string[]>> = {
  partner: [AUTHORIZATION_HEADER],
  web: [COOKIE_HEADER, JOIN_TOKEN_HEADER, AUTHORIZATION_HEADER],
};

/**
 * Headers the code reads that carry no credential (the transport rules, the cross-site checks, the
 * idempotency key, the pages' scripts reading a response's `Retry-After`). A header read anywhere
 * in lambdas/ must be in one of the two lists.
 */
export const HEADERS_WITHOUT_CREDENTIALS: readonly string[] = [
  'host',
  'origin',
  'sec-fetch-site',
  'x-settings-request',
  'x-forwarded-proto',
  'content-length',
  'content-encoding',
  'content-type',
  'idempotency-key',
  'retry-after',
];
