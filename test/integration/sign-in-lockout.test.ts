/**
 * No lockout by strangers (issue 32, finding 3), through the local front on DynamoDB Local with the real limits
 * table: anyone who knows an owner's e-mail address can spend its `sign-in-email-*` rows (5 a minute) with wrong
 * passwords from other source IPs, which refused the owner's right password with 429. A browser that signed in to
 * the address before holds a device cookie (`settings_device`, signed with the `device-cookie` secret) and is counted
 * on its own `sign-in-device-*` rows instead: it still signs in. A browser without one, or with a forged, tampered,
 * expired or other address's cookie, is counted per address as before: the anti-guessing bound per address stays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_COOKIE, signDeviceCookie } from '../../lambdas/sign-in/device-cookie';
import { DEVICE_KEY, PASSWORD, startSignInWorld, WRONG, type SignInWorld } from '../support/sign-in-world';

let world: SignInWorld;
beforeAll(async () => {
  world = await startSignInWorld();
});
afterAll(() => world?.stop());

describe('strangers spending an address’s sign-in attempts', () => {
  it('leave a browser that signed in before at 200, and refuse a fresh browser 429 sign-in-email-minute', async () => {
    // Prepare
    world.freshDay();
    const { email, account_id } = await world.owner();
    const known = await world.browserThatSignedIn(email);

    // Act
    const guesses = await world.strangersGuess(email, 5);
    const again = await known.signIn(email, PASSWORD);
    const fresh = await world.client().signIn(email, PASSWORD);

    // Assess
    expect(guesses).toEqual([401, 401, 401, 401, 401]);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ account_id, email });
    expect((await known.get('/settings/api/session')).status).toBe(200);
    expect(fresh.status).toBe(429);
    expect(fresh.headers.get('x-ratelimit-policy')).toBe('sign-in-email-minute');
    expect(await fresh.json()).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('sets the device cookie HttpOnly, Secure, SameSite=Strict, on the sign-in path only, for 180 days, naming no account or address', async () => {
    // Prepare
    world.freshDay();
    const { email, account_id } = await world.owner();
    const browser = world.client();

    // Act
    const signedIn = await browser.signIn(email, PASSWORD);

    // Assess
    expect(signedIn.status).toBe(200);
    const cookies = signedIn.headers.getSetCookie();
    expect(cookies).toHaveLength(2);
    expect(cookies[0]).toMatch(/^settings_session=[A-Za-z0-9_-]{43}; Path=\/v1\/settings; Max-Age=43200; HttpOnly; Secure; SameSite=Strict$/);
    expect(cookies[1]).toMatch(/^settings_device=v1\.[A-Za-z0-9_-]{22}\.\d+\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; Path=\/v1\/settings\/api\/session; Max-Age=15552000; HttpOnly; Secure; SameSite=Strict$/);
    const device = browser.jar.get(DEVICE_COOKIE)!.value;
    expect(device).not.toContain(account_id);
    expect(device.toLowerCase()).not.toContain(email.split('@')[0]);
  });

  it('keeps the device’s own limits: 5 a minute for that browser, whatever the address’s rows hold', async () => {
    // Prepare
    world.freshDay();
    const { email } = await world.owner();
    const known = await world.browserThatSignedIn(email);

    // Act
    const own: Response[] = [];
    for (let i = 0; i < 6; i += 1) own.push(await known.signIn(email, WRONG));

    // Assess
    expect(own.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429]);
    expect(own[5].headers.get('x-ratelimit-policy')).toBe('sign-in-device-minute');
    // Its attempts were not the address's: a fresh browser still has the address's 5.
    expect((await world.client().signIn(email, PASSWORD)).status).toBe(200);
  });
});

describe('a device cookie that does not prove the browser signed in to the address typed', () => {
  it('counts a forged, tampered, expired or other address’s cookie per address, as if there were none', async () => {
    // Prepare
    world.freshDay();
    const target = await world.owner();
    const other = await world.owner();
    const targetBrowser = await world.browserThatSignedIn(target.email);
    const otherBrowser = await world.browserThatSignedIn(other.email);
    const [version, deviceId, issued, tag, mac] = targetBrowser.jar.get(DEVICE_COOKIE)!.value.split('.');
    const nowSeconds = Math.floor(world.clock.now.getTime() / 1000);
    const bad = [
      // Another address's valid cookie.
      otherBrowser.jar.get(DEVICE_COOKIE)!.value,
      // Signed with a key that is not the service's.
      signDeviceCookie(Buffer.alloc(32, 99), target.email, { deviceId, issuedAt: nowSeconds }),
      // The target's own cookie with another device id (its MAC no longer matches).
      [version, `${deviceId.slice(0, -1)}${deviceId.endsWith('A') ? 'B' : 'A'}`, issued, tag, mac].join('.'),
      // Signed with the service's key for the target, 181 days ago.
      signDeviceCookie(DEVICE_KEY, target.email, { deviceId, issuedAt: nowSeconds - 181 * 86_400 }),
      // Not a device cookie at all.
      'v1.forged',
    ];

    // Act
    const guesses = await world.strangersGuess(target.email, bad.length, (i) => bad[i]);
    const fresh = await world.client().signIn(target.email, PASSWORD);
    const targetAgain = await targetBrowser.signIn(target.email, PASSWORD);
    const otherAgain = await otherBrowser.signIn(other.email, PASSWORD);

    // Assess
    expect(guesses).toEqual([401, 401, 401, 401, 401]);
    // Counted on the target address: its minute is full.
    expect(fresh.status).toBe(429);
    expect(fresh.headers.get('x-ratelimit-policy')).toBe('sign-in-email-minute');
    // Counted on no device: the target's own browser and the other address's browser still sign in.
    expect(targetAgain.status).toBe(200);
    expect(otherAgain.status).toBe(200);
  });

  it('counts a browser per address at an address its cookie is not for (a browser holds one device cookie: the last address it signed in to)', async () => {
    // Prepare
    world.freshDay();
    const first = await world.owner();
    const second = await world.owner();
    const browser = await world.browserThatSignedIn(first.email);
    await world.strangersGuess(second.email, 5);

    // Act
    const refused = await browser.signIn(second.email, PASSWORD);

    // Assess
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-policy')).toBe('sign-in-email-minute');
    // Its cookie is still the first address's, which goes on counting on the device.
    await world.strangersGuess(first.email, 5);
    expect((await browser.signIn(first.email, PASSWORD)).status).toBe(200);
  });
});
