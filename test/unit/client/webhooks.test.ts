/**
 * The client package's webhook helpers (client/src/webhooks.ts, which examples/webhook-receiver.ts runs on):
 * signature over the raw bytes with either of two rotating secrets, the
 * timestamp window, the body cap before any hashing, the envelope checks,
 * the challenge answer, the file-backed de-duplication across restarts, and
 * the node:http handler end to end on 127.0.0.1. Expected signatures are
 * computed here with createHmac, never with the module's own code.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  answerVerification,
  createWebhookHandler,
  fileDeduplicator,
  verifyWebhook,
  type DeliveryResult,
  type FileDeduplicator,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../../client/src/webhooks';

// A pass-through spy, so a test can tell whether any HMAC was computed at all.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, createHmac: vi.fn(actual.createHmac) };
});

const SECRET_OLD = 'whsec_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
const SECRET_NEW = 'whsec_fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210';
const NOW = new Date('2026-11-01T10:00:00.000Z');
const NOW_S = NOW.getTime() / 1000; // 1793527200
const PARTNER = 'org_1';

/** The body as the service might format it: spacing and key order a re-serialization would not keep. */
function bodyText(overrides: Partial<Record<keyof WebhookEvent, unknown>> = {}): string {
  const event = {
    id: 'evt_01HZX:seg2',
    type: 'record.updated',
    api_version: 'v1',
    partner_id: PARTNER,
    created_at: '2026-11-01T09:59:58.000Z',
    data: { record_id: 'rec_1', note: 'Größe ✓' },
    ...overrides,
  };
  return JSON.stringify(event, null, 1);
}

function sign(secret: string, timestamp: string, body: Uint8Array): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  mac.update(Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), body]));
  return `v1=${mac.digest('hex')}`;
}

function delivery(options: { secret?: string; timestamp?: string; body?: Buffer; eventId?: string } = {}) {
  const body = options.body ?? Buffer.from(bodyText(), 'utf8');
  const timestamp = options.timestamp ?? String(NOW_S);
  const eventId = options.eventId ?? (JSON.parse(body.toString('utf8')) as { id: string }).id;
  return {
    rawBody: body,
    headers: {
      'content-type': 'application/json',
      'x-service-event-id': eventId,
      'x-service-timestamp': timestamp,
      'x-service-signature': sign(options.secret ?? SECRET_OLD, timestamp, body),
    } as Record<string, string | string[] | undefined>,
  };
}

const verify = (d: ReturnType<typeof delivery>, extra: { secrets?: readonly string[]; partnerId?: string; now?: Date; maxBodyBytes?: number } = {}) =>
  verifyWebhook({ ...d, secrets: extra.secrets ?? [SECRET_OLD, SECRET_NEW], partnerId: extra.partnerId ?? PARTNER, now: extra.now ?? NOW, maxBodyBytes: extra.maxBodyBytes });

describe('verifyWebhook: signature', () => {
  it('matches a known vector: the key is the whole whsec_ string, the input `<timestamp>.<body>`', () => {
    const body = Buffer.from('{"id":"evt_01","type":"record.updated","api_version":"v1","partner_id":"org_1","created_at":"2026-11-01T09:59:58.000Z","data":{"record_id":"rec_1"}}');
    const headers = {
      'X-Service-Event-Id': 'evt_01',
      'X-Service-Timestamp': '1793527200',
      // openssl dgst -sha256 -hmac '<SECRET_OLD>' over '1793527200.<body>'
      'X-Service-Signature': 'v1=759b1685b08f8527c863d778eb0d37467abf83b39d28b136ced3cd086b91f95e',
    };
    const result = verifyWebhook({ rawBody: body, headers, secrets: [SECRET_OLD], now: NOW });
    expect(result).toEqual({
      ok: true,
      secretIndex: 0,
      event: { id: 'evt_01', type: 'record.updated', api_version: 'v1', partner_id: 'org_1', created_at: '2026-11-01T09:59:58.000Z', data: { record_id: 'rec_1' } },
    });
  });

  it('accepts a delivery signed with the first secret and says so', () => {
    const result = verify(delivery({ secret: SECRET_OLD }));
    expect(result.ok && result.secretIndex).toBe(0);
    expect(result.ok && result.event).toMatchObject({ id: 'evt_01HZX:seg2', type: 'record.updated', partner_id: PARTNER, data: { record_id: 'rec_1', note: 'Größe ✓' } });
  });

  it('accepts a delivery signed with the second secret during a rotation', () => {
    const result = verify(delivery({ secret: SECRET_NEW }));
    expect(result.ok && result.secretIndex).toBe(1);
  });

  it('refuses a delivery signed with a secret that is not configured', () => {
    expect(verify(delivery({ secret: SECRET_NEW }), { secrets: [SECRET_OLD] })).toEqual({ ok: false, reason: 'BAD_SIGNATURE' });
    expect(verify(delivery({ secret: 'whsec_something_else' }))).toEqual({ ok: false, reason: 'BAD_SIGNATURE' });
  });

  it('refuses a signature keyed without the whsec_ prefix or with the hex part decoded', () => {
    const d = delivery();
    const body = d.rawBody;
    const ts = String(NOW_S);
    const hexKeyed = `v1=${createHmac('sha256', Buffer.from(SECRET_OLD.slice(6), 'hex')).update(`${ts}.`).update(body).digest('hex')}`;
    const strippedKeyed = `v1=${createHmac('sha256', SECRET_OLD.slice(6)).update(`${ts}.`).update(body).digest('hex')}`;
    for (const signature of [hexKeyed, strippedKeyed]) {
      expect(verify({ ...d, headers: { ...d.headers, 'x-service-signature': signature } })).toEqual({ ok: false, reason: 'BAD_SIGNATURE' });
    }
  });

  it('refuses a body with one byte changed', () => {
    const d = delivery();
    for (const position of [0, Math.floor(d.rawBody.length / 2), d.rawBody.length - 1]) {
      const tampered = Buffer.from(d.rawBody);
      tampered[position] ^= 0x01;
      expect(verify({ ...d, rawBody: tampered })).toEqual({ ok: false, reason: 'BAD_SIGNATURE' });
    }
  });

  it('refuses a timestamp changed after signing', () => {
    const d = delivery();
    expect(verify({ ...d, headers: { ...d.headers, 'x-service-timestamp': String(NOW_S - 1) } })).toEqual({ ok: false, reason: 'BAD_SIGNATURE' });
  });

  it('verifies the raw bytes: parsed-and-reserialized JSON does not verify, either way round', () => {
    const d = delivery();
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(d.rawBody.toString('utf8'))), 'utf8');
    expect(reserialized.equals(d.rawBody)).toBe(false);
    // Signed over the raw body, presented re-serialized (what a JSON body parser hands you).
    expect(verify({ ...d, rawBody: reserialized })).toEqual({ ok: false, reason: 'BAD_SIGNATURE' });
    // Signed over a re-serialization, presented raw.
    const ts = String(NOW_S);
    expect(verify({ ...d, headers: { ...d.headers, 'x-service-signature': sign(SECRET_OLD, ts, reserialized) } })).toEqual({ ok: false, reason: 'BAD_SIGNATURE' });
  });

  it('refuses signature headers not of the form v1=<64 lowercase hex>', () => {
    const d = delivery();
    const good = d.headers['x-service-signature'] as string;
    const hex = good.slice(3);
    for (const signature of [
      `v1=${hex.toUpperCase()}`,
      hex,
      `V1=${hex}`,
      `v0=${hex}`,
      `v1=${hex.slice(0, 63)}`,
      `v1=${hex}0`,
      `v1=${hex} `,
      ` v1=${hex}`,
      `v1=${hex},v1=${hex}`,
      `t=${NOW_S},v1=${hex}`,
    ]) {
      expect(verify({ ...d, headers: { ...d.headers, 'x-service-signature': signature } }), signature).toEqual({ ok: false, reason: 'BAD_SIGNATURE' });
    }
  });
});

describe('verifyWebhook: timestamp', () => {
  it('accepts 299 s and exactly 300 s either side of the clock', () => {
    for (const offset of [-300, -299, 0, 299, 300]) {
      expect(verify(delivery({ timestamp: String(NOW_S + offset) })).ok, `offset ${offset}`).toBe(true);
    }
  });

  it('refuses a timestamp 301 s old or 301 s in the future, correctly signed or not', () => {
    for (const offset of [-301, 301, -86_400, 86_400]) {
      expect(verify(delivery({ timestamp: String(NOW_S + offset) })), `offset ${offset}`).toEqual({ ok: false, reason: 'STALE_TIMESTAMP' });
    }
  });

  it('honours a configured tolerance', () => {
    const d = delivery({ timestamp: String(NOW_S - 61) });
    expect(verifyWebhook({ ...d, secrets: [SECRET_OLD], now: NOW, toleranceSeconds: 60 })).toEqual({ ok: false, reason: 'STALE_TIMESTAMP' });
    expect(verifyWebhook({ ...d, secrets: [SECRET_OLD], now: NOW, toleranceSeconds: 61 }).ok).toBe(true);
  });

  it('refuses a timestamp that is not a plain integer, even when the signature covers it', () => {
    for (const timestamp of [`${NOW_S}.5`, `${NOW_S}.0`, '1.7935272e9', ` ${NOW_S}`, `${NOW_S} `, `+${NOW_S}`, `-${NOW_S}`, '0x6AE1E640', 'now', `${NOW_S}000000`]) {
      expect(verify(delivery({ timestamp })), timestamp).toEqual({ ok: false, reason: 'BAD_TIMESTAMP' });
    }
  });
});

describe('verifyWebhook: body cap, headers, envelope', () => {
  beforeEach(() => {
    vi.mocked(createHmac).mockClear();
  });

  it('refuses a body over the cap before computing any HMAC, even when correctly signed', () => {
    const big = Buffer.from(bodyText({ data: { record_id: 'rec_1', pad: 'x'.repeat(64 * 1024) } }), 'utf8');
    const d = delivery({ body: big });
    vi.mocked(createHmac).mockClear();
    expect(verify(d)).toEqual({ ok: false, reason: 'BODY_TOO_LARGE' });
    expect(createHmac).not.toHaveBeenCalled();
    // Before the header checks too: an oversized body without any header is still BODY_TOO_LARGE.
    expect(verify({ rawBody: big, headers: {} })).toEqual({ ok: false, reason: 'BODY_TOO_LARGE' });
    expect(createHmac).not.toHaveBeenCalled();
  });

  it('takes the body exactly at the cap, and honours a configured cap', () => {
    const d = delivery();
    expect(verify(d, { maxBodyBytes: d.rawBody.length }).ok).toBe(true);
    expect(verify(d, { maxBodyBytes: d.rawBody.length - 1 })).toEqual({ ok: false, reason: 'BODY_TOO_LARGE' });
  });

  it('refuses a delivery missing any of the three headers, or repeating one', () => {
    const d = delivery();
    for (const name of ['x-service-event-id', 'x-service-timestamp', 'x-service-signature']) {
      const headers = { ...d.headers };
      delete headers[name];
      expect(verify({ ...d, headers }), name).toEqual({ ok: false, reason: 'MISSING_HEADER' });
      expect(verify({ ...d, headers: { ...d.headers, [name]: '' } }), `${name} empty`).toEqual({ ok: false, reason: 'MISSING_HEADER' });
      const value = d.headers[name] as string;
      expect(verify({ ...d, headers: { ...d.headers, [name]: [value, value] } }), `${name} twice`).toEqual({ ok: false, reason: 'MISSING_HEADER' });
      const upper = name.toUpperCase();
      expect(verify({ ...d, headers: { ...d.headers, [upper]: value } }), `${name} in two spellings`).toEqual({ ok: false, reason: 'MISSING_HEADER' });
    }
  });

  it('finds headers whatever their case, and as one-element arrays', () => {
    const d = delivery();
    const headers = {
      'X-Service-Event-Id': d.headers['x-service-event-id'],
      'x-SERVICE-timestamp': [d.headers['x-service-timestamp'] as string],
      'X-SERVICE-SIGNATURE': d.headers['x-service-signature'],
    };
    expect(verify({ ...d, headers }).ok).toBe(true);
  });

  it('refuses a signed body that is not JSON, not UTF-8, or not an event envelope', () => {
    const bodies = [
      Buffer.from('{"id":"evt_1",', 'utf8'),
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      Buffer.from('[]', 'utf8'),
      Buffer.from('null', 'utf8'),
      Buffer.from(JSON.stringify({ id: 'evt_1', type: 'record.updated', api_version: 'v1', partner_id: PARTNER, created_at: 'x' }), 'utf8'),
      Buffer.from(JSON.stringify({ id: 'evt_1', type: 'record.updated', api_version: 'v1', partner_id: PARTNER, created_at: 'x', data: [] }), 'utf8'),
      Buffer.from(JSON.stringify({ id: 7, type: 'record.updated', api_version: 'v1', partner_id: PARTNER, created_at: 'x', data: {} }), 'utf8'),
    ];
    for (const body of bodies) {
      expect(verify(delivery({ body, eventId: 'evt_1' })), body.toString('latin1')).toEqual({ ok: false, reason: 'INVALID_JSON' });
    }
  });

  it('refuses a body whose id differs from X-Service-Event-Id', () => {
    expect(verify(delivery({ eventId: 'evt_other' }))).toEqual({ ok: false, reason: 'EVENT_ID_MISMATCH' });
    expect(verify(delivery({ eventId: 'EVT_01HZX:SEG2' }))).toEqual({ ok: false, reason: 'EVENT_ID_MISMATCH' });
  });

  it('refuses an event for another partner when a partner is configured, accepts any when none is', () => {
    const d = delivery({ body: Buffer.from(bodyText({ partner_id: 'org_2' }), 'utf8') });
    expect(verify(d)).toEqual({ ok: false, reason: 'PARTNER_MISMATCH' });
    expect(verifyWebhook({ ...d, secrets: [SECRET_OLD], now: NOW }).ok).toBe(true);
  });

  it('throws on misconfiguration rather than answering a reason', () => {
    const d = delivery();
    expect(() => verifyWebhook({ ...d, secrets: [], now: NOW })).toThrow(TypeError);
    expect(() => verifyWebhook({ ...d, secrets: [SECRET_OLD, SECRET_NEW, SECRET_OLD], now: NOW })).toThrow(TypeError);
    expect(() => verifyWebhook({ ...d, secrets: [SECRET_OLD.slice(6)], now: NOW })).toThrow(/whsec_/);
    expect(() => verifyWebhook({ ...d, rawBody: d.rawBody.toString('utf8') as unknown as Buffer, secrets: [SECRET_OLD], now: NOW })).toThrow(/raw bytes/);
    expect(() => verifyWebhook({ ...d, secrets: [SECRET_OLD], now: NOW, maxBodyBytes: 0 })).toThrow(RangeError);
  });
});

describe('answerVerification', () => {
  const verification = (challenge: unknown): WebhookEvent => ({
    id: 'evt_v',
    type: 'webhook.verification',
    api_version: 'v1',
    partner_id: PARTNER,
    created_at: NOW.toISOString(),
    data: { challenge },
  });

  it('echoes the challenge as {"challenge": ...} within 1024 bytes', () => {
    for (const challenge of ['chl_4f1c2a', 'ünïcødé ✓ "quoted" \\ back', '']) {
      const body = answerVerification(verification(challenge));
      expect(JSON.parse(body)).toEqual({ challenge });
      expect(Object.keys(JSON.parse(body))).toEqual(['challenge']);
      expect(Buffer.byteLength(body, 'utf8')).toBeLessThanOrEqual(1024);
    }
  });

  it('fits a challenge up to the limit and refuses one whose answer would exceed 1024 bytes', () => {
    const longest = 'c'.repeat(1024 - '{"challenge":""}'.length);
    expect(Buffer.byteLength(answerVerification(verification(longest)))).toBe(1024);
    expect(() => answerVerification(verification(`${longest}c`))).toThrow(RangeError);
    // Multi-byte characters count in bytes, not characters.
    expect(() => answerVerification(verification('é'.repeat(510)))).toThrow(RangeError);
  });

  it('answers only verification events that carry a string challenge', () => {
    expect(() => answerVerification({ ...verification('x'), type: 'webhook.test' })).toThrow(TypeError);
    expect(() => answerVerification(verification(42))).toThrow(TypeError);
  });
});

describe('fileDeduplicator', () => {
  let dir: string;
  const opened: FileDeduplicator[] = [];
  const open = (path: string): FileDeduplicator => {
    const dedup = fileDeduplicator(path);
    opened.push(dedup);
    return dedup;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-dedup-'));
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((dedup) => dedup.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('claims an id once: true the first time, false after', async () => {
    const dedup = open(join(dir, 'events.log'));
    expect(await dedup.has('evt_1')).toBe(false);
    expect(await dedup.claim('evt_1')).toBe(true);
    expect(await dedup.has('evt_1')).toBe(true);
    expect(await dedup.claim('evt_1')).toBe(false);
    expect(await dedup.claim('evt_2')).toBe(true);
    expect(dedup.size).toBe(2);
  });

  it('keeps its claims across a new instance on the same file (a restart)', async () => {
    const path = join(dir, 'events.log');
    const first = open(path);
    await first.claim('evt_1');
    await first.claim('evt_a:b:c');
    await first.close();
    const second = open(path);
    expect(await second.has('evt_1')).toBe(true);
    expect(await second.claim('evt_a:b:c')).toBe(false);
    expect(await second.claim('evt_3')).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('evt_1\nevt_a:b:c\nevt_3\n');
  });

  it('has the claim on disk as soon as claim resolved, without a close', async () => {
    const path = join(dir, 'events.log');
    const dedup = open(path);
    await dedup.claim('evt_1');
    expect(readFileSync(path, 'utf8')).toBe('evt_1\n');
  });

  it('cuts a torn last line (a crash mid-append) on load', async () => {
    const path = join(dir, 'events.log');
    writeFileSync(path, 'evt_1\nevt_2\nevt_pa');
    const dedup = open(path);
    expect(await dedup.has('evt_2')).toBe(true);
    expect(await dedup.has('evt_pa')).toBe(false);
    await dedup.claim('evt_3');
    expect(readFileSync(path, 'utf8')).toBe('evt_1\nevt_2\nevt_3\n');
  });

  it('grants exactly one of concurrent claims of one id, and keeps lines whole', async () => {
    const path = join(dir, 'events.log');
    const dedup = open(path);
    const ids = ['evt_x', 'evt_x', 'evt_y', 'evt_x', 'evt_z', 'evt_y'];
    const results = await Promise.all(ids.map((id) => dedup.claim(id)));
    expect(results.filter(Boolean)).toHaveLength(3);
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean).sort()).toEqual(['evt_x', 'evt_y', 'evt_z']);
  });

  it('refuses ids that would break the line format', async () => {
    const dedup = open(join(dir, 'events.log'));
    await expect(dedup.claim('evt_1\nevt_2')).rejects.toThrow(TypeError);
    await expect(dedup.claim('')).rejects.toThrow(TypeError);
  });
});

describe('createWebhookHandler over node:http', () => {
  let dir: string;
  let server: Server | undefined;
  let dedup: FileDeduplicator | undefined;
  let base: string;
  let results: DeliveryResult[];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-handler-'));
    results = [];
  });
  afterEach(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(onEvent: WebhookHandlerOptions['onEvent'], extra: Partial<WebhookHandlerOptions> = {}): Promise<void> {
    dedup = fileDeduplicator(join(dir, 'processed-events.log'));
    const handler = createWebhookHandler({ secrets: [SECRET_OLD, SECRET_NEW], partnerId: PARTNER, dedup, onEvent, onResult: (r) => results.push(r), ...extra });
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async function stop(): Promise<void> {
    if (server) {
      server.closeAllConnections();
      await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    }
    await dedup?.close();
    dedup = undefined;
  }

  /** One POST with a fresh timestamp and signature, as each retry of the service is. */
  function signedPost(body: string, options: { secret?: string; eventId?: string } = {}) {
    const raw = Buffer.from(body, 'utf8');
    const timestamp = String(Math.floor(Date.now() / 1000));
    return post(raw, {
      'content-type': 'application/json',
      'user-agent': 'Service-Webhooks/1.0',
      'x-service-event-id': options.eventId ?? (JSON.parse(body) as { id: string }).id,
      'x-service-timestamp': timestamp,
      'x-service-signature': sign(options.secret ?? SECRET_OLD, timestamp, raw),
    });
  }

  function post(body: Buffer | Buffer[], headers: Record<string, string>, method = 'POST'): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
    return new Promise((resolve, reject) => {
      // A single buffer goes with its Content-Length; parts go chunked, with no length declared.
      const declared = Array.isArray(body) ? {} : { 'content-length': String(body.length) };
      const req = request(`${base}/webhook`, { method, headers: { ...declared, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      for (const part of Array.isArray(body) ? body : [body]) req.write(part);
      req.end();
    });
  }

  const event = (overrides: Partial<Record<keyof WebhookEvent, unknown>> = {}) => bodyText(overrides);

  it('answers a verification event with 200 {"challenge"} and does not call onEvent', async () => {
    const onEvent = vi.fn();
    await start(onEvent);
    const response = await signedPost(event({ id: 'evt_verify', type: 'webhook.verification', data: { challenge: 'chl_9d2e' } }), { secret: SECRET_NEW });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(response.body)).toEqual({ challenge: 'chl_9d2e' });
    expect(Buffer.byteLength(response.body)).toBeLessThanOrEqual(1024);
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('acknowledges a test event with 204 and does not call onEvent', async () => {
    const onEvent = vi.fn();
    await start(onEvent);
    const response = await signedPost(event({ id: 'evt_test', type: 'webhook.test', data: { message: 'hello' } }));
    expect(response.status).toBe(204);
    expect(response.body).toBe('');
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('processes a business event once: a repeated delivery (new timestamp and signature) gets 200 without onEvent', async () => {
    const onEvent = vi.fn(async () => undefined);
    await start(onEvent);
    const body = event({ id: 'evt_dup' });
    const first = await signedPost(body);
    const again = await signedPost(body, { secret: SECRET_NEW });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(JSON.parse(first.body)).toEqual({ received: true, duplicate: false });
    expect(JSON.parse(again.body)).toEqual({ received: true, duplicate: true });
    expect(onEvent).toHaveBeenCalledTimes(1);
    expect(onEvent).toHaveBeenCalledWith(expect.objectContaining({ id: 'evt_dup', type: 'record.updated' }), { secretIndex: 0 });
  });

  it('processes concurrent deliveries of one event once, and answers both 2xx only after onEvent resolved', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const onEvent = vi.fn(() => gate);
    await start(onEvent);
    const body = event({ id: 'evt_race' });
    let answered = 0;
    const responses = [signedPost(body), signedPost(body), signedPost(body)].map((p) => p.then((r) => ((answered += 1), r)));
    await vi.waitFor(() => expect(onEvent).toHaveBeenCalledTimes(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(0);
    release();
    const statuses = (await Promise.all(responses)).map((r) => r.status);
    expect(statuses).toEqual([200, 200, 200]);
    expect(onEvent).toHaveBeenCalledTimes(1);
  });

  it('answers 500 when onEvent throws, does not mark the event, and processes the retry', async () => {
    const onEvent = vi.fn().mockRejectedValueOnce(new Error('database down')).mockResolvedValue(undefined);
    await start(onEvent);
    const body = event({ id: 'evt_retry' });
    const failed = await signedPost(body);
    expect(failed.status).toBe(500);
    expect(failed.body).not.toContain('database down');
    expect(await dedup!.has('evt_retry')).toBe(false);
    const retried = await signedPost(body);
    expect(retried.status).toBe(200);
    expect(onEvent).toHaveBeenCalledTimes(2);
    expect(await dedup!.has('evt_retry')).toBe(true);
  });

  it('remembers processed events across a restart of the receiver', async () => {
    const before = vi.fn();
    await start(before);
    const body = event({ id: 'evt_restart' });
    expect((await signedPost(body)).status).toBe(200);
    await stop();
    const after = vi.fn();
    await start(after);
    const redelivered = await signedPost(body);
    expect(redelivered.status).toBe(200);
    expect(JSON.parse(redelivered.body)).toEqual({ received: true, duplicate: true });
    expect(before).toHaveBeenCalledTimes(1);
    expect(after).not.toHaveBeenCalled();
  });

  it('answers 401 to a bad signature or a stale timestamp, 400 to a mismatch, without calling onEvent', async () => {
    const onEvent = vi.fn();
    await start(onEvent);
    const body = event({ id: 'evt_bad' });
    expect((await signedPost(body, { secret: 'whsec_wrong' })).status).toBe(401);
    const raw = Buffer.from(body);
    const stale = String(Math.floor(Date.now() / 1000) - 301);
    expect((await post(raw, { 'x-service-event-id': 'evt_bad', 'x-service-timestamp': stale, 'x-service-signature': sign(SECRET_OLD, stale, raw) })).status).toBe(401);
    expect((await post(raw, { 'x-service-event-id': 'evt_bad' })).status).toBe(401);
    expect((await signedPost(body, { eventId: 'evt_other' })).status).toBe(400);
    expect((await signedPost(event({ id: 'evt_bad', partner_id: 'org_2' }))).status).toBe(400);
    const notJson = await signedPost('{"id":"evt_bad"', { eventId: 'evt_bad' });
    expect([notJson.status, JSON.parse(notJson.body)]).toEqual([400, { error: 'INVALID_JSON' }]);
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('answers 413 to a body over the cap, declared or streamed without a length', async () => {
    const onEvent = vi.fn();
    await start(onEvent, { maxBodyBytes: 1024 });
    const big = Buffer.from(event({ id: 'evt_big', data: { pad: 'x'.repeat(2048) } }));
    const declared = await signedPost(big.toString('utf8'));
    expect(declared.status).toBe(413);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const streamed = await post([big.subarray(0, 600), big.subarray(600)], {
      'x-service-event-id': 'evt_big',
      'x-service-timestamp': timestamp,
      'x-service-signature': sign(SECRET_OLD, timestamp, big),
    });
    expect(streamed.status).toBe(413);
    expect(onEvent).not.toHaveBeenCalled();
    expect(results.filter((r) => r.kind === 'rejected').map((r) => r.kind === 'rejected' && r.reason)).toEqual(['BODY_TOO_LARGE', 'BODY_TOO_LARGE']);
  });

  it('answers 413 while an endless body is still arriving: the cap is applied during the read', async () => {
    await start(vi.fn(), { maxBodyBytes: 1024 });
    const req = request(`${base}/webhook`, { method: 'POST', headers: { 'x-service-event-id': 'evt_endless' } });
    req.on('error', () => undefined); // the server drops the connection after answering
    const status = new Promise<number>((resolve) => req.on('response', (res) => resolve(res.statusCode!)));
    req.write(Buffer.alloc(1500, 0x20)); // and never end()
    expect(await status).toBe(413);
    req.destroy();
  }, 5_000);

  it('answers 405 to anything but POST', async () => {
    await start(vi.fn());
    const response = await post(Buffer.alloc(0), {}, 'GET');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
  });

  it('reports each outcome without the secret or the signature', async () => {
    await start(vi.fn());
    const body = event({ id: 'evt_log' });
    const raw = Buffer.from(body);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = sign(SECRET_OLD, timestamp, raw);
    await post(raw, { 'x-service-event-id': 'evt_log', 'x-service-timestamp': timestamp, 'x-service-signature': signature });
    await signedPost(body, { secret: 'whsec_wrong' });
    expect(results.map((r) => [r.kind, r.status])).toEqual([
      ['processed', 200],
      ['rejected', 401],
    ]);
    const logged = JSON.stringify(results);
    for (const secretish of [SECRET_OLD, SECRET_NEW, signature.slice(3), 'whsec_']) expect(logged).not.toContain(secretish);
  });
});
