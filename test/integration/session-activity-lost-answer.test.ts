/**
 * A session's activity write (back-office/session-item.ts lookupSession: `seen_at`, at most once a minute, conditioned
 * on the value it read) when DynamoDB applies it and its answer is lost: the SDK sends it again, meets its own effect
 * (the condition fails: `seen_at` is no longer what was read), and takes that for "recorded already". The signed-in
 * call answers 200 and the activity is recorded once, at the call's time.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sessionKey } from '../../lambdas/back-office/session-item';
import { PASSWORD, startFaultySettings, type FaultySettings } from '../support/faulty-settings';

let settings: FaultySettings;
beforeAll(async () => {
  settings = await startFaultySettings();
});
afterEach(() => settings.faults.reset());
afterAll(() => settings?.stop());

/** The activity write: only it sets `seen_at` on an existing session. */
const activityWrite = (input: Readonly<Record<string, unknown>>) => String(input.UpdateExpression ?? '') === 'SET seen_at = :now';

describe('a session’s activity write whose answer was lost', () => {
  it('answers the signed-in call 200 and records the activity once, at the call’s time', async () => {
    // Prepare
    const { email } = await settings.account();
    const browser = settings.browser();
    expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
    settings.later(61_000);
    const lost = settings.faults.arm({ component: 'api', call: 'UpdateItem', matches: activityWrite, effect: 'lose-answer' });

    // Act
    const view = await browser.get('/settings/api/session');

    // Assess
    expect(lost.fired()).toBe(true);
    expect(view.status).toBe(200);
    const { Item } = await settings.stack.client.send(new GetCommand({ TableName: settings.stack.tables.access, Key: sessionKey(browser.token as string), ConsistentRead: true }));
    const seenAt = Date.parse(String(Item?.seen_at));
    const createdAt = Date.parse(String(Item?.created_at));
    expect(seenAt - createdAt).toBeGreaterThanOrEqual(61_000);
    // Recorded: the next call within the minute writes nothing more.
    const again = await browser.get('/settings/api/session');
    expect(again.status).toBe(200);
  });
});
