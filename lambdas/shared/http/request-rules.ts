/**
 * The spec's request-shape rules, in the order the pipeline applies them.
 *
 * Transport rules run before routing and authentication: they are cheap,
 * need no state, and refuse traffic no route could accept. Input rules run
 * after authentication, against the matched route's declaration, so an
 * unauthenticated caller learns nothing about a route's parameters.
 */
import { LIVE_KEY_SEARCH } from '../identity/api-keys';
import { header, queryStringLength, type ApiEvent } from './api-event';
import { apiError } from '../errors';
import type { RouteDefinition } from './routes';
import { AUTHORIZATION_HEADER } from './credential-headers';

export const REQUEST_LIMITS = {
  pathChars: 512,
  queryChars: 2048,
  authorizationChars: 256,
  bodyBytes: 4096,
} as const;

/**
 * Query parameter names that carry credentials in common clients: key, apikey, api-key, api_key,
 * x-api-key (either separator), token, access_token, accesstoken, auth, authorization, bearer, secret,
 * client_secret, password (WAF's rule and the local front use the same pattern). Written in the
 * syntax AWS WAF accepts: non-capturing groups only, few `|` branches
 * (lib/compliance/deploy-readiness `waf-regex-syntax`).
 */
export const CREDENTIAL_PARAMETER_NAMES = '(?:x[-_]api[-_]|api[-_]?)?key|(?:access[-_]?)?token|auth(?:orization)?|bearer|(?:client[-_])?secret|password';
export const CREDENTIAL_PARAMETER = new RegExp(`^(?:${CREDENTIAL_PARAMETER_NAMES})$`, 'i');

/**
 * Percent-decoding that never throws: every escape sequence that is
 * well-formed UTF-8 is decoded, and only an invalid escape (`%`, `%zz`, a
 * lone `%E9`) stays as it was, so one bad escape does not leave the rest
 * encoded. No exception per escape: a 16 KB target of `%FF` costs a scan.
 */
export function decodeLeniently(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, decodeEscapeRun);
}

/** A run of `%XX` escapes: its bytes decoded where they form UTF-8 sequences, kept as escapes where not. */
function decodeEscapeRun(run: string): string {
  const bytes = Buffer.from(run.replace(/%/g, ''), 'hex');
  let decoded = '';
  for (let at = 0; at < bytes.length; ) {
    const width = utf8SequenceWidth(bytes, at);
    decoded += width === 0 ? run.slice(at * 3, at * 3 + 3) : bytes.toString('utf8', at, at + width);
    at += Math.max(width, 1);
  }
  return decoded;
}

/** Length of the well-formed UTF-8 sequence starting at `at` (RFC 3629 §4: no overlongs, surrogates or code points past U+10FFFF), 0 if none. */
function utf8SequenceWidth(bytes: Buffer, at: number): number {
  const lead = bytes[at];
  if (lead < 0x80) return 1;
  let width: number;
  let [low, high] = [0x80, 0xbf];
  if (lead >= 0xc2 && lead <= 0xdf) width = 2;
  else if (lead >= 0xe0 && lead <= 0xef) [width, low, high] = [3, lead === 0xe0 ? 0xa0 : 0x80, lead === 0xed ? 0x9f : 0xbf];
  else if (lead >= 0xf0 && lead <= 0xf4) [width, low, high] = [4, lead === 0xf0 ? 0x90 : 0x80, lead === 0xf4 ? 0x8f : 0xbf];
  else return 0;
  if (at + width > bytes.length) return 0;
  for (let next = 1; next < width; next += 1) {
    const byte = bytes[at + next];
    if (byte < (next === 1 ? low : 0x80) || byte > (next === 1 ? high : 0xbf)) return 0;
  }
  return width;
}

/** Whether a string, or its percent-decoded form, holds something that looks like a live key. */
export const holdsLiveKey = (text: string) => LIVE_KEY_SEARCH.test(text) || LIVE_KEY_SEARCH.test(decodeLeniently(text));

export function enforceTransportRules(event: ApiEvent): void {
  const proto = header(event, 'x-forwarded-proto');
  if (proto !== undefined && proto.split(',').pop()?.trim().toLowerCase() !== 'https') throw apiError('HTTPS_REQUIRED');

  if (event.fullPath.length > REQUEST_LIMITS.pathChars) throw apiError('PATH_TOO_LONG');
  if (queryStringLength(event) > REQUEST_LIMITS.queryChars) throw apiError('QUERY_TOO_LONG');
  for (const value of event.headers.get(AUTHORIZATION_HEADER) ?? []) {
    if (value.length > REQUEST_LIMITS.authorizationChars) throw apiError('AUTH_HEADER_TOO_LONG');
  }

  // The path as received may still be percent-encoded (`pak%5Flive_…`): both forms are searched.
  if (holdsLiveKey(event.fullPath) || holdsLiveKey(event.path)) throw apiError('CREDENTIALS_IN_URL');
  for (const [name, values] of event.query) {
    if (CREDENTIAL_PARAMETER.test(name) || holdsLiveKey(name) || values.some((v) => holdsLiveKey(v) || /^bearer\s/i.test(v))) {
      throw apiError('CREDENTIALS_IN_URL');
    }
  }

  // Every Content-Encoding header line and every coding in it: only `identity` (no coding) is accepted.
  // Empty list elements (`identity, `, an empty header) name no coding and are ignored (RFC 9110 §5.6.1).
  const codings = (event.headers.get('content-encoding') ?? []).flatMap((line) => line.split(',')).map((coding) => coding.trim());
  if (codings.some((coding) => coding !== '' && coding.toLowerCase() !== 'identity')) throw apiError('CONTENT_ENCODING_UNSUPPORTED');

  const declared = header(event, 'content-length');
  if (declared !== undefined && Number(declared) > REQUEST_LIMITS.bodyBytes) throw apiError('BODY_TOO_LARGE');
  // The declared length may lie: the bytes actually received decide.
  if (event.body && event.body.length > REQUEST_LIMITS.bodyBytes) throw apiError('BODY_TOO_LARGE');

  // "Never in query, body or URL": a key in a body is refused with the URL's code, before anything reads the body.
  if (event.body && bodyHoldsLiveKey(event.body)) throw apiError('CREDENTIALS_IN_URL');
}

/**
 * A live key in a body: in its raw text, or in any string (key or value) of
 * the JSON it parses to, so that escapes such as `pak\u005flive_…` are caught.
 * It runs after the size rules: the body is at most 4096 bytes.
 */
function bodyHoldsLiveKey(body: Buffer): boolean {
  const text = body.toString('utf8');
  if (LIVE_KEY_SEARCH.test(text)) return true;
  if (!text.includes('\\')) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  const strings: unknown[] = [parsed];
  while (strings.length > 0) {
    const value = strings.pop();
    if (typeof value === 'string') {
      if (LIVE_KEY_SEARCH.test(value)) return true;
    } else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) strings.push(key, inner);
    }
  }
  return false;
}

export interface RouteInput {
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export function enforceInputRules(event: ApiEvent, route: RouteDefinition): RouteInput {
  // Prototype-free: a declared parameter may be named like an Object.prototype member.
  const query: Record<string, string> = Object.create(null);
  for (const [name, values] of event.query) {
    if (!route.query.includes(name)) throw apiError('UNKNOWN_PARAMETER', `Unsupported query parameter: ${name.slice(0, 64)}`);
    if (values.length > 1) throw apiError('DUPLICATE_PARAMETER', `Query parameter given more than once: ${name}`);
    query[name] = values[0];
  }

  const hasBody = event.body !== undefined && event.body.length > 0;
  if (route.body === 'none') {
    if (hasBody) throw apiError('BODY_NOT_ALLOWED');
    return { query, body: undefined };
  }

  // "body missing" is INVALID_JSON whatever the Content-Type; a body that is there must be declared JSON.
  if (!hasBody) throw apiError('INVALID_JSON');
  if (!isJsonUtf8(header(event, 'content-type'))) throw apiError('JSON_REQUIRED');
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(event.body));
  } catch {
    throw apiError('INVALID_JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw apiError('INVALID_JSON');
  return { query, body: parsed };
}

function isJsonUtf8(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [type, ...params] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  const charset = params.find((p) => p.startsWith('charset='));
  return charset === undefined || charset.slice('charset='.length).replace(/"/g, '') === 'utf-8';
}
