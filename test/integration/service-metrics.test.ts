/**
 * The service metrics of the flows that are not single API answers, on the
 * local stack with the deployed handlers writing metrics as in Lambda:
 * claims by outcome (the player site), the claim reconciler's outcomes,
 * backlog and oldest claiming age (its scheduled job), webhook attempts by
 * outcome and attempt number through the real delivery pipeline, and each
 * way a delivery ends (delivered, failed after the last attempt, cancelled),
 * counted once whoever ends it.
 */
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as claimReconciler, runClaimReconciler } from '../../lambdas/jobs/claim-reconciler/handler';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { createPlayerHandler } from '../../lambdas/player/player-pipeline';
import { definition as invitationsFunction } from '../../lambdas/invitations/handler';
import { definition as playerFunction } from '../../lambdas/player/handler';
import { definition as settingsFunction } from '../../lambdas/settings/handler';
import { definition as signInFunction } from '../../lambdas/sign-in/handler';
import { definition as webhookFunction } from '../../lambdas/webhooks/handler';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { observedJob } from '../../lambdas/shared/observability/invocation';
import { publishScopeMetrics } from '../../lambdas/shared/observability/metrics';
import { runInRequestScope } from '../../lambdas/shared/observability/request-scope';
import { type Platform } from '../../lambdas/shared/platform';
import { newEventId, type EventEnvelope } from '../../lambdas/outbox/outbox';
import { Deliveries } from '../../lambdas/webhooks/deliveries';
import { MAX_ATTEMPTS } from '../../lambdas/webhooks/delivery-schedule';
import { newWebhookId } from '../../lambdas/webhooks/webhook-items';
import { HANDLERS } from '../../local/handlers';
import { startHttpsReceiver } from '../support/https-receiver';
import { captureLogs, type EmfDocument, type LogCapture } from '../support/log-capture';
import { recordInput } from '../support/record-input';
import { SettingsBrowser } from '../support/settings-browser';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';
import { eventually } from '../support/eventually';
import { localPlatform } from '../support/local-platform';

let stack: TestStack;
let bridgeDown = false;
/** Limits raised out of reach (the limits have their own tests); the ticket bridge can be switched off. */
let raised: Platform | undefined;
const raisedPlatform = () =>
  (raised ??= localPlatform({
    limits: LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: 100_000 })),
    localSwitches: { ticketBridgeDown: () => bridgeDown },
  }));

beforeAll(async () => {
  const handlers = {
    player: createPlayerHandler({ ...playerFunction, platform: raisedPlatform }),
    invitations: createPartnerApiHandler({ ...invitationsFunction, platform: raisedPlatform }),
    settings: createSettingsHandler({ ...settingsFunction, platform: raisedPlatform }),
    'sign-in': createSettingsHandler({ ...signInFunction, platform: raisedPlatform }),
    webhooks: createSettingsHandler({ ...webhookFunction, platform: raisedPlatform }),
  };
  // Retry waits x 0.0001: a failed first attempt is retried within a second.
  stack = await startTestStack({ handlers: { ...HANDLERS, ...handlers }, webhooks: { allowLocalWebhooks: true, waitScale: 0.0001 } });
});
afterAll(() => stack?.stop());

let logs: LogCapture;
beforeEach(() => {
  vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'partner-api-test-fn');
  logs = captureLogs();
  bridgeDown = false;
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

/** Every value written for `metric`, with its own dimensions' values (service and stage checked on the way). */
function emitted(metric: string): { dimensions: Record<string, string>; value: number }[] {
  return logs.metrics().flatMap((document: EmfDocument) => {
    const directive = document._aws.CloudWatchMetrics[0];
    if (!directive.Metrics.some((m) => m.Name === metric)) return [];
    const [names] = directive.Dimensions;
    expect(names.slice(0, 2)).toEqual(['service', 'stage']);
    const dimensions = Object.fromEntries(names.slice(2).map((name) => [name, String(document[name])]));
    const values = document[metric] as number | number[];
    return (Array.isArray(values) ? values : [values]).map((value) => ({ dimensions, value }));
  });
}

/** Values of `metric` summed by one of its dimensions. */
function totalsBy(metric: string, dimension: string): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const { dimensions, value } of emitted(metric)) totals[dimensions[dimension]] = (totals[dimensions[dimension]] ?? 0) + value;
  return totals;
}

const lambdaContext = (awsRequestId: string): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'partner-api-test-claim-reconciler',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:partner-api-test-claim-reconciler',
  memoryLimitInMB: '512',
  awsRequestId,
  logGroupName: '/aws/lambda/partner-api-test-claim-reconciler',
  logStreamName: 'test',
  getRemainingTimeInMillis: () => 60_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

describe('claims and their reconciliation', () => {
  let serial = 0;
  async function invitation(org: Awaited<ReturnType<typeof createOrgWithManagerKey>>) {
    const response = await stack.call(`/partners/${org.partner_id}/invitations`, {
      method: 'POST',
      headers: { ...bearer(org.key.key), 'Content-Type': 'application/json', 'Idempotency-Key': `metrics-${(serial += 1)}-${Date.now()}` },
      body: JSON.stringify({ game: 'minecraft' }),
    });
    expect(response.status).toBe(201);
    const { data } = (await response.json()) as { data: { id: string; link: string } };
    const [page, fragment] = data.link.split('#');
    return { id: data.id, page, token: new URLSearchParams(fragment).get('token') as string };
  }
  const claim = (page: string, token: string, cookie?: string) =>
    fetch(`${page}/claim`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) },
      body: JSON.stringify({ token, in_game_name: 'Steve', game_account_id: '069a79f4-44e9-4726-a5be-fca90e38aaf5' }),
    });

  it('counts every claim submission by outcome, and the reconciler its outcomes, backlog and oldest claim', async () => {
    // Prepare
    const org = await createOrgWithManagerKey(stack.office, ['invitations:read', 'invitations:write', 'tickets:read']);
    const first = await invitation(org);
    const revoked = await invitation(org);
    expect((await stack.call(`/partners/${org.partner_id}/invitations/${revoked.id}/revoke`, { method: 'POST', headers: bearer(org.key.key) })).status).toBe(200);
    const deferred = await invitation(org);

    // Act: a wrong token, the claim, the same browser again, another browser, a revoked link, a claim while the ticket store is down.
    expect((await claim(first.page, revoked.token)).status).toBe(409);
    const claimed = await claim(first.page, first.token);
    expect(claimed.status).toBe(201);
    const cookie = (claimed.headers.get('set-cookie') as string).split(';')[0];
    expect((await claim(first.page, first.token, cookie)).status).toBe(200);
    expect((await claim(first.page, first.token)).status).toBe(409);
    expect((await claim(revoked.page, revoked.token)).status).toBe(409);
    bridgeDown = true;
    expect((await claim(deferred.page, deferred.token)).status).toBe(202);
    bridgeDown = false;

    // Assess
    expect(totalsBy('Claims', 'outcome')).toEqual({ invalid_link: 1, claimed: 1, resubmitted: 1, already_claimed: 1, unavailable: 1, ticket_deferred: 1 });

    // Act: the scheduled job now (the claim is too young for it), then a run two minutes later (the store is back).
    const young = await claimReconciler({}, lambdaContext('reconcile-now'));
    await observedJob('claim-reconciler', () => runClaimReconciler(stack.client, stack.tables.domain, 'always', () => new Date(Date.now() + 120_000)))({}, lambdaContext('reconcile-later'));

    // Assess
    expect(young).toMatchObject({ claiming: 1, joined: 0 });
    const runs = logs.metrics().filter((d) => 'ClaimingBacklog' in d);
    expect(runs.map((d) => [d.request_id, d.ClaimingBacklog])).toEqual([
      ['reconcile-now', 1],
      ['reconcile-later', 1],
    ]);
    expect(runs[0].ClaimingOldestAgeSeconds).toBeLessThan(60);
    expect(runs[1].ClaimingOldestAgeSeconds).toBeGreaterThanOrEqual(120);
    const outcomes = emitted('ReconcilerOutcomes');
    expect(outcomes.map(({ dimensions, value }) => [dimensions.outcome, value])).toEqual([
      ['joined', 0],
      ['deferred', 0],
      ['cleared', 0],
      ['joined', 1],
      ['deferred', 0],
      ['cleared', 0],
    ]);
  });
});

describe('webhook deliveries', () => {
  it('counts each attempt by outcome and number through the delivery pipeline, and the delivery once when it ends', async () => {
    // Prepare: a verified callback whose receiver fails the first business event once.
    const password = 'correct horse battery';
    const email = `metrics-${Date.now()}@example.com`;
    const { account_id } = await stack.office.accounts.create('Metrics manager', { email, password });
    const { partner_id } = await stack.office.organizations.create('Metered');
    await stack.office.memberships.set(partner_id, account_id, 'manager');
    const browser = new SettingsBrowser(stack);
    expect((await browser.signIn(email, password)).status).toBe(200);
    let businessEvents = 0;
    const receiver = await startHttpsReceiver((request) => {
      const event = JSON.parse(request.rawBody.toString('utf8')) as { type: string; data: { challenge?: string } };
      if (event.type === 'webhook.verification') return { status: 200, body: JSON.stringify({ challenge: event.data.challenge }), headers: { 'content-type': 'application/json' } };
      businessEvents += 1;
      return { status: businessEvents === 1 ? 503 : 200 };
    });
    try {
      const created = await browser.post('/settings/api/webhooks', { partner_id, url: receiver.url, password });
      const { webhook } = await created.json();
      expect((await browser.post(`/settings/api/webhooks/${webhook.webhook_id}/verify`)).status).toBe(200);

      // Act
      const eventId = (await stack.office.records!.put(partner_id, recordInput('Metered'))).event_id;
      await eventually(async () => (await stack.office.webhooks.deliveriesOf(webhook.webhook_id)).deliveries.find((d) => d.event_id === eventId && d.status === 'delivered'), 'the delivery');
      await stack.webhooks!.idle();
    } finally {
      await receiver.close();
    }

    // Assess
    expect(emitted('WebhookAttempts').map(({ dimensions, value }) => [dimensions.outcome, dimensions.attempt, value])).toEqual([
      ['retry_scheduled', '1', 1],
      ['delivered', '2', 1],
    ]);
    expect(totalsBy('WebhookDeliveries', 'outcome')).toEqual({ delivered: 1 });
  });

  it('counts a delivery failed after its last attempt, and one cancelled, once each however often the write is tried', async () => {
    // Prepare: two deliveries of a callback, the first at its last attempt.
    const deliveries = new Deliveries(stack.client, stack.tables.access);
    const webhookId = newWebhookId();
    const event = (n: number): EventEnvelope => ({ id: newEventId(new Date()), type: 'record.created', api_version: 'v1', partner_id: 'org_metered', created_at: new Date().toISOString(), data: { record_id: `rec_metered_${n}` } });
    const { item: last } = await deliveries.createForEvent(webhookId, event(1));
    const { item: open } = await deliveries.createForEvent(webhookId, event(2));
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt += 1) {
      await deliveries.claim(webhookId, last.delivery_id, attempt, 0);
      await deliveries.record(webhookId, last.delivery_id, attempt, 0, { delivered: false, reason: 'HTTP_5xx', httpStatus: 500 });
    }

    // Act: in an invocation each (the worker's, the settings API's), each write tried twice.
    await runInRequestScope('req-ends', async () => {
      await deliveries.claim(webhookId, last.delivery_id, MAX_ATTEMPTS, 0);
      const results = [
        await deliveries.record(webhookId, last.delivery_id, MAX_ATTEMPTS, 0, { delivered: false, reason: 'HTTP_5xx', httpStatus: 500 }),
        await deliveries.record(webhookId, last.delivery_id, MAX_ATTEMPTS, 0, { delivered: false, reason: 'HTTP_5xx', httpStatus: 500 }),
        await deliveries.cancel(webhookId, open.delivery_id, undefined),
        await deliveries.cancel(webhookId, open.delivery_id, undefined),
      ];
      expect(results).toEqual(['failed', undefined, true, false]);
      publishScopeMetrics();
    });

    // Assess
    expect(emitted('WebhookDeliveries').map(({ dimensions, value }) => [dimensions.outcome, value])).toEqual([
      ['failed', 1],
      ['cancelled', 1],
    ]);
  });
});
