/**
 * What the tests of a web-settings creation retried after a lost answer share (key and callback creation): the
 * settings and webhooks functions on one platform whose quotas are raised out of reach, whose clock the tests move
 * (two-factor codes are accepted once per 30-second step) and whose client is the fault plan's; signed-in owners;
 * the page's request with an Idempotency-Key.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { codeAt } from '../../lambdas/back-office/two-factor';
import { definition as settingsFunction } from '../../lambdas/settings/handler';
import { definition as signInFunction } from '../../lambdas/sign-in/handler';
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { definition as webhookFunction } from '../../lambdas/webhooks/handler';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { createPlatform, sharedPlatform, type Platform } from '../../lambdas/shared/platform';
import type { FaultPlan } from '../../local/fault-injection';
import { HANDLERS } from '../../local/handlers';
import { SettingsBrowser, type JsonResponse } from './settings-browser';
import { startTestStack, type TestStack } from './test-stack';

export const PASSWORD = 'correct horse battery';

export interface RetryWorld {
  readonly stack: TestStack;
  /** The functions' clock. */
  now(): Date;
  /** The next two-factor step (30 seconds on). */
  nextStep(): void;
  /** A signed-in account (and, with `manages`, a new organization it manages). */
  owner(options?: { manages?: boolean }): Promise<{ account_id: string; partner_id: string | undefined; browser: SettingsBrowser }>;
  /** Turn two-factor on through the settings API: the seed (the next code is one step on). */
  twoFactorOn(browser: SettingsBrowser): Promise<string>;
  /** A current code of `seed` at the functions' clock. */
  code(seed: string): Promise<string>;
  /** POST `body` to `path` as the page does, with `idempotencyKey` when one is given. */
  post(browser: SettingsBrowser, path: string, body: unknown, idempotencyKey?: string): Promise<JsonResponse>;
  stop(): Promise<void>;
}

/** A fresh key as the page makes one (36 hex digits). */
export const newIdempotencyKey = () => randomBytes(18).toString('hex');

export async function startRetryWorld(faults: FaultPlan): Promise<RetryWorld> {
  let now = new Date();
  let platform: Platform | undefined;
  const onPlatform = () =>
    (platform ??= createPlatform({
      limits: LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: 100_000 })),
      edgeGuard: undefined,
      clock: () => now,
      localSwitches: sharedPlatform().localSwitches,
      // The shared platform's client: the fault plan's.
      documentClient: sharedPlatform().documentClient,
    }));
  const stack = await startTestStack({
    faults,
    handlers: {
      ...HANDLERS,
      settings: createSettingsHandler({ ...settingsFunction, platform: onPlatform }),
      'sign-in': createSettingsHandler({ ...signInFunction, platform: onPlatform }),
      webhooks: createSettingsHandler({ ...webhookFunction, platform: onPlatform }),
    },
  });
  let serial = 0;
  const world: RetryWorld = {
    stack,
    now: () => now,
    nextStep: () => {
      now = new Date(now.getTime() + 30_000);
    },
    async owner(options = {}) {
      serial += 1;
      const email = `retry-${serial}-${Date.now()}@example.com`;
      const { account_id } = await stack.office.accounts.create('Retrying owner', { email, password: PASSWORD });
      let partner_id: string | undefined;
      if (options.manages) {
        ({ partner_id } = await stack.office.organizations.create(`Retried ${serial}`));
        await stack.office.memberships.set(partner_id, account_id, 'manager');
      }
      const browser = new SettingsBrowser(stack);
      expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
      return { account_id, partner_id, browser };
    },
    async twoFactorOn(browser) {
      const { secret } = (await (await browser.post('/settings/api/two-factor/enrol', { password: PASSWORD })).json()) as { secret: string };
      expect((await browser.post('/settings/api/two-factor/confirm', { password: PASSWORD, code: await codeAt(secret, now) })).status).toBe(200);
      world.nextStep();
      return secret;
    },
    code: (seed) => codeAt(seed, now),
    async post(browser, path, body, idempotencyKey) {
      // The same session, with the header the page adds to a creation.
      const keyed = new SettingsBrowser(stack, idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey });
      keyed.token = browser.token;
      return keyed.post(path, body);
    },
    stop: () => stack.stop(),
  };
  return world;
}
