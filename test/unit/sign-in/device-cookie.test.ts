/**
 * The device cookie's value (lambdas/sign-in/device-cookie.ts): valid only for the address it was signed for, under
 * a version of the secret (the current, the previous or a staged next one: a rotation refuses nothing at once), for
 * 180 days; anything else proves nothing. Its Set-Cookie is scoped to the sign-in path under the stage.
 */
import { describe, expect, it } from 'vitest';
import { DEVICE_COOKIE_MAX_AGE_SECONDS, deviceCookieHeader, newDeviceId, presentedDeviceCookies, signDeviceCookie, verifyDeviceCookie } from '../../../lambdas/sign-in/device-cookie';

const OLD = Buffer.alloc(32, 1);
const NEW = Buffer.alloc(32, 2);
const EMAIL = 'owner@example.com';
const NOW = new Date(Date.UTC(2031, 0, 1));
const issuedAt = Math.floor(NOW.getTime() / 1000);

describe('the device cookie', () => {
  it('proves its device for the address it was signed for, under the current, previous or staged secret', () => {
    // Prepare
    const deviceId = newDeviceId();
    const value = signDeviceCookie(OLD, EMAIL, { deviceId, issuedAt });

    // Act
    const verified = [{ current: OLD }, { current: NEW, previous: OLD }, { current: NEW, pending: OLD }].map((secrets) => verifyDeviceCookie(value, EMAIL, secrets, NOW));

    // Assess
    expect(verified).toEqual([{ deviceId, issuedAt }, { deviceId, issuedAt }, { deviceId, issuedAt }]);
  });

  it('proves nothing for another address, under another secret, once expired, from the future, or altered', () => {
    // Prepare
    const deviceId = newDeviceId();
    const value = signDeviceCookie(OLD, EMAIL, { deviceId, issuedAt });
    const [version, id, issued, tag, mac] = value.split('.');

    // Act
    const verdicts = {
      otherAddress: verifyDeviceCookie(value, 'someone@example.com', { current: OLD }, NOW),
      otherSecret: verifyDeviceCookie(value, EMAIL, { current: NEW }, NOW),
      expired: verifyDeviceCookie(value, EMAIL, { current: OLD }, new Date(NOW.getTime() + DEVICE_COOKIE_MAX_AGE_SECONDS * 1000)),
      future: verifyDeviceCookie(signDeviceCookie(OLD, EMAIL, { deviceId, issuedAt: issuedAt + 3600 }), EMAIL, { current: OLD }, NOW),
      otherIssue: verifyDeviceCookie([version, id, String(Number(issued) - 1), tag, mac].join('.'), EMAIL, { current: OLD }, NOW),
      otherTag: verifyDeviceCookie([version, id, issued, mac, mac].join('.'), EMAIL, { current: OLD }, NOW),
      malformed: verifyDeviceCookie(`${value}.x`, EMAIL, { current: OLD }, NOW),
    };

    // Assess
    expect(Object.values(verdicts).filter((verdict) => verdict !== undefined)).toEqual([]);
    // Still valid the second before it expires.
    expect(verifyDeviceCookie(value, EMAIL, { current: OLD }, new Date(NOW.getTime() + (DEVICE_COOKIE_MAX_AGE_SECONDS - 1) * 1000))).toEqual({ deviceId, issuedAt });
  });

  it('is set on the sign-in path under the stage the client addressed, and read wherever the request carries it (at most four)', () => {
    expect(deviceCookieHeader('v', '/v1/settings/api/session')).toBe('settings_device=v; Path=/v1/settings/api/session; Max-Age=15552000; HttpOnly; Secure; SameSite=Strict');
    expect(presentedDeviceCookies(['settings_device=a; settings_session=s', 'settings_device=b'])).toEqual(['a', 'b']);
    expect(presentedDeviceCookies([Array.from({ length: 6 }, (_, i) => `settings_device=${i}`).join('; ')])).toEqual(['0', '1', '2', '3']);
  });
});
