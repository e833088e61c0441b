/**
 * The credential cookies of the web side (the player site's `player_credential`, web settings'
 * `settings_session`), read from a request's Cookie headers.
 *
 * A credential is taken only when exactly one cookie of its name reached the request. The service sets
 * one cookie per name and path (`/<stage>/settings`; `/<stage>/join/<id>`, a path per invitation, so
 * two invitations claimed in one browser never meet in one request), so a second value was set by
 * someone else: on a shared parent domain (an `execute-api` domain that is not on the Public Suffix
 * List), any other host can set `Domain=<parent>` cookies with a longer `Path`, which browsers send
 * first. Taking the first would let it sign the browser into the attacker's session; taking any would
 * leave the choice to it. So two or more values, wherever they come from (one Cookie header or several,
 * equal or not), refuse the request: 400 DUPLICATE_CREDENTIAL_COOKIE.
 */
import { ApiError } from '../errors';

/** Every value the request's Cookie headers carry under one name, in order (a name compared exactly, after trimming). */
export function cookieValues(cookieHeaders: readonly string[] | undefined, name: string): string[] {
  const values: string[] = [];
  for (const header of cookieHeaders ?? []) {
    for (const pair of header.split(';')) {
      const at = pair.indexOf('=');
      if (at > 0 && pair.slice(0, at).trim() === name) values.push(pair.slice(at + 1).trim());
    }
  }
  return values;
}

/** The one value of a credential cookie (undefined when none); two or more are refused (see above). */
export function credentialCookie(cookieHeaders: readonly string[] | undefined, name: string): string | undefined {
  const values = cookieValues(cookieHeaders, name);
  if (values.length > 1) throw new ApiError('DUPLICATE_CREDENTIAL_COOKIE');
  return values[0];
}
