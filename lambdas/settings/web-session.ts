/**
 * The web settings' session cookie and its cross-site request protection.
 *
 * Cookie: `settings_session=<token>`, `HttpOnly` (no script reads it),
 * `Secure`, `SameSite=Strict` (no other site's page sends it), scoped to the
 * settings' own path (`/<stage>/settings`: never sent to the player site's
 * paths, and the partner API, another host in AWS, never sees it; it would not
 * accept it anyway), with `Max-Age` the session's absolute lifetime. Only the
 * token's digest is stored (lambdas/back-office/sessions.ts).
 *
 * Cross-site requests (docs/web-settings.md): every settings API request
 * that is not a GET must
 * - carry `Origin` naming this very host (the Host header), and
 *   `Sec-Fetch-Site`, when the browser sends it, must be `same-origin`;
 * - carry the custom header `X-Settings-Request: 1`, which no form and no
 *   simple cross-site request can set (a cross-site `fetch` with it needs a
 *   CORS preflight, which the API never grants).
 * Otherwise 403 CSRF_CHECK_FAILED, before any session is read or counted.
 * `SameSite=Strict` is the third, independent layer.
 */
import { ApiError } from '../shared/errors';
import type { ApiEvent } from '../shared/http/api-event';
import { credentialCookie } from '../shared/http/cookies';

export const SESSION_COOKIE = 'settings_session';
export const SETTINGS_REQUEST_HEADER = 'x-settings-request';

/** The settings' cookie path from the path the client addressed (`/v1/settings/api/session` → `/v1/settings`). */
export function settingsCookiePath(fullPath: string): string {
  const at = fullPath.indexOf('/settings');
  return at >= 0 ? fullPath.slice(0, at + '/settings'.length) : '/settings';
}

export function sessionCookie(token: string, fullPath: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; Path=${settingsCookiePath(fullPath)}; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; Secure; SameSite=Strict`;
}

export function clearedSessionCookie(fullPath: string): string {
  return `${SESSION_COOKIE}=; Path=${settingsCookiePath(fullPath)}; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
}

/** The session token the request's Cookie headers carry, if any; two cookies of the name are refused (cookies.ts). */
export const presentedSessionToken = (cookieHeaders: readonly string[] | undefined): string | undefined => credentialCookie(cookieHeaders, SESSION_COOKIE);

/** Refuse a state-changing settings request that a page of another origin could have sent (403 CSRF_CHECK_FAILED). */
export function enforceSameOrigin(event: ApiEvent): void {
  if (event.method === 'GET') return;
  const single = (name: string) => {
    const values = event.headers.get(name);
    return values?.length === 1 ? values[0] : undefined;
  };
  const host = single('host');
  const origin = single('origin');
  let originHost: string | undefined;
  try {
    originHost = origin ? new URL(origin).host : undefined;
  } catch {
    originHost = undefined;
  }
  const fetchSite = single('sec-fetch-site');
  const sameOrigin = host !== undefined && originHost !== undefined && originHost.toLowerCase() === host.toLowerCase();
  if (!sameOrigin || (fetchSite !== undefined && fetchSite !== 'same-origin') || single(SETTINGS_REQUEST_HEADER) !== '1') {
    throw new ApiError('CSRF_CHECK_FAILED');
  }
}
