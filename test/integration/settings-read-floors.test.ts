/**
 * Web settings at their floor of sequential DynamoDB round trips (the call log's `dynamo.round_trips`), through the
 * local front on DynamoDB Local: the organizations, keys and audit views (a deep audit page too) in two (the session;
 * the admission with the view's reads beside it), a key's creation in four (the session; the admission with every
 * read beside it; the account's change quotas once the password passed; the key's transaction). And the organization
 * entries behind the first two views (lambdas/back-office/organization-entries.ts): a rename shows everywhere, in one
 * transaction (a failed one leaves the old name everywhere), and a membership from before the entries still shows.
 */
import { randomBytes } from 'node:crypto';
import { DeleteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import { orgEntryKey } from '../../lambdas/back-office/organization-entries';
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { definition as settingsFunction } from '../../lambdas/settings/handler';
import { definition as signInFunction } from '../../lambdas/sign-in/handler';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import type { Platform } from '../../lambdas/shared/platform';
import { HANDLERS } from '../../local/handlers';
import { startTestStack, type TestStack } from '../support/test-stack';
import { captureLogs } from '../support/log-capture';
import { SettingsBrowser } from '../support/settings-browser';
import { localPlatform } from '../support/local-platform';

let stack: TestStack;
let platform: Platform;
const now = new Date();
let office: BackOffice;

beforeAll(async () => {
  const raised = LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: 100_000 }));
  const settings = createSettingsHandler({ ...settingsFunction, platform: () => platform });
  const signIn = createSettingsHandler({ ...signInFunction, platform: () => platform });
  stack = await startTestStack({ handlers: { ...HANDLERS, settings, 'sign-in': signIn } });
  // A clock standing still: the account's windows are opened by the first counted call, never again.
  platform = localPlatform({ limits: raised, clock: () => now });
  office = createBackOffice(stack.client, stack.tables.access, () => now, stack.tables.domain);
});
afterAll(() => stack?.stop());

const PASSWORD = 'correct horse battery';
let serial = 0;

/** A signed-in manager of two organizations with a key of each, its windows already open. */
async function manager() {
  const email = `floors-${(serial += 1)}-${Date.now()}@example.com`;
  const { account_id } = await office.accounts.create('Floors user', { email, password: PASSWORD });
  const orgs = [];
  for (const name of ['Alpha', 'Beta']) {
    const { partner_id } = await office.organizations.create(name);
    await office.memberships.set(partner_id, account_id, 'manager');
    await office.keys.create({ accountId: account_id, partnerId: partner_id, scopes: ['records:read'] });
    orgs.push(partner_id);
  }
  const browser = new SettingsBrowser(stack);
  expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
  expect((await browser.get('/settings/api/session')).status).toBe(200);
  return { account_id, orgs, browser };
}

/** The round trips of each call `act` makes, by route, from the call log. */
async function roundTrips(act: () => Promise<void>): Promise<[string, number][]> {
  const logs = captureLogs();
  try {
    await act();
    return logs
      .lines()
      .filter((line) => line.message === 'request')
      .map((line) => [String(line.route), (line.dynamo as { round_trips: number }).round_trips]);
  } finally {
    vi.restoreAllMocks();
  }
}

describe('at the floor', () => {
  it('answers the organizations and keys views of a manager with organization keys in two round trips', async () => {
    // Prepare
    const m = await manager();

    // Act
    const costs = await roundTrips(async () => {
      expect((await m.browser.get('/settings/api/organizations')).status).toBe(200);
      expect((await m.browser.get('/settings/api/keys')).status).toBe(200);
    });

    // Assess
    expect(costs).toEqual([
      ['settings-organizations', 2],
      ['settings-keys', 2],
    ]);
  });

  it('answers the first audit page and a deep one in two round trips each', async () => {
    // Prepare: more entries than a page holds.
    const m = await manager();
    for (let i = 0; i < 110; i += 1) await office.audit.record(m.account_id, 'webhook.tested', { via: 'settings', sourceIp: '192.0.2.1' });
    const first = await m.browser.get('/settings/api/audit');
    const cursor = (await first.json()).next_cursor as string;
    expect(cursor).toEqual(expect.any(String));

    // Act
    const costs = await roundTrips(async () => {
      expect((await m.browser.get('/settings/api/audit')).status).toBe(200);
      const deep = await m.browser.get(`/settings/api/audit?cursor=${cursor}`);
      expect(deep.status).toBe(200);
      expect((await deep.json()).entries.length).toBeGreaterThan(0);
    });

    // Assess
    expect(costs).toEqual([
      ['settings-audit', 2],
      ['settings-audit', 2],
    ]);
  });

  it('creates a personal key and an organization key in four round trips each, and answers a retry in two', async () => {
    // Prepare
    const m = await manager();
    const creating = (idempotencyKey: string) => Object.assign(new SettingsBrowser(stack, { 'Idempotency-Key': idempotencyKey }), { token: m.browser.token });
    const personal = creating(randomBytes(12).toString('hex'));
    const organization = creating(randomBytes(12).toString('hex'));

    // Act
    const costs = await roundTrips(async () => {
      expect((await personal.post('/settings/api/keys', { scopes: ['public:read'], days: 30, password: PASSWORD })).status).toBe(201);
      expect((await organization.post('/settings/api/keys', { partner_id: m.orgs[1], scopes: ['records:read'], password: PASSWORD })).status).toBe(201);
      expect((await personal.post('/settings/api/keys', { scopes: ['public:read'], days: 30, password: PASSWORD })).status).toBe(200);
    });

    // Assess
    expect(costs).toEqual([
      ['settings-key-create', 4],
      ['settings-key-create', 4],
      ['settings-key-create', 2],
    ]);
  });
});

describe("the organization's name and status where the views read them", () => {
  it('shows a rename in the organizations view at once, and a rename is one transaction: a failed one leaves the old name everywhere', async () => {
    // Prepare: a second member, so the rename writes more than one entry.
    const m = await manager();
    const other = await office.accounts.create('Other member');
    await office.memberships.set(m.orgs[0], other.account_id, 'member');
    const failing = { ...stack.client, send: (command: unknown) => (command instanceof TransactWriteCommand ? Promise.reject(new Error('injected: the transaction failed')) : stack.client.send(command as never)) };
    const failingOffice = createBackOffice(failing as typeof stack.client, stack.tables.access, () => now);
    // In the view's order (by organization id): the names sorted, to compare.
    const names = async () => ((await (await m.browser.get('/settings/api/organizations')).json()).organizations as { partner_id: string; name: string }[]).map((o) => o.name).sort();

    // Act
    const failed = await failingOffice.organizations.rename(m.orgs[0], 'Gamma').then(
      () => undefined,
      (error: Error) => error,
    );
    const afterFailure = { view: await names(), other: (await office.memberships.ofAccount(other.account_id)).map((o) => o.name), org: (await office.organizations.get(m.orgs[0]))?.name };
    await office.organizations.rename(m.orgs[0], 'Gamma');

    // Assess
    expect(failed?.message).toMatch(/injected/);
    expect(afterFailure).toEqual({ view: ['Alpha', 'Beta'], other: ['Alpha'], org: 'Alpha' });
    expect(await names()).toEqual(['Beta', 'Gamma']);
    expect((await office.memberships.ofAccount(other.account_id)).map((o) => o.name)).toEqual(['Gamma']);
    expect((await office.organizations.get(m.orgs[0]))?.name).toBe('Gamma');
  });

  it("shows an archive in both views at once: the organization's status and its keys' standing", async () => {
    // Prepare
    const m = await manager();

    // Act
    await office.organizations.archive(m.orgs[0]);
    const organizations = (await (await m.browser.get('/settings/api/organizations')).json()).organizations;
    const keys = (await (await m.browser.get('/settings/api/keys')).json()).keys;

    // Assess
    expect(Object.fromEntries(organizations.map((o: { partner_id: string; status: string }) => [o.partner_id, o.status]))).toEqual({ [m.orgs[0]]: 'archived', [m.orgs[1]]: 'active' });
    expect(keys.map((k: { partner_id: string; status: string; reason?: string }) => [k.partner_id, k.status, k.reason])).toEqual(
      expect.arrayContaining([
        [m.orgs[0], 'revoked', 'organization_archived'],
        [m.orgs[1], 'active', undefined],
      ]),
    );
    expect(keys).toHaveLength(2);
  });

  it('shows a membership made before the entries existed from its organization item, and the next change of the organization writes its entry', async () => {
    // Prepare: a membership without its entry, as one made before them.
    const m = await manager();
    await stack.client.send(new DeleteCommand({ TableName: stack.tables.access, Key: orgEntryKey(m.account_id, m.orgs[0]) }));

    // Act
    const before = await roundTrips(async () => {
      const organizations = (await (await m.browser.get('/settings/api/organizations')).json()).organizations;
      expect(organizations.map((o: { name: string; role: string }) => [o.name, o.role]).sort()).toEqual([
        ['Alpha', 'manager'],
        ['Beta', 'manager'],
      ]);
      const keys = (await (await m.browser.get('/settings/api/keys')).json()).keys;
      expect(keys.map((k: { status: string }) => k.status)).toEqual(['active', 'active']);
    });
    await office.organizations.rename(m.orgs[0], 'Alpha renamed');
    const after = await roundTrips(async () => {
      const organizations = (await (await m.browser.get('/settings/api/organizations')).json()).organizations;
      expect(organizations.map((o: { name: string }) => o.name).sort()).toEqual(['Alpha renamed', 'Beta']);
    });

    // Assess: the organization item read for that membership only (one round trip more), then no more.
    expect(before).toEqual([
      ['settings-organizations', 3],
      ['settings-keys', 3],
    ]);
    expect(after).toEqual([['settings-organizations', 2]]);
  });
});
