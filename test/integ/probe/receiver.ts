/**
 * The integration test's webhook receiver: a Lambda function URL that handles deliveries with the client package's
 * own receiving code (client/src/webhooks.ts, what integrators run): the signature checked over the raw body with the
 * callback's secret, the verification challenge answered, and each verified business event recorded in the probe
 * table, where the assertion looks for it. Anything unsigned or signed otherwise is refused (401) and recorded nowhere.
 */
import type { LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import { createWebhookProcessor, type HeaderBag, type ProcessedEvents, type WebhookResponse } from '../../../client/src/webhooks';
import { createDocumentClient } from '../../../lambdas/shared/storage/dynamo-client';
import { dynamoProbeStore, type ProbeStore } from './probe-store';

/** Event ids this container processed: the service delivers at least once, and a repeat is answered 200 again. */
function memoryDeduplicator(): ProcessedEvents {
  const seen = new Set<string>();
  return {
    has: async (id) => seen.has(id),
    claim: async (id) => !seen.has(id) && Boolean(seen.add(id)),
  };
}

/** One delivery (the raw body and the headers) answered with the callback's secret from `store`. */
export function probeReceiver(store: ProbeStore): (rawBody: Uint8Array, headers: HeaderBag) => Promise<WebhookResponse> {
  const dedup = memoryDeduplicator();
  return async (rawBody, headers) => {
    const callback = await store.callback();
    // Nothing registered yet: no secret to check a signature with, so nothing is accepted.
    if (!callback) return { status: 503, headers: { 'content-type': 'application/json' }, body: '{"error":"NO_CALLBACK"}' };
    const process = createWebhookProcessor({
      secrets: [callback.secret],
      partnerId: callback.partnerId,
      dedup,
      onEvent: (event) => store.saveEvent({ id: event.id, type: event.type, partnerId: event.partner_id }),
      onResult: (result) => console.log(JSON.stringify({ delivery: result.kind, status: result.status, ...('reason' in result ? { reason: result.reason } : { event_id: result.event.id, type: result.event.type }) })),
    });
    return process(rawBody, headers);
  };
}

let receive: ReturnType<typeof probeReceiver> | undefined;

export async function handler(event: LambdaFunctionURLEvent): Promise<LambdaFunctionURLResult> {
  if (event.requestContext.http.method !== 'POST') return { statusCode: 405, headers: { allow: 'POST' } };
  receive ??= probeReceiver(dynamoProbeStore(createDocumentClient(), requiredEnv('PROBE_TABLE')));
  // A function URL hands a JSON body over as text (base64 only for binary types): its UTF-8 bytes are the bytes signed.
  const rawBody = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  const answer = await receive(rawBody, event.headers);
  return { statusCode: answer.status, headers: { ...answer.headers }, body: answer.body };
}

export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}
