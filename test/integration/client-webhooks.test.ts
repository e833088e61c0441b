/**
 * The client package's webhook helpers (client/src/webhooks.ts) against real signed deliveries of the local pipeline:
 * a callback created in web settings, its verification challenge answered by `createWebhookProcessor`, a business
 * event verified and handed over once, and a resend of the same delivery recognized as a duplicate by the file
 * de-duplicator (answered 2xx, not handed over again).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookProcessor, fileDeduplicator, type WebhookEvent } from '../../client/src';
import { eventually } from '../support/eventually';
import { startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver';
import { startTestStack, type TestStack } from '../support/test-stack';
import { businessRequests, raisedWebhookHandlers, webhookWorld } from '../support/webhook-world';

let stack: TestStack;
let receiver: HttpsReceiver | undefined;
const folder = mkdtempSync(join(tmpdir(), 'client-webhooks-'));

beforeAll(async () => {
  stack = await startTestStack({ handlers: raisedWebhookHandlers(), webhooks: { allowLocalWebhooks: true, waitScale: 0.001, resolve: async () => ['127.0.0.1'] } });
});
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  rmSync(folder, { recursive: true, force: true });
});

const world = webhookWorld(() => stack);

describe("the client's webhook helpers on the pipeline's real deliveries", () => {
  it('answers the challenge, verifies and hands over a business event once, and answers its resend as a duplicate', async () => {
    const m = await world.manager();
    const events: WebhookEvent[] = [];
    let process: ReturnType<typeof createWebhookProcessor> | undefined;
    receiver = await startHttpsReceiver(async (request) => {
      if (!process) return { status: 503 };
      const answer = await process(request.rawBody, request.headers as Record<string, string>);
      return { status: answer.status, body: answer.body, headers: { ...answer.headers } };
    });

    const created = await world.create(m, receiver.url);
    expect(created.status).toBe(201);
    const { webhook, secret } = (await created.json()) as { webhook: { webhook_id: string }; secret: string };
    process = createWebhookProcessor({ secrets: [secret], partnerId: m.partner_id, dedup: fileDeduplicator(join(folder, 'processed.log')), onEvent: (event) => void events.push(event) });

    // The challenge, answered by answerVerification inside the processor.
    const verified = await m.browser.post(`/settings/api/webhooks/${webhook.webhook_id}/verify`);
    expect((await verified.json()).verification).toEqual({ result: 'verified', failure_reason: null, http_status: 200 });

    const eventId = await world.businessEvent(m.partner_id);
    const delivery = await world.deliveryOf(webhook.webhook_id, eventId, (d) => d.status === 'delivered');
    expect(events.map((e) => [e.id, e.type])).toEqual([[eventId, 'record.created']]);

    // The same event again (a resend): verified, recognized by its id, answered 2xx, not handed over twice.
    const resent = await m.browser.post(`/settings/api/webhooks/${webhook.webhook_id}/deliveries/${delivery.delivery_id}/resend`);
    expect(resent.status).toBe(200);
    await eventually(async () => (businessRequests(receiver!).length >= 2 ? true : undefined), 'the resend');
    await world.deliveryOf(webhook.webhook_id, eventId, (d) => d.status === 'delivered' && (d as { resends?: number }).resends === 1);
    expect(events).toHaveLength(1);
    // The same event id on both requests (each signed over its own timestamp, which may be the same second).
    const [first, second] = businessRequests(receiver);
    expect(second.headers['x-service-event-id']).toBe(first.headers['x-service-event-id']);
  }, 120_000);
});
