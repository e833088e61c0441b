/**
 * Key creation in web settings retried after a lost answer (issue 31), through the local front on DynamoDB Local with
 * faults injected at the creation's transaction: applied with every try's answer lost (`fail-after`: the page sees
 * 500) or the function dying right after it (`crash-after`: 502). The page sends the same request again with the same
 * Idempotency-Key: the answer is the key the first attempt created (200, `replayed: true`, no value: it was shown to
 * no one and is stored nowhere), the account has exactly one key more and one `key.created` entry, and the retry
 * needs no second two-factor code. The same Idempotency-Key with another request is 409 IDEMPOTENCY_CONFLICT; two
 * attempts at once create one key. docs/web-settings.md, "Retrying a creation".
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FaultPlan, type FaultEffect } from '../../local/fault-injection';
import { newIdempotencyKey, PASSWORD, startRetryWorld, type RetryWorld } from '../support/settings-retries';

const faults = new FaultPlan();
let world: RetryWorld;
beforeAll(async () => {
  world = await startRetryWorld(faults);
});
afterEach(() => faults.reset());
afterAll(() => world?.stop());

const REQUEST = { name: 'CI deploy', scopes: ['public:read', 'entitlements:read'], days: 30, password: PASSWORD };

/** The key creation's transaction (its api_key item). */
const keyTransaction = (effect: FaultEffect) =>
  faults.arm({ component: 'api', call: 'TransactWriteItems', matches: (input) => JSON.stringify(input.TransactItems).includes('"type":"api_key"'), effect });

const keysOf = async (accountId: string) => (await world.stack.office.keys.list(accountId)).keys;
const createdEntries = async (accountId: string) => (await world.stack.office.audit.page(accountId)).entries.filter((entry) => entry.action === 'key.created');

describe('a key creation whose answer was lost, sent again by the page with the same Idempotency-Key', () => {
  it.each([
    ['fail-after', 500],
    ['crash-after', 502],
  ] as const)('%s (the page sees %i): the retry answers the key the first attempt created, without its value; one key', async (effect, firstStatus) => {
    // Prepare
    const { account_id, browser } = await world.owner();
    const idempotencyKey = newIdempotencyKey();
    const fault = keyTransaction(effect);

    // Act
    const first = await world.post(browser, '/settings/api/keys', REQUEST, idempotencyKey);
    const retry = await world.post(browser, '/settings/api/keys', REQUEST, idempotencyKey);

    // Assess
    expect(fault.fired()).toBe(true);
    expect(first.status).toBe(firstStatus);
    expect(retry.status).toBe(200);
    const keys = await keysOf(account_id);
    expect(keys).toHaveLength(1);
    const [key] = keys;
    expect(await retry.json()).toEqual({
      key_id: key.key_id,
      key: null,
      name: 'CI deploy',
      partner_id: null,
      scopes: ['public:read', 'entitlements:read'],
      created_at: key.created_at,
      expires_at: key.expires_at,
      replayed: true,
    });
    expect(await createdEntries(account_id)).toHaveLength(1);
  });

  it('needs no second two-factor code: the retry is answered before the re-check, with the code the first attempt used', async () => {
    // Prepare
    const { account_id, browser } = await world.owner();
    const seed = await world.twoFactorOn(browser);
    const code = await world.code(seed);
    const idempotencyKey = newIdempotencyKey();
    keyTransaction('fail-after');

    // Act
    const first = await world.post(browser, '/settings/api/keys', { ...REQUEST, two_factor_code: code }, idempotencyKey);
    const retry = await world.post(browser, '/settings/api/keys', { ...REQUEST, two_factor_code: code }, idempotencyKey);
    const anotherRequest = await world.post(browser, '/settings/api/keys', { ...REQUEST, two_factor_code: code }, newIdempotencyKey());

    // Assess
    expect(first.status).toBe(500);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ key: null, replayed: true });
    // The code stays used: a new request with it is refused.
    expect(anotherRequest.status).toBe(401);
    expect((await anotherRequest.json()).code).toBe('INVALID_TWO_FACTOR');
    expect(await keysOf(account_id)).toHaveLength(1);
  });

  it('answers a retry of a creation that did answer with the same key, and the same Idempotency-Key with another request 409 IDEMPOTENCY_CONFLICT', async () => {
    // Prepare
    const { account_id, browser } = await world.owner();
    const idempotencyKey = newIdempotencyKey();
    const created = await world.post(browser, '/settings/api/keys', REQUEST, idempotencyKey);
    expect(created.status).toBe(201);
    const { key_id, key } = await created.json();

    // Act
    const same = await world.post(browser, '/settings/api/keys', { ...REQUEST, scopes: ['entitlements:read', 'public:read'] }, idempotencyKey);
    const renamed = await world.post(browser, '/settings/api/keys', { ...REQUEST, name: 'Another key' }, idempotencyKey);
    const longer = await world.post(browser, '/settings/api/keys', { ...REQUEST, days: 31 }, idempotencyKey);

    // Assess
    expect(key).toMatch(/^pak_live_/);
    expect(same.status).toBe(200);
    expect(await same.json()).toMatchObject({ key_id, key: null, replayed: true });
    for (const refused of [renamed, longer]) {
      expect(refused.status).toBe(409);
      expect((await refused.json()).code).toBe('IDEMPOTENCY_CONFLICT');
    }
    expect((await keysOf(account_id)).map((k) => k.key_id)).toEqual([key_id]);
  });

  it('creates one key of four concurrent attempts with one Idempotency-Key; the others answer it', async () => {
    // Prepare
    const { account_id, browser } = await world.owner();
    const idempotencyKey = newIdempotencyKey();

    // Act
    const answers = await Promise.all(Array.from({ length: 4 }, () => world.post(browser, '/settings/api/keys', REQUEST, idempotencyKey)));

    // Assess
    const bodies = await Promise.all(answers.map((answer) => answer.json()));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 201]);
    const keys = await keysOf(account_id);
    expect(keys).toHaveLength(1);
    expect(bodies.map((body) => body.key_id)).toEqual(Array(4).fill(keys[0].key_id));
    expect(bodies.filter((body) => body.replayed).every((body) => body.key === null)).toBe(true);
  });

  it('refuses a malformed Idempotency-Key (400 IDEMPOTENCY_KEY_REQUIRED) before anything is created', async () => {
    // Prepare
    const { account_id, browser } = await world.owner();

    // Act
    const refused = await world.post(browser, '/settings/api/keys', REQUEST, 'too-short');

    // Assess
    expect(refused.status).toBe(400);
    expect((await refused.json()).code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    expect(await keysOf(account_id)).toHaveLength(0);
  });
});
