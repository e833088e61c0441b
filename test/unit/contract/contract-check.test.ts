/**
 * The check every integration response goes through (test/support/
 * contract-check.ts) refuses what breaks the OpenAPI document, so the
 * integration suite cannot pass with responses the contract does not allow.
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
});
