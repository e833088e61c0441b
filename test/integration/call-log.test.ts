/**
 * The spec's logging rules, through the local front: calls entering business
 * processing keep a redacted call log — also when a recognized key is refused
 * by its scope, its organization binding, its creator's membership or the
 * organization's status, so that probing other organizations with a valid key
 * leaves a trace — while invalid credentials are not logged one by one and
 * rate rejections only as the once-per-key-per-minute `rate_` sample. No line
 * ever carries the key.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { describeKey } from '../../lambdas/identity/describe-key';
import { createApiHandler } from '../../lambdas/shared/http/pipeline';
import { ROUTES, Router, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { createPlatform, type Platform } from '../../lambdas/shared/platform';
import { HANDLERS } from '../../local/handlers';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

const orgRoute: RouteDefinition = {
  id: 'org-probe',
  method: 'GET',
  path: '/partners/{partner_id}/probe',
  group: 'identity',
  auth: 'key',
  scope: 'records:read',
  partnerBound: true,
  query: [],
  body: 'none',
};
const router = new Router([...ROUTES, orgRoute]);

let platform: Platform;
let stack: TestStack;
let stdout: MockInstance<typeof process.stdout.write>;

beforeAll(async () => {
  const identity = createApiHandler({ router, platform: () => platform, operations: { me: describeKey, 'org-probe': async () => ({ data: {} }) } });
  stack = await startTestStack({ router, handlers: { ...HANDLERS, identity } });
});
afterAll(() => stack?.stop());

beforeEach(() => {
  platform = createPlatform({ edgeGuard: undefined });
  stdout = vi.spyOn(process.stdout, 'write');
});
afterEach(() => {
  vi.restoreAllMocks();
});

const written = () => stdout.mock.calls.map(([chunk]) => String(chunk)).join('');
const lines = () =>
  written()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const callLines = () => lines().filter((line) => line.message === 'request');

async function get(path: string, key?: string) {
  const response = await stack.call(path, { headers: key ? bearer(key) : {} });
  const body = (await response.json()) as { error?: { code: string }; request_id: string };
  return { status: response.status, code: body.error?.code, requestId: body.request_id };
}

describe('calls of a recognized key are logged, refused or not', () => {
  it('logs an admitted call with its route, status, key, account and organization', async () => {
    const { account_id, partner_id, key } = await createOrgWithManagerKey(stack.office, ['records:read']);
    const answer = await get(`/partners/${partner_id}/probe`, key.key);
    expect(answer.status).toBe(200);
    expect(callLines()).toEqual([
      expect.objectContaining({
        request_id: answer.requestId,
        route: 'org-probe',
        status: 200,
        key_id: key.key_id,
        account_id,
        partner_id,
        path_partner_id: partner_id,
      }),
    ]);
    expect(written()).not.toContain(key.key);
  });

  it('logs a probe of another organization (PARTNER_SCOPE_MISMATCH) with the organization probed', async () => {
    const { partner_id, key } = await createOrgWithManagerKey(stack.office, ['records:read']);
    const answer = await get('/partners/org_someone_else/probe', key.key);
    expect(answer).toMatchObject({ status: 403, code: 'PARTNER_SCOPE_MISMATCH' });
    expect(callLines()).toEqual([
      expect.objectContaining({ request_id: answer.requestId, status: 403, code: 'PARTNER_SCOPE_MISMATCH', key_id: key.key_id, partner_id, path_partner_id: 'org_someone_else' }),
    ]);
    expect(written()).not.toContain(key.key);
  });

  it('logs INSUFFICIENT_SCOPE', async () => {
    const { partner_id, key } = await createOrgWithManagerKey(stack.office, ['tickets:read']);
    const answer = await get(`/partners/${partner_id}/probe`, key.key);
    expect(answer).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    expect(callLines()).toEqual([expect.objectContaining({ request_id: answer.requestId, code: 'INSUFFICIENT_SCOPE', key_id: key.key_id })]);
  });

  it('logs PARTNER_MANAGER_REQUIRED once the creator is demoted, and PARTNER_INACTIVE once the organization is archived', async () => {
    const demoted = await createOrgWithManagerKey(stack.office, ['records:read']);
    await stack.office.memberships.set(demoted.partner_id, demoted.account_id, 'member');
    const archived = await createOrgWithManagerKey(stack.office, ['records:read']);
    await stack.office.organizations.archive(archived.partner_id);

    const first = await get(`/partners/${demoted.partner_id}/probe`, demoted.key.key);
    const second = await get(`/partners/${archived.partner_id}/probe`, archived.key.key);

    expect([first.code, second.code]).toEqual(['PARTNER_MANAGER_REQUIRED', 'PARTNER_INACTIVE']);
    expect(callLines().map((line) => [line.code, line.key_id])).toEqual([
      ['PARTNER_MANAGER_REQUIRED', demoted.key.key_id],
      ['PARTNER_INACTIVE', archived.key.key_id],
    ]);
    expect(written()).not.toContain(demoted.key.key);
    expect(written()).not.toContain(archived.key.key);
  });
});

describe('what is not logged one by one', () => {
  it('leaves no line for missing, malformed, unknown and revoked credentials', async () => {
    const { key } = await createOrgWithManagerKey(stack.office, ['records:read']);
    await stack.office.keys.revoke(key.key_id);
    const answers = [
      await get('/me'),
      await get('/me', 'not-a-key'),
      await get('/me', `pak_live_${'a'.repeat(64)}`),
      await get('/me', key.key),
    ];
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401]);
    expect(lines()).toEqual([]);
  });

  it('logs rate rejections only as the rate_ sample, once per key and minute', async () => {
    platform = createPlatform({ edgeGuard: undefined, limits: LIMITS.map((l) => (l.kind === 'quota' && l.policy === 'key-minute' ? { ...l, limit: 1 } : l)) });
    const { key } = await createOrgWithManagerKey(stack.office, ['records:read']);
    const answers = [await get('/me', key.key), await get('/me', key.key), await get('/me', key.key)];
    expect(answers.map((a) => a.status)).toEqual([200, 429, 429]);
    expect(callLines().map((line) => line.status)).toEqual([200]);
    expect(lines().filter((line) => String(line.id ?? '').startsWith('rate_'))).toHaveLength(1);
    expect(written()).not.toContain(key.key);
  });
});
