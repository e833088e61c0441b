/**
 * The log formatter and its redaction: what every line carries (the
 * request scope's id and route, never another concurrent request's), and
 * what no line carries, by field name and by value, however deep, in
 * messages, errors, their stacks and causes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateApiKey } from '../../../lambdas/shared/identity/api-keys';
import { logger } from '../../../lambdas/shared/observability/logger';
import { isSensitiveName, redact, REDACTED, scrubText } from '../../../lambdas/shared/observability/redaction';
import { currentRequestScope, runInRequestScope } from '../../../lambdas/shared/observability/request-scope';
import { captureLogs } from '../../support/log-capture';

afterEach(() => {
  vi.restoreAllMocks();
});

const API_KEY = generateApiKey();
const WEBHOOK_SECRET = `whsec_${'9f'.repeat(32)}`;
/** 32 random bytes in base64url, like a join token, a player credential or a session token. */
const TOKEN = 'Qm9vdHN0cmFwLXRva2VuLXZhbHVlLTMyLWJ5dGVzLWw';
const PASSWORD = 'correct horse battery staple';

describe('redaction by field name', () => {
  it.each(['Authorization', 'authorization', 'Cookie', 'Set-Cookie', 'setCookie', 'password', 'current_password', 'new_password', 'api_key', 'x-api-key', 'apiKey', 'key', 'secret', 'webhook_secret', 'SecretString', 'token', 'X-Join-Token', 'session_token', 'credential', 'two_factor_code', 'Plaintext'])(
    '%s is secret',
    (name) => {
      expect(isSensitiveName(name)).toBe(true);
      expect(redact({ [name]: 'anything at all' })).toEqual({ [name]: REDACTED });
    },
  );

  it.each(['key_id', 'account_id', 'partner_id', 'code', 'route', 'status', 'policy', 'webhook', 'delivery', 'message_id'])('%s is not', (name) => {
    expect(isSensitiveName(name)).toBe(false);
    expect(redact({ [name]: 'visible' })).toEqual({ [name]: 'visible' });
  });

  it('redacts any value under a secret name (objects and numbers too), and keeps empty ones empty', () => {
    expect(redact({ password: { nested: 'x' }, pin: 1234, secret: '', token: null })).toEqual({ password: REDACTED, pin: REDACTED, secret: '', token: null });
  });
});

describe('redaction by value', () => {
  it.each([
    ['an API key', `key ${API_KEY} used`, `key ${REDACTED} used`],
    ['an API key in upper case', `KEY ${API_KEY.toUpperCase()}`, `KEY ${REDACTED}`],
    ['a webhook secret', `signed with ${WEBHOOK_SECRET}.`, `signed with ${REDACTED}.`],
    ['a Bearer credential', 'Authorization: Bearer not-even-a-key', `Authorization: Bearer ${REDACTED}`],
    ['a session cookie', `Cookie: settings_session=${TOKEN}; theme=dark`, `Cookie: settings_session=${REDACTED}; theme=dark`],
    ['a player cookie', `player_credential=abc123; Path=/v1/join/x`, `player_credential=${REDACTED}; Path=/v1/join/x`],
    ['a join link', `https://play.example.com/v1/join/inv_1#token=${TOKEN}`, `https://play.example.com/v1/join/inv_1#token=${REDACTED}`],
    ['a bare 256-bit token', `token was "${TOKEN}"`, `token was "${REDACTED}"`],
  ])('replaces %s', (_name, text, expected) => {
    expect(scrubText(text)).toBe(expected);
  });

  it.each([
    ['a request id', 'c5a9b1f2-0d3e-4b8a-9c7d-1e2f3a4b5c6d'],
    ['a key id', 'key_0123456789abcdef01234567'],
    ['an event id', 'evt_00lq3x9z1_0123456789abcdef'],
    ['an X-Ray trace id', 'Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1'],
    ['a 44-character value (not one of ours)', 'A'.repeat(44)],
  ])('leaves %s alone', (_name, text) => {
    expect(scrubText(text)).toBe(text);
  });
});

describe('redaction through structures', () => {
  it('walks objects, arrays, Maps and Sets', () => {
    const value = { headers: [{ name: 'authorization', value: `Bearer ${API_KEY}` }], seen: new Set([TOKEN]), more: new Map([['Cookie', 'a=b']]) };
    expect(redact(value)).toEqual({ headers: [{ name: 'authorization', value: `Bearer ${REDACTED}` }], seen: [REDACTED], more: { Cookie: REDACTED } });
  });

  it('turns errors into plain objects with their message, stack, cause and own fields redacted', () => {
    const cause = Object.assign(new Error(`upstream refused ${WEBHOOK_SECRET}`), { password: PASSWORD, status: 401 });
    const error = new Error(`could not sign in with Bearer ${API_KEY}`, { cause });
    const redacted = redact({ error }) as { error: Record<string, unknown> & { cause: Record<string, unknown> } };
    expect(redacted.error).toMatchObject({ name: 'Error', message: `could not sign in with Bearer ${REDACTED}` });
    expect(redacted.error.cause).toMatchObject({ message: `upstream refused ${REDACTED}`, password: REDACTED, status: 401 });
    const text = JSON.stringify(redacted);
    for (const secret of [API_KEY, WEBHOOK_SECRET, PASSWORD]) expect(text).not.toContain(secret);
    expect(String(redacted.error.stack)).toContain('could not sign in with Bearer [REDACTED]');
  });

  it('cuts cycles (a cause chain that loops included) and summarizes what is too deep', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    const first = new Error('first');
    const second = new Error('second', { cause: first });
    first.cause = second;
    let deep: Record<string, unknown> = { bottom: true };
    for (let i = 0; i < 12; i += 1) deep = { deep };
    expect(redact(a)).toEqual({ name: 'a', self: '[Circular]' });
    expect(JSON.stringify(redact(second))).toContain('[Circular]');
    expect(JSON.stringify(redact(deep))).toContain('[Object]');
  });

  it('keeps numbers, booleans and null, writes dates and big integers as text, bytes as their length', () => {
    expect(redact({ n: 1, ok: false, none: null, at: new Date(0), big: 10n, bytes: Buffer.from('secret bytes'), fn: () => 1 })).toEqual({
      n: 1,
      ok: false,
      none: null,
      at: '1970-01-01T00:00:00.000Z',
      big: '10',
      bytes: '[12 bytes]',
      fn: undefined,
    });
  });
});

describe('the service logger', () => {
  it('writes JSON lines with Powertools keys, the scope request id and route, and the caller fields redacted', async () => {
    // Prepare
    const logs = captureLogs();

    // Act
    await runInRequestScope('req-format', async () => {
      (currentRequestScope() as NonNullable<ReturnType<typeof currentRequestScope>>).route = 'me';
      logger.info(`signed in with ${API_KEY}`, { key_id: 'key_1', authorization: `Bearer ${API_KEY}`, nested: { password: PASSWORD } });
      logger.error('failed', { error: new Error(`boom ${WEBHOOK_SECRET}`, { cause: new Error(`Bearer ${TOKEN}`) }) });
    });

    // Assess
    const [info, error] = logs.lines();
    expect(info).toMatchObject({
      level: 'INFO',
      message: `signed in with ${REDACTED}`,
      service: 'partner-api',
      request_id: 'req-format',
      route: 'me',
      key_id: 'key_1',
      authorization: REDACTED,
      nested: { password: REDACTED },
    });
    expect(Date.parse(String(info.timestamp))).not.toBeNaN();
    expect(error).toMatchObject({ level: 'ERROR', request_id: 'req-format', error: { name: 'Error', message: `boom ${REDACTED}`, cause: { message: `Bearer ${REDACTED}` } } });
    expect((error.error as { location: unknown }).location).toMatch(/:\d+$/);
    for (const secret of [API_KEY, WEBHOOK_SECRET, TOKEN, PASSWORD]) expect(logs.text()).not.toContain(secret);
  });

  it('gives each of two concurrent requests its own request id and route', async () => {
    // Prepare
    const logs = captureLogs();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const request = (id: string, route: string) =>
      runInRequestScope(id, async () => {
        (currentRequestScope() as NonNullable<ReturnType<typeof currentRequestScope>>).route = route;
        await gate;
        logger.info('done');
      });

    // Act: both scopes are open before either logs.
    const both = Promise.all([request('req-a', 'me'), request('req-b', 'records')]);
    release();
    await both;

    // Assess
    expect(logs.lines().map((line) => [line.request_id, line.route])).toEqual([
      ['req-a', 'me'],
      ['req-b', 'records'],
    ]);
  });

  it('writes no request keys outside a request, and nothing below its level', () => {
    const logs = captureLogs();
    logger.debug('not at INFO');
    logger.warn('outside');
    expect(logs.lines()).toEqual([expect.objectContaining({ level: 'WARN', message: 'outside' })]);
    expect(logs.lines()[0]).not.toHaveProperty('request_id');
  });
});
