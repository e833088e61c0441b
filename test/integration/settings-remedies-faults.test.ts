/**
 * The remedies' writes when DynamoDB applies a write and its answer is lost (docs/faults.md): a failed re-check is
 * counted once on its session however often the SDK sends it (a set of fresh ids), so a lost answer never ends a
 * session early; sign out everywhere is one transaction (one ClientRequestToken for the SDK's tries), applied once,
 * and the caller's retry after every answer was lost finds its session ended, which is what happened.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditActions, PASSWORD, startFaultySettings, type FaultySettings } from '../support/faulty-settings';

let settings: FaultySettings;
beforeAll(async () => {
  settings = await startFaultySettings();
});
afterEach(() => settings.faults.reset());
afterAll(() => settings?.stop());

/** The failure's write on the session (sessions.ts recordFailedReCheck). */
const failureWrite = (input: Readonly<Record<string, unknown>>) => String(input.UpdateExpression ?? '').includes('failed_rechecks');
const count = (actions: string[], action: string) => actions.filter((a) => a === action).length;

describe('a failed re-check whose write lost its answer', () => {
  it('counts once: two failures so recorded leave the session alive, the third ends it', async () => {
    // Prepare
    const { email, account_id } = await settings.account();
    const browser = settings.browser();
    expect((await browser.signIn(email, PASSWORD)).status).toBe(200);

    // Act
    const answers = [];
    for (let i = 0; i < 2; i += 1) {
      const lost = settings.faults.arm({ component: 'api', call: 'UpdateItem', matches: failureWrite, effect: 'lose-answer' });
      answers.push(await browser.post('/settings/api/two-factor/enrol', { password: `wrong ${i}` }));
      expect(lost.fired()).toBe(true);
    }
    const alive = await browser.get('/settings/api/session');
    const third = await browser.post('/settings/api/two-factor/enrol', { password: 'wrong 3' });

    // Assess
    expect(answers.map((r) => r.status)).toEqual([401, 401]);
    expect(alive.status).toBe(200);
    expect((await third.json()).code).toBe('INVALID_PASSWORD');
    expect((await browser.get('/settings/api/session')).status).toBe(401);
    const actions = await auditActions(settings.office, account_id);
    expect(count(actions, 'reauth.failed')).toBe(3);
    expect(count(actions, 'session.ended')).toBe(1);
  });

  it('after fail-after answers 500 and is recorded: the failure is counted and audited', async () => {
    // Prepare
    const { email, account_id } = await settings.account();
    const browser = settings.browser();
    expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
    const lost = settings.faults.arm({ component: 'api', call: 'UpdateItem', matches: failureWrite, effect: 'fail-after' });

    // Act
    const answer = await browser.post('/settings/api/two-factor/enrol', { password: 'wrong' });

    // Assess
    expect(lost.fired()).toBe(true);
    expect(answer.status).toBe(500);
    expect(count(await auditActions(settings.office, account_id), 'reauth.failed')).toBe(1);
    // The failure is stored: two more end the session.
    for (let i = 0; i < 2; i += 1) await browser.post('/settings/api/two-factor/enrol', { password: `wrong ${i}` });
    expect((await browser.get('/settings/api/session')).status).toBe(401);
  });
});

describe('sign out everywhere', () => {
  it('with its answer lost below the SDK, ends every session once: one sessions.ended entry', async () => {
    // Prepare
    const { email, account_id } = await settings.account();
    const [one, two] = [settings.browser(), settings.browser()];
    for (const browser of [one, two]) expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
    const lost = settings.faults.arm({ component: 'api', call: 'TransactWriteItems', effect: 'lose-answer' });

    // Act
    const ended = await one.post('/settings/api/sign-out-everywhere');

    // Assess
    expect(lost.fired()).toBe(true);
    expect(ended.status).toBe(200);
    expect((await two.get('/settings/api/session')).status).toBe(401);
    expect(count(await auditActions(settings.office, account_id), 'sessions.ended')).toBe(1);
  });

  it('after fail-after (500), the page\u2019s retry answers 401 SESSION_REQUIRED: the sessions had ended', async () => {
    // Prepare
    const { email } = await settings.account();
    const [one, two] = [settings.browser(), settings.browser()];
    for (const browser of [one, two]) expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
    const lost = settings.faults.arm({ component: 'api', call: 'TransactWriteItems', effect: 'fail-after' });

    // Act
    const failed = await one.post('/settings/api/sign-out-everywhere');
    const retried = await one.post('/settings/api/sign-out-everywhere');

    // Assess
    expect(lost.fired()).toBe(true);
    expect(failed.status).toBe(500);
    expect(retried.status).toBe(401);
    expect((await retried.json()).code).toBe('SESSION_REQUIRED');
    expect((await two.get('/settings/api/session')).status).toBe(401);
  });
});
