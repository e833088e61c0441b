/**
 * The webhook signature, byte for byte: checked against an HMAC-SHA256 built
 * here from SHA-256 alone (RFC 2104, itself checked on RFC 4231's vector),
 * and against a vector computed once with another implementation (Python's
 * hmac) and hardcoded, so a change of key encoding, input layout or text
 * encoding cannot pass unnoticed.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signatureOf, WEBHOOK_USER_AGENT, webhookHeaders } from '../../../lambdas/webhooks/signing';

/** HMAC-SHA256 per RFC 2104, independent of crypto.createHmac. */
function referenceHmacSha256(key: Buffer, message: Buffer): string {
  const blockSize = 64;
  const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
  const shortKey = key.length > blockSize ? sha256(key) : key;
  const padded = Buffer.concat([shortKey, Buffer.alloc(blockSize - shortKey.length)]);
  const inner = Buffer.from(padded.map((byte) => byte ^ 0x36));
  const outer = Buffer.from(padded.map((byte) => byte ^ 0x5c));
  return sha256(outer, sha256(inner, message)).toString('hex');
}

const SECRET = 'whsec_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
const TIMESTAMP = 1_700_000_000;
/** Non-ASCII on purpose: the body is signed as UTF-8 bytes. */
const BODY =
  '{"id":"evt_01HZX3","type":"record.updated","api_version":"v1","partner_id":"org_7","created_at":"2024-01-01T00:00:00Z","data":{"record_id":"rec_ünï ✓"}}';
/** hmac.new(SECRET.encode(), f"{TIMESTAMP}.{BODY}".encode(), hashlib.sha256).hexdigest(), computed once in Python. */
const KNOWN_SIGNATURE = 'v1=60466215c8c0440c6ce9f70e7f583b9f8ed38f0b4cedca0b272487feff685532';

describe('the reference HMAC', () => {
  it('matches RFC 4231 test case 2', () => {
    expect(referenceHmacSha256(Buffer.from('Jefe'), Buffer.from('what do ya want for nothing?'))).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });
});

describe('signatureOf', () => {
  it('matches the hardcoded vector', () => {
    expect(signatureOf(SECRET, TIMESTAMP, BODY)).toBe(KNOWN_SIGNATURE);
  });

  it.each([
    ['the vector', SECRET, TIMESTAMP, BODY],
    ['an empty body', SECRET, 0, ''],
    ['a secret with non-ASCII characters', 'whsec_ключ✓', 1_234_567_890, '{"a":"b"}'],
    ['a key longer than the HMAC block', `whsec_${'ab'.repeat(64)}`, TIMESTAMP, BODY],
    ['a body with dots and newlines', SECRET, TIMESTAMP, '{"a":"1.2"}\n{"b":"."}'],
  ])('equals the reference HMAC over "<timestamp>.<body>" keyed with the whole secret: %s', (_name, secret, timestamp, body) => {
    const expected = referenceHmacSha256(Buffer.from(secret, 'utf8'), Buffer.from(`${timestamp}.${body}`, 'utf8'));

    expect(signatureOf(secret, timestamp, body)).toBe(`v1=${expected}`);
    expect(signatureOf(secret, timestamp, body)).toMatch(/^v1=[0-9a-f]{64}$/);
  });

  it('keys with the whole whsec_ string, not the decoded hex part', () => {
    const hexOnly = referenceHmacSha256(Buffer.from(SECRET.slice('whsec_'.length), 'hex'), Buffer.from(`${TIMESTAMP}.${BODY}`, 'utf8'));

    expect(signatureOf(SECRET, TIMESTAMP, BODY)).not.toBe(`v1=${hexOnly}`);
  });

  it('changes with every input', () => {
    const base = signatureOf(SECRET, TIMESTAMP, BODY);

    expect(signatureOf(SECRET, TIMESTAMP + 1, BODY)).not.toBe(base);
    expect(signatureOf(`${SECRET}0`, TIMESTAMP, BODY)).not.toBe(base);
    expect(signatureOf(SECRET, TIMESTAMP, `${BODY} `)).not.toBe(base);
  });

  it.each([1.5, -1, Number.NaN, Number.MAX_SAFE_INTEGER + 2])('refuses a timestamp that is not integer Unix seconds: %s', (timestamp) => {
    expect(() => signatureOf(SECRET, timestamp, BODY)).toThrow(RangeError);
  });
});

describe('webhookHeaders', () => {
  it('returns exactly the five headers of the spec, signed at the integer second of now', () => {
    // Prepare
    const now = new Date(TIMESTAMP * 1000 + 999);

    // Act
    const headers = webhookHeaders({ secret: SECRET, eventId: 'evt_01HZX3', body: BODY, now });

    // Assess
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': 'Service-Webhooks/1.0',
      'X-Service-Event-Id': 'evt_01HZX3',
      'X-Service-Timestamp': '1700000000',
      'X-Service-Signature': KNOWN_SIGNATURE,
    });
    expect(WEBHOOK_USER_AGENT).toBe('Service-Webhooks/1.0');
  });

  it('signs each attempt afresh: same event and body, new timestamp, new signature', () => {
    const first = webhookHeaders({ secret: SECRET, eventId: 'evt_1', body: BODY, now: new Date(TIMESTAMP * 1000) });
    const retry = webhookHeaders({ secret: SECRET, eventId: 'evt_1', body: BODY, now: new Date((TIMESTAMP + 60) * 1000) });

    expect(retry['X-Service-Event-Id']).toBe(first['X-Service-Event-Id']);
    expect(retry['X-Service-Timestamp']).toBe(String(TIMESTAMP + 60));
    expect(retry['X-Service-Signature']).not.toBe(first['X-Service-Signature']);
    expect(retry['X-Service-Signature']).toBe(signatureOf(SECRET, TIMESTAMP + 60, BODY));
  });
});

describe('newWebhookSecret', () => {
  it('is whsec_ and 64 lowercase hex characters, different every time', () => {
    const secrets = Array.from({ length: 50 }, () => newWebhookSecret());

    for (const secret of secrets) expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(new Set(secrets).size).toBe(50);
  });
});
