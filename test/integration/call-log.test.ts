/**
 * The spec's logging rules, through the local front, one test per rule:
 * - calls entering business processing keep a redacted call log (one
 *   `request` line each), also when a recognized key is refused by its scope,
 *   its organization binding, its creator's membership or the organization's
 *   status, so that probing other organizations with a valid key leaves a
 *   trace;
 * - rate rejections are logged only as the once-per-key-per-minute `rate_`
 *   sample, exact across containers (the conditional write on the key);
 * - edge rejections and invalid credentials are not logged one by one.
 * No line ever carries the key. (Retention, 30 days in every stage, is the
 * log groups': lib/.)
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { describeKey } from '../../lambdas/identity/describe-key';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { ROUTE_CONTRACTS } from '../../lambdas/service/contracts';
import { Router, type RouteDefinition } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { EdgeGuard } from '../../lambdas/shared/limits/edge-guard';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { type Platform } from '../../lambdas/shared/platform';
import { HANDLERS } from '../../local/handlers';
import { captureLogs, type LogCapture } from '../support/log-capture';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';
import { localPlatform } from '../support/local-platform';

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

/** The identity function's container(s): each request asks for one (a test may rotate two, as two Lambda containers). */
let platformOfRequest: () => Platform;
let stack: TestStack;
let logs: LogCapture;

beforeAll(async () => {
  const identity = createPartnerApiHandler({ contracts: ROUTE_CONTRACTS, router, platform: () => platformOfRequest(), operations: { me: describeKey, 'org-probe': async () => ({ data: {} }) } });
  stack = await startTestStack({ router, handlers: { ...HANDLERS, identity } });
});
afterAll(() => stack?.stop());

beforeEach(() => {
  const platform = localPlatform();
  platformOfRequest = () => platform;
  logs = captureLogs();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const written = () => logs.text();
const lines = () => logs.lines();
const callLines = () => lines().filter((line) => line.message === 'request');
const rateSamples = () => lines().filter((line) => String(line.id ?? '').startsWith('rate_'));
/** The key-minute quota lowered to one request, everything else as deployed. */
const ONE_A_MINUTE = LIMITS.map((l) => (l.kind === 'quota' && l.policy === 'key-minute' ? { ...l, limit: 1 } : l));

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
    // Prepare: one minute for every request (a fixed clock: no minute turns over mid-test).
    const { key, account_id } = await createOrgWithManagerKey(stack.office, ['records:read']);
    const platform = localPlatform({ limits: ONE_A_MINUTE, clock: fixedClock() });
    platformOfRequest = () => platform;

    // Act
    const answers = [await get('/me', key.key), await get('/me', key.key), await get('/me', key.key)];

    // Assess
    expect(answers.map((a) => a.status)).toEqual([200, 429, 429]);
    expect(callLines().map((line) => line.status)).toEqual([200]);
    const samples = rateSamples();
    expect(samples).toEqual([expect.objectContaining({ level: 'WARN', message: 'rate limit rejection', key_id: key.key_id, account_id, code: 'RATE_LIMITED', policy: 'key-minute' })]);
    expect(samples[0].id).toMatch(/^rate_[0-9a-f]{32}$/);
    expect(written()).not.toContain(key.key);
  });

  it('samples once per key and minute across two containers (the conditional write on the key decides)', async () => {
    // Prepare: two containers, each with its own memory of what it logged, taking requests in turn.
    const { key } = await createOrgWithManagerKey(stack.office, ['records:read']);
    const clock = fixedClock();
    const containers = [localPlatform({ limits: ONE_A_MINUTE, clock }), localPlatform({ limits: ONE_A_MINUTE, clock })];
    let turn = 0;
    platformOfRequest = () => containers[turn++ % 2];

    // Act: A admits, then B, A, B, A refuse; each container tries to log its first rejection.
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await get('/me', key.key));

    // Assess
    expect(answers.map((a) => a.status)).toEqual([200, 429, 429, 429, 429]);
    expect(rateSamples()).toHaveLength(1);
    expect(callLines()).toHaveLength(1);
  });

  it('leaves no line for edge rejections, however many', async () => {
    // Prepare: the in-function guard allows 2 requests per credential and 10 seconds (all in one 10 seconds: a fixed clock).
    const { key } = await createOrgWithManagerKey(stack.office, ['records:read']);
    const limits = LIMITS.map((l) => (l.kind === 'edge' && l.policy === 'edge-credential-burst' ? { ...l, limit: 2 } : l));
    const clock = fixedClock();
    const platform = localPlatform({ edgeGuard: new EdgeGuard(limits, 'application', () => clock().getTime()), limits, clock });
    platformOfRequest = () => platform;

    // Act
    const answers = [];
    for (let i = 0; i < 6; i += 1) answers.push(await get('/me', key.key));

    // Assess: the two admitted calls only; the four refused at the edge left nothing, not even a rate_ sample.
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429, 429, 429, 429]);
    expect(lines().map((line) => [line.message, line.status])).toEqual([
      ['request', 200],
      ['request', 200],
    ]);
  });
});

/** The current instant, frozen (created after the test's keys, so they are valid at it). */
function fixedClock(): () => Date {
  const at = new Date();
  return () => at;
}
