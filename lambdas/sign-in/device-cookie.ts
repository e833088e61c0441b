/**
 * The device cookie: how a browser that signed in to an address before proves it, so that its sign-in attempts
 * for that address are counted on its own limits (`sign-in-device-*`) instead of the address's (`sign-in-email-*`),
 * which anyone who knows the address can fill (docs/web-settings.md, "Signing in").
 *
 * `settings_device=v1.<device id>.<issued>.<address tag>.<mac>`, set beside the session cookie by every successful
 * sign-in: `HttpOnly`, `Secure`, `SameSite=Strict`, `Path=/<stage>/settings/api/session` (sent to signing in, and
 * to nothing else of the settings API), `Max-Age` 180 days from the sign-in that set it.
 * - the device id: 16 random bytes (a new one unless the browser presented a valid cookie for the same address);
 * - issued: the sign-in's time, epoch seconds: a cookie is valid DEVICE_COOKIE_MAX_AGE_SECONDS after it;
 * - the address tag: an HMAC of the normalized address under the `device-cookie` secret, so the cookie names no
 *   account and no address, and a copy of it tells nobody which address it is for (an unkeyed digest could be
 *   matched against a list of addresses);
 * - the MAC: HMAC-SHA256 of the rest under the same secret (lambdas/shared/secrets.ts): verified offline, with no
 *   store call; the previous and the staged next secret verify too, so a rotation refuses nothing at once.
 *
 * The cookie grants nothing: it opens no session and is not a credential anywhere (a stolen one gives its thief the
 * device's own limits for that address: the same 5 a minute and 20 an hour the address would have).
 *
 * The secret is read through the platform (once per container, cached: secrets.ts), so a warm sign-in verifies and
 * signs with no call at all. Signing in never depends on it: when it cannot be read (logged as an error), an attempt
 * is counted per address, as without a cookie, and a successful sign-in sets no device cookie.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { cookieValues } from '../shared/http/cookies';
import { COOKIE_HEADER } from '../shared/http/credential-headers';
import type { OperationInput } from '../shared/http/pipeline';
import { logger } from '../shared/observability/logger';
import type { Platform } from '../shared/platform';
import { verificationKeys, type SecretVersions } from '../shared/secrets';
import { settingsCookiePath } from '../settings/web-session';

export const DEVICE_COOKIE = 'settings_device';
export const DEVICE_COOKIE_MAX_AGE_SECONDS = 180 * 86_400;
/** A cookie issued up to this far in the future (another container's clock) is still taken. */
const CLOCK_SKEW_SECONDS = 300;
/** More values of the name than this are not looked at (each costs an HMAC per secret version). */
const MAX_PRESENTED = 4;
const VERSION = 'v1';
const PATTERN = /^v1\.([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/;

export interface DeviceCookie {
  readonly deviceId: string;
  /** Epoch seconds. */
  readonly issuedAt: number;
}

export const newDeviceId = (): string => randomBytes(16).toString('base64url');

const addressTag = (key: Buffer, email: string) => createHmac('sha256', key).update(`settings-device/${VERSION}/address\n${email}`).digest('base64url');
const mac = (key: Buffer, signed: string) => createHmac('sha256', key).update(`settings-device/${VERSION}\n${signed}`).digest('base64url');

/** The cookie's value for `email` (normalized), signed with the current secret. */
export function signDeviceCookie(key: Buffer, email: string, device: DeviceCookie): string {
  const signed = `${VERSION}.${device.deviceId}.${device.issuedAt}.${addressTag(key, email)}`;
  return `${signed}.${mac(key, signed)}`;
}

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The device a cookie value proves for `email` (normalized) at `now`: signed by a version of the secret, for that address, unexpired. */
export function verifyDeviceCookie(value: string, email: string, secrets: SecretVersions, now: Date): DeviceCookie | undefined {
  const parts = PATTERN.exec(value);
  if (!parts) return undefined;
  const [, deviceId, issued, tag, presentedMac] = parts;
  const issuedAt = Number(issued);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (issuedAt > nowSeconds + CLOCK_SKEW_SECONDS || nowSeconds >= issuedAt + DEVICE_COOKIE_MAX_AGE_SECONDS) return undefined;
  const signed = value.slice(0, value.lastIndexOf('.'));
  const valid = verificationKeys(secrets).some((key) => same(presentedMac, mac(key, signed)) && same(tag, addressTag(key, email)));
  return valid ? { deviceId, issuedAt } : undefined;
}

/**
 * The device cookies the request carries (at most MAX_PRESENTED). Several are not refused, unlike the session's
 * (lambdas/shared/http/cookies.ts): a cookie planted by a sibling host cannot be valid for the owner's address (it
 * would need the secret), so taking whichever one verifies gives the planter nothing, and refusing would let the
 * planter turn every sign-in of the browser away.
 */
export const presentedDeviceCookies = (cookieHeaders: readonly string[] | undefined): string[] => cookieValues(cookieHeaders, DEVICE_COOKIE).slice(0, MAX_PRESENTED);

/** The cookie's path: signing in (`/v1/settings/api/session` as the client addressed the settings). */
export const deviceCookiePath = (fullPath: string): string => `${settingsCookiePath(fullPath)}/api/session`;

export function deviceCookieHeader(value: string, fullPath: string): string {
  return `${DEVICE_COOKIE}=${value}; Path=${deviceCookiePath(fullPath)}; Max-Age=${DEVICE_COOKIE_MAX_AGE_SECONDS}; HttpOnly; Secure; SameSite=Strict`;
}

/** The secret's versions, or undefined when they cannot be read (logged: the sign-in goes on without device cookies). */
async function deviceSecrets(platform: Platform): Promise<SecretVersions | undefined> {
  try {
    return await platform.secret('device-cookie').versions();
  } catch (error) {
    logger.error('device-cookie secret unreadable: sign-ins are counted per address and set no device cookie', { error });
    return undefined;
  }
}

/** The device a sign-in attempt proves for `email` (normalized): one of its device cookies, valid for that address. */
export async function presentedDevice(input: OperationInput, email: string): Promise<DeviceCookie | undefined> {
  const values = presentedDeviceCookies(input.headers.get(COOKIE_HEADER));
  if (values.length === 0) {
    // Read now, beside the attempt's counting and hash, for the cookie a success sets (cached: secrets.ts); a failed
    // read is not kept, and is tried (and logged) again then.
    void input.platform.secret('device-cookie').versions().catch(() => undefined);
    return undefined;
  }
  const secrets = await deviceSecrets(input.platform);
  if (!secrets) return undefined;
  for (const value of values) {
    const device = verifyDeviceCookie(value, email, secrets, input.now);
    if (device) return device;
  }
  return undefined;
}

/**
 * The Set-Cookie of a successful sign-in's device cookie for `email` (none when the secret cannot be read): the
 * presented device's id again (its limits go on), or a new one; issued now, so the 180 days start again.
 */
export async function deviceCookieOf(input: OperationInput, email: string, presented: DeviceCookie | undefined): Promise<string[]> {
  const secrets = await deviceSecrets(input.platform);
  if (!secrets) return [];
  const device = { deviceId: presented?.deviceId ?? newDeviceId(), issuedAt: Math.floor(input.now.getTime() / 1000) };
  return [deviceCookieHeader(signDeviceCookie(secrets.current, email, device), input.fullPath)];
}
