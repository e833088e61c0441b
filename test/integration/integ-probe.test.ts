/**
 * The deployed integration test's probe (test/integ/probe) on the local stack: the provisioner's onboarding (the back
 * office's account, organization and key; the callback created and verified through web settings) and the receiver
 * (the client package's verification, behind an HTTPS server here, a function URL in AWS), with the code the test
 * deploys, so that a mistake in them shows here rather than in a deployment. What only AWS runs (the function URL's
 * event, the probe table, IAM, the integ-tests custom resources) is the deployed test's: docs/deploying.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookHeaders } from '../../lambdas/webhooks/signing';
import { onboard, recordEvent } from '../integ/probe/provisioner';
import type { ProbeCallback, ProbeStore, VerifiedEvent } from '../integ/probe/probe-store';
import { probeReceiver } from '../integ/probe/receiver';
import { eventually } from '../support/eventually';
import { startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver';
import { bearer, startTestStack, type TestStack } from '../support/test-stack';
import { raisedWebhookHandlers } from '../support/webhook-world';

/** The probe table's part the functions use, in memory. */
function memoryStore(): ProbeStore & { readonly events: VerifiedEvent[] } {
  let callback: ProbeCallback | undefined;
  const events: VerifiedEvent[] = [];
  return {
    events,
    saveCallback: async (saved) => void (callback = saved),
    callback: async () => callback,
    saveEvent: async (event) => void events.push(event),
  };
}

let stack: TestStack;
let receiver: HttpsReceiver;
const store = memoryStore();
const receive = probeReceiver(store);

beforeAll(async () => {
  stack = await startTestStack({ handlers: raisedWebhookHandlers(), webhooks: { allowLocalWebhooks: true, waitScale: 0.001, resolve: async () => ['127.0.0.1'] } });
  receiver = await startHttpsReceiver(async (request) => {
    const answer = await receive(request.rawBody, request.headers);
    return { status: answer.status, body: answer.body, headers: answer.headers };
  });
});
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

describe('the integration test’s probe', () => {
  it('refuses deliveries before a callback is registered', async () => {
    const body = JSON.stringify({ id: 'evt_x', type: 'record.created' });
    expect((await receive(Buffer.from(body), webhookHeaders({ secret: `whsec_${'0'.repeat(64)}`, eventId: 'evt_x', body, now: new Date() }))).status).toBe(503);
  });

  it('onboards a key and a verified callback, and receives the signed record.created the operator’s record makes', async () => {
    const onboarded = await onboard({ office: stack.office, webBaseUrl: stack.baseUrl, receiverUrl: receiver.url, store });

    const me = await stack.call('/me', { headers: bearer(onboarded.key) });
    expect(me.status).toBe(200);
    expect((await me.json()).data).toMatchObject({ key_id: onboarded.key_id, partner_id: onboarded.partner_id });
    expect((await store.callback())?.webhookId).toBe(onboarded.webhook_id);

    const eventId = await recordEvent(stack.office, onboarded.partner_id);
    const received = await eventually(async () => store.events.find((event) => event.id === eventId), `the receiver's ${eventId}`);
    expect(received).toEqual({ id: eventId, type: 'record.created', partnerId: onboarded.partner_id });
  });

  it('records nothing signed with another secret', async () => {
    const before = store.events.length;
    const callback = await store.callback();
    const body = JSON.stringify({ id: 'evt_forged', type: 'record.created', api_version: 'v1', partner_id: callback!.partnerId, created_at: new Date().toISOString(), data: {} });

    const answer = await receive(Buffer.from(body), webhookHeaders({ secret: `whsec_${'f'.repeat(64)}`, eventId: 'evt_forged', body, now: new Date() }));

    expect(answer.status).toBe(401);
    expect(store.events).toHaveLength(before);
  });
});
