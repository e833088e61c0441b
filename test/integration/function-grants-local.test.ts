/**
 * The local stack runs each function with its own use of the sealing key (issue 32, finding 2): the grants the
 * synthesized templates give (SECRETS_KEY_USERS), checked by the local sealer per invocation (local/sealing.ts
 * GrantedSealer, local/function-scope.ts). Callback creation with two-factor on (the webhooks function opens the
 * owner's TOTP seed to check the code) answers 201 as deployed; with the webhooks role's `two-factor` use taken away,
 * the same request fails as it did in a deployed stage (500: KMS's AccessDeniedException, named in the log), while
 * the settings function, whose own uses are intact, still creates a key with a code.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { codeAt } from '../../lambdas/back-office/two-factor';
import { TWO_FACTOR_PURPOSE } from '../../lambdas/back-office/two-factor-seeds';
import { definition as settingsFunction } from '../../lambdas/settings/handler';
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { createPlatform, sharedPlatform, type Platform } from '../../lambdas/shared/platform';
import { definition as webhookFunction } from '../../lambdas/webhooks/handler';
import { SECRETS_KEY_USERS, type KeyUsers } from '../../lib/config/secrets-key-users';
import { HANDLERS } from '../../local/handlers';
import { captureLogs } from '../support/log-capture';
import { SettingsBrowser } from '../support/settings-browser';
import { startTestStack, type TestStack } from '../support/test-stack';

const PASSWORD = 'correct horse battery';
const CALLBACK_URL = 'https://hooks.partner-receiver.net/in';
/** The functions' clock, moved in 30-second steps (a code is accepted once per step). */
let now = new Date();
const nextStep = () => (now = new Date(now.getTime() + 30_000));

/**
 * A local stack whose settings and webhooks functions share one platform on the tests' clock, with `keyUsers` as
 * the table of key uses (default: the deployed one).
 */
async function startGrantsStack(keyUsers?: KeyUsers): Promise<TestStack> {
  let platform: Platform | undefined;
  const onPlatform = () =>
    (platform ??= createPlatform({ edgeGuard: undefined, clock: () => now, localSwitches: sharedPlatform().localSwitches, documentClient: sharedPlatform().documentClient }));
  return startTestStack({
    handlers: { ...HANDLERS, settings: createSettingsHandler({ ...settingsFunction, platform: onPlatform }), webhooks: createSettingsHandler({ ...webhookFunction, platform: onPlatform }) },
    ...(keyUsers ? { keyUsers } : {}),
  });
}

let serial = 0;
/** A signed-in manager of a new organization with two-factor on (through the settings API: its function seals the seed). */
async function managerWithTwoFactor(stack: TestStack) {
  serial += 1;
  const email = `grants-${serial}-${Date.now()}@example.com`;
  const { account_id } = await stack.office.accounts.create('Grants manager', { email, password: PASSWORD });
  const { partner_id } = await stack.office.organizations.create(`Granted ${serial}`);
  await stack.office.memberships.set(partner_id, account_id, 'manager');
  const browser = new SettingsBrowser(stack);
  expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
  const enrolled = await browser.post('/settings/api/two-factor/enrol', { password: PASSWORD });
  expect(enrolled.status).toBe(200);
  const { secret } = (await enrolled.json()) as { secret: string };
  expect((await browser.post('/settings/api/two-factor/confirm', { password: PASSWORD, code: await codeAt(secret, now) })).status).toBe(200);
  nextStep();
  return { account_id, partner_id, browser, seed: secret };
}

afterEach(() => vi.restoreAllMocks());

describe('with the deployed key uses', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startGrantsStack();
  });
  afterAll(() => stack?.stop());

  it('creates a callback with the password and a current code (the webhooks function opens the seed): 201', async () => {
    // Prepare
    const { partner_id, browser, seed } = await managerWithTwoFactor(stack);

    // Act
    const created = await browser.post('/settings/api/webhooks', { partner_id, url: CALLBACK_URL, password: PASSWORD, two_factor_code: await codeAt(seed, now) });

    // Assess
    expect(created.status).toBe(201);
    expect((await created.json()).webhook).toMatchObject({ partner_id, url: CALLBACK_URL, status: 'unverified' });
  });
});

describe('with the webhooks role’s two-factor use taken away', () => {
  const withoutTwoFactor: KeyUsers = {
    ...SECRETS_KEY_USERS,
    webhooks: (SECRETS_KEY_USERS.webhooks ?? []).filter((use) => use.purpose !== TWO_FACTOR_PURPOSE),
  };
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startGrantsStack(withoutTwoFactor);
  });
  afterAll(() => stack?.stop());

  it('fails callback creation with 500, KMS’s refusal of that function, purpose and action in the log; no callback is made', async () => {
    // Prepare
    const { partner_id, browser, seed } = await managerWithTwoFactor(stack);
    const request = { partner_id, url: CALLBACK_URL, password: PASSWORD, two_factor_code: await codeAt(seed, now) };
    const logs = captureLogs();

    // Act
    const created = await browser.post('/settings/api/webhooks', request);

    // Assess
    expect(created.status).toBe(500);
    const failed = logs.lines().filter((line) => line.message === 'request failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].error).toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining(`Function webhooks is not authorized to perform kms:Decrypt on the secrets key for purpose ${TWO_FACTOR_PURPOSE}`) });
    vi.restoreAllMocks();
    expect((await (await browser.get('/settings/api/webhooks')).json()).webhooks).toEqual([]);
  });

  it('still creates a key in the settings function with the password and a current code (its own uses are intact): 201', async () => {
    // Prepare
    const { browser, seed } = await managerWithTwoFactor(stack);

    // Act
    const created = await browser.post('/settings/api/keys', { scopes: ['public:read'], permanent: true, password: PASSWORD, two_factor_code: await codeAt(seed, now) });

    // Assess
    expect(created.status).toBe(201);
  });
});
