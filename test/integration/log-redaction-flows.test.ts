/**
 * No secret in any output: the service's real flows run on the local stack
 * (with the deployed handlers, the webhook pipeline, and metrics written as
 * in Lambda) while everything written to stdout and stderr is captured; then
 * the capture is scanned for every secret value the flows used. Also a
 * careless operation that logs the request's headers and body and throws an
 * error whose message and cause carry the credentials: its lines are kept,
 * redacted.
 *
 * Flows: signing in to web settings with a password (one wrong first), the
 * session cookie, a personal API key created there, calls with Authorization
 * headers, an invitation's join link with its token, the player's claim and
 * the credential cookie it sets, a webhook callback's whsec_ secret, its
 * verification and a signed delivery.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeKey } from '../../lambdas/identity/describe-key';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { ROUTE_CONTRACTS } from '../../lambdas/service/contracts';
import { Router, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { logger } from '../../lambdas/shared/observability/logger';
import { HANDLERS } from '../../local/handlers';
import { startHttpsReceiver } from '../support/https-receiver';
import { captureLogs } from '../support/log-capture';
import { recordInput } from '../support/record-input';
import { SettingsBrowser } from '../support/settings-browser';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';
import { eventually } from '../support/eventually';

const leakyRoute = (id: string, method: 'GET' | 'POST', body: 'none' | 'json'): RouteDefinition => ({ id, method, path: `/leaky/${id}`, group: 'identity', auth: 'key', query: [], body });
const router = new Router([...ROUTES, leakyRoute('leak-log', 'POST', 'json'), leakyRoute('leak-throw', 'GET', 'none')]);

/** What a careless operation might do: log the headers and the body, and throw the credential in an error's message and cause. */
const identity = createPartnerApiHandler({ contracts: ROUTE_CONTRACTS, routes: ROUTES,
  router,
  operations: {
    me: describeKey,
    'leak-log': async (input) => {
      logger.info('incoming request', { headers: input.headers, body: input.body });
      logger.warn(`raw Authorization header: ${input.headers.get('authorization')?.[0]}`);
      return { data: {} };
    },
    'leak-throw': async (input) => {
      const authorization = input.headers.get('authorization')?.[0];
      throw new Error(`upstream refused ${authorization}`, { cause: Object.assign(new Error('while calling the upstream'), { request: { headers: input.headers } }) });
    },
  },
});

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ router, handlers: { ...HANDLERS, identity } });
});
afterAll(() => stack?.stop());
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('what the flows write', () => {
  it('holds none of the secrets they used', { timeout: 120_000 }, async () => {
    // Prepare: capture everything, and write metrics as a deployed function does.
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'partner-api-test-fn');
    const logs = captureLogs();
    const secrets: Record<string, string> = {};
    const receiver = await startHttpsReceiver((request) => {
      const event = JSON.parse(request.rawBody.toString('utf8')) as { type: string; data: { challenge?: string } };
      return event.type === 'webhook.verification' ? { status: 200, body: JSON.stringify({ challenge: event.data.challenge }), headers: { 'content-type': 'application/json' } } : { status: 200 };
    });

    try {
      // Act 1. Web settings: a wrong password, then the right one; a personal key shown once.
      const password = 'correct horse battery staple 42';
      secrets.password = password;
      secrets.wrongPassword = 'tr0ub4dor&3-not-it';
      const email = `redaction-${Date.now()}@example.com`;
      const { account_id } = await stack.office.accounts.create('Redacted manager', { email, password });
      const browser = new SettingsBrowser(stack);
      expect((await browser.signIn(email, secrets.wrongPassword)).status).toBe(401);
      expect((await browser.signIn(email, password)).status).toBe(200);
      secrets.session = browser.token as string;
      const created = await browser.post('/settings/api/keys', { password: password, name: 'Redaction', scopes: ['public:read'], days: 30 });
      expect(created.status).toBe(201);
      secrets.personalKey = (await created.json()).key;

      // 2. The partner API with Authorization headers: the personal key, an organization key, a careless operation.
      expect((await stack.call('/me', { headers: bearer(secrets.personalKey) })).status).toBe(200);
      const org = await createOrgWithManagerKey(stack.office, ['invitations:read', 'invitations:write', 'tickets:read']);
      await stack.office.memberships.set(org.partner_id, account_id, 'manager');
      secrets.organizationKey = org.key.key;
      const leaked = await stack.call('/leaky/leak-log', {
        method: 'POST',
        headers: { ...bearer(secrets.organizationKey), 'Content-Type': 'application/json', Cookie: `settings_session=${secrets.session}` },
        // (A key in a body is refused before any operation: the body carries the other secrets.)
        body: JSON.stringify({ password, note: `my token is ${secrets.session}` }),
      });
      expect(leaked.status).toBe(200);
      expect((await stack.call('/leaky/leak-throw', { headers: bearer(secrets.organizationKey) })).status).toBe(500);

      // 3. An invitation's join link, the player's claim, its credential cookie, a message.
      const invited = await stack.call(`/partners/${org.partner_id}/invitations`, {
        method: 'POST',
        headers: { ...bearer(secrets.organizationKey), 'Content-Type': 'application/json', 'Idempotency-Key': `redaction-${Date.now()}` },
        body: JSON.stringify({ game: 'minecraft', notes: 'redaction flow' }),
      });
      expect(invited.status).toBe(201);
      const link = ((await invited.json()) as { data: { link: string } }).data.link;
      const [page, fragment] = link.split('#');
      secrets.joinToken = new URLSearchParams(fragment).get('token') as string;
      expect((await fetch(`${page}/view`, { headers: { 'X-Join-Token': secrets.joinToken } })).status).toBe(200);
      const claimed = await fetch(`${page}/claim`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token: secrets.joinToken, in_game_name: 'Steve', game_account_id: '069a79f4-44e9-4726-a5be-fca90e38aaf5' }),
      });
      expect(claimed.status).toBe(201);
      const cookie = (claimed.headers.get('set-cookie') as string).split(';')[0];
      secrets.playerCredential = cookie.slice('player_credential='.length);
      expect((await fetch(`${page}/messages`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie }, body: JSON.stringify({ text: 'hello' }) })).status).toBe(201);

      // 4. A webhook callback: its secret shown once, its verification, a signed delivery through the pipeline.
      const hook = await browser.post('/settings/api/webhooks', { partner_id: org.partner_id, url: receiver.url, password });
      expect(hook.status).toBe(201);
      const { webhook, secret } = await hook.json();
      secrets.webhookSecret = secret;
      expect((await browser.post(`/settings/api/webhooks/${webhook.webhook_id}/verify`)).status).toBe(200);
      const eventId = (await stack.office.records!.put(org.partner_id, recordInput('Redaction'))).event_id;
      await eventually(async () => (await stack.office.webhooks.deliveriesOf(webhook.webhook_id)).deliveries.find((d) => d.event_id === eventId && d.status === 'delivered'), 'the delivery');
    } finally {
      await receiver.close();
    }

    // Assess: the capture holds what the flows wrote...
    const lines = logs.lines();
    expect(lines.filter((line) => line.message === 'request').length).toBeGreaterThanOrEqual(12);
    expect(lines.some((line) => line.message === 'webhook delivery attempt')).toBe(true);
    expect(logs.metrics().length).toBeGreaterThan(0);
    expect(lines.find((line) => line.message === 'incoming request')).toMatchObject({ headers: { authorization: '[REDACTED]', cookie: '[REDACTED]' }, body: { password: '[REDACTED]', note: 'my token is [REDACTED]' } });
    expect(lines.find((line) => line.message === 'request failed')).toMatchObject({
      level: 'ERROR',
      error: { message: 'upstream refused Bearer [REDACTED]', cause: { message: 'while calling the upstream', request: { headers: { authorization: '[REDACTED]' } } } },
    });
    // ...and none of the secrets, anywhere.
    const everything = logs.text();
    for (const [name, value] of Object.entries(secrets)) {
      expect(value.length, name).toBeGreaterThan(8);
      expect(everything.includes(value), `${name} appears in the output`).toBe(false);
    }
  });
});
