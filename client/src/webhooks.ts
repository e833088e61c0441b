/**
 * Webhooks for integrators (the client package's half for receiving): verifies the service's signed webhook
 * deliveries, answers verification challenges, de-duplicates business events persistently, and wraps it all in a
 * node:http listener. The one implementation: the samples examples/webhook-receiver.ts and examples/integration.ts run on it.
 *
 * Only `node:` built-ins (Node 18+; the repository runs it on Node 24). The rules it follows come from the API
 * spec, section "Events":
 *
 * - `X-Service-Signature: v1=<64 lowercase hex>` is HMAC-SHA256, keyed with
 *   the UTF-8 bytes of the whole `whsec_...` secret (prefix kept, hex part
 *   not decoded), over `<X-Service-Timestamp>.<raw body bytes>`.
 * - Verify over the raw bytes before JSON parsing, cap the body (64 KiB),
 *   require an integer timestamp within ~300 s of the clock, compare in
 *   constant time, check body `id` against `X-Service-Event-Id` and
 *   `partner_id` against the configuration.
 * - Retries keep the event id and payload but sign again with a new
 *   timestamp, so the event id (never the signature) is the de-duplication
 *   key; return 2xx only after processing or reliable queuing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { close as closeFd, closeSync, existsSync, fdatasync, fsyncSync, ftruncateSync, openSync, readFileSync, write } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname } from 'node:path';

/** Body cap the spec suggests; the service's envelopes are far smaller. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** Allowed clock difference between X-Service-Timestamp and the receiver's clock, seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** The verification answer `{"challenge": ...}` must fit in this many bytes. */
export const MAX_CHALLENGE_RESPONSE_BYTES = 1024;

export const SIGNATURE_HEADER = 'x-service-signature';
export const TIMESTAMP_HEADER = 'x-service-timestamp';
export const EVENT_ID_HEADER = 'x-service-event-id';

import { BUSINESS_EVENT_TYPES, type BusinessEvent, type BusinessEventType } from './events.generated.js';

export { BUSINESS_EVENT_TYPES, type BusinessEvent, type BusinessEventType };
export type WebhookEventType = 'webhook.verification' | 'webhook.test' | BusinessEventType | (string & {});

/** The event envelope (the webhook body). */
export interface WebhookEvent {
  readonly id: string;
  readonly type: WebhookEventType;
  readonly api_version: string;
  readonly partner_id: string;
  /** Time of the business event, not of the delivery. */
  readonly created_at: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export type VerifyFailureReason =
  | 'BODY_TOO_LARGE'
  | 'MISSING_HEADER'
  | 'BAD_TIMESTAMP'
  | 'STALE_TIMESTAMP'
  | 'BAD_SIGNATURE'
  | 'INVALID_JSON'
  | 'EVENT_ID_MISMATCH'
  | 'PARTNER_MISMATCH';

export type VerifyResult =
  | { readonly ok: true; readonly event: WebhookEvent; /** Which of `secrets` signed it (0 or 1). */ readonly secretIndex: number }
  | { readonly ok: false; readonly reason: VerifyFailureReason };

export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyOptions {
  /** The body exactly as received: never a parsed and re-serialized object. */
  readonly rawBody: Uint8Array;
  /** Request headers; names are matched case-insensitively (node:http's `req.headers` fits as is). */
  readonly headers: HeaderBag;
  /** One secret, or two while rotating: each the whole `whsec_...` string. */
  readonly secrets: readonly string[];
  /** When given, the event's `partner_id` must equal it. */
  readonly partnerId?: string | undefined;
  readonly now?: Date | undefined;
  readonly toleranceSeconds?: number | undefined;
  readonly maxBodyBytes?: number | undefined;
}

const SIGNATURE_PATTERN = /^v1=([0-9a-f]{64})$/;
/** Unix seconds as a plain decimal integer: no sign, fraction, exponent or blanks. */
const TIMESTAMP_PATTERN = /^[0-9]{1,12}$/;

/** Throws on a configuration mistake (these are bugs in the caller, not bad deliveries). */
function checkSecrets(secrets: readonly string[]): void {
  if (!Array.isArray(secrets) || secrets.length < 1 || secrets.length > 2) {
    throw new TypeError('webhook receiver: configure one secret, or two while rotating');
  }
  for (const secret of secrets) {
    // The key is the whole string, prefix included: a stripped or hex-decoded secret never matches.
    if (typeof secret !== 'string' || !secret.startsWith('whsec_') || secret.length <= 'whsec_'.length) {
      throw new TypeError('webhook receiver: each secret must be the whole "whsec_..." string as shown at creation');
    }
  }
}

function checkLimits(toleranceSeconds: number, maxBodyBytes: number): void {
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) throw new RangeError('webhook receiver: toleranceSeconds must be >= 0');
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) throw new RangeError('webhook receiver: maxBodyBytes must be a positive integer');
}

/** The single value of a header, or undefined when it is absent, empty or given more than once. */
function singleHeader(headers: HeaderBag, lowerName: string): string | undefined {
  let found: string | undefined;
  let count = 0;
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() !== lowerName) continue;
    const value = headers[name];
    if (value === undefined) continue;
    for (const one of typeof value === 'string' ? [value] : value) {
      count += 1;
      found = one;
    }
  }
  return count === 1 && found !== '' ? found : undefined;
}

function signatureOf(secret: string, timestamp: string, rawBody: Uint8Array): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`, 'utf8').update(rawBody).digest();
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The envelope's six fields, or undefined when the body is not an event envelope. */
function envelopeOf(parsed: unknown): WebhookEvent | undefined {
  if (!isPlainObject(parsed)) return undefined;
  const { id, type, api_version, partner_id, created_at, data } = parsed;
  if (typeof id !== 'string' || id === '' || typeof type !== 'string' || type === '') return undefined;
  if (typeof api_version !== 'string' || typeof partner_id !== 'string' || partner_id === '' || typeof created_at !== 'string') return undefined;
  if (!isPlainObject(data)) return undefined;
  return { id, type, api_version, partner_id, created_at, data };
}

/**
 * Verifies one delivery. Order matters: the size cap comes before any
 * hashing, the signature before any parsing, so an unauthenticated body is
 * never parsed. Throws TypeError/RangeError only for misconfiguration.
 */
export function verifyWebhook(options: VerifyOptions): VerifyResult {
  const { rawBody, headers, secrets, partnerId } = options;
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  checkSecrets(secrets);
  checkLimits(toleranceSeconds, maxBodyBytes);
  if (!(rawBody instanceof Uint8Array)) throw new TypeError('webhook receiver: rawBody must be the raw bytes (Buffer or Uint8Array)');

  if (rawBody.byteLength > maxBodyBytes) return { ok: false, reason: 'BODY_TOO_LARGE' };

  const timestamp = singleHeader(headers, TIMESTAMP_HEADER);
  const signature = singleHeader(headers, SIGNATURE_HEADER);
  const eventIdHeader = singleHeader(headers, EVENT_ID_HEADER);
  if (timestamp === undefined || signature === undefined || eventIdHeader === undefined) return { ok: false, reason: 'MISSING_HEADER' };

  if (!TIMESTAMP_PATTERN.test(timestamp)) return { ok: false, reason: 'BAD_TIMESTAMP' };
  const nowSeconds = (options.now ?? new Date()).getTime() / 1000;
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return { ok: false, reason: 'STALE_TIMESTAMP' };

  const presentedHex = SIGNATURE_PATTERN.exec(signature)?.[1];
  if (presentedHex === undefined) return { ok: false, reason: 'BAD_SIGNATURE' };
  const presentedBytes = Buffer.from(presentedHex, 'hex');
  let secretIndex = -1;
  // Every secret is tried (no early exit), and each comparison is constant-time on two 32-byte buffers.
  secrets.forEach((secret, index) => {
    if (timingSafeEqual(signatureOf(secret, timestamp, rawBody), presentedBytes) && secretIndex < 0) secretIndex = index;
  });
  if (secretIndex < 0) return { ok: false, reason: 'BAD_SIGNATURE' };

  let event: WebhookEvent | undefined;
  try {
    event = envelopeOf(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(rawBody)));
  } catch {
    event = undefined;
  }
  if (!event) return { ok: false, reason: 'INVALID_JSON' };
  if (event.id !== eventIdHeader) return { ok: false, reason: 'EVENT_ID_MISMATCH' };
  if (partnerId !== undefined && event.partner_id !== partnerId) return { ok: false, reason: 'PARTNER_MISMATCH' };
  return { ok: true, event, secretIndex };
}

/**
 * The HTTP 200 body answering a verified `webhook.verification` event:
 * `{"challenge":"<same value>"}`, at most 1024 bytes. Throws when the event
 * is not a verification event with a string challenge, or the answer would
 * not fit (the callback then stays unverified).
 */
export function answerVerification(event: WebhookEvent): string {
  if (event.type !== 'webhook.verification') throw new TypeError(`webhook receiver: not a verification event: ${event.type}`);
  const challenge = event.data.challenge;
  if (typeof challenge !== 'string') throw new TypeError('webhook receiver: verification event without a string challenge');
  const body = JSON.stringify({ challenge });
  if (Buffer.byteLength(body, 'utf8') > MAX_CHALLENGE_RESPONSE_BYTES) {
    throw new RangeError(`webhook receiver: challenge answer over ${MAX_CHALLENGE_RESPONSE_BYTES} bytes`);
  }
  return body;
}

// ---------------------------------------------------------------------------
// De-duplication

/**
 * Which business events were processed, by event id. The handler asks
 * `has` before processing and calls `claim` only after `onEvent` resolved:
 * an event whose processing failed (or whose process crashed) is not marked,
 * so the service's retry processes it again. Claiming first would turn a
 * failed attempt into a silently dropped event. Delivery is at least once
 * either way, so processing must tolerate a repeat (re-reading the resource
 * through the API, as the spec asks, does).
 */
export interface ProcessedEvents {
  /** True when the event id was claimed before. */
  has(eventId: string): Promise<boolean>;
  /** Records the event id durably; true the first time, false when it was already recorded. */
  claim(eventId: string): Promise<boolean>;
}

export interface FileDeduplicator extends ProcessedEvents {
  /** Number of event ids recorded. */
  readonly size: number;
  /** Waits for pending appends, then closes the file. */
  close(): Promise<void>;
}

function checkEventId(eventId: string): void {
  // Event ids travel in a header too, so a verified id never holds a line break.
  if (typeof eventId !== 'string' || eventId === '' || /[\r\n]/.test(eventId)) throw new TypeError('webhook receiver: invalid event id');
}

function writeAll(fd: number, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const step = (offset: number): void => {
      write(fd, bytes, offset, bytes.length - offset, null, (error, written) => {
        if (error) return reject(error);
        if (offset + written < bytes.length) return step(offset + written);
        resolve();
      });
    };
    step(0);
  });
}

function dataSync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
}

/**
 * Event ids kept in an append-only file, one id per line: the whole file is
 * loaded when this is called (at start), each claim is appended and
 * fdatasync'd before it resolves, so a claim survives a crash or restart.
 * A torn last line (a crash mid-append) is cut off on load. One process per
 * file: two processes sharing the file would not see each other's claims.
 * The file grows by about one id per business event; archive it (while the
 * receiver is stopped) after a few months, since resends of old events are
 * rare but possible.
 */
export function fileDeduplicator(path: string): FileDeduplicator {
  const created = !existsSync(path);
  const fd = openSync(path, 'a+', 0o600);
  const ids = new Set<string>();
  try {
    const bytes = readFileSync(fd);
    const complete = bytes.lastIndexOf(0x0a) + 1;
    if (complete < bytes.length) ftruncateSync(fd, complete);
    for (const line of bytes.subarray(0, complete).toString('utf8').split('\n')) if (line !== '') ids.add(line);
    if (created) {
      // Make the new file's directory entry durable too (not possible on every platform).
      try {
        const dir = openSync(dirname(path), 'r');
        try {
          fsyncSync(dir);
        } finally {
          closeSync(dir);
        }
      } catch {
        /* best effort */
      }
    }
  } catch (error) {
    closeSync(fd);
    throw error;
  }

  const pending = new Map<string, Promise<void>>();
  let queue: Promise<void> = Promise.resolve();
  let closed = false;

  async function claim(eventId: string): Promise<boolean> {
    checkEventId(eventId);
    for (;;) {
      if (closed) throw new Error('webhook receiver: deduplicator is closed');
      if (ids.has(eventId)) return false;
      const inFlight = pending.get(eventId);
      if (!inFlight) break;
      await inFlight.catch(() => undefined);
    }
    // Appends run one after another so lines never interleave.
    const append = queue.then(async () => {
      await writeAll(fd, Buffer.from(`${eventId}\n`, 'utf8'));
      await dataSync(fd);
    });
    queue = append.catch(() => undefined);
    pending.set(eventId, append);
    try {
      await append;
      ids.add(eventId);
      return true;
    } finally {
      pending.delete(eventId);
    }
  }

  return {
    get size() {
      return ids.size;
    },
    async has(eventId) {
      return ids.has(eventId);
    },
    claim,
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      await new Promise<void>((resolve, reject) => closeFd(fd, (error) => (error ? reject(error) : resolve())));
    },
  };
}

// ---------------------------------------------------------------------------
// Processing a delivery

export interface WebhookHandlerOptions {
  readonly secrets: readonly string[];
  readonly partnerId?: string | undefined;
  readonly dedup: ProcessedEvents;
  /**
   * Processes one business event (never the verification or test events).
   * The delivery is answered 2xx only after it resolved; if it throws the
   * answer is 500 and the service retries. The service waits 8 seconds per
   * attempt: enqueue reliably and return if processing takes longer.
   */
  readonly onEvent: (event: WebhookEvent, context: { readonly secretIndex: number }) => void | Promise<void>;
  /** Called once per request with what happened, for logging (holds no secret and no signature). */
  readonly onResult?: ((result: DeliveryResult) => void) | undefined;
  readonly toleranceSeconds?: number | undefined;
  readonly maxBodyBytes?: number | undefined;
  readonly now?: (() => Date) | undefined;
}

export type DeliveryOutcome =
  | { readonly kind: 'processed' | 'duplicate' | 'challenge_answered' | 'test_acknowledged'; readonly event: WebhookEvent; readonly secretIndex: number }
  | { readonly kind: 'failed'; readonly event: WebhookEvent; readonly secretIndex: number; readonly error: unknown }
  | { readonly kind: 'rejected'; readonly reason: VerifyFailureReason | 'METHOD_NOT_ALLOWED' | 'BAD_CHALLENGE' };

export type DeliveryResult = DeliveryOutcome & { readonly status: number };

export interface WebhookResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const REJECTION_STATUS: Readonly<Record<VerifyFailureReason, number>> = {
  BODY_TOO_LARGE: 413,
  MISSING_HEADER: 401,
  BAD_TIMESTAMP: 401,
  STALE_TIMESTAMP: 401,
  BAD_SIGNATURE: 401,
  INVALID_JSON: 400,
  EVENT_ID_MISMATCH: 400,
  PARTNER_MISMATCH: 400,
};

function reportResult(options: WebhookHandlerOptions, result: DeliveryResult): void {
  try {
    options.onResult?.(result);
  } catch {
    /* logging must not change the answer */
  }
}

function jsonResponse(status: number, body: unknown): WebhookResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }, body: status === 204 ? '' : JSON.stringify(body) };
}

function rejection(options: WebhookHandlerOptions, reason: VerifyFailureReason): WebhookResponse {
  const status = REJECTION_STATUS[reason];
  reportResult(options, { kind: 'rejected', reason, status });
  return jsonResponse(status, { error: reason });
}

/**
 * The framework-neutral core of the handler: given the raw body and the
 * headers of one POST, decides the answer. Use it directly behind Express
 * (with a raw body parser), a Lambda function URL or any other server.
 */
export function createWebhookProcessor(options: WebhookHandlerOptions): (rawBody: Uint8Array, headers: HeaderBag) => Promise<WebhookResponse> {
  checkSecrets(options.secrets);
  checkLimits(options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const { dedup, onEvent } = options;
  const report = (status: number, outcome: DeliveryOutcome): void => reportResult(options, { ...outcome, status });
  // Deliveries of one event id in flight in this process, so a duplicate arriving meanwhile waits instead of processing twice.
  const inFlight = new Map<string, Promise<'processed' | 'duplicate'>>();

  async function processBusinessEvent(event: WebhookEvent, secretIndex: number): Promise<WebhookResponse> {
    for (let running = inFlight.get(event.id); running; running = inFlight.get(event.id)) {
      await running.catch(() => undefined);
    }
    // No await between the loop's last check and this set: the map is the lock.
    const run = (async () => {
      if (await dedup.has(event.id)) return 'duplicate' as const;
      await onEvent(event, { secretIndex });
      await dedup.claim(event.id);
      return 'processed' as const;
    })();
    inFlight.set(event.id, run);
    try {
      const kind = await run;
      report(200, { kind, event, secretIndex });
      return jsonResponse(200, { received: true, duplicate: kind === 'duplicate' });
    } catch (error) {
      report(500, { kind: 'failed', event, secretIndex, error });
      return jsonResponse(500, { error: 'PROCESSING_FAILED' });
    } finally {
      inFlight.delete(event.id);
    }
  }

  return async (rawBody, headers) => {
    const verified = verifyWebhook({
      rawBody,
      headers,
      secrets: options.secrets,
      partnerId: options.partnerId,
      now: options.now?.(),
      toleranceSeconds: options.toleranceSeconds,
      maxBodyBytes: options.maxBodyBytes,
    });
    if (!verified.ok) return rejection(options, verified.reason);
    const { event, secretIndex } = verified;
    if (event.type === 'webhook.verification') {
      let body: string;
      try {
        body = answerVerification(event);
      } catch {
        report(400, { kind: 'rejected', reason: 'BAD_CHALLENGE' });
        return jsonResponse(400, { error: 'BAD_CHALLENGE' });
      }
      report(200, { kind: 'challenge_answered', event, secretIndex });
      return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, body };
    }
    if (event.type === 'webhook.test') {
      report(204, { kind: 'test_acknowledged', event, secretIndex });
      return jsonResponse(204, undefined);
    }
    return processBusinessEvent(event, secretIndex);
  };
}

/** Reads the request body, stopping at `maxBodyBytes`; 'TOO_LARGE' once the cap is passed. */
function readCappedBody(req: IncomingMessage, maxBodyBytes: number): Promise<Buffer | 'TOO_LARGE'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBodyBytes) return Promise.resolve('TOO_LARGE');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > maxBodyBytes) {
        cleanup();
        resolve('TOO_LARGE');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, total));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function send(res: ServerResponse, response: WebhookResponse, extraHeaders: Readonly<Record<string, string>> = {}): Promise<void> {
  return new Promise((resolve) => {
    // 'close' too: 'finish' never comes when the client is already gone.
    res.once('close', resolve);
    res.writeHead(response.status, { ...response.headers, ...extraHeaders });
    res.end(response.body === '' ? undefined : response.body, () => resolve());
  });
}

/**
 * A node:http (or node:https) request listener for the callback URL:
 * 405 for anything but POST, 413 beyond the body cap (checked while
 * reading), 401 for a missing/bad signature or timestamp, 400 for a body
 * that is not an event or whose id/partner does not match, 200 `{challenge}`
 * for verification, 204 for test events, 200 for a business event once
 * `onEvent` resolved (or when it was processed before), 500 if it threw.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const processDelivery = createWebhookProcessor(options);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      reportResult(options, { kind: 'rejected', reason: 'METHOD_NOT_ALLOWED', status: 405 });
      await send(res, jsonResponse(405, { error: 'METHOD_NOT_ALLOWED' }), { allow: 'POST' });
      return;
    }
    const body = await readCappedBody(req, maxBodyBytes);
    if (body === 'TOO_LARGE') {
      // Answer, then drop the connection rather than read the rest of an oversized body.
      await send(res, rejection(options, 'BODY_TOO_LARGE'), { connection: 'close' });
      req.destroy();
      return;
    }
    await send(res, await processDelivery(body, req.headers));
  }

  return (req, res) => {
    handle(req, res).catch(() => {
      // The client went away mid-body, or writing the answer failed: nothing useful left to say.
      if (!res.headersSent) res.statusCode = 500;
      res.destroy();
    });
  };
}
