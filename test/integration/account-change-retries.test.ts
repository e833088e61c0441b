/**
 * The caller's retry of a password change or a two-factor confirmation that was applied while the caller saw an
 * error (issue 31), through the local front: every try's answer lost (`fail-after`: 500), or the function ended
 * right after the write (`crash-after`: 502). The change ended the session it was made in, so the page's retry finds
 * that session gone (401 SESSION_REQUIRED, what happened); signed in again, the same request answers what happened
 * (`password_changed`, `two_factor: 'on'`), never "the current password is wrong" or "enrol first", and changes
 * nothing twice. A wrong password, or a code that did not turn two-factor on, stays refused (docs/web-settings.md,
 * "A change retried after its answer was lost").
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_RETRY_WINDOW_MS } from '../../lambdas/back-office/change-retry';
import { auditActions, PASSWORD, startFaultySettings, type FaultySettings } from '../support/faulty-settings';

let settings: FaultySettings;
beforeAll(async () => {
  settings = await startFaultySettings();
});
afterEach(() => settings.faults.reset());
afterAll(() => settings?.stop());

const transactionWith = (fragment: string) => (input: Readonly<Record<string, unknown>>) => JSON.stringify(input.TransactItems ?? []).includes(fragment);
const NEW_PASSWORD = 'a brand new password';
const STATUS = { 'fail-after': 500, 'crash-after': 502 } as const;
const count = (actions: string[], action: string) => actions.filter((a) => a === action).length;

describe.each(['fail-after', 'crash-after'] as const)('after %s on the change', (effect) => {
  it('a password change retried answers password_changed, once changed; a wrong password stays refused', async () => {
    // Prepare
    const { email, account_id } = await settings.account();
    const browser = settings.browser();
    expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
    const change = { current_password: PASSWORD, new_password: NEW_PASSWORD };
    const fault = settings.faults.arm({ component: 'api', call: 'TransactWriteItems', matches: transactionWith('password_hash = :hash'), effect });
    const failed = await browser.post('/settings/api/password', change);
    expect(fault.fired()).toBe(true);
    expect(failed.status).toBe(STATUS[effect]);
    // The change ended the session it was made in: the page's retry finds it gone, and signs in again with the new password.
    const sameSession = await browser.post('/settings/api/password', change);
    expect(sameSession.status).toBe(401);
    expect((await sameSession.json()).code).toBe('SESSION_REQUIRED');
    expect((await settings.browser().signIn(email, PASSWORD)).status).toBe(401);
    const again = settings.browser();
    expect((await again.signIn(email, NEW_PASSWORD)).status).toBe(200);
    const cookie = again.token;

    // Act
    const retried = await again.post('/settings/api/password', change);

    // Assess
    expect(retried.status).toBe(200);
    expect(await retried.json()).toEqual({ password_changed: true, session_expires_at: expect.any(String) });
    // Nothing changed now: no second change, no new session; the one it came with goes on.
    expect(retried.headers.get('set-cookie')).toBeNull();
    expect(again.token).toBe(cookie);
    expect((await again.get('/settings/api/session')).status).toBe(200);
    expect(count(await auditActions(settings.office, account_id), 'password.changed')).toBe(1);
    // Still refused: a wrong current password, the old one with another new password, and the old one after the retry window.
    for (const refused of [
      { current_password: 'not the password at all', new_password: NEW_PASSWORD },
      { current_password: PASSWORD, new_password: 'yet another password' },
    ]) {
      const answer = await again.post('/settings/api/password', refused);
      expect(answer.status).toBe(401);
      expect((await answer.json()).code).toBe('INVALID_PASSWORD');
    }
    settings.later(CHANGE_RETRY_WINDOW_MS + 60_000);
    const late = await again.post('/settings/api/password', change);
    expect(late.status).toBe(401);
    expect((await late.json()).code).toBe('INVALID_PASSWORD');
    // Three wrong re-checks in one session end it (docs/web-settings.md, "The owner keeps their remedies").
    expect((await again.get('/settings/api/session')).status).toBe(401);
  });

  it('a two-factor confirmation retried with its code answers on, once enabled; another code stays refused', async () => {
    // Prepare
    const { email, account_id } = await settings.account();
    const browser = settings.browser();
    expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
    const { secret } = (await (await browser.post('/settings/api/two-factor/enrol', { password: PASSWORD })).json()) as { secret: string };
    const confirmation = { password: PASSWORD, code: await settings.code(secret) };
    const fault = settings.faults.arm({ component: 'api', call: 'TransactWriteItems', matches: transactionWith('two_factor_secret = two_factor_pending'), effect });
    const failed = await browser.post('/settings/api/two-factor/confirm', confirmation);
    expect(fault.fired()).toBe(true);
    expect(failed.status).toBe(STATUS[effect]);
    // Turning two-factor on ended the session it was made in; signing in again needs a code now (the next one).
    const sameSession = await browser.post('/settings/api/two-factor/confirm', confirmation);
    expect(sameSession.status).toBe(401);
    expect((await sameSession.json()).code).toBe('SESSION_REQUIRED');
    settings.nextStep();
    const again = settings.browser();
    expect((await again.signIn(email, PASSWORD)).status).toBe(401);
    expect((await again.signIn(email, PASSWORD, await settings.code(secret))).status).toBe(200);
    const cookie = again.token;

    // Act
    const retried = await again.post('/settings/api/two-factor/confirm', confirmation);

    // Assess
    expect(retried.status).toBe(200);
    expect(await retried.json()).toEqual({ two_factor: 'on', session_expires_at: expect.any(String) });
    expect(retried.headers.get('set-cookie')).toBeNull();
    expect(again.token).toBe(cookie);
    expect((await (await again.get('/settings/api/session')).json()).two_factor).toBe('on');
    expect(count(await auditActions(settings.office, account_id), 'two_factor.enabled')).toBe(1);
    // Still refused: the wrong password, a code that did not turn it on, and the same request after the retry window.
    const wrongPassword = await again.post('/settings/api/two-factor/confirm', { ...confirmation, password: 'not the password at all' });
    expect((await wrongPassword.json()).code).toBe('INVALID_PASSWORD');
    settings.nextStep();
    const otherCode = await again.post('/settings/api/two-factor/confirm', { password: PASSWORD, code: await settings.code(secret) });
    expect(otherCode.status).toBe(401);
    expect((await otherCode.json()).code).toBe('INVALID_TWO_FACTOR');
    settings.later(CHANGE_RETRY_WINDOW_MS + 60_000);
    const late = await again.post('/settings/api/two-factor/confirm', confirmation);
    expect(late.status).toBe(401);
    expect((await late.json()).code).toBe('INVALID_TWO_FACTOR');
  });
});
