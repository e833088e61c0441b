/**
 * Business quotas and concurrency limits against DynamoDB Local, raced
 * through the local front: N concurrent requests against a window of limit L
 * admit exactly min(N, L) for every policy, and a rejected request leaves
 * every other layer's counts as if it never came. Limits are lowered
 * through the platform so the races stay small; the mechanism is the one
 * production runs.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeKey } from '../../lambdas/identity/describe-key';
import { accountKey, apiKeyKey, orgKey } from '../../lambdas/shared/identity/access-items';
import { digestApiKey, keyIdFromDigest } from '../../lambdas/shared/identity/api-keys';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { ROUTE_CONTRACTS } from '../../lambdas/service/contracts';
import type { Operation } from '../../lambdas/shared/http/pipeline';
import { Router, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { authenticateKey } from '../../lambdas/shared/identity/key-authentication';
import { counterAttribute } from '../../lambdas/shared/limits/admission';
import { admitRequest } from '../../lambdas/shared/limits/key-admission';
import { LIMITS, type Limit } from '../../lambdas/shared/limits/limits-table';
import { createPlatform, type Platform } from '../../lambdas/shared/platform';
import { HANDLERS } from '../../local/handlers';
import { bearer, startTestStack, type TestStack } from '../support/test-stack';
import { localPlatform } from '../support/local-platform';

const route = (id: string, method: 'GET' | 'POST', path: string, category?: RouteDefinition['category']): RouteDefinition => ({
  id,
  method,
  path,
  group: 'identity',
  auth: 'key',
  partnerBound: true,
  query: [],
  body: 'none',
  ...(category ? { category } : {}),
});
const testRoutes = [
  route('probe-create', 'POST', '/partners/{partner_id}/create-probe', 'invitation-create'),
  route('probe-invitation', 'GET', '/partners/{partner_id}/invitation-probe', 'invitation'),
  route('probe-ticket', 'GET', '/partners/{partner_id}/ticket-probe', 'ticket'),
  route('probe-plain', 'GET', '/partners/{partner_id}/plain-probe'),
];
const router = new Router([...ROUTES, ...testRoutes]);

/** The production table with the numbers a test needs; policies, windows and principals unchanged. */
function limitsWith(overrides: Record<string, number>): Limit[] {
  const big = 100_000;
  return LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: overrides[l.policy] ?? big }));
}

let gate: Promise<void> = Promise.resolve();
/** Requests admitted and waiting at the gate. */
let arrived = 0;
const held: Operation = async () => {
  arrived += 1;
  await gate;
  return { data: { ok: true } };
};

let platform: Platform;
let stack: TestStack;
let now: Date | undefined;

beforeAll(async () => {
  const identity = createPartnerApiHandler({ contracts: ROUTE_CONTRACTS, routes: ROUTES,
    router,
    platform: () => platform,
    operations: { me: describeKey, 'probe-create': held, 'probe-invitation': held, 'probe-ticket': held, 'probe-plain': held },
  });
  // Counts, not time: a loaded machine's DynamoDB Local may take seconds per call (LocalStackOptions.storageWaitMs).
  stack = await startTestStack({ router, handlers: { ...HANDLERS, identity }, storageWaitMs: 60_000, functionTimeoutMs: 120_000 });
});
afterAll(() => stack?.stop());

function usePlatform(overrides: Record<string, number>) {
  platform = localPlatform({ limits: limitsWith(overrides), clock: () => now ?? new Date() });
}

/**
 * One minute window for the whole race, however long a loaded machine takes for it: the platform's clock stands still
 * until the test ends (a race split across two windows would admit twice).
 */
function oneMinuteWindow() {
  now = new Date();
}
afterEach(() => {
  now = undefined;
});

/** Stay clear of a minute boundary (real clock: the test compares the window's end with the time it is). */
async function awayFromMinuteEdge() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
}

async function org(managers = 1, keysPerManager = 1, permanent = false) {
  const { partner_id } = await stack.office.organizations.create();
  const accounts: string[] = [];
  const keys: string[] = [];
  for (let m = 0; m < managers; m += 1) {
    const { account_id } = await stack.office.accounts.create();
    accounts.push(account_id);
    await stack.office.memberships.set(partner_id, account_id, 'manager');
    for (let k = 0; k < keysPerManager; k += 1) {
      keys.push((await stack.office.keys.create({ accountId: account_id, partnerId: partner_id, scopes: ['invitations:write'], permanent })).key);
    }
  }
  return { partner_id, accounts, keys };
}

async function fire(n: number, pick: (i: number) => { key: string; path: string; method?: string }, onAnswer?: () => void) {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const { key, path, method } = pick(i);
      const response = await stack.call(path, { method: method ?? 'GET', headers: bearer(key) });
      const body = (await response.json()) as { error?: { code: string } };
      onAnswer?.();
      return { status: response.status, code: body.error?.code, headers: response.headers };
    }),
  );
}

async function count(key: { pk: string; sk: string }, policy: string) {
  const { Item } = await stack.client.send(new GetCommand({ TableName: stack.tables.access, Key: key, ConsistentRead: true }));
  return ((Item?.[counterAttribute(policy)] as { n?: number } | undefined)?.n ?? 0) as number;
}

const keyIdOf = (key: string) => keyIdFromDigest(digestApiKey(key));

describe('business quotas are exact under concurrency', () => {
  it('key-minute: 12 concurrent requests on one key against a limit of 5 admit exactly 5', async () => {
    usePlatform({ 'key-minute': 5 });
    const o = await org();
    oneMinuteWindow();
    const results = await fire(12, () => ({ key: o.keys[0], path: `/partners/${o.partner_id}/plain-probe` }));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
      expect(r.headers.get('x-ratelimit-policy')).toBe('key-minute');
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    // The rejected requests left the account and organization windows as if they never came.
    expect(await count(orgKey(o.partner_id), 'organization-minute')).toBe(5);
    expect(await count(accountKey(o.accounts[0]), 'account-minute')).toBe(5);
  });

  it('account-minute: keys of one account in two organizations and a personal key share one window', async () => {
    usePlatform({ 'account-minute': 6 });
    const a = await org();
    const second = await stack.office.organizations.create();
    await stack.office.memberships.set(second.partner_id, a.accounts[0], 'manager');
    const other = await stack.office.keys.create({ accountId: a.accounts[0], partnerId: second.partner_id, scopes: ['invitations:write'] });
    const personal = await stack.office.keys.create({ accountId: a.accounts[0], scopes: ['public:read'] });
    const targets = [
      { key: a.keys[0], path: `/partners/${a.partner_id}/plain-probe` },
      { key: other.key, path: `/partners/${second.partner_id}/plain-probe` },
      { key: personal.key, path: '/me' },
    ];
    oneMinuteWindow();
    const results = await fire(15, (i) => targets[i % 3]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(6);
    expect(results.filter((r) => r.status === 429).every((r) => r.headers.get('x-ratelimit-policy') === 'account-minute')).toBe(true);
    const keyCounts = await Promise.all(
      [a.keys[0], other.key, personal.key].map((k) => count(apiKeyKey(keyIdOf(k)), 'key-minute')),
    );
    // Rejections were compensated: the keys' windows hold exactly the admitted requests.
    expect(keyCounts.reduce((x, y) => x + y, 0)).toBe(6);
  });

  it('organization-minute: keys of three managers of one organization share one window', async () => {
    usePlatform({ 'organization-minute': 7 });
    const o = await org(3, 2);
    oneMinuteWindow();
    const results = await fire(20, (i) => ({ key: o.keys[i % o.keys.length], path: `/partners/${o.partner_id}/plain-probe` }));
    expect(results.filter((r) => r.status === 200)).toHaveLength(7);
    expect(results.filter((r) => r.status === 429).every((r) => r.headers.get('x-ratelimit-policy') === 'organization-minute')).toBe(true);
    expect(await count(orgKey(o.partner_id), 'organization-minute')).toBe(7);
    const accountTotal = (await Promise.all(o.accounts.map((a) => count(accountKey(a), 'account-minute')))).reduce((x, y) => x + y, 0);
    expect(accountTotal).toBe(7);
  });

  it('invitation-minute counts creation only; invitation-hour and -day name themselves when they trigger', async () => {
    usePlatform({ 'invitation-minute': 3, 'invitation-hour': 100, 'invitation-day': 100 });
    const o = await org(2, 2);
    oneMinuteWindow();
    const results = await fire(10, (i) => ({ key: o.keys[i % 4], path: `/partners/${o.partner_id}/create-probe`, method: 'POST' }));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 429).every((r) => r.headers.get('x-ratelimit-policy') === 'invitation-minute')).toBe(true);
    // The 7 refused creations left every other window of the organization, its accounts and keys untouched.
    expect(await count(orgKey(o.partner_id), 'organization-minute')).toBe(3);
    expect(await count(orgKey(o.partner_id), 'ticket-minute')).toBe(3);
    expect(await count(orgKey(o.partner_id), 'invitation-hour')).toBe(3);
    const accountCounts = await Promise.all(o.accounts.map((a) => count(accountKey(a), 'account-minute')));
    expect(accountCounts.reduce((x, y) => x + y, 0)).toBe(3);
    const keyCounts = await Promise.all(o.keys.map((k) => count(apiKeyKey(keyIdOf(k)), 'key-minute')));
    expect(keyCounts.reduce((x, y) => x + y, 0)).toBe(3);
    // Reads of invitations are not creations.
    const reads = await fire(4, (i) => ({ key: o.keys[i], path: `/partners/${o.partner_id}/invitation-probe` }));
    expect(reads.every((r) => r.status === 200)).toBe(true);

    usePlatform({ 'invitation-hour': 2 });
    const hour = await org();
    const byHour = await fire(5, () => ({ key: hour.keys[0], path: `/partners/${hour.partner_id}/create-probe`, method: 'POST' }));
    expect(byHour.filter((r) => r.status === 200)).toHaveLength(2);
    expect(byHour.find((r) => r.status === 429)?.headers.get('x-ratelimit-policy')).toBe('invitation-hour');
  });

  it('ticket-minute: invitation and ticket endpoints share one organization window', async () => {
    usePlatform({ 'ticket-minute': 6 });
    const o = await org(2, 2);
    const paths = ['invitation-probe', 'ticket-probe', 'create-probe'];
    oneMinuteWindow();
    const results = await fire(14, (i) => ({
      key: o.keys[i % 4],
      path: `/partners/${o.partner_id}/${paths[i % 3]}`,
      method: paths[i % 3] === 'create-probe' ? 'POST' : 'GET',
    }));
    expect(results.filter((r) => r.status === 200)).toHaveLength(6);
    expect(results.filter((r) => r.status === 429).every((r) => r.headers.get('x-ratelimit-policy') === 'ticket-minute')).toBe(true);
    // Other endpoints are not in this window.
    expect((await fire(3, (i) => ({ key: o.keys[i], path: `/partners/${o.partner_id}/plain-probe` }))).every((r) => r.status === 200)).toBe(true);
  });
});

describe('concurrency limits', () => {
  async function inFlight(n: number, pick: (i: number) => { key: string; path: string }) {
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    arrived = 0;
    let answered = 0;
    const pending = fire(n, pick, () => (answered += 1));
    // Requests that were refused answer at once; admitted ones wait at the gate: open it once every request is one or the other.
    while (arrived + answered < n) await new Promise((r) => setTimeout(r, 10));
    open();
    const results = await pending;
    gate = Promise.resolve();
    return results;
  }

  it('2 per key: of 6 simultaneous ticket requests on one key 2 run, 4 get CONCURRENCY_LIMITED with Retry-After 2', async () => {
    usePlatform({ 'ticket-concurrency': 2 });
    const o = await org();
    const results = await inFlight(6, () => ({ key: o.keys[0], path: `/partners/${o.partner_id}/ticket-probe` }));
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r).toMatchObject({ status: 429, code: 'CONCURRENCY_LIMITED' });
      expect(r.headers.get('retry-after')).toBe('2');
      expect(r.headers.get('x-ratelimit-policy')).toBe('ticket-concurrency');
    }
    // Every slot was released by the normal responses: the next ones run.
    expect((await inFlight(2, () => ({ key: o.keys[0], path: `/partners/${o.partner_id}/ticket-probe` }))).map((r) => r.status)).toEqual([200, 200]);
  });

  it('4 per organization and 6 per account, whatever the keys', async () => {
    platform = localPlatform({ limits: LIMITS.map((l) => (l.kind === 'concurrency' ? l : l.kind === 'quota' ? { ...l, limit: 100_000 } : l)) });
    const o = await org(3, 3);
    const byOrg = await inFlight(9, (i) => ({ key: o.keys[i], path: `/partners/${o.partner_id}/invitation-probe` }));
    expect(byOrg.filter((r) => r.status === 200)).toHaveLength(4);

    const { account_id } = await stack.office.accounts.create();
    const keys: { key: string; partner: string }[] = [];
    for (let i = 0; i < 4; i += 1) {
      const { partner_id } = await stack.office.organizations.create();
      await stack.office.memberships.set(partner_id, account_id, 'manager');
      const made = await stack.office.keys.create({ accountId: account_id, partnerId: partner_id, scopes: ['tickets:read'] });
      keys.push({ key: made.key, partner: partner_id }, { key: made.key, partner: partner_id });
    }
    const byAccount = await inFlight(8, (i) => ({ key: keys[i].key, path: `/partners/${keys[i].partner}/ticket-probe` }));
    expect(byAccount.filter((r) => r.status === 200)).toHaveLength(6);
  });

  it("one key over its own limit does not crowd out another key of its organization: 2 each of 6 and 2 run", async () => {
    // Prepare: the organization's 4 slots; key A sends 6 at once (its 4 beyond 2 are refused by its own item, and hold an
    // organization slot until their compensation lands), key B sends 2 in the same instant.
    platform = localPlatform({ limits: LIMITS.map((l) => (l.kind === 'concurrency' ? l : l.kind === 'quota' ? { ...l, limit: 100_000 } : l)) });
    const o = await org(1, 2);

    // Act
    const results = await inFlight(8, (i) => ({ key: o.keys[i < 6 ? 0 : 1], path: `/partners/${o.partner_id}/ticket-probe` }));

    // Assess: each key's 2 ran; every refusal is the key's own (A's 4).
    expect(results.slice(0, 6).filter((r) => r.status === 200)).toHaveLength(2);
    expect(results.slice(6).map((r) => r.status)).toEqual([200, 200]);
    for (const r of results.filter((x) => x.status !== 200)) expect(r).toMatchObject({ status: 429, code: 'CONCURRENCY_LIMITED' });
  });

  it('a slot held by a request that crashed frees itself once its lease expires', async () => {
    usePlatform({ 'ticket-concurrency': 2 });
    const o = await org();
    // Two "crashed" invocations: admitted, never released.
    for (let crashed = 0; crashed < 2; crashed += 1) {
      const key = await authenticateKey(`Bearer ${o.keys[0]}`, { reader: platform.admissionStore, cache: platform.keyCache, now: new Date() });
      await admitRequest(key, { category: 'ticket' }, {
        store: platform.admissionStore,
        windows: platform.windowMemory,
        rateLog: platform.rateLog,
        limits: platform.limits,
        now: new Date(),
      });
    }
    expect((await fire(1, () => ({ key: o.keys[0], path: `/partners/${o.partner_id}/ticket-probe` })))[0].status).toBe(429);
    now = new Date(Date.now() + 16_000);
    try {
      const after = await fire(2, () => ({ key: o.keys[0], path: `/partners/${o.partner_id}/ticket-probe` }));
      expect(after.map((r) => r.status)).toEqual([200, 200]);
    } finally {
      now = undefined;
    }
    const { Item } = await stack.client.send(new GetCommand({ TableName: stack.tables.access, Key: apiKeyKey(keyIdOf(o.keys[0])), ConsistentRead: true }));
    expect(Object.keys(Item?.leases ?? {})).toEqual([]);
  });
});

describe('headers and windows', () => {
  it('answers X-RateLimit-* of the key minute on success and the triggering policy on rejection', async () => {
    usePlatform({ 'key-minute': 3 });
    await awayFromMinuteEdge();
    const o = await org();
    const first = await stack.call('/me', { headers: bearer(o.keys[0]) });
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(first.headers.get('x-ratelimit-policy')).toBe('key-minute');
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset % 60).toBe(0);
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(first.headers.get('retry-after')).toBeNull();
  });

  it('names the refusing window that ends last when several are full: key-day, not key-minute, with Retry-After until the next UTC day', async () => {
    usePlatform({ 'key-minute': 2, 'key-day': 2, 'organization-minute': 2 });
    const o = await org(1, 1, true);
    now = new Date('2031-03-14T12:00:05.000Z');
    try {
      const results = await fire(2, () => ({ key: o.keys[0], path: `/partners/${o.partner_id}/plain-probe` }));
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      // key-minute, key-day and organization-minute are all full now.
      const [refused] = await fire(1, () => ({ key: o.keys[0], path: `/partners/${o.partner_id}/plain-probe` }));
      const dayEnd = Date.parse('2031-03-15T00:00:00.000Z') / 1000;
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-ratelimit-policy')).toBe('key-day');
      expect(refused.headers.get('x-ratelimit-limit')).toBe('2');
      expect(refused.headers.get('x-ratelimit-reset')).toBe(String(dayEnd));
      expect(refused.headers.get('retry-after')).toBe(String(dayEnd - Date.parse('2031-03-14T12:00:05.000Z') / 1000));
    } finally {
      now = undefined;
    }
  });

  it('resets daily windows at 00:00 UTC, with Retry-After until then', async () => {
    usePlatform({ 'organization-day': 2 });
    const o = await org(1, 1, true);
    now = new Date('2031-03-14T23:59:58.400Z');
    try {
      const before = await fire(3, () => ({ key: o.keys[0], path: `/partners/${o.partner_id}/plain-probe` }));
      expect(before.filter((r) => r.status === 200)).toHaveLength(2);
      const rejected = before.find((r) => r.status === 429)!;
      expect(rejected.headers.get('x-ratelimit-policy')).toBe('organization-day');
      expect(rejected.headers.get('x-ratelimit-limit')).toBe('2');
      expect(rejected.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2031-03-15T00:00:00Z') / 1000));
      expect(rejected.headers.get('retry-after')).toBe('2');
      now = new Date('2031-03-15T00:00:00.100Z');
      const after = await fire(2, () => ({ key: o.keys[0], path: `/partners/${o.partner_id}/plain-probe` }));
      expect(after.map((r) => r.status)).toEqual([200, 200]);
    } finally {
      now = undefined;
    }
  });

  it('fails closed with 503 RATE_LIMIT_UNAVAILABLE and Retry-After when the quota store does not answer', async () => {
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const { createDocumentClient } = await import('../../lambdas/shared/storage/dynamo-client');
    const o = await org();
    platform = createPlatform({
      edgeGuard: undefined,
      documentClient: createDocumentClient(
        new DynamoDBClient({ endpoint: 'http://127.0.0.1:9', region: 'us-east-1', maxAttempts: 1, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
      ),
    });
    const response = await stack.call('/me', { headers: bearer(o.keys[0]) });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMIT_UNAVAILABLE');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
