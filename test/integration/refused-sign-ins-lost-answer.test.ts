/**
 * The refused sign-in attempts' two writes (lambdas/sign-in/refused-sign-ins.ts) under the faults of docs/faults.md,
 * through the local front on DynamoDB Local, each injected at its call site (local/fault-injection.ts):
 * - a refusal's write whose answer was lost is counted once (the SDK's retry meets its own stamp);
 * - the owner's sign-in whose take lost its answer still answers the count (the retry reads what it moved);
 * - neither write decides an answer: a refusal is answered as it is, a sign-in goes on (a take that failed leaves the
 *   refusals for the next sign-in; one applied whose every answer was lost, or whose function ended, shows nothing:
 *   the notice is told at most once, never twice).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FaultPlan } from '../../local/fault-injection';
import { PASSWORD, startSignInWorld, WRONG, type SignInWorld } from '../support/sign-in-world';

const faults = new FaultPlan();
let world: SignInWorld;
beforeAll(async () => {
  world = await startSignInWorld({ faults });
});
afterEach(() => faults.reset());
afterAll(() => world?.stop());

const expression = (input: Readonly<Record<string, unknown>>) => String(input.UpdateExpression ?? '');
/** A refusal's write (refused-sign-ins.ts record). */
const recordWrite = (input: Readonly<Record<string, unknown>>) => expression(input).includes('ADD #refused');
/** The owner's sign-in taking the refusals (refused-sign-ins.ts take). */
const takeWrite = (input: Readonly<Record<string, unknown>>) => expression(input).includes('#cleared');
/** The audit entry of the refusals taken. */
const refusalsEntry = (input: Readonly<Record<string, unknown>>) => (input.Item as { action?: string } | undefined)?.action === 'sign_in.refused_attempts';

/** An owner, a browser of theirs that signed in before, and `count` wrong passwords by strangers since. */
async function refusedOwner(count: number) {
  world.freshDay();
  const owner = await world.owner();
  const browser = await world.browserThatSignedIn(owner.email);
  expect(await world.strangersGuess(owner.email, count)).toEqual(Array(count).fill(401));
  return { ...owner, browser };
}

const refusalsAudited = async (accountId: string) =>
  (await world.stack.office.audit.list(accountId)).filter((entry) => entry.action === 'sign_in.refused_attempts').map((entry) => entry.count);

describe('a refused attempt’s write', () => {
  it('whose answer was lost counts the attempt once', async () => {
    // Prepare
    world.freshDay();
    const { email } = await world.owner();
    const browser = await world.browserThatSignedIn(email);
    const lost = faults.arm({ component: 'api', call: 'UpdateItem', matches: recordWrite, effect: 'lose-answer' });

    // Act
    const refused = await world.client().signIn(email, WRONG);
    const signedIn = await browser.signIn(email, PASSWORD);

    // Assess
    expect(lost.fired()).toBe(true);
    expect(refused.status).toBe(401);
    expect((await signedIn.json()).refused_sign_ins).toEqual({ count: 1, last_at: world.clock.now.toISOString() });
  });

  it('that failed leaves the refusal answered as it is', async () => {
    // Prepare
    world.freshDay();
    const { email } = await world.owner();
    const failed = faults.arm({ component: 'api', call: 'UpdateItem', matches: recordWrite, effect: 'fail' });

    // Act
    const refused = await world.client().signIn(email, WRONG);

    // Assess
    expect(failed.fired()).toBe(true);
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([401, 'INVALID_PASSWORD']);
  });
});

describe('the owner’s sign-in taking the refusals', () => {
  it('whose answer was lost still answers them and audits their count, once', async () => {
    // Prepare
    const { account_id, email, browser } = await refusedOwner(2);
    const lost = faults.arm({ component: 'api', call: 'UpdateItem', matches: takeWrite, effect: 'lose-answer' });

    // Act
    const signedIn = await browser.signIn(email, PASSWORD);
    const next = await browser.signIn(email, PASSWORD);

    // Assess
    expect(lost.fired()).toBe(true);
    expect(signedIn.status).toBe(200);
    expect((await signedIn.json()).refused_sign_ins).toEqual({ count: 2, last_at: world.clock.now.toISOString() });
    expect(await next.json()).not.toHaveProperty('refused_sign_ins');
    expect(await refusalsAudited(account_id)).toEqual([2]);
  });

  it('that failed signs in all the same, and leaves the refusals for the next sign-in', async () => {
    // Prepare
    const { account_id, email, browser } = await refusedOwner(2);
    const failed = faults.arm({ component: 'api', call: 'UpdateItem', matches: takeWrite, effect: 'fail' });

    // Act
    const signedIn = await browser.signIn(email, PASSWORD);
    const next = await browser.signIn(email, PASSWORD);

    // Assess
    expect(failed.fired()).toBe(true);
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).not.toHaveProperty('refused_sign_ins');
    expect((await next.json()).refused_sign_ins).toEqual({ count: 2, last_at: world.clock.now.toISOString() });
    expect(await refusalsAudited(account_id)).toEqual([2]);
  });

  it('applied with every answer lost signs in all the same, without the notice (the refusals were taken)', async () => {
    // Prepare
    const { account_id, email, browser } = await refusedOwner(2);
    const failed = faults.arm({ component: 'api', call: 'UpdateItem', matches: takeWrite, effect: 'fail-after' });

    // Act
    const signedIn = await browser.signIn(email, PASSWORD);

    // Assess
    expect(failed.fired()).toBe(true);
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).not.toHaveProperty('refused_sign_ins');
    expect((await browser.get('/settings/api/session')).status).toBe(200);
    expect(await refusalsAudited(account_id)).toEqual([]);
  });

  it('applied before the function ended: 502, and the browser’s retry signs in without the notice', async () => {
    // Prepare
    const { email, browser } = await refusedOwner(2);
    const crashed = faults.arm({ component: 'api', call: 'UpdateItem', matches: takeWrite, effect: 'crash-after' });

    // Act
    const first = await browser.signIn(email, PASSWORD);
    const retry = await browser.signIn(email, PASSWORD);

    // Assess
    expect(crashed.fired()).toBe(true);
    expect(first.status).toBe(502);
    expect(retry.status).toBe(200);
    expect(await retry.json()).not.toHaveProperty('refused_sign_ins');
  });

  it('whose audit entry failed still answers them', async () => {
    // Prepare
    const { account_id, email, browser } = await refusedOwner(3);
    const failed = faults.arm({ component: 'api', call: 'PutItem', matches: refusalsEntry, effect: 'fail' });

    // Act
    const signedIn = await browser.signIn(email, PASSWORD);

    // Assess
    expect(failed.fired()).toBe(true);
    expect(signedIn.status).toBe(200);
    expect((await signedIn.json()).refused_sign_ins).toEqual({ count: 3, last_at: world.clock.now.toISOString() });
    expect(await refusalsAudited(account_id)).toEqual([]);
  });
});
