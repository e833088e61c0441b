/**
 * The fault sweep of the request path, shared by its four files (test/integration/request-path-faults-*.test.ts, each a
 * shard of the routes with a stack and tables of its own, so they run side by side and each sweep scans small tables).
 *
 * Faults at every call site of the request path: every operation of both OpenAPI documents, sent through the local
 * front, with each DynamoDB call it makes failed in each of the four ways of docs/faults.md (`fail` on every call;
 * `lose-answer`, `fail-after` and `crash-after` on every write), then retried as its caller would (the same request:
 * the same Idempotency-Key, submission id or client message id).
 *
 * What must hold, whatever the fault:
 * - every answer is one the operation's document declares (stack.call checks each: test/support/contract-check.ts);
 * - a lost answer the SDK retried answers what a fault-free call answers;
 * - after an error answer, the caller's retry answers what a fault-free call answers (or what the scenario says and
 *   why), and the tables hold exactly the items a fault-free call leaves (test/support/fault-sweep.ts): nothing lost,
 *   nothing twice.
 *
 * The scenarios are keyed by route id, so a route added to the table without one fails to compile.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackOfficeError } from '../../lambdas/back-office/errors';
import { codeAt } from '../../lambdas/back-office/two-factor';
import { FUNCTION_BUILDERS } from '../../lambdas/service/functions';
import type { ApiHandler } from '../../lambdas/shared/http/pipeline';
import { type EndpointGroup } from '../../lambdas/shared/http/routes';
import { ROUTES, type RouteId } from '../../lambdas/service/routes';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { createPlatform, sharedPlatform, type Platform } from '../../lambdas/shared/platform';
import { FaultPlan } from '../../local/fault-injection';
import { eventually } from './eventually';
import { callsOf, countChange, countItems, isWrite, sendRequest, SWEPT_FAULTS, type Scenario, type SweepRequest } from './fault-sweep';
import { startHttpsReceiver } from './https-receiver';
import { recordInput } from './record-input';
import { SettingsBrowser } from './settings-browser';
import { startTestStack, type TestStack } from './test-stack';

const PASSWORD = 'sweep password 1234';
const faults = new FaultPlan();
let stack: TestStack;
let receiver: Awaited<ReturnType<typeof startHttpsReceiver>>;
let serial = 0;
const unique = (prefix: string) => `${prefix}-${(serial += 1)}-${randomBytes(6).toString('hex')}`;

/**
 * Every function on a platform whose quotas, rolling and concurrency limits are raised out of reach: a request that
 * crashed after its admission keeps its lease until it expires (docs/limits.md), and the sweep makes hundreds of
 * requests from one address and a few keys.
 */
function sweepHandlers(): Record<EndpointGroup, ApiHandler> {
  let raised: Platform | undefined;
  const platform = () =>
    (raised ??= createPlatform({
      limits: LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: 100_000 })),
      edgeGuard: undefined,
      localSwitches: sharedPlatform().localSwitches,
      documentClient: sharedPlatform().documentClient,
    }));
  return Object.fromEntries(Object.entries(FUNCTION_BUILDERS).map(([group, build]) => [group, build(platform)])) as Record<EndpointGroup, ApiHandler>;
}

// The world the read scenarios share, made once.
let partnerId: string;
let email: string;
let accountId: string;
let key: string;
/** A personal key (an account's own entitlements). */
let personalKey: string;
let browser: SettingsBrowser;
let recordUuid: string;
let recordId: string;
let invitationId: string;
let ticket: { id: string; cookie: string };
let webhookId: string;
/**
 * The manager of the webhook scenarios, of an organization of its own: its callback receives only the test events the
 * scenarios send, never the partner world's business events (whose deliveries the pipeline makes in the background).
 */
let hooks: { browser: SettingsBrowser; partner_id?: string };

const bearer = () => ({ Authorization: `Bearer ${key}` });
const page = () => ({ Origin: new URL(stack.baseUrl).origin, 'X-Settings-Request': '1' });
const withSession = (token: string | undefined) => ({ ...page(), Cookie: `settings_session=${token}` });

async function signedIn(address: string, code?: string): Promise<SettingsBrowser> {
  const b = new SettingsBrowser(stack);
  expect((await b.signIn(address, PASSWORD, code)).status).toBe(200);
  return b;
}

/** A new account that signs in (and, with `manager`, manages a new organization), signed in. */
async function account(manager = false) {
  const address = `${unique('sweep')}@example.com`;
  const { account_id } = await stack.office.accounts.create('Sweeper', { email: address, password: PASSWORD });
  let partner: string | undefined;
  if (manager) {
    ({ partner_id: partner } = await stack.office.organizations.create(unique('Swept')));
    await stack.office.memberships.set(partner, account_id, 'manager');
  }
  return { account_id, email: address, partner_id: partner, browser: await signedIn(address) };
}

async function newInvitation(): Promise<{ id: string; token: string }> {
  const response = await stack.call(`/partners/${partnerId}/invitations`, {
    method: 'POST',
    headers: { ...bearer(), 'Content-Type': 'application/json', 'Idempotency-Key': unique('sweep-invitation') },
    body: JSON.stringify({ game: 'minecraft' }),
  });
  expect(response.status).toBe(201);
  const { data } = (await response.json()) as { data: { id: string; link: string } };
  return { id: data.id, token: new URLSearchParams(data.link.split('#')[1]).get('token')! };
}

const claimBody = (token: string) => ({ token, in_game_name: 'Steve', game_account_id: '069a79f4-44e9-4726-a5be-fca90e38aaf5', submission_id: randomBytes(32).toString('base64url') });

async function claimed(): Promise<{ id: string; cookie: string }> {
  const { id, token } = await newInvitation();
  const response = await stack.call(`/join/${id}/claim`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(claimBody(token)) });
  expect(response.status).toBe(201);
  return { id, cookie: response.headers.get('set-cookie')!.split(';')[0] };
}

async function newCallback(owner: { browser: SettingsBrowser; partner_id?: string }, verify: boolean): Promise<string> {
  const created = await owner.browser.post('/settings/api/webhooks', { partner_id: owner.partner_id, url: receiver.url, password: PASSWORD });
  expect(created.status).toBe(201);
  const id = ((await created.json()) as { webhook: { webhook_id: string } }).webhook.webhook_id;
  if (verify) expect((await owner.browser.post(`/settings/api/webhooks/${id}/verify`)).status).toBe(200);
  return id;
}

/**
 * A delivered event of a callback of its own (a new manager's: at most 10 callbacks an account, and the delivery
 * pipeline starts at most 10 attempts a minute per callback), to resend, and the session that may resend it.
 */
async function endedDelivery(): Promise<{ path: string; session: string | undefined }> {
  const owner = await account(true);
  const id = await newCallback(owner, true);
  // A business event of the organization (a record written with its outbox event): the pipeline delivers it.
  await stack.office.records!.put(owner.partner_id!, recordInput('Resent'));
  const deliveryId = await eventually(async () => {
    const { deliveries } = (await (await owner.browser.get(`/settings/api/webhooks/${id}/deliveries`)).json()) as { deliveries: { delivery_id: string; status: string }[] };
    return deliveries.find((d) => d.status === 'delivered')?.delivery_id;
  }, 'a delivered event');
  return { path: `/settings/api/webhooks/${id}/deliveries/${deliveryId}/resend`, session: owner.browser.token };
}

const get = (path: () => string, headers: () => Record<string, string>): Scenario => ({ prepare: async () => ({ method: 'GET', path: path(), headers: headers() }) });

/**
 * One scenario per route. `retryAnswers` and `retryMayDiffer` say where a caller's retry after an applied write meets
 * something other than a fault-free call, and why that is what happened.
 */
export const SCENARIOS: Record<RouteId, Scenario> = {
  health: get(() => '/health', () => ({})),
  me: get(() => '/me', bearer),
  entitlements: { prepare: async () => ({ method: 'GET', path: '/entitlements', headers: { Authorization: `Bearer ${personalKey}` } }) },
  'record-lookup': { prepare: async () => ({ method: 'GET', path: `/records/${recordUuid}`, headers: bearer() }) },
  'org-records': { prepare: async () => ({ method: 'GET', path: `/partners/${partnerId}/records`, headers: bearer() }) },
  'org-record': { prepare: async () => ({ method: 'GET', path: `/partners/${partnerId}/records/${recordId}`, headers: bearer() }) },
  'org-entitlements': { prepare: async () => ({ method: 'GET', path: `/partners/${partnerId}/entitlements`, headers: bearer() }) },
  invitations: { prepare: async () => ({ method: 'GET', path: `/partners/${partnerId}/invitations`, headers: bearer() }) },
  'invitation-create': {
    prepare: async () => ({ method: 'POST', path: `/partners/${partnerId}/invitations`, headers: { ...bearer(), 'Idempotency-Key': unique('sweep-create') }, body: { game: 'minecraft' } }),
    // The retry is a replay of the same Idempotency-Key: 200 with the invitation the first attempt created (docs/invitations.md).
    retryAnswers: [200],
  },
  invitation: { prepare: async () => ({ method: 'GET', path: `/partners/${partnerId}/invitations/${invitationId}`, headers: bearer() }) },
  'invitation-link': { prepare: async () => ({ method: 'GET', path: `/partners/${partnerId}/invitations/${invitationId}/link`, headers: bearer() }) },
  'invitation-revoke': {
    prepare: async () => ({ method: 'POST', path: `/partners/${partnerId}/invitations/${(await newInvitation()).id}/revoke`, headers: bearer() }),
  },
  tickets: { prepare: async () => ({ method: 'GET', path: `/partners/${partnerId}/tickets`, headers: bearer() }) },
  ticket: { prepare: async () => ({ method: 'GET', path: `/partners/${partnerId}/tickets/${ticket.id}`, headers: bearer() }) },
  'player-page': { prepare: async () => ({ method: 'GET', path: `/join/${invitationId}` }), page: true },
  'player-view': {
    prepare: async () => {
      const { id, token } = await newInvitation();
      return { method: 'GET', path: `/join/${id}/view`, headers: { 'X-Join-Token': token } };
    },
  },
  'player-claim': {
    prepare: async () => {
      const { id, token } = await newInvitation();
      return { method: 'POST', path: `/join/${id}/claim`, body: claimBody(token) };
    },
  },
  'player-message': {
    prepare: async () => ({
      method: 'POST',
      path: `/join/${ticket.id}/messages`,
      headers: { Cookie: ticket.cookie },
      body: { text: 'Hello from the sweep', client_message_id: randomBytes(16).toString('base64url') },
    }),
  },
  'settings-page': { ...get(() => '/settings', () => ({})), page: true },
  'settings-sign-in': {
    prepare: async () => ({ method: 'POST', path: '/settings/api/session', headers: page(), body: { email, password: PASSWORD } }),
    retryMayDiffer: {
      'access:session': 'a second sign-in opens a second session; the first, whose cookie never arrived, ends idle after 30 minutes',
      'access:audit': 'each sign-in is audited (sign_in.succeeded)',
    },
  },
  'settings-sign-out': {
    prepare: async () => ({ method: 'DELETE', path: '/settings/api/session', headers: withSession((await signedIn(email)).token) }),
  },
  'settings-session': get(() => '/settings/api/session', () => withSession(browser.token)),
  'settings-organizations': get(() => '/settings/api/organizations', () => withSession(browser.token)),
  'settings-keys': get(() => '/settings/api/keys', () => withSession(browser.token)),
  'settings-key-create': {
    prepare: async () => {
      const owner = await account();
      return {
        method: 'POST',
        path: '/settings/api/keys',
        headers: { ...withSession(owner.browser.token), 'Idempotency-Key': unique('sweep-key') },
        body: { name: 'Swept key', scopes: ['public:read'], password: PASSWORD },
      };
    },
    // The retry is a replay of the same Idempotency-Key: 200, the key the first attempt created, its secret not shown again (docs/web-settings.md).
    retryAnswers: [200],
  },
  'settings-key-revoke': {
    prepare: async () => {
      const created = await stack.office.keys.create({ accountId, scopes: ['public:read'] });
      return { method: 'POST', path: `/settings/api/keys/${created.key_id}/revoke`, headers: withSession(browser.token) };
    },
  },
  'settings-password': {
    prepare: async () => {
      const owner = await account();
      return { method: 'POST', path: '/settings/api/password', headers: withSession(owner.browser.token), body: { current_password: PASSWORD, new_password: `${PASSWORD} changed` } };
    },
    // The change ends every session of the account, the caller's included (the answer carries its new one): a retry
    // with the old cookie after the change was applied meets a session that ended, and the page signs in again.
    retryAnswers: [401],
    retryMayDiffer: { 'access:session': 'the new session of the answer that was lost is not opened again: the owner signs in with the new password' },
  },
  'settings-two-factor-enrol': {
    prepare: async () => {
      const owner = await account();
      return { method: 'POST', path: '/settings/api/two-factor/enrol', headers: withSession(owner.browser.token), body: { password: PASSWORD } };
    },
    retryMayDiffer: { 'access:audit': 'a retry enrols again: a new pending secret replaces the first (never shown), audited two_factor.enrolled' },
  },
  'settings-two-factor-confirm': {
    prepare: async () => {
      const owner = await account();
      const { secret } = await stack.office.signIn.enrolTwoFactor(owner.account_id, PASSWORD);
      return { method: 'POST', path: '/settings/api/two-factor/confirm', headers: withSession(owner.browser.token), body: { password: PASSWORD, code: await codeAt(secret, new Date()) } };
    },
    // As the password change: confirming ends every session of the account; the retry's old cookie is gone.
    retryAnswers: [401],
    retryMayDiffer: { 'access:session': 'the new session of the answer that was lost is not opened again: the owner signs in with a code' },
  },
  'settings-two-factor-disable': {
    prepare: async () => {
      // Codes are accepted one step either side of now, each step once and only after the last accepted one: the
      // confirmation uses the step before now's, the sign-in now's, the disabling takes the next. The real clock: a
      // 30-second boundary passing between the confirmation's code and its check puts that code two steps back, so a
      // refused confirmation starts again with a new account (at most once more: the next boundary is 30 s away).
      for (let attempt = 1; ; attempt += 1) {
        const owner = await account();
        const { secret } = await stack.office.signIn.enrolTwoFactor(owner.account_id, PASSWORD);
        const confirmed = await stack.office.signIn.confirmTwoFactor(owner.account_id, PASSWORD, await codeAt(secret, new Date(Date.now() - 30_000))).then(
          () => true,
          (error: unknown) => {
            if (attempt < 3 && error instanceof BackOfficeError && error.code === 'INVALID_TWO_FACTOR') return false;
            throw error;
          },
        );
        if (!confirmed) continue;
        const session = await signedIn(owner.email, await codeAt(secret, new Date()));
        const code = await codeAt(secret, new Date(Date.now() + 30_000));
        return { method: 'POST', path: '/settings/api/two-factor/disable', headers: withSession(session.token), body: { password: PASSWORD, code } };
      }
    },
  },
  'settings-sign-out-everywhere': {
    // An account of its own: ending every session of the shared one would end the other scenarios' sessions too.
    prepare: async () => ({ method: 'POST', path: '/settings/api/sign-out-everywhere', headers: withSession((await account()).browser.token) }),
    // It ends every session of the account, the caller's included: a retry after it was applied meets a session that ended.
    retryAnswers: [401],
  },
  'settings-audit': get(() => '/settings/api/audit', () => withSession(browser.token)),
  webhooks: get(() => '/settings/api/webhooks', () => withSession(hooks.browser.token)),
  'webhook-create': {
    prepare: async () => {
      const owner = await account(true);
      return {
        method: 'POST',
        path: '/settings/api/webhooks',
        headers: { ...withSession(owner.browser.token), 'Idempotency-Key': unique('sweep-callback') },
        body: { partner_id: owner.partner_id, url: receiver.url, password: PASSWORD },
      };
    },
    // A replay of the same Idempotency-Key: 200, the callback the first attempt created, its secret not shown again.
    retryAnswers: [200],
  },
  'webhook-verify': { prepare: async () => ({ method: 'POST', path: `/settings/api/webhooks/${webhookId}/verify`, headers: withSession(hooks.browser.token) }) },
  'webhook-test': {
    prepare: async () => ({ method: 'POST', path: `/settings/api/webhooks/${webhookId}/test`, headers: withSession(hooks.browser.token) }),
    // A test event is sent at once, not stored: a retry sends another, as the caller asked twice.
    retryMayDiffer: { 'access:audit': 'each test event sent is audited (webhook.tested)' },
  },
  'webhook-deactivate': {
    prepare: async () => ({ method: 'POST', path: `/settings/api/webhooks/${await newCallback(hooks, false)}/deactivate`, headers: withSession(hooks.browser.token) }),
  },
  'webhook-deliveries': get(() => `/settings/api/webhooks/${webhookId}/deliveries`, () => withSession(hooks.browser.token)),
  'webhook-resend': {
    prepare: async () => {
      const { path, session } = await endedDelivery();
      return { method: 'POST', path, headers: withSession(session) };
    },
    // The first resend was applied and its attempt is under way: a second is refused while it is (409), as the page says.
    retryAnswers: [409],
  },
};

/** The routes of each file of the sweep, of about the same length: every route in exactly one (test/unit/structure/request-path-sweep.test.ts). */
export const SWEEP_SHARDS = {
  /** The partner API and the player site. */
  partner: ROUTES.map((r) => r.id).filter((id) => !id.startsWith('settings-') && !id.startsWith('webhook') && id !== 'health'),
  /** Sessions, password and two-factor. */
  account: ['health', 'settings-page', 'settings-sign-in', 'settings-sign-out', 'settings-session', 'settings-password', 'settings-two-factor-enrol', 'settings-two-factor-confirm', 'settings-two-factor-disable', 'settings-sign-out-everywhere', 'settings-audit'],
  /** Keys, organizations and callbacks. */
  'keys-and-callbacks': ['settings-organizations', 'settings-keys', 'settings-key-create', 'settings-key-revoke', 'webhooks', 'webhook-create', 'webhook-verify'],
  /** Test events, deliveries and resends (each resend waits for a delivery). */
  deliveries: ['webhook-test', 'webhook-deactivate', 'webhook-deliveries', 'webhook-resend'],
} satisfies Record<string, readonly RouteId[]>;

const send = (scenario: Scenario, request: SweepRequest) => sendRequest(stack, request, scenario.page);

/** Registers the sweep of one shard's routes, on a stack and tables of the file's own. */
export function sweepRoutes(name: keyof typeof SWEEP_SHARDS): void {
  const routes: readonly RouteId[] = SWEEP_SHARDS[name];
  beforeAll(async () => {
    stack = await startTestStack({ handlers: sweepHandlers(), faults });
    receiver = await startHttpsReceiver((request) => {
      const event = JSON.parse(request.rawBody.toString('utf8')) as { type: string; data: { challenge?: string } };
      if (event.type === 'webhook.verification') return { status: 200, body: JSON.stringify({ challenge: event.data.challenge }), headers: { 'content-type': 'application/json' } };
      return { status: 200 };
    });
    const owner = await account(true);
    ({ account_id: accountId, email, browser } = owner);
    partnerId = owner.partner_id!;
    key = (await stack.office.keys.create({ accountId, partnerId, scopes: ['records:read', 'public:read', 'invitations:read', 'invitations:write', 'entitlements:read', 'tickets:read'] })).key;
    personalKey = (await stack.office.keys.create({ accountId, scopes: ['entitlements:read'] })).key;
    const record = await stack.office.records!.put(partnerId, recordInput('Sweep'));
    ({ uuid: recordUuid, id: recordId } = record);
    invitationId = (await newInvitation()).id;
    ticket = await claimed();
    hooks = await account(true);
    webhookId = await newCallback(hooks, true);
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });

  describe(`faults at every call site of the request path: ${name}`, () => {
    it.each(routes)('%s: every fault at every call answers a declared status, and a retry leaves exactly what a fault-free call leaves', async (id) => {
      const scenario = SCENARIOS[id];
      const tables = { access: stack.tables.access, domain: stack.tables.domain };

      // Prepare: a fault-free call, twice (the first warms what a container caches): its answer, its calls, its effect.
      await send(scenario, await scenario.prepare());
      const request = await scenario.prepare();
      const before = await countItems(stack.client, tables);
      faults.reset();
      const baseline = await send(scenario, request);
      const calls = callsOf(faults);
      const effect = countChange(before, await countItems(stack.client, tables));
      expect(baseline.status, `${id}: fault-free answer ${baseline.code ?? ''}`).toBeLessThan(300);

      // Act and assess: each fault at each call.
      const failures: string[] = [];
      let fired = 0;
      for (const { call, nth } of calls) {
        for (const fault of SWEPT_FAULTS) {
          if (fault !== 'fail' && !isWrite(call)) continue;
          const where = `${id}: ${fault} at ${call} #${nth}`;
          try {
            const attempt = await scenario.prepare();
            const start = await countItems(stack.client, tables);
            faults.reset();
            const rule = faults.arm({ component: 'api', call, nth, effect: fault });
            const first = await send(scenario, attempt);
            faults.reset();
            if (!rule.fired()) continue;
            fired += 1;
            let last = first;
            if (fault === 'lose-answer') {
              if (first.status !== baseline.status) failures.push(`${where}: answered ${first.status} ${first.code ?? ''}, fault-free ${baseline.status}`);
            } else if (first.status !== baseline.status) {
              last = await send(scenario, attempt);
              const allowed = [baseline.status, ...(scenario.retryAnswers ?? [])];
              if (!allowed.includes(last.status)) failures.push(`${where}: answered ${first.status} ${first.code ?? ''}, then the retry ${last.status} ${last.code ?? ''}`);
            }
            const change = countChange(start, await countItems(stack.client, tables));
            const mayDiffer = last === first ? {} : (scenario.retryMayDiffer ?? {});
            const kinds = new Set([...Object.keys(change), ...Object.keys(effect)]);
            const off = [...kinds].filter((kind) => (change[kind] ?? 0) !== (effect[kind] ?? 0) && !(kind in mayDiffer));
            if (off.length > 0) failures.push(`${where}: stored ${JSON.stringify(change)}, fault-free ${JSON.stringify(effect)} (answers ${first.status} then ${last.status})`);
          } catch (error) {
            failures.push(`${where}: ${String(error)}`);
          }
        }
      }
      console.log(`${id}: ${calls.length} calls (${calls.map((c) => `${c.call}#${c.nth}`).join(', ') || 'none'}), ${fired} faults fired`);
      expect(failures).toEqual([]);
    }, 600_000);
  });
}
