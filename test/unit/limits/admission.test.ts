/**
 * Authentication, admission and authorization of a request, as the pipeline
 * chains them (authenticateKey → admitRequest → authorizeRoute).
 * admitRequest(): one decision per request on whether the key is still
 * usable and every quota and concurrency limit covering the route has room,
 * taken in conditional writes to the key, account and organization items.
 * A cold container reads the key item first; a warm one only writes. The old
 * image of a refused write decides between a denial, a 429 and a retry; the
 * items that admitted a rejected request are compensated; a store that does
 * not answer fails closed with 503.
 */
import { createHash } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, ERROR_CATALOG } from '../../../lambdas/shared/errors';
import { accountKey, apiKeyKey, orgKey, toKeyFacts, type ApiKeyItem } from '../../../lambdas/shared/identity/access-items';
import { digestApiKey, generateApiKey, keyIdFromDigest, LIVE_KEY_PREFIX } from '../../../lambdas/shared/identity/api-keys';
import { authorizeRoute, type AuthorizedRoute } from '../../../lambdas/shared/identity/authorization';
import { authenticateKey, KeyFactsCache } from '../../../lambdas/shared/identity/key-authentication';
import { AdmissionStore, QuotaStoreUnavailable, type ItemKey } from '../../../lambdas/shared/limits/admission-store';
import type { AdmissionRoute } from '../../../lambdas/shared/limits/admission';
import { admitRequest } from '../../../lambdas/shared/limits/key-admission';
import { RateLogSampler } from '../../../lambdas/shared/limits/rejection-log';
import { WindowMemory } from '../../../lambdas/shared/limits/window-memory';
import { LIMITS } from '../../../lambdas/shared/limits/limits-table';

/** A policy's limit in the limits table: the tests read it rather than repeat it (a value changes in one place). */
const limitOf = (policy: string) => {
  const row = LIMITS.find((limit) => limit.policy === policy);
  if (!row) throw new Error(`no policy ${policy} in the limits table`);
  return row.limit;
};
import { captureLogs, type LogCapture } from '../../support/log-capture';
import {
  conditionFailed,
  documentClient,
  gate,
  leaseTakenBy,
  resolveCounting,
  throttled,
  timedOut,
  windowsAt,
} from '../support/admission-fixtures';
import {
  ACCOUNT_ID,
  NOW,
  PARTNER_ID,
  accountItem,
  bearer,
  issueKey,
  orgItem,
  serveAdmission,
  serveItems,
  type IssuedKey,
  type StoredItem,
} from '../support/identity-fixtures';

const TABLE = 'access-table';
const ddbMock = mockClient(DynamoDBDocumentClient);
const store = new AdmissionStore(documentClient, TABLE);
const W = windowsAt(NOW);
const NOW_MS = NOW.getTime();

/** What a Lambda container keeps between requests. */
interface Container {
  readonly cache: KeyFactsCache;
  readonly windows: WindowMemory;
  readonly rateLog: RateLogSampler;
}

const newContainer = (): Container => ({ cache: new KeyFactsCache(), windows: new WindowMemory(), rateLog: new RateLogSampler() });

/** A container that has served the key before: its facts are cached. */
function warmContainer(issued: IssuedKey): Container {
  const container = newContainer();
  container.cache.set(toKeyFacts(issued.item));
  return container;
}

interface AdmitOptions {
  readonly route?: AdmissionRoute & AuthorizedRoute;
  readonly partnerId?: string;
  readonly container?: Container;
  readonly now?: Date;
}

async function admit(authorization: string | undefined, options: AdmitOptions = {}) {
  const container = options.container ?? newContainer();
  const now = options.now ?? NOW;
  const route = options.route ?? {};
  const key = await authenticateKey(authorization, { reader: store, cache: container.cache, now });
  const admission = await admitRequest(key, route, { store, windows: container.windows, rateLog: container.rateLog, limits: LIMITS, now });
  try {
    authorizeRoute(admission.principal, route, options.partnerId);
  } catch (error) {
    // As the pipeline does: the response to a refused admitted request frees its slots and carries the rate headers.
    await admission.release();
    const refused = error as ApiError;
    throw new ApiError(refused.code, refused.message, { ...admission.headers, ...refused.headers });
  }
  return admission;
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const sentCommands = () => ddbMock.calls().map((call) => call.args[0].constructor.name);
const updates = (key?: ItemKey): UpdateCommandInput[] =>
  ddbMock
    .commandCalls(UpdateCommand)
    .map((call) => call.args[0].input)
    .filter((input) => key === undefined || input.Key?.pk === key.pk);
/** Admission writes ask for the new counts; compensations only for the old image on a failed condition. */
const admissionWrites = (key?: ItemKey) => updates(key).filter((input) => input.ReturnValues === 'UPDATED_NEW');
const compensations = (key?: ItemKey) =>
  updates(key).filter((input) => input.ReturnValues === undefined && input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD');
const releases = (key?: ItemKey) => updates(key).filter((input) => input.UpdateExpression === 'REMOVE #leases.#lease');
const rateLogClaims = () => updates().filter((input) => input.UpdateExpression?.includes('rate_logged_minute'));

/** The admission write to one item, answered with its own behaviour (later `on` calls take precedence). */
const onAdmissionWrite = (key: ItemKey) => ddbMock.on(UpdateCommand, { Key: key, ReturnValues: 'UPDATED_NEW' });

const orgKeyWith = (scopes: string[] = ['records:read', 'tickets:read', 'invitations:write']) => issueKey({ partner_id: PARTNER_ID, scopes });
const TICKET_ROUTE: AdmissionRoute & AuthorizedRoute = { scope: 'tickets:read', partnerBound: true, category: 'ticket' };

let logs: LogCapture;
const logLines = () => logs.lines();
const rateLogLines = () => logLines().filter((line) => String(line.id ?? '').startsWith('rate_'));

beforeEach(() => {
  logs = captureLogs();
});

afterEach(() => {
  ddbMock.reset();
  vi.restoreAllMocks();
});

describe('admitRequest: round trips', () => {
  it('reads the key item, then writes the key and account items of a personal key, on a cold container', async () => {
    // Prepare
    const issued = issueKey();
    serveAdmission(ddbMock, [issued.item, accountItem()]);

    // Act
    await admit(bearer(issued.key));

    // Assess
    expect(sentCommands()).toEqual(['GetCommand', 'UpdateCommand', 'UpdateCommand']);
    expect(ddbMock.commandCalls(GetCommand)[0].args[0].input).toEqual({ TableName: TABLE, Key: apiKeyKey(issued.keyId), ConsistentRead: true });
    expect(admissionWrites().map((input) => input.Key)).toEqual(expect.arrayContaining([apiKeyKey(issued.keyId), accountKey(ACCOUNT_ID)]));
    expect(admissionWrites().every((input) => input.TableName === TABLE)).toBe(true);
  });

  it('writes the key, account and organization items of an organization key, on a cold container', async () => {
    // Prepare
    const issued = orgKeyWith();
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    await admit(bearer(issued.key));

    // Assess
    expect(sentCommands()).toEqual(['GetCommand', 'UpdateCommand', 'UpdateCommand', 'UpdateCommand']);
    expect(admissionWrites().map((input) => input.Key)).toEqual(
      expect.arrayContaining([apiKeyKey(issued.keyId), accountKey(ACCOUNT_ID), orgKey(PARTNER_ID)]),
    );
  });

  it('sends the writes of all items before any of them is answered: one round trip', async () => {
    // Prepare
    const issued = orgKeyWith();
    serveItems(ddbMock, [issued.item, accountItem(), orgItem()]);
    const held = gate();
    ddbMock.on(UpdateCommand).callsFake(async () => {
      await held.opened;
      return { Attributes: {} };
    });

    // Act
    const admission = admit(bearer(issued.key), { container: warmContainer(issued) });
    await vi.waitFor(() => expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(3), { timeout: 10_000 });
    held.open();

    // Assess
    await expect(admission).resolves.toMatchObject({ principal: { keyId: issued.keyId } });
  });

  it('spends only the writes, one per item, on a warm container', async () => {
    // Prepare
    const issued = orgKeyWith();
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    const container = newContainer();
    await admit(bearer(issued.key), { container });
    ddbMock.resetHistory();

    // Act
    await admit(bearer(issued.key), { container });

    // Assess
    expect(sentCommands()).toEqual(['UpdateCommand', 'UpdateCommand', 'UpdateCommand']);
  });

  it('re-checks revocation, the account and the manager grant inside the writes, since the cache holds only what never changes', async () => {
    // Prepare
    const issued = issueKey({ partner_id: PARTNER_ID, account_gen: 3, org_gen: 2, manager_grant: 'grant_0007' });
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    await admit(bearer(issued.key), { container: warmContainer(issued) });

    // Assess
    expect(resolveCounting(admissionWrites(apiKeyKey(issued.keyId))[0]).condition).toMatch(
      /^attribute_exists\(pk\) AND attribute_not_exists\(revoked_at\) AND /,
    );
    expect(resolveCounting(admissionWrites(accountKey(ACCOUNT_ID))[0]).condition).toMatch(/^status = "active" AND cred_gen = 3 AND /);
    expect(resolveCounting(admissionWrites(orgKey(PARTNER_ID))[0]).condition).toMatch(
      new RegExp(`^status = "active" AND key_gen = 2 AND managers\\.${ACCOUNT_ID} = "grant_0007" AND `),
    );
  });

  it('does not let cached facts vouch for a different key value with the same id', async () => {
    // Prepare: a cached key whose id collides with the presented key's id.
    const presented = generateApiKey();
    const collidingId = keyIdFromDigest(digestApiKey(presented));
    const other = issueKey();
    const container = newContainer();
    container.cache.set(toKeyFacts({ ...other.item, key_id: collidingId } as ApiKeyItem));
    serveAdmission(ddbMock, [accountItem()]);

    // Act
    const error = await rejection(admit(bearer(presented), { container }));

    // Assess
    expect(error.code).toBe('INVALID_API_KEY');
    expect(ddbMock.calls()).toHaveLength(0);
  });
});

describe('admitRequest: invalid credentials are indistinguishable and count nowhere', () => {
  const unknownKey = generateApiKey();
  const presentedForMismatch = generateApiKey();
  const revoked = issueKey({ revoked_at: '2025-02-20T00:00:00.000Z' });
  const expired = issueKey({ expires_at: NOW.toISOString() });
  const mismatch = issueKey();
  // A stored key under the presented key's id whose digest differs (an id collision).
  const mismatchItem: StoredItem = {
    ...mismatch.item,
    ...apiKeyKey(keyIdFromDigest(digestApiKey(presentedForMismatch))),
    key_id: keyIdFromDigest(digestApiKey(presentedForMismatch)),
  };

  const cases: { name: string; authorization: string | undefined; items: StoredItem[] }[] = [
    { name: 'a missing Authorization header', authorization: undefined, items: [] },
    { name: 'an empty Authorization header', authorization: '', items: [] },
    { name: 'another scheme', authorization: `Basic ${unknownKey}`, items: [] },
    { name: 'a key without scheme', authorization: unknownKey, items: [] },
    { name: 'a key of the wrong length', authorization: bearer(unknownKey.slice(0, -1)), items: [] },
    { name: 'a key with upper-case hex', authorization: bearer(unknownKey.toUpperCase().replace('PAK_LIVE_', LIVE_KEY_PREFIX)), items: [] },
    { name: 'a well-formed key nobody holds', authorization: bearer(unknownKey), items: [] },
    { name: 'a key whose digest does not match the stored one', authorization: bearer(presentedForMismatch), items: [mismatchItem] },
    { name: 'a revoked key', authorization: bearer(revoked.key), items: [revoked.item] },
    { name: 'an expired key', authorization: bearer(expired.key), items: [expired.item] },
  ];

  it.each(cases)('answers $name with the one generic 401 INVALID_API_KEY, before any write', async ({ authorization, items }) => {
    // Prepare
    serveAdmission(ddbMock, [...items, accountItem()]);

    // Act
    const error = await rejection(admit(authorization));

    // Assess
    expect({ code: error.code, status: error.status, message: error.message, headers: error.headers }).toEqual({
      code: 'INVALID_API_KEY',
      status: 401,
      message: ERROR_CATALOG.INVALID_API_KEY.message,
      headers: {},
    });
    expect(sentCommands()).toEqual(['GetCommand']);
  });

  it.each([
    { name: 'a missing header', authorization: undefined },
    { name: 'a malformed header', authorization: 'Bearer not-a-key' },
    { name: 'a well-formed unknown key', authorization: bearer(unknownKey) },
  ])('looks a key up for $name, the same work as for any unknown key', async ({ authorization }) => {
    // Prepare
    serveAdmission(ddbMock, [accountItem()]);

    // Act
    await rejection(admit(authorization));

    // Assess
    const { Key } = ddbMock.commandCalls(GetCommand)[0].args[0].input;
    expect(Key?.pk).toMatch(/^KEY#key_[0-9a-f]{24}$/);
  });

  it.each([
    { name: 'missing', authorization: undefined },
    { name: 'malformed', authorization: 'Bearer not-a-key' },
  ])('reads a different decoy item for each request with a $name credential: no hot partition', async ({ authorization }) => {
    // Prepare
    serveAdmission(ddbMock, [accountItem()]);

    // Act
    for (let i = 0; i < 5; i += 1) await rejection(admit(authorization));

    // Assess
    const read = ddbMock.commandCalls(GetCommand).map((call) => call.args[0].input.Key?.pk);
    expect(read).toHaveLength(5);
    expect(new Set(read).size).toBe(5);
  });

  it('does not cache the facts of a key whose digest did not match', async () => {
    // Prepare
    serveAdmission(ddbMock, [mismatchItem, accountItem()]);
    const container = newContainer();

    // Act
    await rejection(admit(bearer(presentedForMismatch), { container }));

    // Assess
    expect(container.cache.get(mismatchItem.key_id as string)).toBeUndefined();
  });

  it('refuses a cached key from the moment it expires, without a write', async () => {
    // Prepare
    const issued = issueKey({ expires_at: new Date(NOW_MS + 1000).toISOString() });
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    const container = warmContainer(issued);
    await admit(bearer(issued.key), { container });
    ddbMock.resetHistory();

    // Act
    const error = await rejection(admit(bearer(issued.key), { container, now: new Date(NOW_MS + 1000) }));

    // Assess
    expect(error.code).toBe('INVALID_API_KEY');
    expect(ddbMock.calls()).toHaveLength(0);
  });
});

describe('admitRequest: a refused write whose old image shows the key is no longer usable', () => {
  const issued = orgKeyWith();
  const KEY = apiKeyKey(issued.keyId);
  const ACCOUNT = accountKey(ACCOUNT_ID);
  const ORG = orgKey(PARTNER_ID);

  const cases: { name: string; refusing: ItemKey; old: StoredItem | undefined; code: string; status: number }[] = [
    { name: 'the key was revoked', refusing: KEY, old: { ...issued.item, revoked_at: '2025-03-01T11:59:00.000Z' }, code: 'INVALID_API_KEY', status: 401 },
    { name: 'the key item is gone', refusing: KEY, old: undefined, code: 'INVALID_API_KEY', status: 401 },
    { name: 'the account was deactivated', refusing: ACCOUNT, old: accountItem({ status: 'deactivated' }), code: 'INVALID_API_KEY', status: 401 },
    { name: 'the account password was reset', refusing: ACCOUNT, old: accountItem({ cred_gen: 2 }), code: 'INVALID_API_KEY', status: 401 },
    { name: 'the organization is archived', refusing: ORG, old: orgItem({ status: 'archived' }), code: 'PARTNER_INACTIVE', status: 409 },
    { name: 'the organization was restored from an archive', refusing: ORG, old: orgItem({ key_gen: 2 }), code: 'INVALID_API_KEY', status: 401 },
    { name: 'the creator is no longer a manager', refusing: ORG, old: orgItem({ managers: {} }), code: 'PARTNER_MANAGER_REQUIRED', status: 403 },
    {
      name: 'the creator was demoted and promoted again',
      refusing: ORG,
      old: orgItem({ managers: { [ACCOUNT_ID]: 'grant_0002' } }),
      code: 'INVALID_API_KEY',
      status: 401,
    },
  ];

  it.each(cases)('answers $code when $name, without retrying the write', async ({ refusing, old, code, status }) => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(refusing).rejects(conditionFailed(old));

    // Act
    const error = await rejection(admit(bearer(issued.key), { container: warmContainer(issued) }));

    // Assess
    expect(error).toMatchObject({ code, status });
    expect(error.headers).not.toHaveProperty('Retry-After');
    expect(admissionWrites(refusing)).toHaveLength(1);
  });

  it('takes back the counts of the items that admitted the request', async () => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(ACCOUNT).rejects(conditionFailed(accountItem({ status: 'deactivated' })));

    // Act
    await rejection(admit(bearer(issued.key), { container: warmContainer(issued) }));

    // Assess
    const key = resolveCounting(compensations(KEY)[0]);
    expect(key.update).toBe('SET q_key_minute.n = q_key_minute.n - 1, q_key_day.n = q_key_day.n - 1');
    expect(key.condition).toBe(`q_key_minute.w = ${W.minute} AND q_key_minute.n > 0 AND q_key_day.w = ${W.day} AND q_key_day.n > 0`);
    expect(resolveCounting(compensations(ORG)[0]).update).toMatch(/q_organization_minute\.n = q_organization_minute\.n - 1/);
    expect(compensations(ACCOUNT)).toHaveLength(0);
  });

  it('answers the key denial first when several items refuse', async () => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(ORG).rejects(conditionFailed(orgItem({ status: 'archived' })));
    onAdmissionWrite(KEY).rejects(conditionFailed({ ...issued.item, revoked_at: '2025-03-01T11:59:00.000Z' }));

    // Act
    const error = await rejection(admit(bearer(issued.key), { container: warmContainer(issued) }));

    // Assess
    expect(error.code).toBe('INVALID_API_KEY');
  });
});

describe('admitRequest: scope and organization binding, after the request is counted', () => {
  const headlineOf = (used: number) => ({
    'X-RateLimit-Limit': String(limitOf('key-minute')),
    'X-RateLimit-Remaining': String(limitOf('key-minute') - used),
    'X-RateLimit-Reset': String(W.minuteEnd),
    'X-RateLimit-Policy': 'key-minute',
  });

  it('answers PARTNER_SCOPE_MISMATCH for another organization, with the X-RateLimit headers, and keeps the count', async () => {
    // Prepare
    const issued = orgKeyWith();
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(apiKeyKey(issued.keyId)).resolves({ Attributes: { q_key_minute: { n: 5 }, q_key_day: { n: 40 } } });

    // Act
    const error = await rejection(admit(bearer(issued.key), { route: { scope: 'records:read', partnerBound: true }, partnerId: 'org_0002' }));

    // Assess
    expect(error).toMatchObject({ code: 'PARTNER_SCOPE_MISMATCH', status: 403 });
    expect(error.headers).toEqual(headlineOf(5));
    expect(admissionWrites()).toHaveLength(3);
    expect(compensations()).toHaveLength(0);
  });

  it('answers PARTNER_SCOPE_MISMATCH for a personal key on an organization route', async () => {
    // Prepare
    const issued = issueKey();
    serveAdmission(ddbMock, [issued.item, accountItem()]);

    // Act
    const error = await rejection(admit(bearer(issued.key), { route: { partnerBound: true }, partnerId: PARTNER_ID }));

    // Assess
    expect(error.code).toBe('PARTNER_SCOPE_MISMATCH');
    expect(error.headers).toEqual(headlineOf(1));
  });

  it('answers INSUFFICIENT_SCOPE when the key lacks the scope, with the X-RateLimit headers', async () => {
    // Prepare
    const issued = orgKeyWith(['invitations:read']);
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(apiKeyKey(issued.keyId)).resolves({ Attributes: { q_key_minute: { n: 12 }, q_key_day: { n: 12 } } });

    // Act
    const error = await rejection(
      admit(bearer(issued.key), { route: { scope: 'invitations:write', partnerBound: true }, partnerId: PARTNER_ID }),
    );

    // Assess
    expect(error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403 });
    expect(error.headers).toEqual(headlineOf(12));
  });

  it('frees the concurrency leases of a request it refuses', async () => {
    // Prepare
    const issued = orgKeyWith();
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    await rejection(admit(bearer(issued.key), { route: TICKET_ROUTE, partnerId: 'org_0002' }));

    // Assess
    const taken = leaseTakenBy(admissionWrites(apiKeyKey(issued.keyId))[0]);
    expect(releases().map((input) => input.Key)).toEqual(
      expect.arrayContaining([apiKeyKey(issued.keyId), accountKey(ACCOUNT_ID), orgKey(PARTNER_ID)]),
    );
    expect(releases().every((input) => input.ExpressionAttributeNames?.['#lease'] === taken?.id)).toBe(true);
  });

  it('admits a key carrying the scope on its own organization, as its principal', async () => {
    // Prepare
    const issued = issueKey({ partner_id: PARTNER_ID, scopes: ['records:read', 'tickets:read'], expires_at: null });
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    const admission = await admit(bearer(issued.key), { route: { scope: 'records:read', partnerBound: true }, partnerId: PARTNER_ID });

    // Assess
    expect(admission.principal).toEqual({
      keyId: issued.keyId,
      accountId: ACCOUNT_ID,
      partnerId: PARTNER_ID,
      scopes: ['records:read', 'tickets:read'],
      expiresAt: null,
    });
  });

  it('admits a personal key with a null organization', async () => {
    // Prepare
    const issued = issueKey();
    serveAdmission(ddbMock, [issued.item, accountItem()]);

    // Act
    const admission = await admit(bearer(issued.key), { route: { scope: 'public:read' } });

    // Assess
    expect(admission.principal).toMatchObject({ keyId: issued.keyId, partnerId: null, expiresAt: issued.item.expires_at });
  });
});

describe('admitRequest: quotas', () => {
  it("reports the key's minute window on an admitted request", async () => {
    // Prepare
    const issued = issueKey();
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    onAdmissionWrite(apiKeyKey(issued.keyId)).resolves({ Attributes: { q_key_minute: { n: 7 }, q_key_day: { n: 300 } } });

    // Act
    const admission = await admit(bearer(issued.key));

    // Assess
    expect(admission.headers).toEqual({
      'X-RateLimit-Limit': String(limitOf('key-minute')),
      'X-RateLimit-Remaining': '53',
      'X-RateLimit-Reset': String(W.minuteEnd),
      'X-RateLimit-Policy': 'key-minute',
    });
  });

  it('counts every request in the key, account and organization windows of the spec', async () => {
    // Prepare
    const issued = orgKeyWith();
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    await admit(bearer(issued.key), { container: warmContainer(issued) });

    // Assess
    const conditions = (key: ItemKey) => resolveCounting(admissionWrites(key)[0]).condition;
    expect(conditions(apiKeyKey(issued.keyId))).toContain(`q_key_minute.w = ${W.minute} AND q_key_minute.n < ${limitOf('key-minute')}`);
    expect(conditions(apiKeyKey(issued.keyId))).toContain(`q_key_day.w = ${W.day} AND q_key_day.n < ${limitOf('key-day')}`);
    expect(conditions(accountKey(ACCOUNT_ID))).toContain(`q_account_minute.n < ${limitOf('account-minute')}`);
    expect(conditions(accountKey(ACCOUNT_ID))).toContain(`q_account_day.n < ${limitOf('account-day')}`);
    expect(conditions(orgKey(PARTNER_ID))).toContain(`q_organization_minute.n < ${limitOf('organization-minute')}`);
    expect(conditions(orgKey(PARTNER_ID))).toContain(`q_organization_day.n < ${limitOf('organization-day')}`);
    expect(conditions(orgKey(PARTNER_ID))).not.toMatch(/q_invitation|q_ticket|leases/);
  });

  it("counts an invitation creation in the organization's invitation and ticket windows too", async () => {
    // Prepare
    const issued = orgKeyWith();
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    await admit(bearer(issued.key), {
      container: warmContainer(issued),
      route: { scope: 'invitations:write', partnerBound: true, category: 'invitation-create' },
      partnerId: PARTNER_ID,
    });

    // Assess
    const condition = resolveCounting(admissionWrites(orgKey(PARTNER_ID))[0]).condition;
    expect(condition).toContain(`q_invitation_minute.w = ${W.minute} AND q_invitation_minute.n < ${limitOf('invitation-minute')}`);
    expect(condition).toContain(`q_invitation_hour.w = ${W.hour} AND q_invitation_hour.n < ${limitOf('invitation-hour')}`);
    expect(condition).toContain(`q_invitation_day.w = ${W.day} AND q_invitation_day.n < ${limitOf('invitation-day')}`);
    expect(condition).toContain(`q_ticket_minute.n < ${limitOf('ticket-minute')}`);
  });

  it('answers 429 RATE_LIMITED with the numbers of a full key minute window and Retry-After to its end', async () => {
    // Prepare
    const issued = issueKey();
    const now = new Date(NOW_MS + 45_500);
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    onAdmissionWrite(apiKeyKey(issued.keyId)).rejects(
      conditionFailed({ ...issued.item, q_key_minute: { w: W.minute, n: limitOf('key-minute') }, q_key_day: { w: W.day, n: 60 } }),
    );

    // Act
    const error = await rejection(admit(bearer(issued.key), { container: warmContainer(issued), now }));

    // Assess
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(error.headers).toEqual({
      'X-RateLimit-Limit': String(limitOf('key-minute')),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(W.minuteEnd),
      'X-RateLimit-Policy': 'key-minute',
      'Retry-After': '15',
    });
  });

  it("names organization-day and waits until the next UTC day when the organization's day is used up", async () => {
    // Prepare
    const issued = orgKeyWith();
    const now = new Date('2025-03-01T23:59:30.000Z');
    const day = windowsAt(now).day;
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(orgKey(PARTNER_ID)).rejects(
      conditionFailed({ ...orgItem(), q_organization_minute: { w: windowsAt(now).minute, n: 3 }, q_organization_day: { w: day, n: 20_000 } }),
    );

    // Act
    const error = await rejection(admit(bearer(issued.key), { container: warmContainer(issued), now }));

    // Assess
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.headers).toEqual({
      'X-RateLimit-Limit': String(limitOf('organization-day')),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(Date.parse('2025-03-02T00:00:00.000Z') / 1000),
      'X-RateLimit-Policy': 'organization-day',
      'Retry-After': '30',
    });
  });

  it('names the full window that ends last when several refuse on one item: key-day over key-minute', async () => {
    // Prepare: both of the key's windows are full; the minute ends in 15 s, the day at midnight.
    const issued = issueKey();
    const now = new Date(NOW_MS + 45_000);
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    onAdmissionWrite(apiKeyKey(issued.keyId)).rejects(
      conditionFailed({ ...issued.item, q_key_minute: { w: W.minute, n: limitOf('key-minute') }, q_key_day: { w: W.day, n: limitOf('key-day') } }),
    );

    // Act
    const error = await rejection(admit(bearer(issued.key), { container: warmContainer(issued), now }));

    // Assess
    expect(error.headers).toEqual({
      'X-RateLimit-Limit': String(limitOf('key-day')),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(W.dayEnd),
      'X-RateLimit-Policy': 'key-day',
      'Retry-After': String(W.dayEnd - now.getTime() / 1000),
    });
  });

  it('names the full window that ends last across items: organization-day over key-minute', async () => {
    // Prepare
    const issued = orgKeyWith();
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(apiKeyKey(issued.keyId)).rejects(conditionFailed({ ...issued.item, q_key_minute: { w: W.minute, n: limitOf('key-minute') } }));
    onAdmissionWrite(orgKey(PARTNER_ID)).rejects(conditionFailed({ ...orgItem(), q_organization_day: { w: W.day, n: 20_000 } }));

    // Act
    const error = await rejection(admit(bearer(issued.key), { container: warmContainer(issued) }));

    // Assess
    expect(error.headers).toMatchObject({ 'X-RateLimit-Policy': 'organization-day', 'X-RateLimit-Reset': String(W.dayEnd) });
  });

  it('names the earlier policy of the table when two full windows end together', async () => {
    // Prepare: key-minute and account-minute end at the same instant.
    const issued = issueKey();
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    onAdmissionWrite(apiKeyKey(issued.keyId)).rejects(conditionFailed({ ...issued.item, q_key_minute: { w: W.minute, n: limitOf('key-minute') } }));
    onAdmissionWrite(accountKey(ACCOUNT_ID)).rejects(conditionFailed({ ...accountItem(), q_account_minute: { w: W.minute, n: limitOf('account-minute') } }));

    // Act
    const error = await rejection(admit(bearer(issued.key), { container: warmContainer(issued) }));

    // Assess
    expect(error.headers['X-RateLimit-Policy']).toBe('key-minute');
  });

  it('names invitation-hour when the organization created 60 invitations this hour', async () => {
    // Prepare
    const issued = orgKeyWith();
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(orgKey(PARTNER_ID)).rejects(conditionFailed({ ...orgItem(), q_invitation_hour: { w: W.hour, n: limitOf('invitation-hour') } }));

    // Act
    const error = await rejection(
      admit(bearer(issued.key), {
        container: warmContainer(issued),
        route: { scope: 'invitations:write', partnerBound: true, category: 'invitation-create' },
        partnerId: PARTNER_ID,
      }),
    );

    // Assess
    expect(error.headers).toMatchObject({
      'X-RateLimit-Limit': String(limitOf('invitation-hour')),
      'X-RateLimit-Reset': String(W.hourEnd),
      'X-RateLimit-Policy': 'invitation-hour',
      'Retry-After': String(W.hourEnd - NOW_MS / 1000),
    });
  });

  it('takes back the counts and leases of the items that admitted a request another item rejected', async () => {
    // Prepare
    const issued = orgKeyWith();
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(orgKey(PARTNER_ID)).rejects(conditionFailed({ ...orgItem(), q_ticket_minute: { w: W.minute, n: limitOf('ticket-minute') }, leases: {} }));

    // Act
    const error = await rejection(admit(bearer(issued.key), { container: warmContainer(issued), route: TICKET_ROUTE, partnerId: PARTNER_ID }));

    // Assess
    expect(error.headers['X-RateLimit-Policy']).toBe('ticket-minute');
    const lease = leaseTakenBy(admissionWrites(apiKeyKey(issued.keyId))[0]);
    for (const key of [apiKeyKey(issued.keyId), accountKey(ACCOUNT_ID)]) {
      const [compensation] = compensations(key).map(resolveCounting);
      expect(compensation.update).toMatch(/^SET q_\w+_minute\.n = q_\w+_minute\.n - 1, q_\w+_day\.n = q_\w+_day\.n - 1 REMOVE leases\.\w+$/);
      expect(compensation.update).toContain(`REMOVE leases.${lease?.id}`);
    }
    expect(compensations(orgKey(PARTNER_ID))).toHaveLength(0);
  });

  it('retries a write that guessed the wrong window as a reset of the new window, and admits', async () => {
    // Prepare
    const issued = issueKey();
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    onAdmissionWrite(apiKeyKey(issued.keyId))
      .rejectsOnce(conditionFailed({ ...issued.item, q_key_minute: { w: W.minute - 1, n: limitOf('key-minute') }, q_key_day: { w: W.day, n: 70 } }))
      .resolves({ Attributes: { q_key_minute: { w: W.minute, n: 1 }, q_key_day: { n: 71 } } });

    // Act
    const admission = await admit(bearer(issued.key), { container: warmContainer(issued) });

    // Assess
    const [first, retry] = admissionWrites(apiKeyKey(issued.keyId)).map(resolveCounting);
    expect(first.condition).toContain(`q_key_minute.w = ${W.minute} AND q_key_minute.n < ${limitOf('key-minute')}`);
    expect(retry.condition).toContain(`(attribute_not_exists(q_key_minute) OR q_key_minute.w < ${W.minute})`);
    expect(retry.condition).toContain(`q_key_day.w = ${W.day} AND q_key_day.n < ${limitOf('key-day')}`);
    expect(retry.update).toBe(`SET q_key_minute = {"w":${W.minute},"n":1}, q_key_day.n = q_key_day.n + 1`);
    expect(admission.headers['X-RateLimit-Remaining']).toBe('59');
  });

  it('starts the windows of an item never counted before', async () => {
    // Prepare
    const issued = issueKey();
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    onAdmissionWrite(accountKey(ACCOUNT_ID)).rejectsOnce(conditionFailed(accountItem())).resolves({ Attributes: {} });

    // Act
    await admit(bearer(issued.key), { container: warmContainer(issued) });

    // Assess
    const retry = resolveCounting(admissionWrites(accountKey(ACCOUNT_ID))[1]);
    expect(retry.update).toBe(`SET q_account_minute = {"w":${W.minute},"n":1}, q_account_day = {"w":${W.day},"n":1}`);
  });

  it('plans resets for a brand-new key from its cold read: its first request costs no retried write', async () => {
    // Prepare: the key item as created, without any counter yet.
    const issued = issueKey();
    serveAdmission(ddbMock, [issued.item, accountItem()]);

    // Act
    await admit(bearer(issued.key));

    // Assess
    const keyWrites = admissionWrites(apiKeyKey(issued.keyId));
    expect(keyWrites).toHaveLength(1);
    expect(resolveCounting(keyWrites[0]).update).toBe(`SET q_key_minute = {"w":${W.minute},"n":1}, q_key_day = {"w":${W.day},"n":1}`);
  });

  it('counts in the newer window another container already opened', async () => {
    // Prepare: this container's clock is still in the previous minute.
    const issued = issueKey();
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    onAdmissionWrite(apiKeyKey(issued.keyId))
      .rejectsOnce(conditionFailed({ ...issued.item, q_key_minute: { w: W.minute + 1, n: 4 }, q_key_day: { w: W.day, n: 4 } }))
      .resolves({ Attributes: {} });

    // Act
    await admit(bearer(issued.key), { container: warmContainer(issued), now: new Date(NOW_MS + 59_000) });

    // Assess
    const retry = resolveCounting(admissionWrites(apiKeyKey(issued.keyId))[1]);
    expect(retry.condition).toContain(`q_key_minute.w = ${W.minute + 1} AND q_key_minute.n < ${limitOf('key-minute')}`);
  });

  it('plans a reset straight away once the container saw the window end', async () => {
    // Prepare
    const issued = issueKey();
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    const container = warmContainer(issued);
    await admit(bearer(issued.key), { container });
    ddbMock.resetHistory();

    // Act
    await admit(bearer(issued.key), { container, now: new Date(NOW_MS + 60_000) });

    // Assess
    const writes = admissionWrites(apiKeyKey(issued.keyId)).map(resolveCounting);
    expect(writes).toHaveLength(1);
    expect(writes[0].update).toBe(`SET q_key_minute = {"w":${W.minute + 1},"n":1}, q_key_day.n = q_key_day.n + 1`);
  });

  it('fails closed with RATE_LIMIT_UNAVAILABLE when an item keeps refusing without a reason', async () => {
    // Prepare
    const issued = issueKey();
    serveAdmission(ddbMock, [issued.item, accountItem()]);
    onAdmissionWrite(accountKey(ACCOUNT_ID)).rejects(
      conditionFailed({ ...accountItem(), q_account_minute: { w: W.minute, n: 1 }, q_account_day: { w: W.day, n: 1 } }),
    );

    // Act
    const error = await rejection(admit(bearer(issued.key), { container: warmContainer(issued) }));

    // Assess
    expect(error).toMatchObject({ code: 'RATE_LIMIT_UNAVAILABLE', status: 503, headers: { 'Retry-After': '1' } });
    expect(admissionWrites(accountKey(ACCOUNT_ID))).toHaveLength(5);
  });
});

describe('admitRequest: requests in flight', () => {
  const issued = orgKeyWith();
  const KEY = apiKeyKey(issued.keyId);
  const admitTicket = (now = NOW) =>
    admit(bearer(issued.key), { container: warmContainer(issued), route: TICKET_ROUTE, partnerId: PARTNER_ID, now });

  it('takes one lease, expiring after 15 seconds, on the key, account and organization, under their limits 2, 6 and 4', async () => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    await admitTicket();

    // Assess
    const leases = [KEY, accountKey(ACCOUNT_ID), orgKey(PARTNER_ID)].map((key) => leaseTakenBy(admissionWrites(key)[0]));
    expect(new Set(leases.map((lease) => lease?.id)).size).toBe(1);
    expect(leases.every((lease) => lease?.expiresAtMs === NOW_MS + 15_000)).toBe(true);
    expect(resolveCounting(admissionWrites(KEY)[0]).condition).toContain('size(leases) < 2');
    expect(resolveCounting(admissionWrites(accountKey(ACCOUNT_ID))[0]).condition).toContain('size(leases) < 6');
    expect(resolveCounting(admissionWrites(orgKey(PARTNER_ID))[0]).condition).toContain('size(leases) < 4');
  });

  it('gives every admission its own lease, even when clients send the same request id (X-Amzn-RequestId)', async () => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act: two admissions; lease ids owe nothing to the request id a client may choose.
    await admitTicket();
    await admitTicket();

    // Assess
    const [first, second] = admissionWrites(KEY).map((write) => leaseTakenBy(write)?.id);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(first).not.toBe(second);
  });

  it('takes no lease on routes without an invitation or ticket category', async () => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);

    // Act
    await admit(bearer(issued.key), { container: warmContainer(issued) });

    // Assess
    expect(admissionWrites().map((input) => leaseTakenBy(input))).toEqual([undefined, undefined, undefined]);
  });

  it('answers 429 CONCURRENCY_LIMITED with Retry-After 2 when the key holds 2 live leases, and gives back the account and organization slots', async () => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(KEY).rejects(conditionFailed({ ...issued.item, leases: { ra: NOW_MS + 5000, rb: NOW_MS + 9000 } }));

    // Act
    const error = await rejection(admitTicket());

    // Assess
    expect(error).toMatchObject({ code: 'CONCURRENCY_LIMITED', status: 429 });
    expect(error.headers).toEqual({ 'X-RateLimit-Policy': 'ticket-concurrency', 'Retry-After': '2' });
    const lease = leaseTakenBy(admissionWrites(orgKey(PARTNER_ID))[0]);
    expect(resolveCounting(compensations(accountKey(ACCOUNT_ID))[0]).update).toContain(`REMOVE leases.${lease?.id}`);
    expect(resolveCounting(compensations(orgKey(PARTNER_ID))[0]).update).toContain(`REMOVE leases.${lease?.id}`);
  });

  it("asks a full organization again while it holds more of one key's leases than the key may: their requests were refused", async () => {
    // Prepare: the organization's 4 slots, 3 of them one key's (taken just now: their compensations are on their way).
    const tag = (keyId: string) => createHash('sha256').update(keyId).digest('hex').slice(0, 8);
    const crowded = { [`${tag('other')}_ra`]: NOW_MS + 15_000, [`${tag('other')}_rb`]: NOW_MS + 15_000, [`${tag('other')}_rc`]: NOW_MS + 15_000, [`${tag('third')}_rd`]: NOW_MS + 15_000 };
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(orgKey(PARTNER_ID))
      .rejectsOnce(conditionFailed({ ...orgItem(), leases: crowded }))
      .resolves({ Attributes: {} });

    // Act
    const admission = await admitTicket();

    // Assess: admitted on the second write, nothing given back.
    expect(admission.principal.keyId).toBe(issued.keyId);
    expect(admissionWrites(orgKey(PARTNER_ID))).toHaveLength(2);
    expect(compensations(KEY)).toHaveLength(0);
  });

  it('does not ask again when the full organization holds no more of any key’s leases than the key may, none just taken', async () => {
    // Prepare: 4 slots of 2 keys, 2 each, taken 2 seconds ago: every one may be running.
    const tag = (keyId: string) => createHash('sha256').update(keyId).digest('hex').slice(0, 8);
    const full = { [`${tag('a')}_ra`]: NOW_MS + 13_000, [`${tag('a')}_rb`]: NOW_MS + 13_000, [`${tag('b')}_rc`]: NOW_MS + 13_000, [`${tag('b')}_rd`]: NOW_MS + 13_000 };
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(orgKey(PARTNER_ID)).rejects(conditionFailed({ ...orgItem(), leases: full }));

    // Act
    const error = await rejection(admitTicket());

    // Assess
    expect(error.code).toBe('CONCURRENCY_LIMITED');
    expect(admissionWrites(orgKey(PARTNER_ID))).toHaveLength(1);
  });

  it('asks a full organization again a few times only when its leases were just taken, then refuses', async () => {
    // Prepare: 4 slots of 2 keys, 2 each, taken just now: some may be requests their key refused, or all may be running.
    const tag = (keyId: string) => createHash('sha256').update(keyId).digest('hex').slice(0, 8);
    const full = { [`${tag('a')}_ra`]: NOW_MS + 15_000, [`${tag('a')}_rb`]: NOW_MS + 15_000, [`${tag('b')}_rc`]: NOW_MS + 15_000, [`${tag('b')}_rd`]: NOW_MS + 15_000 };
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(orgKey(PARTNER_ID)).rejects(conditionFailed({ ...orgItem(), leases: full }));

    // Act
    const error = await rejection(admitTicket());

    // Assess: the first write and three more, then the limit's answer.
    expect(error.code).toBe('CONCURRENCY_LIMITED');
    expect(admissionWrites(orgKey(PARTNER_ID))).toHaveLength(4);
  });

  it('answers CONCURRENCY_LIMITED when the organization holds 4 live leases, and gives back the key and account slots', async () => {
    // Prepare
    const live = Object.fromEntries(['ra', 'rb', 'rc', 'rd'].map((id) => [id, NOW_MS + 10_000]));
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(orgKey(PARTNER_ID)).rejects(conditionFailed({ ...orgItem(), leases: live }));

    // Act
    const error = await rejection(admitTicket());

    // Assess
    expect(error.code).toBe('CONCURRENCY_LIMITED');
    const lease = leaseTakenBy(admissionWrites(KEY)[0]);
    expect(resolveCounting(compensations(KEY)[0]).update).toContain(`REMOVE leases.${lease?.id}`);
    expect(resolveCounting(compensations(accountKey(ACCOUNT_ID))[0]).update).toContain(`REMOVE leases.${lease?.id}`);
  });

  it('takes every slot in one round trip: the key, account and organization writes are in flight together', async () => {
    // Prepare: the key's write held unanswered.
    serveItems(ddbMock, [issued.item, accountItem(), orgItem()]);
    const held = gate();
    ddbMock.on(UpdateCommand).resolves({ Attributes: {} });
    onAdmissionWrite(KEY).callsFake(async () => {
      await held.opened;
      return { Attributes: {} };
    });

    // Act: the account and organization writes are sent while the key's is still unanswered.
    const admission = admitTicket();
    await vi.waitFor(() => expect(admissionWrites().map((input) => input.Key)).toEqual([KEY, accountKey(ACCOUNT_ID), orgKey(PARTNER_ID)]), { timeout: 10_000 });
    held.open();

    // Assess
    await expect(admission).resolves.toMatchObject({ principal: { keyId: issued.keyId } });
  });

  it('drops expired leases in the retried write and admits', async () => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(KEY)
      .rejectsOnce(conditionFailed({ ...issued.item, leases: { ra: NOW_MS - 1, rb: NOW_MS - 5000 } }))
      .resolves({ Attributes: {} });

    // Act
    const admission = await admitTicket();

    // Assess
    expect(admission.principal.keyId).toBe(issued.keyId);
    const retry = resolveCounting(admissionWrites(KEY)[1]);
    expect(retry.condition).toContain('size(leases) < 4 AND attribute_exists(leases.ra) AND attribute_exists(leases.rb)');
    expect(retry.update).toMatch(/ REMOVE leases\.ra, leases\.rb$/);
  });

  it("frees the slot of a crashed request's lease once it expires, 15 seconds after it was taken", async () => {
    // Prepare: a request took a lease at NOW and never released it; another holds the second slot.
    const held = { crashed: NOW_MS + 15_000, other: NOW_MS + 20_000 };
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(KEY).callsFake((input: UpdateCommandInput) =>
      resolveCounting(input).condition.includes('attribute_exists(leases.crashed)')
        ? { Attributes: {} }
        : Promise.reject(conditionFailed({ ...issued.item, leases: held })),
    );

    // Act
    const justBefore = await rejection(admitTicket(new Date(NOW_MS + 14_999)));
    const atExpiry = await admitTicket(new Date(NOW_MS + 15_000));

    // Assess
    expect(justBefore.code).toBe('CONCURRENCY_LIMITED');
    expect(atExpiry.principal.keyId).toBe(issued.keyId);
  });

  it('creates the lease map of an item that never held one', async () => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(KEY).rejectsOnce(conditionFailed(issued.item)).resolves({ Attributes: {} });

    // Act
    await admitTicket();

    // Assess
    const retry = resolveCounting(admissionWrites(KEY)[1]);
    expect(retry.condition).toContain('attribute_not_exists(leases)');
    expect(retry.update).toMatch(new RegExp(`leases = \\{"\\w+":${NOW_MS + 15_000}\\}`));
  });
});

describe('admitRequest: a quota store that does not answer', () => {
  const issued = orgKeyWith();

  it.each([
    { name: 'the read is throttled', read: throttled, write: undefined },
    { name: 'the read times out', read: timedOut, write: undefined },
    { name: 'a write is throttled', read: undefined, write: throttled },
    { name: 'a write times out', read: undefined, write: timedOut },
  ])('answers 503 RATE_LIMIT_UNAVAILABLE with Retry-After when $name, never admitting', async ({ read, write }) => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    if (read) ddbMock.on(GetCommand).rejects(read());
    if (write) onAdmissionWrite(orgKey(PARTNER_ID)).rejects(write());

    // Act
    const error = await rejection(admit(bearer(issued.key)));

    // Assess
    expect(error).toMatchObject({ code: 'RATE_LIMIT_UNAVAILABLE', status: 503 });
    expect(error.headers).toEqual({ 'Retry-After': '1' });
    expect(error).toBeInstanceOf(QuotaStoreUnavailable);
    expect(error.cause).toMatchObject({ name: (read ?? write)?.().name });
    if (read) expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('takes back the counts and leases of the items that admitted a request it answers with 503', async () => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    onAdmissionWrite(orgKey(PARTNER_ID)).rejects(throttled());

    // Act
    const error = await rejection(admit(bearer(issued.key), { container: warmContainer(issued), route: TICKET_ROUTE, partnerId: PARTNER_ID }));

    // Assess
    expect(error.code).toBe('RATE_LIMIT_UNAVAILABLE');
    expect(compensations(apiKeyKey(issued.keyId))).toHaveLength(1);
    expect(compensations(accountKey(ACCOUNT_ID))).toHaveLength(1);
  });
});

describe('Admission.release', () => {
  const issued = orgKeyWith();
  const admitTicket = () => admit(bearer(issued.key), { container: warmContainer(issued), route: TICKET_ROUTE, partnerId: PARTNER_ID });

  it('removes the lease the request took on each item', async () => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    const admission = await admitTicket();
    const lease = leaseTakenBy(admissionWrites(apiKeyKey(issued.keyId))[0]);

    // Act
    await admission.release();

    // Assess
    expect(releases()).toHaveLength(3);
    for (const key of [apiKeyKey(issued.keyId), accountKey(ACCOUNT_ID), orgKey(PARTNER_ID)]) {
      expect(resolveCounting(releases(key)[0]).update).toBe(`REMOVE leases.${lease?.id}`);
    }
  });

  it('is idempotent, also when called twice at once', async () => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    const admission = await admitTicket();

    // Act
    await Promise.all([admission.release(), admission.release()]);
    await admission.release();

    // Assess
    expect(releases()).toHaveLength(3);
  });

  it('sends nothing for a request that holds no lease', async () => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    const admission = await admit(bearer(issued.key), { container: warmContainer(issued) });
    ddbMock.resetHistory();

    // Act
    await admission.release();

    // Assess
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it('does not throw when the store fails: the lease expires by itself', async () => {
    // Prepare
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    const admission = await admitTicket();
    ddbMock.on(UpdateCommand, { UpdateExpression: 'REMOVE #leases.#lease' }).rejects(throttled());

    // Act
    const released = admission.release();

    // Assess
    await expect(released).resolves.toBeUndefined();
    expect(logLines().some((line) => line.level === 'ERROR')).toBe(true);
  });
});

describe('admitRequest: sampled logging of rate rejections', () => {
  const issued = orgKeyWith();
  const fullMinute = () => conditionFailed({ ...issued.item, q_key_minute: { w: W.minute, n: limitOf('key-minute') } });

  /** The store side of the sample: one claim per key and minute succeeds, across containers. */
  function serveRateLogClaims() {
    let loggedMinute: number | undefined;
    ddbMock.on(UpdateCommand, { Key: apiKeyKey(issued.keyId), UpdateExpression: 'SET rate_logged_minute = :minute' }).callsFake((input: UpdateCommandInput) => {
      const minute = input.ExpressionAttributeValues?.[':minute'] as number;
      if (loggedMinute !== undefined && loggedMinute >= minute) return Promise.reject(conditionFailed(issued.item));
      loggedMinute = minute;
      return {};
    });
  }

  beforeEach(() => {
    serveAdmission(ddbMock, [issued.item, accountItem(), orgItem()]);
    serveRateLogClaims();
  });

  it('logs one line with an id starting rate_, the key id and the policy, never the key', async () => {
    // Prepare
    onAdmissionWrite(apiKeyKey(issued.keyId)).rejects(fullMinute());

    // Act
    await rejection(admit(bearer(issued.key), { container: warmContainer(issued) }));

    // Assess
    const lines = rateLogLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'WARN',
      key_id: issued.keyId,
      account_id: ACCOUNT_ID,
      partner_id: PARTNER_ID,
      code: 'RATE_LIMITED',
      policy: 'key-minute',
    });
    expect(lines[0].id).toMatch(/^rate_[0-9a-f]{32}$/);
    expect(rateLogClaims()[0].ExpressionAttributeValues).toEqual({ ':minute': W.minute });
    expect(logs.text()).not.toContain(issued.key);
  });

  it('logs at most once per key and minute, within a container and across containers', async () => {
    // Prepare
    onAdmissionWrite(apiKeyKey(issued.keyId)).rejects(fullMinute());
    const container = warmContainer(issued);
    const otherContainer = warmContainer(issued);

    // Act
    await rejection(admit(bearer(issued.key), { container }));
    await rejection(admit(bearer(issued.key), { container, now: new Date(NOW_MS + 30_000) }));
    await rejection(admit(bearer(issued.key), { container: otherContainer, now: new Date(NOW_MS + 40_000) }));

    // Assess
    expect(rateLogLines()).toHaveLength(1);
    expect(rateLogClaims()).toHaveLength(2);
  });

  it('logs again in the next minute', async () => {
    // Prepare
    const nextMinute = new Date(NOW_MS + 60_000);
    onAdmissionWrite(apiKeyKey(issued.keyId))
      .rejectsOnce(fullMinute())
      .rejects(conditionFailed({ ...issued.item, q_key_minute: { w: W.minute + 1, n: limitOf('key-minute') } }));
    const container = warmContainer(issued);

    // Act
    await rejection(admit(bearer(issued.key), { container }));
    await rejection(admit(bearer(issued.key), { container, now: nextMinute }));

    // Assess
    expect(rateLogLines()).toHaveLength(2);
  });

  it('logs concurrency rejections under ticket-concurrency', async () => {
    // Prepare
    onAdmissionWrite(apiKeyKey(issued.keyId)).rejects(conditionFailed({ ...issued.item, leases: { ra: NOW_MS + 1000, rb: NOW_MS + 1000 } }));

    // Act
    await rejection(admit(bearer(issued.key), { container: warmContainer(issued), route: TICKET_ROUTE, partnerId: PARTNER_ID }));

    // Assess
    expect(rateLogLines()).toEqual([expect.objectContaining({ code: 'CONCURRENCY_LIMITED', policy: 'ticket-concurrency' })]);
  });

  it.each([
    { name: 'an unknown key', authorization: bearer(generateApiKey()), refuse: false },
    { name: 'a revoked key', authorization: bearer(issued.key), refuse: true },
  ])('does not log the rejection of $name', async ({ authorization, refuse }) => {
    // Prepare
    if (refuse) onAdmissionWrite(apiKeyKey(issued.keyId)).rejects(conditionFailed({ ...issued.item, revoked_at: '2025-03-01T11:00:00.000Z' }));

    // Act
    await rejection(admit(authorization));

    // Assess
    expect(rateLogLines()).toHaveLength(0);
    expect(rateLogClaims()).toHaveLength(0);
  });
});
