/**
 * Signing in to web settings on the local stack with the real limits table, for the tests of the sign-in limits and
 * the refused attempts: the sign-in function runs on a platform of its own, with a clock the test sets (each test in a
 * UTC day of its own, so every sign-in window starts empty) and a `device-cookie` secret the test knows (to mint a
 * cookie the service would have set, an expired one say). Each client is a loopback address of its own
 * (loopback-browser.ts): the strangers of a test never share the owner's source-IP rows. With `faults`, the sign-in
 * function's DynamoDB client goes through the plan (local/fault-injection.ts), each of its invocations an `api` one.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { expect } from 'vitest';
import { DEVICE_COOKIE } from '../../lambdas/sign-in/device-cookie';
import { FUNCTION_BUILDERS } from '../../lambdas/service/functions';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { createPlatform, type Platform } from '../../lambdas/shared/platform';
import { secretSource } from '../../lambdas/shared/secrets';
import { createDocumentClient } from '../../lambdas/shared/storage/dynamo-client';
import type { FaultPlan } from '../../local/fault-injection';
import { HANDLERS } from '../../local/handlers';
import { LOCAL_HANDLER_DYNAMO_CONFIG } from '../../local/local-stack';
import { LoopbackBrowser } from './loopback-browser';
import { startTestStack, type TestStack } from './test-stack';

export const PASSWORD = 'correct horse battery';
export const WRONG = 'not the password at all';
/** The `device-cookie` secret of the world's sign-in function. */
export const DEVICE_KEY = Buffer.alloc(32, 11);
/** The device cookie's path under the local front's stage. */
export const DEVICE_PATH = '/v1/settings/api/session';

export interface SignInWorld {
  readonly stack: TestStack;
  /** The sign-in function's clock (the settings function keeps the real one). */
  readonly clock: { now: Date };
  /** 20 seconds into a UTC day no other test of the file used. */
  freshDay(): void;
  /** The clock a minute on: a new minute window, the same hour. */
  nextMinute(): void;
  /** A new account that signs in with PASSWORD. */
  owner(): Promise<{ account_id: string; email: string }>;
  /** A client at a loopback address no other client of the file used. */
  client(): LoopbackBrowser;
  /** A browser that signed in to `email` (so it holds the device cookie), in a minute of its own. */
  browserThatSignedIn(email: string): Promise<LoopbackBrowser>;
  /** `count` wrong passwords for `email`, each from a stranger at an address of its own (with `cookie(i)` as its device cookie): the statuses. */
  strangersGuess(email: string, count: number, cookie?: (i: number) => string): Promise<number[]>;
  stop(): Promise<void>;
}

export async function startSignInWorld(options: { faults?: FaultPlan } = {}): Promise<SignInWorld> {
  const clock = { now: new Date() };
  let platform: Platform | undefined;
  const stack = await startTestStack({ faults: options.faults, handlers: { ...HANDLERS, 'sign-in': FUNCTION_BUILDERS['sign-in'](() => platform as Platform) } });
  // As the local stack builds the handlers' client (its timeouts and tries), through the plan.
  const dynamo = options.faults ? options.faults.instrument(createDocumentClient(new DynamoDBClient(LOCAL_HANDLER_DYNAMO_CONFIG))) : undefined;
  // After the stack: the platform reads its tables' names.
  platform = createPlatform({
    ...(dynamo ? { documentClient: dynamo } : {}),
    limits: LIMITS,
    edgeGuard: undefined,
    clock: () => clock.now,
    secret: (id) => (id === 'device-cookie' ? { versions: async () => ({ current: DEVICE_KEY }) } : secretSource(id)),
  });
  let day = 0;
  let serial = 0;
  let address = 1;
  const client = () => new LoopbackBrowser(stack.baseUrl, `127.0.0.${(address += 1)}`);
  const nextMinute = () => {
    clock.now = new Date(clock.now.getTime() + 60_000);
  };
  return {
    stack,
    clock,
    freshDay: () => {
      clock.now = new Date(Date.UTC(2031, 2, 1) + (day += 1) * 86_400_000 + 20_000);
    },
    nextMinute,
    owner: async () => {
      const email = `sign-in-${(serial += 1)}-${Date.now()}@example.com`;
      const { account_id } = await stack.office.accounts.create('Owner', { email, password: PASSWORD });
      return { account_id, email };
    },
    client,
    browserThatSignedIn: async (email) => {
      const browser = client();
      expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
      expect(browser.jar.has(DEVICE_COOKIE)).toBe(true);
      nextMinute();
      return browser;
    },
    strangersGuess: async (email, count, cookie) => {
      const statuses: number[] = [];
      for (let i = 0; i < count; i += 1) {
        const stranger = client();
        if (cookie) stranger.plant(DEVICE_COOKIE, cookie(i), DEVICE_PATH);
        statuses.push((await stranger.signIn(email, WRONG)).status);
      }
      return statuses;
    },
    stop: async () => {
      dynamo?.destroy();
      await stack.stop();
    },
  };
}
