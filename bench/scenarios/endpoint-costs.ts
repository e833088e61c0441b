/**
 * What one call of each operation costs, for the cost model (bench/cost): every partner endpoint, the player site's
 * page, view, claim and message, and the web-settings calls, each sent `plan.endpointCosts` times one at a time
 * through the local front on the latency platform (quotas out of reach, every admission write as deployed). From
 * each call's own access-log line: DynamoDB calls, sequential round trips, reported read and write units, the items
 * of its write transactions, refused conditions and cancelled items (what AWS bills beyond DynamoDB Local's report),
 * and the handler's time; from the wire: the answer's size. No latency ratio here: the latency scenarios own those.
 *
 * Calls that change state get fresh state each: an invitation per revoke and per claim, a key per revoke, a sign-in
 * per sign-out. Left out (named in the row list as not measured): the password change and the two-factor calls (a
 * sign-in's work plus one account write), and the webhook calls that reach out to a receiver (verify, test,
 * resend: a delivery attempt each, which scenarios/webhook-delivery.ts measures) or resolve a name (create).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { ORGANIZATION_SCOPES, PERSONAL_SCOPES } from '../../lambdas/shared/identity/scopes';
import { localDocumentClient } from '../../local/local-stack';
import { recordInput } from '../../test/support/record-input';
import type { DynamoFigures } from '../access-log';
import { defineScenario, type BenchContext, type EndpointCostRow } from '../scenario';
import { mean, round } from '../stats';

interface Call {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  /** The status a well-formed call answers. */
  readonly status: number;
}

interface Endpoint {
  /** The route id (lambdas/shared/http/routes.ts). */
  readonly route: string;
  readonly label: string;
  /** The n-th call (0-based); may prepare what that call needs (not measured). */
  readonly call: (n: number) => Call | Promise<Call>;
  /** Undo what the call made, untimed, when the next calls need room (an account holds at most 20 live keys). */
  readonly after?: (answer: string) => Promise<unknown>;
}

const PASSWORD = 'bench endpoint costs password';
const json = { 'Content-Type': 'application/json' };

async function world(context: BenchContext, calls: number) {
  const client = localDocumentClient(context.stack.dynamoEndpoint);
  const office = createBackOffice(client, context.stack.tables.access, undefined, context.stack.tables.domain);
  const base = context.stack.baseUrl;
  const email = `bench-costs-${Date.now()}@example.com`;
  const { account_id } = await office.accounts.create('Bench costs', { email, password: PASSWORD });
  const { partner_id } = await office.organizations.create('Bench costs organization');
  await office.memberships.set(partner_id, account_id, 'manager');
  const { key } = await office.keys.create({ accountId: account_id, partnerId: partner_id, scopes: [...ORGANIZATION_SCOPES] });
  const auth = { Authorization: `Bearer ${key}` };
  // The public lookup and the account's own entitlements take a personal key.
  const personal = { Authorization: `Bearer ${(await office.keys.create({ accountId: account_id, scopes: [...PERSONAL_SCOPES] })).key}` };
  const records: Awaited<ReturnType<NonNullable<typeof office.records>['put']>>[] = [];
  for (let i = 0; i < 5; i += 1) records.push(await office.records!.put(partner_id, recordInput(`Costs${i}`)));

  const invite = async (): Promise<{ id: string; token: string }> => {
    const response = await fetch(`${base}/partners/${partner_id}/invitations`, {
      method: 'POST',
      headers: { ...auth, ...json, 'Idempotency-Key': `bench-costs-${randomUUID()}` },
      body: JSON.stringify({ game: 'minecraft' }),
    });
    const { data } = (await response.json()) as { data: { id: string; link: string } };
    return { id: data.id, token: new URL(data.link).hash.replace(/^#token=/, '') };
  };
  const claimBody = (n: number) => ({ in_game_name: 'Bench costs', game_account_id: `bench_costs_${n}` });
  const pending = await invite();
  const joined = await invite();
  const claimed = await fetch(`${base}/join/${joined.id}/claim`, { method: 'POST', headers: json, body: JSON.stringify({ token: joined.token, ...claimBody(0) }) });
  // The claiming browser's credential: what its messages carry.
  const playerCookie = (claimed.headers.get('set-cookie') ?? '').split(';')[0];

  const origin = new URL(base).origin;
  const page = { Origin: origin, 'X-Settings-Request': '1' };
  const signIn = async (): Promise<string> => {
    const response = await fetch(`${base}/settings/api/session`, { method: 'POST', headers: { ...json, ...page }, body: JSON.stringify({ email, password: PASSWORD }) });
    return (response.headers.get('set-cookie') ?? '').split(';')[0];
  };
  const cookie = await signIn();
  const signedIn = { Cookie: cookie, Origin: origin };
  const personalKey = () => office.keys.create({ accountId: account_id, scopes: [...PERSONAL_SCOPES] });
  const orgPath = `/partners/${partner_id}`;

  const endpoints: Endpoint[] = [
    { route: 'health', label: 'GET /health', call: () => ({ method: 'GET', path: '/health', status: 200 }) },
    { route: 'me', label: 'GET /me', call: () => ({ method: 'GET', path: '/me', headers: auth, status: 200 }) },
    { route: 'entitlements', label: 'GET /entitlements', call: () => ({ method: 'GET', path: '/entitlements', headers: personal, status: 200 }) },
    { route: 'record-lookup', label: 'GET /records/{uuid}', call: (n) => ({ method: 'GET', path: `/records/${records[n % records.length].uuid}`, headers: personal, status: 200 }) },
    { route: 'org-records', label: 'GET …/records', call: () => ({ method: 'GET', path: `${orgPath}/records?limit=20`, headers: auth, status: 200 }) },
    { route: 'org-record', label: 'GET …/records/{id}', call: (n) => ({ method: 'GET', path: `${orgPath}/records/${records[n % records.length].id}`, headers: auth, status: 200 }) },
    { route: 'org-entitlements', label: 'GET …/entitlements', call: () => ({ method: 'GET', path: `${orgPath}/entitlements`, headers: auth, status: 200 }) },
    { route: 'invitations', label: 'GET …/invitations', call: () => ({ method: 'GET', path: `${orgPath}/invitations`, headers: auth, status: 200 }) },
    {
      route: 'invitation-create',
      label: 'POST …/invitations',
      call: (n) => ({ method: 'POST', path: `${orgPath}/invitations`, headers: { ...auth, ...json, 'Idempotency-Key': `bench-costs-create-${Date.now()}-${n}` }, body: { game: 'fps' }, status: 201 }),
    },
    { route: 'invitation', label: 'GET …/invitations/{id}', call: () => ({ method: 'GET', path: `${orgPath}/invitations/${pending.id}`, headers: auth, status: 200 }) },
    { route: 'invitation-link', label: 'GET …/invitations/{id}/link', call: () => ({ method: 'GET', path: `${orgPath}/invitations/${pending.id}/link`, headers: auth, status: 200 }) },
    { route: 'invitation-revoke', label: 'POST …/invitations/{id}/revoke', call: async () => ({ method: 'POST', path: `${orgPath}/invitations/${(await invite()).id}/revoke`, headers: auth, status: 200 }) },
    { route: 'tickets', label: 'GET …/tickets', call: () => ({ method: 'GET', path: `${orgPath}/tickets`, headers: auth, status: 200 }) },
    { route: 'ticket', label: 'GET …/tickets/{id}', call: () => ({ method: 'GET', path: `${orgPath}/tickets/${joined.id}`, headers: auth, status: 200 }) },
    { route: 'player-page', label: 'GET /join/{id} (page)', call: () => ({ method: 'GET', path: `/join/${pending.id}`, status: 200 }) },
    { route: 'player-view', label: 'GET /join/{id}/view', call: () => ({ method: 'GET', path: `/join/${pending.id}/view`, headers: { 'X-Join-Token': pending.token }, status: 200 }) },
    {
      route: 'player-claim',
      label: 'POST /join/{id}/claim',
      call: async (n) => {
        const fresh = await invite();
        // As the join page sends it: with its submission id (the resumable claim, docs/player-site.md).
        return { method: 'POST', path: `/join/${fresh.id}/claim`, headers: json, body: { token: fresh.token, ...claimBody(n + 1), submission_id: randomBytes(32).toString('base64url') }, status: 201 };
      },
    },
    {
      route: 'player-message',
      label: 'POST /join/{id}/messages',
      // As the join page sends it: with its client message id (a resubmission stored once).
      call: (n) => ({ method: 'POST', path: `/join/${joined.id}/messages`, headers: { ...json, Cookie: playerCookie }, body: { text: `Bench message ${n}`, client_message_id: randomBytes(16).toString('base64url') }, status: 201 }),
    },
    { route: 'settings-sign-in', label: 'POST /settings/api/session', call: () => ({ method: 'POST', path: '/settings/api/session', headers: { ...json, ...page }, body: { email, password: PASSWORD }, status: 200 }) },
    { route: 'settings-session', label: 'GET /settings/api/session', call: () => ({ method: 'GET', path: '/settings/api/session', headers: signedIn, status: 200 }) },
    { route: 'settings-organizations', label: 'GET /settings/api/organizations', call: () => ({ method: 'GET', path: '/settings/api/organizations', headers: signedIn, status: 200 }) },
    { route: 'settings-keys', label: 'GET /settings/api/keys', call: () => ({ method: 'GET', path: '/settings/api/keys', headers: signedIn, status: 200 }) },
    {
      route: 'settings-key-create',
      label: 'POST /settings/api/keys',
      // As the settings page sends it: with an Idempotency-Key (a retry answers the same key).
      call: () => ({ method: 'POST', path: '/settings/api/keys', headers: { ...signedIn, ...page, ...json, 'Idempotency-Key': randomBytes(18).toString('hex') }, body: { scopes: ['public:read'], days: 30, password: PASSWORD }, status: 201 }),
      after: (answer) => office.keys.revoke((JSON.parse(answer) as { key_id: string }).key_id),
    },
    {
      route: 'settings-key-revoke',
      label: 'POST /settings/api/keys/{id}/revoke',
      call: async () => ({ method: 'POST', path: `/settings/api/keys/${(await personalKey()).key_id}/revoke`, headers: { ...signedIn, ...page }, status: 200 }),
    },
    { route: 'settings-audit', label: 'GET /settings/api/audit', call: () => ({ method: 'GET', path: '/settings/api/audit', headers: signedIn, status: 200 }) },
    { route: 'webhooks', label: 'GET /settings/api/webhooks', call: () => ({ method: 'GET', path: '/settings/api/webhooks', headers: signedIn, status: 200 }) },
    {
      route: 'settings-sign-out',
      label: 'DELETE /settings/api/session',
      call: async () => ({ method: 'DELETE', path: '/settings/api/session', headers: { Cookie: await signIn(), Origin: origin, 'X-Settings-Request': '1' }, status: 200 }),
    },
  ];
  return { client, endpoints, calls };
}

const sum = (figures: readonly DynamoFigures[], pick: (f: DynamoFigures) => number | undefined) => round(mean(figures.map((f) => pick(f) ?? 0)), 2);

export const endpointCosts = defineScenario({
  name: 'endpoint-costs',
  description: 'every operation once per call, one at a time: DynamoDB calls, round trips, reported and billed-relevant units, handler time, answer size (the cost model\'s input)',
  run: async (context) => {
    const calls = context.plan.endpointCosts.calls;
    const { client, endpoints } = await world(context, calls);
    const rows: EndpointCostRow[] = [];
    try {
      for (const endpoint of endpoints) {
        context.progress(`${endpoint.label}: ${calls} calls`);
        const figures: DynamoFigures[] = [];
        const durations: number[] = [];
        const bytes: number[] = [];
        const logged: number[] = [];
        for (let n = 0; n < calls; n += 1) {
          const call = await endpoint.call(n);
          const loggedBefore = context.accessLog.serviceBytes;
          const response = await fetch(`${context.stack.baseUrl}${call.path}`, {
            method: call.method,
            headers: call.headers,
            ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
          });
          const body = await response.arrayBuffer();
          if (response.status !== call.status) {
            throw new Error(`${endpoint.label} answered ${response.status}: ${Buffer.from(body).toString('utf8').slice(0, 300)}\n${context.accessLog.drainFailures().join('\n')}`);
          }
          const line = context.accessLog.takeRequest(response.headers.get('x-request-id') ?? '');
          if (!line?.dynamo || line.durationMs === undefined) throw new Error(`${endpoint.label}: no access-log line with its DynamoDB figures`);
          figures.push(line.dynamo);
          durations.push(line.durationMs);
          bytes.push(body.byteLength);
          logged.push(context.accessLog.serviceBytes - loggedBefore);
          await endpoint.after?.(Buffer.from(body).toString('utf8'));
        }
        rows.push({
          kind: 'endpoint-cost',
          scenario: 'endpoint-costs',
          route: endpoint.route,
          label: endpoint.label,
          calls,
          dynamo: {
            calls: sum(figures, (f) => f.calls),
            round_trips: sum(figures, (f) => f.round_trips),
            rcu: sum(figures, (f) => f.rcu),
            wcu: sum(figures, (f) => f.wcu),
            tx_items: sum(figures, (f) => f.tx_items),
            tx_wcu: sum(figures, (f) => f.tx_wcu),
            failed_conditions: sum(figures, (f) => f.failed_conditions),
            cancelled_tx_items: sum(figures, (f) => f.cancelled_tx_items),
          },
          warm_round_trips: sum(figures.length > 1 ? figures.slice(1) : figures, (f) => f.round_trips),
          handler_ms: { mean: round(mean(durations), 2), max: Math.max(...durations) },
          response_bytes: Math.round(mean(bytes)),
          log_bytes: Math.round(mean(logged)),
        });
      }
    } finally {
      client.destroy();
    }
    return rows;
  },
});
