/**
 * Webhook callback creation in web settings retried after a lost answer (issue 31), through the local front on
 * DynamoDB Local with faults injected at the creation's transaction: applied with every try's answer lost
 * (`fail-after`: the page sees 500) or the function dying right after it (`crash-after`: 502). The page sends the same
 * request again with the same Idempotency-Key: the answer is the callback the first attempt created (200,
 * `replayed: true`, no secret), the account has exactly one callback more (of its 10) and one `webhook.created`
 * entry, and the retry needs no second two-factor code. The same Idempotency-Key with another organization or
 * address is 409 IDEMPOTENCY_CONFLICT; two attempts at once create one callback. docs/webhooks.md, "Retrying a
 * creation". And the verification that activates the callback: its `webhook.verified` entry is written with the
 * activation, so the owner's retry after a lost answer leaves the trail with exactly one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FaultPlan, type FaultEffect } from '../../local/fault-injection';
import { newIdempotencyKey, PASSWORD, startRetryWorld, type RetryWorld } from '../support/settings-retries';
import { webhookWorld } from '../support/webhook-world';

const faults = new FaultPlan();
let world: RetryWorld;
beforeAll(async () => {
  world = await startRetryWorld(faults);
});
afterEach(() => faults.reset());
afterAll(() => world?.stop());

const CALLBACK_URL = 'https://hooks.partner-receiver.net/in';
/** Receivers that answer the verification challenge (closed after the file). */
const receivers = webhookWorld(() => world.stack);

/** The callback creation's transaction (its webhook item). */
const callbackTransaction = (effect: FaultEffect) =>
  faults.arm({ component: 'api', call: 'TransactWriteItems', matches: (input) => JSON.stringify(input.TransactItems).includes('"type":"webhook"'), effect });

async function manager() {
  const owner = await world.owner({ manages: true });
  return { ...owner, partner_id: owner.partner_id as string };
}

const entriesOf = async (accountId: string, action: string) => (await world.stack.office.audit.page(accountId)).entries.filter((entry) => entry.action === action);
const callbacksOf = (accountId: string) => entriesOf(accountId, 'webhook.created');
const listed = async (browser: Awaited<ReturnType<typeof manager>>['browser']) => (await (await browser.get('/settings/api/webhooks')).json()).webhooks as { webhook_id: string }[];

describe('a callback creation whose answer was lost, sent again by the page with the same Idempotency-Key', () => {
  it.each([
    ['fail-after', 500],
    ['crash-after', 502],
  ] as const)('%s (the page sees %i): the retry answers the callback the first attempt created, without its secret; one callback', async (effect, firstStatus) => {
    // Prepare
    const { account_id, partner_id, browser } = await manager();
    const idempotencyKey = newIdempotencyKey();
    const fault = callbackTransaction(effect);
    const request = { partner_id, url: CALLBACK_URL, password: PASSWORD };

    // Act
    const first = await world.post(browser, '/settings/api/webhooks', request, idempotencyKey);
    const retry = await world.post(browser, '/settings/api/webhooks', request, idempotencyKey);

    // Assess
    expect(fault.fired()).toBe(true);
    expect(first.status).toBe(firstStatus);
    expect(retry.status).toBe(200);
    const webhooks = await listed(browser);
    expect(webhooks).toHaveLength(1);
    expect(await retry.json()).toEqual({ webhook: webhooks[0], secret: null, replayed: true });
    expect(webhooks[0]).toMatchObject({ partner_id, url: CALLBACK_URL, status: 'unverified' });
    expect(await callbacksOf(account_id)).toHaveLength(1);
  });

  it('needs no second two-factor code: the retry is answered before the re-check, with the code the first attempt used', async () => {
    // Prepare
    const { partner_id, browser } = await manager();
    const seed = await world.twoFactorOn(browser);
    const request = { partner_id, url: CALLBACK_URL, password: PASSWORD, two_factor_code: await world.code(seed) };
    const idempotencyKey = newIdempotencyKey();
    callbackTransaction('fail-after');

    // Act
    const first = await world.post(browser, '/settings/api/webhooks', request, idempotencyKey);
    const retry = await world.post(browser, '/settings/api/webhooks', request, idempotencyKey);
    const anotherRequest = await world.post(browser, '/settings/api/webhooks', request, newIdempotencyKey());

    // Assess
    expect(first.status).toBe(500);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ secret: null, replayed: true });
    expect(anotherRequest.status).toBe(401);
    expect((await anotherRequest.json()).code).toBe('INVALID_TWO_FACTOR');
    expect(await listed(browser)).toHaveLength(1);
  });

  it('answers a retry of a creation that did answer with the same callback, and the same Idempotency-Key with another address 409 IDEMPOTENCY_CONFLICT', async () => {
    // Prepare
    const { partner_id, browser } = await manager();
    const idempotencyKey = newIdempotencyKey();
    const created = await world.post(browser, '/settings/api/webhooks', { partner_id, url: CALLBACK_URL, password: PASSWORD }, idempotencyKey);
    expect(created.status).toBe(201);
    const { webhook, secret } = await created.json();

    // Act
    const same = await world.post(browser, '/settings/api/webhooks', { partner_id, url: CALLBACK_URL, password: PASSWORD }, idempotencyKey);
    const elsewhere = await world.post(browser, '/settings/api/webhooks', { partner_id, url: `${CALLBACK_URL}/other`, password: PASSWORD }, idempotencyKey);

    // Assess
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(same.status).toBe(200);
    expect(await same.json()).toEqual({ webhook, secret: null, replayed: true });
    expect(elsewhere.status).toBe(409);
    expect((await elsewhere.json()).code).toBe('IDEMPOTENCY_CONFLICT');
    expect((await listed(browser)).map((w) => w.webhook_id)).toEqual([webhook.webhook_id]);
  });

  it('creates one callback of four concurrent attempts with one Idempotency-Key; the others answer it', async () => {
    // Prepare
    const { partner_id, browser } = await manager();
    const idempotencyKey = newIdempotencyKey();

    // Act
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => world.post(browser, '/settings/api/webhooks', { partner_id, url: CALLBACK_URL, password: PASSWORD }, idempotencyKey)),
    );

    // Assess
    const bodies = await Promise.all(answers.map((answer) => answer.json()));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 201]);
    const webhooks = await listed(browser);
    expect(webhooks).toHaveLength(1);
    expect(bodies.map((body) => body.webhook.webhook_id)).toEqual(Array(4).fill(webhooks[0].webhook_id));
    expect(bodies.filter((body) => body.replayed).every((body) => body.secret === null)).toBe(true);
  });
});

describe('a verification whose activation lost its answer, made again by the owner', () => {
  it.each(['fail-after', 'crash-after'] as const)('%s: the retry answers verified, and the trail has one webhook.verified entry', async (effect) => {
    // Prepare
    const { account_id, partner_id, browser } = await manager();
    const receiver = await receivers.receiver();
    const created = await world.post(browser, '/settings/api/webhooks', { partner_id, url: receiver.url, password: PASSWORD }, newIdempotencyKey());
    const { webhook_id } = (await created.json()).webhook;
    // The write that activates the callback, whichever call makes it (one transaction with the audit entry, or an update).
    const activation = (input: Readonly<Record<string, unknown>>) => JSON.stringify(input).includes('SET #status = :active');
    const fault = [faults.arm({ component: 'api', call: 'TransactWriteItems', matches: activation, effect }), faults.arm({ component: 'api', call: 'UpdateItem', matches: activation, effect })];

    // Act
    const first = await browser.post(`/settings/api/webhooks/${webhook_id}/verify`);
    const retry = await browser.post(`/settings/api/webhooks/${webhook_id}/verify`);

    // Assess
    expect(fault.filter((rule) => rule.fired())).toHaveLength(1);
    expect(first.status).toBe(effect === 'fail-after' ? 500 : 502);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ webhook: { webhook_id, status: 'active' }, verification: { result: 'verified' } });
    expect(await entriesOf(account_id, 'webhook.verified')).toHaveLength(1);
  });
});
