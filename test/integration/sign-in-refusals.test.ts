/**
 * The owner is shown that sign-in attempts were refused (issue 32, finding 3), through the local front on DynamoDB
 * Local with the real limits table: every refused attempt at an address (a wrong password, a wrong two-factor code, a
 * sign-in limit's 429) is recorded on the address's limit item, with the same write for an address that has no
 * account; the owner's next sign-in answers them in `refused_sign_ins` (and clears them), and the audit view keeps
 * their count (`sign_in.refused_attempts`).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeAt } from '../../lambdas/back-office/two-factor';
import { signInEmailKey } from '../../lambdas/settings/settings-admission';
import { PASSWORD, startSignInWorld, WRONG, type SignInWorld } from '../support/sign-in-world';

let world: SignInWorld;
beforeAll(async () => {
  world = await startSignInWorld();
});
afterAll(() => world?.stop());

const limitItem = async (email: string) =>
  (await world.stack.client.send(new GetCommand({ TableName: world.stack.tables.access, Key: signInEmailKey(email), ConsistentRead: true }))).Item as Record<string, unknown>;

describe('attempts refused since the last sign-in', () => {
  it('are answered to the owner’s next sign-in, wrong passwords and a limit’s refusals alike, kept in the audit view, then cleared', async () => {
    // Prepare
    world.freshDay();
    const { email } = await world.owner();
    const owner = await world.browserThatSignedIn(email);
    const refusedAt = world.clock.now.toISOString();
    const guesses = await world.strangersGuess(email, 6);

    // Act
    const signedIn = await owner.signIn(email, PASSWORD);
    const audit = await owner.get('/settings/api/audit');
    const next = await owner.signIn(email, PASSWORD);

    // Assess
    expect(guesses).toEqual([401, 401, 401, 401, 401, 429]);
    expect(signedIn.status).toBe(200);
    expect((await signedIn.json()).refused_sign_ins).toEqual({ count: 6, last_at: refusedAt });
    expect(audit.status).toBe(200);
    const entries = ((await audit.json()) as { entries: { action: string; count?: number; via: string; source_ip: string | null }[] }).entries;
    expect(entries.filter((e) => e.action === 'sign_in.refused_attempts')).toEqual([
      expect.objectContaining({ action: 'sign_in.refused_attempts', count: 6, via: 'settings', source_ip: owner.localAddress }),
    ]);
    expect(next.status).toBe(200);
    expect(await next.json()).not.toHaveProperty('refused_sign_ins');
  });

  it('count a wrong two-factor code, not the missing code of the form’s first step', async () => {
    // Prepare
    world.freshDay();
    const { email, account_id } = await world.owner();
    const { secret } = await world.stack.office.signIn.enrolTwoFactor(account_id, PASSWORD);
    await world.stack.office.signIn.confirmTwoFactor(account_id, PASSWORD, await codeAt(secret, new Date()));
    const browser = world.client();
    const firstStep = await browser.signIn(email, PASSWORD);
    const wrongCode = await browser.signIn(email, PASSWORD, await codeAt(secret, new Date(world.clock.now.getTime() - 600_000)));

    // Act
    const signedIn = await browser.signIn(email, PASSWORD, await codeAt(secret, world.clock.now));

    // Assess
    expect([firstStep.status, (await firstStep.json()).code]).toEqual([401, 'INVALID_TWO_FACTOR']);
    expect([wrongCode.status, (await wrongCode.json()).code]).toEqual([401, 'INVALID_TWO_FACTOR']);
    expect(signedIn.status).toBe(200);
    expect((await signedIn.json()).refused_sign_ins).toEqual({ count: 1, last_at: world.clock.now.toISOString() });
  });

  it('are recorded with the same write for an address that has no account, and answered alike', async () => {
    // Prepare
    world.freshDay();
    const { email: known } = await world.owner();
    const unknown = `nobody-${Date.now()}@example.com`;

    // Act
    const answers = [await world.client().signIn(known, WRONG), await world.client().signIn(unknown, WRONG)];

    // Assess
    const bodies = await Promise.all(answers.map(async (r) => [r.status, ((await r.json()) as { code: string }).code]));
    expect(bodies).toEqual([
      [401, 'INVALID_PASSWORD'],
      [401, 'INVALID_PASSWORD'],
    ]);
    const [knownItem, unknownItem] = [await limitItem(known), await limitItem(unknown)];
    expect(Object.keys(knownItem).sort()).toEqual(Object.keys(unknownItem).sort());
    for (const item of [knownItem, unknownItem]) expect(item).toMatchObject({ refused: 1, refused_at: world.clock.now.toISOString() });
  });
});
