/**
 * The check every integration response goes through (test/support/
 * contract-check.ts) refuses what breaks the OpenAPI document, so the
 * integration suite cannot pass with responses the contract does not allow:
 * the partner API's envelope and document, and web settings' own shapes and
 * document (docs/settings-openapi.json).
 */
import { describe, expect, it } from 'vitest';
import { checkResponse, ContractViolation } from '../../support/contract-check';

const HEADERS = { 'X-Request-Id': 'req-1', 'Cache-Control': 'no-store', 'Content-Type': 'application/json' };
const respond = (status: number, body: unknown, headers: Record<string, string> = HEADERS) => new Response(JSON.stringify(body), { status, headers });
const identity = { key_id: 'key_1', account_id: 'acc_1', scopes: ['public:read'], expires_at: null };

describe('checkResponse', () => {
  it('accepts a response the document declares', async () => {
    await expect(checkResponse('GET', '/me', respond(200, { ok: true, data: identity, request_id: 'req-1' }))).resolves.toBeUndefined();
    await expect(checkResponse('GET', '/me', respond(401, { ok: false, error: { code: 'INVALID_API_KEY', message: 'x' }, request_id: 'req-1' }))).resolves.toBeUndefined();
  });

  it.each([
    { name: 'data missing a required field', path: '/me', status: 200, body: { ok: true, data: { ...identity, key_id: undefined }, request_id: 'r' } },
    { name: 'an undocumented data field', path: '/me', status: 200, body: { ok: true, data: { ...identity, digest: 'x' }, request_id: 'r' } },
    { name: 'a status the operation does not declare', path: '/health', status: 401, body: { ok: false, error: { code: 'INVALID_API_KEY', message: 'x' }, request_id: 'r' } },
    { name: 'a code the status does not declare', path: '/me', status: 403, body: { ok: false, error: { code: 'PERSONAL_KEY_REQUIRED', message: 'x' }, request_id: 'r' } },
    { name: 'a body that is no envelope', path: '/nope', status: 404, body: { message: 'Not Found' } },
  ])('refuses $name', async ({ path, status, body }) => {
    await expect(checkResponse('GET', path, respond(status, body))).rejects.toBeInstanceOf(ContractViolation);
  });

  it('refuses a response without X-Request-Id or Cache-Control: no-store', async () => {
    const body = { ok: true, data: { status: 'ok', version: 'v1' }, request_id: 'r' };
    await expect(checkResponse('GET', '/health', respond(200, body, { 'Cache-Control': 'no-store' }))).rejects.toThrow(/X-Request-Id/);
    await expect(checkResponse('GET', '/health', respond(200, body, { 'X-Request-Id': 'r' }))).rejects.toThrow(/Cache-Control/);
  });

  describe('web settings (/settings…)', () => {
    const session = { account_id: 'acc_1', name: 'Ann', email: 'ann@example.com', two_factor: 'off', session_expires_at: '2030-01-01T00:00:00.000Z' };
    const settingsError = (code: string) => ({ code, message: 'x', request_id: 'req-1' });
    const html = (status: number) => new Response('<!doctype html>', { status, headers: { ...HEADERS, 'Content-Type': 'text/html; charset=utf-8' } });

    it('accepts a success as the data object itself and an error in the web-settings shape the operation declares', async () => {
      await expect(checkResponse('GET', '/settings/api/session', respond(200, session))).resolves.toBeUndefined();
      await expect(checkResponse('POST', '/settings/api/session', respond(401, settingsError('INVALID_PASSWORD')))).resolves.toBeUndefined();
      await expect(checkResponse('DELETE', '/settings/api/session', respond(200, { signed_out: true }))).resolves.toBeUndefined();
      await expect(checkResponse('POST', '/settings/api/keys/key_1/revoke', respond(404, settingsError('KEY_NOT_FOUND')))).resolves.toBeUndefined();
    });

    it('accepts an unknown settings path answered with the web-settings error shape and a known code', async () => {
      await expect(checkResponse('GET', '/settings/nope', respond(404, settingsError('NOT_FOUND')))).resolves.toBeUndefined();
    });

    it('checks only the headers of the settings page (HTML), and only where the document declares HTML', async () => {
      await expect(checkResponse('GET', '/settings', html(200))).resolves.toBeUndefined();
      await expect(checkResponse('GET', '/settings', new Response('<!doctype html>', { status: 200, headers: { 'Content-Type': 'text/html' } }))).rejects.toThrow(/X-Request-Id/);
      await expect(checkResponse('GET', '/settings/api/session', html(200))).rejects.toBeInstanceOf(ContractViolation);
    });

    it.each([
      { name: 'a success wrapped in the API envelope', method: 'GET', path: '/settings/api/session', status: 200, body: { ok: true, data: session, request_id: 'r' } },
      { name: 'a success missing a required field', method: 'GET', path: '/settings/api/session', status: 200, body: { ...session, email: undefined } },
      { name: 'an undocumented success field', method: 'GET', path: '/settings/api/session', status: 200, body: { ...session, token: 'x' } },
      { name: 'an error in the API envelope', method: 'GET', path: '/settings/api/session', status: 401, body: { ok: false, error: { code: 'SESSION_REQUIRED', message: 'x' }, request_id: 'r' } },
      { name: 'an error with a field beyond code, message and request_id', method: 'GET', path: '/settings/api/session', status: 401, body: { ...settingsError('SESSION_REQUIRED'), ok: false } },
      { name: 'a code the operation does not declare', method: 'GET', path: '/settings/api/session', status: 401, body: settingsError('INVALID_PASSWORD') },
      { name: 'a code the status does not declare', method: 'POST', path: '/settings/api/keys', status: 403, body: settingsError('SESSION_REQUIRED') },
      { name: 'a status the operation does not declare', method: 'GET', path: '/settings/api/audit', status: 404, body: settingsError('KEY_NOT_FOUND') },
      { name: 'an unknown code on an unknown settings path', method: 'GET', path: '/settings/nope', status: 404, body: settingsError('NO_SUCH_CODE') },
      { name: 'an envelope on an unknown settings path', method: 'GET', path: '/settings/nope', status: 404, body: { ok: false, error: { code: 'NOT_FOUND', message: 'x' }, request_id: 'r' } },
    ])('refuses $name', async ({ method, path, status, body }) => {
      await expect(checkResponse(method, path, respond(status, body))).rejects.toBeInstanceOf(ContractViolation);
    });

    it('keeps the partner API and the player site on the envelope: a web-settings error there is refused', async () => {
      await expect(checkResponse('GET', '/me', respond(401, settingsError('INVALID_API_KEY')))).rejects.toThrow(/spec envelope/);
      await expect(checkResponse('GET', '/join/inv_1/view', respond(404, settingsError('INVITE_UNAVAILABLE')))).rejects.toThrow(/spec envelope/);
      await expect(checkResponse('GET', '/join/inv_1/view', respond(404, { ok: false, error: { code: 'INVITE_UNAVAILABLE', message: 'x' }, request_id: 'r' }))).resolves.toBeUndefined();
    });
  });
});
