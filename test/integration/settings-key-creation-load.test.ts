/**
 * Web settings under a crowd of password checks (issue 33, point 1), through the local front on DynamoDB Local.
 *
 * - Key creations at the suite's password cost (test/support/test-password-cost.ts; the production cost's load is the
 *   bench's `settings-load`, where it slows nothing else), 6 accounts × 4 keys at once, each from a session of its own: every
 *   answer is a 201 or a declared refusal (429, or 503 with Retry-After, in the settings shape), never the front's
 *   emulated function timeout (502) or another 5xx; each refusal sent again after its Retry-After with the same
 *   Idempotency-Key, as the page does, until it is created (201, or 200 for an attempt that had created it): exactly one
 *   key per request. Before the gate (lambdas/back-office/password-gate.ts) the 24 verifications queued on libuv's
 *   4 threads until the front's 10 s timeout answered 502.
 * - Every route that checks a password refused while the process's password checks are all taken: 503
 *   PASSWORD_CHECK_BUSY with Retry-After in the settings shape (the contract check of every response says it is
 *   declared), nothing of the operation written; the same requests once a slot is free succeed, each once.
 *
 * The gate's capacity is 1 for this file (an in-process option, usePasswordCheckCapacity), so refusals do not wait for
 * a machine slow enough to need them; quotas are raised out of reach (their own tests: web-settings-limits). No
 * assertion is on time: the waits are the answers' own Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordGate, usePasswordCheckCapacity } from '../../lambdas/back-office/passwords';
import { raisedWebhookHandlers } from '../support/raised-quotas';
import { SettingsBrowser, type JsonResponse } from '../support/settings-browser';
import { newIdempotencyKey } from '../support/settings-retries';
import { startTestStack, type TestStack } from '../support/test-stack';

const PASSWORD = 'correct horse battery';
const ACCOUNTS = 6;
const KEYS_PER_ACCOUNT = 4;
/** Rounds of retries before the test gives up (each waits the answers' Retry-After). */
const MOST_ROUNDS = 30;

let stack: TestStack;
let restoreGate: () => void;

beforeAll(async () => {
  restoreGate = usePasswordCheckCapacity(1);
  stack = await startTestStack({ handlers: raisedWebhookHandlers() });
});
afterAll(async () => {
  await stack?.stop();
  restoreGate?.();
});

let serial = 0;
/** A new account signing in with PASSWORD. */
async function account(): Promise<string> {
  const email = `load-${(serial += 1)}-${Date.now()}@example.com`;
  return (await stack.office.accounts.create('Loaded owner', { email, password: PASSWORD })).account_id;
}

/** A session of `accountId` opened in the back office (no sign-in: only the requests under test check a password). */
async function session(accountId: string, idempotencyKey?: string): Promise<SettingsBrowser> {
  const browser = new SettingsBrowser(stack, idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey });
  browser.token = (await stack.office.sessions.open(accountId)).token;
  return browser;
}

/** What every refusal under load must be: a declared 429 or 503, in the settings shape, with a Retry-After. */
async function expectDeclaredRefusal(response: JsonResponse) {
  expect([429, 503]).toContain(response.status);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  const body = await response.clone().json();
  expect(body).toEqual({ code: expect.any(String), message: expect.any(String), request_id: expect.any(String) });
  // 503: the gate's refusal, or admission's store slow to answer on a loaded DynamoDB Local; never the deadline's.
  if (response.status === 503) expect(['PASSWORD_CHECK_BUSY', 'RATE_LIMIT_UNAVAILABLE']).toContain(body.code);
}

const waitFor = (response: JsonResponse) => new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after')) * 1000));

describe('key creation under a crowd of password checks', () => {
  it('answers 24 concurrent creations with 201s and declared refusals; retried as the page does, each creates exactly one key', async () => {
    // Prepare: 6 accounts, 4 sessions each, one request per session.
    const accounts = await Promise.all(Array.from({ length: ACCOUNTS }, () => account()));
    const requests = await Promise.all(
      accounts.flatMap((accountId, a) =>
        Array.from({ length: KEYS_PER_ACCOUNT }, async (_, k) => {
          const idempotencyKey = newIdempotencyKey();
          return { accountId, name: `load ${a}.${k}`, browser: await session(accountId, idempotencyKey) };
        }),
      ),
    );
    const send = (request: (typeof requests)[number]) => request.browser.post('/settings/api/keys', { name: request.name, password: PASSWORD, scopes: ['public:read'] });
    const refusedBefore = passwordGate().figures().refused;

    // Act: every creation at once.
    const first = await Promise.all(requests.map(send));

    // Assess: created or refused as declared.
    const statuses: number[] = first.map((r) => r.status);
    for (const response of first) {
      if (response.status !== 201) await expectDeclaredRefusal(response);
    }

    // Act: each refusal sent again after its Retry-After with the same Idempotency-Key, until it is answered for good.
    const answers = new Map(requests.map((request, i) => [request, first[i]]));
    for (let round = 0; round < MOST_ROUNDS; round += 1) {
      const pending = requests.filter((request) => ![200, 201].includes((answers.get(request) as JsonResponse).status));
      if (pending.length === 0) break;
      await Promise.all(
        pending.map(async (request) => {
          await waitFor(answers.get(request) as JsonResponse);
          const again = await send(request);
          statuses.push(again.status);
          if (![200, 201].includes(again.status)) await expectDeclaredRefusal(again);
          answers.set(request, again);
        }),
      );
    }

    // Assess: no 5xx but the declared 503s anywhere; every request answered with its key, one key per request.
    expect(statuses.filter((status) => status >= 500 && status !== 503)).toEqual([]);
    const final = await Promise.all(requests.map(async (request) => ({ request, status: (answers.get(request) as JsonResponse).status, body: await (answers.get(request) as JsonResponse).json() })));
    expect(final.filter((f) => ![200, 201].includes(f.status))).toEqual([]);
    for (const accountId of accounts) {
      const { keys } = await stack.office.keys.list(accountId);
      const mine = final.filter((f) => f.request.accountId === accountId);
      expect(keys.map((key) => key.name).sort()).toEqual(mine.map((f) => f.request.name).sort());
      expect(keys.map((key) => key.key_id).sort()).toEqual(mine.map((f) => f.body.key_id).sort());
    }
    // What the run met, for the reader of the log (not asserted: it depends on the machine).
    console.info(`settings-key-creation-load: first answers ${JSON.stringify(countBy(first.map((r) => r.status)))}, all answers ${JSON.stringify(countBy(statuses))}, gate refusals ${passwordGate().figures().refused - refusedBefore}`);
  }, 300_000);

  it('refuses every password-checked route while the checks are all taken, before writing anything; the same requests then succeed once', async () => {
    // Prepare: an account managing an organization (a callback needs one), with a session and an address to sign in with.
    const email = `busy-${Date.now()}@example.com`;
    const { account_id } = await stack.office.accounts.create('Busy owner', { email, password: PASSWORD });
    const { partner_id } = await stack.office.organizations.create('Busy Games');
    await stack.office.memberships.set(partner_id, account_id, 'manager');
    const keyRequest = await session(account_id, newIdempotencyKey());
    const callbackRequest = await session(account_id, newIdempotencyKey());
    const other = await session(account_id);
    const calls: Record<string, () => Promise<JsonResponse>> = {
      'sign-in': () => new SettingsBrowser(stack).signIn(email, PASSWORD),
      'key creation': () => keyRequest.post('/settings/api/keys', { name: 'busy', password: PASSWORD, scopes: ['public:read'] }),
      'callback creation': () => callbackRequest.post('/settings/api/webhooks', { partner_id, url: 'https://hooks.partner-receiver.net/busy', password: PASSWORD }),
      'two-factor enrolment': () => other.post('/settings/api/two-factor/enrol', { password: PASSWORD }),
      'password change': () => other.post('/settings/api/password', { current_password: PASSWORD, new_password: 'a brand new passphrase' }),
    };
    const auditBefore = await stack.office.audit.list(account_id);
    // The process's one slot, taken until the refusals are in.
    let release!: () => void;
    const held = passwordGate().run(() => new Promise<void>((resolve) => (release = resolve)), { latestStart: () => Number.POSITIVE_INFINITY, holdMs: () => 0 });

    // Act
    const refused = await Promise.all(Object.entries(calls).map(async ([name, call]) => [name, await call()] as const));
    release();
    await held;

    // Assess: each refused as declared, in the settings shape, with Retry-After.
    for (const [name, response] of refused) {
      expect([name, response.status], name).toEqual([name, 503]);
      expect(await response.json(), name).toEqual({ code: 'PASSWORD_CHECK_BUSY', message: expect.any(String), request_id: expect.any(String) });
      expect(Number(response.headers.get('retry-after')), name).toBeGreaterThanOrEqual(1);
    }
    // Nothing written: no key, no callback, no pending two-factor secret, the password unchanged, no audit entry.
    expect((await stack.office.keys.list(account_id)).keys).toEqual([]);
    expect((await other.get('/settings/api/webhooks')).status).toBe(200);
    expect((await (await other.get('/settings/api/webhooks')).json()).webhooks).toEqual([]);
    expect(await stack.office.signIn.get(account_id)).not.toHaveProperty('two_factor_pending');
    expect(await stack.office.audit.list(account_id)).toEqual(auditBefore);

    // Act: the same requests again (the same Idempotency-Keys), the slot free.
    const created = { key: await calls['key creation'](), callback: await calls['callback creation'](), signIn: await calls['sign-in']() };
    const replayed = { key: await calls['key creation'](), callback: await calls['callback creation']() };
    const changed = await calls['password change']();

    // Assess: each made once.
    expect([created.key.status, created.callback.status, created.signIn.status, changed.status]).toEqual([201, 201, 200, 200]);
    expect([replayed.key.status, replayed.callback.status]).toEqual([200, 200]);
    expect((await stack.office.keys.list(account_id)).keys).toHaveLength(1);
  }, 120_000);
});

function countBy(values: readonly number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
