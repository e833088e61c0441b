/**
 * Signing in when DynamoDB applies a write and its answer is lost (issue 31), through the local front: the SDK sends
 * the write again, and that retry must be taken for the write it repeats, not for a refusal. The two-factor code's
 * step write (`useCode`) and the session's Put (`Sessions.open`) each meet their own effect; the sign-in, and the new
 * session a password change or a two-factor confirmation gives the browser, still answer 200 with a working cookie.
 * A code stays accepted once: of two concurrent sign-ins with one code exactly one passes, a lost answer included.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditActions, PASSWORD, startFaultySettings, type FaultySettings } from '../support/faulty-settings';

let settings: FaultySettings;
beforeAll(async () => {
  settings = await startFaultySettings();
});
afterEach(() => settings.faults.reset());
afterAll(() => settings?.stop());

/** The gate's write: the accepted code's step (sign-in.ts useCode). */
const stepWrite = (input: Readonly<Record<string, unknown>>) => String(input.UpdateExpression ?? '').includes('two_factor_step');
/** A session's Put (sessions.ts open). */
const sessionPut = (input: Readonly<Record<string, unknown>>) => (input.Item as { type?: string } | undefined)?.type === 'session';

describe('the two-factor code whose step write lost its answer', () => {
  it('signs in: 200, a working session, and no false sign_in.two_factor_failed entry', async () => {
    // Prepare
    const { email, account_id, secret } = await settings.accountWithTwoFactor();
    const lost = settings.faults.arm({ component: 'api', call: 'UpdateItem', matches: stepWrite, effect: 'lose-answer' });
    const browser = settings.browser();

    // Act
    const signedIn = await browser.signIn(email, PASSWORD, await settings.code(secret));

    // Assess
    expect(lost.fired()).toBe(true);
    expect(signedIn.status).toBe(200);
    expect((await signedIn.json()).two_factor).toBe('on');
    expect((await browser.get('/settings/api/session')).status).toBe(200);
    const actions = await auditActions(settings.office, account_id);
    expect(actions).toContain('sign_in.succeeded');
    expect(actions).not.toContain('sign_in.two_factor_failed');
    // The code was used: it does not sign in twice.
    const replayed = await settings.browser().signIn(email, PASSWORD, await settings.code(secret));
    expect(replayed.status).toBe(401);
    expect((await replayed.json()).code).toBe('INVALID_TWO_FACTOR');
  });

  it('turns two-factor off: the code is spent by the change itself, in its transaction (a lost answer is applied once)', async () => {
    // Prepare
    const { email, secret } = await settings.accountWithTwoFactor();
    const browser = settings.browser();
    expect((await browser.signIn(email, PASSWORD, await settings.code(secret))).status).toBe(200);
    settings.nextStep();
    const lost = settings.faults.arm({ component: 'api', call: 'TransactWriteItems', effect: 'lose-answer' });

    // Act
    const off = await browser.post('/settings/api/two-factor/disable', { password: PASSWORD, code: await settings.code(secret) });

    // Assess
    expect(lost.fired()).toBe(true);
    expect(off.status).toBe(200);
    expect(await off.json()).toEqual({ two_factor: 'off' });
    expect((await (await browser.get('/settings/api/session')).json()).two_factor).toBe('off');
  });

  it('turns two-factor off on the page’s retry with the same code when the change failed before it was made (the code was not spent)', async () => {
    // Prepare
    const { email, secret } = await settings.accountWithTwoFactor();
    const browser = settings.browser();
    expect((await browser.signIn(email, PASSWORD, await settings.code(secret))).status).toBe(200);
    settings.nextStep();
    const code = await settings.code(secret);
    const failed = settings.faults.arm({ component: 'api', call: 'TransactWriteItems', effect: 'fail' });

    // Act
    const first = await browser.post('/settings/api/two-factor/disable', { password: PASSWORD, code });
    const retry = await browser.post('/settings/api/two-factor/disable', { password: PASSWORD, code });

    // Assess
    expect(failed.fired()).toBe(true);
    expect(first.status).toBe(500);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ two_factor: 'off' });
  });

  it('is accepted for exactly one of two concurrent sign-ins with it, the winner’s answer lost', async () => {
    // Prepare
    const { email, account_id, secret } = await settings.accountWithTwoFactor();
    const lost = settings.faults.arm({ component: 'api', call: 'UpdateItem', matches: stepWrite, effect: 'lose-answer' });
    const code = await settings.code(secret);
    const [one, two] = [settings.browser(), settings.browser()];

    // Act
    const answers = await Promise.all([one.signIn(email, PASSWORD, code), two.signIn(email, PASSWORD, code)]);

    // Assess
    expect(lost.fired()).toBe(true);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401]);
    const refused = answers.find((a) => a.status === 401);
    expect((await refused?.json()).code).toBe('INVALID_TWO_FACTOR');
    const winner = answers[0].status === 200 ? one : two;
    expect((await winner.get('/settings/api/session')).status).toBe(200);
    expect((await auditActions(settings.office, account_id)).filter((a) => a === 'sign_in.two_factor_failed')).toHaveLength(1);
  });
});

describe('the session whose Put lost its answer', () => {
  it('signs in: 200 with a cookie that works', async () => {
    // Prepare
    const { email } = await settings.account();
    const lost = settings.faults.arm({ component: 'api', call: 'PutItem', matches: sessionPut, effect: 'lose-answer' });
    const browser = settings.browser();

    // Act
    const signedIn = await browser.signIn(email, PASSWORD);

    // Assess
    expect(lost.fired()).toBe(true);
    expect(signedIn.status).toBe(200);
    expect(browser.token).toBeDefined();
    expect((await browser.get('/settings/api/session')).status).toBe(200);
  });

  it('after a password change: 200, and the browser’s new session works (every other one ended)', async () => {
    // Prepare
    const { email } = await settings.account();
    const browser = settings.browser();
    expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
    const before = browser.token;
    const lost = settings.faults.arm({ component: 'api', call: 'PutItem', matches: sessionPut, effect: 'lose-answer' });

    // Act
    const changed = await browser.post('/settings/api/password', { current_password: PASSWORD, new_password: 'a brand new password' });

    // Assess
    expect(lost.fired()).toBe(true);
    expect(changed.status).toBe(200);
    expect(await changed.json()).toEqual({ password_changed: true, session_expires_at: expect.any(String) });
    expect(browser.token).not.toBe(before);
    expect((await browser.get('/settings/api/session')).status).toBe(200);
  });

  it('after a two-factor confirmation: 200, and the browser’s new session works', async () => {
    // Prepare
    const { email } = await settings.account();
    const browser = settings.browser();
    expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
    const { secret } = (await (await browser.post('/settings/api/two-factor/enrol', { password: PASSWORD })).json()) as { secret: string };
    const before = browser.token;
    const lost = settings.faults.arm({ component: 'api', call: 'PutItem', matches: sessionPut, effect: 'lose-answer' });

    // Act
    const confirmed = await browser.post('/settings/api/two-factor/confirm', { password: PASSWORD, code: await settings.code(secret) });

    // Assess
    expect(lost.fired()).toBe(true);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).toEqual({ two_factor: 'on', session_expires_at: expect.any(String) });
    expect(browser.token).not.toBe(before);
    expect((await (await browser.get('/settings/api/session')).json()).two_factor).toBe('on');
  });
});
