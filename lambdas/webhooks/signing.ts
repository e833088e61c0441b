/**
 * How a webhook request proves it comes from the service (spec "Events":
 * "Request headers" and "Signature"). The key is the UTF-8 bytes of the
 * whole `whsec_...` secret, prefix kept and hex not decoded; the signed input
 * is the delivery's timestamp, a dot, and the raw body bytes. Every attempt
 * signs afresh with its own timestamp, so a retry carries the same event id
 * and body but a new timestamp and signature.
 *
 * The body is signed exactly as it is sent: callers pass the serialized JSON
 * string and send that same string.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const WEBHOOK_USER_AGENT = 'Service-Webhooks/1.0';
export const SIGNATURE_VERSION = 'v1';
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** `v1=` and the lowercase hex HMAC-SHA256 of `${timestamp}.${body}` keyed with the whole secret string. */
export function signatureOf(secret: string, timestamp: number, body: string): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError('The webhook timestamp is integer Unix seconds.');
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.from(`${timestamp}.`, 'utf8'))
    .update(Buffer.from(body, 'utf8'))
    .digest('hex');
  return `${SIGNATURE_VERSION}=${mac}`;
}

/** The five headers of a delivery attempt, signed at `now` (integer Unix seconds). */
export function webhookHeaders(input: { secret: string; eventId: string; body: string; now: Date }): Record<string, string> {
  const timestamp = Math.floor(input.now.getTime() / 1000);
  return {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    'X-Service-Event-Id': input.eventId,
    'X-Service-Timestamp': String(timestamp),
    'X-Service-Signature': signatureOf(input.secret, timestamp, input.body),
  };
}

/** A new callback secret: `whsec_` and 64 lowercase hex characters (32 random bytes). Shown once at creation. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('hex')}`;
}
