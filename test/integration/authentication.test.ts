/**
 * Every authentication and authorization outcome, through the local front:
 * invalid credentials of every kind get one indistinguishable 401, and each
 * organization rule its own code. A test route bound to `{partner_id}` and
 * needing `invitations:write` stands in for the organization endpoints.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { ROUTE_CONTRACTS } from '../../lambdas/service/contracts';
import { Router, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { HANDLERS } from '../../local/handlers';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

const orgRoute: RouteDefinition = {
  id: 'test-org-write',
  method: 'GET',
  path: '/partners/{partner_id}/probe',
  group: 'identity',
  auth: 'key',
  scope: 'invitations:write',
  partnerBound: true,
  query: [],
  body: 'none',
};
const router = new Router([...ROUTES, orgRoute]);
const identity = createPartnerApiHandler({ contracts: ROUTE_CONTRACTS, routes: ROUTES,
  router,
  operations: {
    me: (input) => import('../../lambdas/identity/describe-key').then((m) => m.IDENTITY_OPERATIONS.me(input as never)),
    'test-org-write': async ({ principal }) => ({ data: { partner_id: principal?.partnerId } }),
  },
});

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ router, handlers: { ...HANDLERS, identity } });
});
afterAll(() => stack?.stop());

async function status(path: string, key?: string) {
  const response = await stack.call(path, { headers: key ? bearer(key) : {} });
  const body = (await response.json()) as { ok: boolean; error?: { code: string; message: string }; data?: Record<string, unknown> };
  return { status: response.status, code: body.error?.code, message: body.error?.message, data: body.data };
}

describe('invalid credentials', () => {
  it('answer missing, malformed, wrong, expired, revoked and deactivated-account keys with the same 401', async () => {
    const { account_id, key } = await createOrgWithManagerKey(stack.office, ['public:read']);
    const past = createBackOffice(stack.client, stack.tables.access, () => new Date(Date.now() - 2 * 86_400_000));
    const expired = await past.keys.create({ accountId: account_id, scopes: ['public:read'], days: 1 });
    const revoked = await stack.office.keys.create({ accountId: account_id, scopes: ['public:read'] });
    await stack.office.keys.revoke(revoked.key_id);
    const other = await stack.office.accounts.create();
    const deactivated = await stack.office.keys.create({ accountId: other.account_id, scopes: ['public:read'] });
    await stack.office.accounts.deactivate(other.account_id);

    const outcomes = [
      await status('/me'),
      await status('/me', 'not-a-key'),
      await status('/me', `pak_live_${'0'.repeat(64)}`),
      await status('/me', key.key.slice(0, -1) + (key.key.endsWith('0') ? '1' : '0')),
      await status('/me', expired.key),
      await status('/me', revoked.key),
      await status('/me', deactivated.key),
    ];
    for (const outcome of outcomes) {
      expect(outcome).toEqual({ status: 401, code: 'INVALID_API_KEY', message: outcomes[0].message, data: undefined });
    }
    // The untouched key still works: the 401s above are about those keys, not the account.
    expect((await status('/me', key.key)).status).toBe(200);
  });

  it('refuses a scheme-less, other-scheme or two-token header as invalid, not as a server error', async () => {
    const { key } = await createOrgWithManagerKey(stack.office, ['public:read']);
    for (const header of [key.key, `Basic ${key.key}`, `Bearer ${key.key} extra`, `Bearer${key.key}`]) {
      const response = await stack.call('/me', { headers: { Authorization: header } });
      expect(response.status).toBe(401);
    }
  });

  it('accepts every spelling the edge counts as the same credential: any case of the scheme, any white space between (RFC 9110: 1*SP)', async () => {
    const { key } = await createOrgWithManagerKey(stack.office, ['public:read']);
    for (const header of [`bearer ${key.key}`, `BEARER ${key.key}`, `Bearer  ${key.key}`, `bearer \t ${key.key}`]) {
      const response = await stack.call('/me', { headers: { Authorization: header } });
      expect(response.status, JSON.stringify(header.replace(key.key, '<key>'))).toBe(200);
    }
  });
});

describe('organization rules', () => {
  it('serves the bound organization with the needed scope', async () => {
    const { partner_id, key } = await createOrgWithManagerKey(stack.office, ['invitations:write']);
    expect(await status(`/partners/${partner_id}/probe`, key.key)).toMatchObject({ status: 200, data: { partner_id } });
  });

  it('INSUFFICIENT_SCOPE when the key lacks the scope (read does not imply write)', async () => {
    const { partner_id, key } = await createOrgWithManagerKey(stack.office, ['invitations:read']);
    expect(await status(`/partners/${partner_id}/probe`, key.key)).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
  });

  it('PARTNER_SCOPE_MISMATCH for another organization, even one the creator also manages, and for personal keys', async () => {
    const { account_id, partner_id, key } = await createOrgWithManagerKey(stack.office, ['invitations:write']);
    const second = await stack.office.organizations.create();
    await stack.office.memberships.set(second.partner_id, account_id, 'manager');
    expect(await status(`/partners/${second.partner_id}/probe`, key.key)).toMatchObject({ status: 403, code: 'PARTNER_SCOPE_MISMATCH' });
    const personal = await stack.office.keys.create({ accountId: account_id, scopes: ['public:read'] });
    expect(await status(`/partners/${partner_id}/probe`, personal.key)).toMatchObject({ status: 403, code: 'PARTNER_SCOPE_MISMATCH' });
  });

  it('PARTNER_MANAGER_REQUIRED while the creator is no longer a manager', async () => {
    const { account_id, partner_id, key } = await createOrgWithManagerKey(stack.office, ['invitations:write']);
    await stack.office.memberships.set(partner_id, account_id, 'member');
    expect(await status(`/partners/${partner_id}/probe`, key.key)).toMatchObject({ status: 403, code: 'PARTNER_MANAGER_REQUIRED' });
    expect(await status('/me', key.key)).toMatchObject({ status: 403, code: 'PARTNER_MANAGER_REQUIRED' });
  });

  it('PARTNER_INACTIVE while the organization is archived', async () => {
    const { partner_id, key } = await createOrgWithManagerKey(stack.office, ['invitations:write']);
    await stack.office.organizations.archive(partner_id);
    expect(await status(`/partners/${partner_id}/probe`, key.key)).toMatchObject({ status: 409, code: 'PARTNER_INACTIVE' });
  });
});

describe('GET /me', () => {
  it('returns the Identity of an organization key and of a permanent personal key', async () => {
    const { account_id, partner_id, key } = await createOrgWithManagerKey(stack.office, ['records:read', 'tickets:read']);
    expect((await status('/me', key.key)).data).toEqual({
      key_id: key.key_id,
      account_id,
      partner_id,
      scopes: ['records:read', 'tickets:read'],
      expires_at: key.expires_at,
    });
    const personal = await stack.office.keys.create({ accountId: account_id, scopes: ['entitlements:read'], permanent: true });
    expect((await status('/me', personal.key)).data).toEqual({
      key_id: personal.key_id,
      account_id,
      scopes: ['entitlements:read'],
      expires_at: null,
    });
  });
});
