/**
 * Web settings on the local stack with faults on the request path (local/fault-injection.ts) and a clock the test
 * moves (two-factor codes, sessions): the settings function runs on a platform of its own whose DynamoDB client goes
 * through the plan, each of its invocations an `api` invocation. Its limits are raised (the tests sign in many times
 * from one address); the back office beside it reads and writes outside any invocation, so no fault reaches it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import { codeAt } from '../../lambdas/back-office/two-factor';
import { definition as settingsFunction } from '../../lambdas/settings/handler';
import { definition as signInFunction } from '../../lambdas/sign-in/handler';
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { createPlatform, type Platform } from '../../lambdas/shared/platform';
import { createDocumentClient } from '../../lambdas/shared/storage/dynamo-client';
import { FaultPlan } from '../../local/fault-injection';
import { HANDLERS } from '../../local/handlers';
import { LOCAL_HANDLER_DYNAMO_CONFIG } from '../../local/local-stack';
import { SettingsBrowser } from './settings-browser';
import { startTestStack, type TestStack } from './test-stack';

export const PASSWORD = 'correct horse battery';

export interface FaultySettings {
  readonly stack: TestStack;
  readonly faults: FaultPlan;
  /** The test's back office, on the same clock, outside any invocation. */
  readonly office: BackOffice;
  /** A browser holding its own session cookie. */
  browser(): SettingsBrowser;
  /** A new account that signs in with PASSWORD. */
  account(): Promise<{ account_id: string; email: string }>;
  /** As account(), with two-factor on; the clock is then one step past the confirming code. */
  accountWithTwoFactor(): Promise<{ account_id: string; email: string; secret: string }>;
  /** The secret's code now. */
  code(secret: string): Promise<string>;
  /** The clock 30 seconds on: the next code. */
  nextStep(): void;
  /** The clock `ms` on. */
  later(ms: number): void;
  stop(): Promise<void>;
}

export async function startFaultySettings(): Promise<FaultySettings> {
  const faults = new FaultPlan();
  const clock = { now: new Date() };
  let platform: Platform | undefined;
  const settings = createSettingsHandler({ ...settingsFunction, platform: () => platform as Platform });
  const signIn = createSettingsHandler({ ...signInFunction, platform: () => platform as Platform });
  const stack = await startTestStack({ faults, handlers: { ...HANDLERS, settings, 'sign-in': signIn } });
  // As the local stack builds the handlers' client (its timeouts and tries), through the plan.
  const client: DynamoDBDocumentClient = faults.instrument(createDocumentClient(new DynamoDBClient(LOCAL_HANDLER_DYNAMO_CONFIG)));
  const raised = LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: 100_000 }));
  platform = createPlatform({ limits: raised, edgeGuard: undefined, clock: () => clock.now, documentClient: client });
  const office = createBackOffice(stack.client, stack.tables.access, () => clock.now, stack.tables.domain);
  let serial = 0;
  const account = async () => {
    const email = `faulty-settings-${(serial += 1)}-${Date.now()}@example.com`;
    const { account_id } = await office.accounts.create('Settings user', { email, password: PASSWORD });
    return { account_id, email };
  };
  const later = (ms: number) => {
    clock.now = new Date(clock.now.getTime() + ms);
  };
  const nextStep = () => later(30_000);
  return {
    stack,
    faults,
    office,
    browser: () => new SettingsBrowser(stack),
    account,
    accountWithTwoFactor: async () => {
      const who = await account();
      const { secret } = await office.signIn.enrolTwoFactor(who.account_id, PASSWORD);
      await office.signIn.confirmTwoFactor(who.account_id, PASSWORD, await codeAt(secret, clock.now));
      nextStep();
      return { ...who, secret };
    },
    code: (secret) => codeAt(secret, clock.now),
    nextStep,
    later,
    stop: async () => {
      client.destroy();
      await stack.stop();
    },
  };
}

/** The account's audit actions, newest first. */
export async function auditActions(office: BackOffice, accountId: string): Promise<string[]> {
  return (await office.audit.page(accountId)).entries.map((entry) => entry.action);
}
