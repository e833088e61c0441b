/**
 * One request to a receiver and what it means: the signed POST (signing.ts:
 * the body's bytes are fixed per event, the timestamp and signature are this
 * attempt's), through the guarded sender (destination/safe-sender.ts: the
 * address checked at every attempt, the connection made to the checked
 * address, no redirect followed, the answer read only up to a small cap).
 *
 * A business event is delivered by any 2xx within 8 seconds; otherwise the
 * spec's reason: HTTP_3xx, HTTP_4xx, HTTP_5xx for an answer (any other status
 * counts with 5xx), the sender's transport reasons for none. A verification
 * passes only on a 200 whose JSON body, at most 1024 bytes, is exactly
 * `{challenge: <the one sent>}`.
 */
import { randomBytes } from 'node:crypto';
import { newEventId } from '../outbox/outbox';
import type { SendOutcome } from './destination/safe-sender';
import { webhookHeaders } from './signing';
import type { AttemptResult } from './deliveries';
import type { FailureReason } from './webhook-items';
import type { WebhookRuntime } from './webhook-runtime';

/** A verification answer longer than this is not accepted. */
export const CHALLENGE_RESPONSE_MAX_BYTES = 1024;

export interface Target {
  readonly url: string;
  readonly secret: string;
}

/** POST `body` (the event's exact bytes) to the target, signed now. */
export function post(runtime: WebhookRuntime, target: Target, eventId: string, body: string, now: Date): Promise<SendOutcome> {
  return runtime.send({ url: target.url, body, headers: webhookHeaders({ secret: target.secret, eventId, body, now }) });
}

/** What an HTTP status means for a delivery. */
export function statusReason(status: number): FailureReason | undefined {
  if (status >= 200 && status < 300) return undefined;
  if (status >= 300 && status < 400) return 'HTTP_3xx';
  if (status >= 400 && status < 500) return 'HTTP_4xx';
  return 'HTTP_5xx';
}

/** A business event's outcome: any 2xx delivers. */
export function deliveryResult(outcome: SendOutcome): AttemptResult {
  if (outcome.kind === 'failure') return { delivered: false, reason: outcome.reason };
  const reason = statusReason(outcome.status);
  return reason ? { delivered: false, reason, httpStatus: outcome.status } : { delivered: true, httpStatus: outcome.status };
}

/** The service-generated events (not in the delivery list, no subscription needed). */
export function controlEvent(partnerId: string, now: Date, type: 'webhook.verification' | 'webhook.test'): { envelope: Record<string, unknown>; challenge?: string } {
  const challenge = type === 'webhook.verification' ? randomBytes(24).toString('base64url') : undefined;
  const envelope = {
    id: newEventId(now),
    type,
    api_version: 'v1',
    partner_id: partnerId,
    created_at: now.toISOString(),
    data: challenge !== undefined ? { challenge } : { message: 'This is a test event from web settings.' },
  };
  return { envelope, ...(challenge !== undefined ? { challenge } : {}) };
}

/** A verification's outcome: only a 200 echoing the challenge in a small JSON body passes. */
export function verificationResult(outcome: SendOutcome, challenge: string): { passed: true; httpStatus: number } | { passed: false; reason: FailureReason; httpStatus?: number } {
  if (outcome.kind === 'failure') return { passed: false, reason: outcome.reason };
  const status = outcome.status;
  const reason = statusReason(status);
  if (reason) return { passed: false, reason, httpStatus: status };
  if (status !== 200 || outcome.truncated || outcome.body.length > CHALLENGE_RESPONSE_MAX_BYTES) {
    return { passed: false, reason: 'CHALLENGE_RESPONSE_INVALID', httpStatus: status };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(outcome.body));
  } catch {
    return { passed: false, reason: 'CHALLENGE_RESPONSE_INVALID', httpStatus: status };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || typeof (parsed as { challenge?: unknown }).challenge !== 'string') {
    return { passed: false, reason: 'CHALLENGE_RESPONSE_INVALID', httpStatus: status };
  }
  if ((parsed as { challenge: string }).challenge !== challenge) return { passed: false, reason: 'CHALLENGE_MISMATCH', httpStatus: status };
  return { passed: true, httpStatus: status };
}

