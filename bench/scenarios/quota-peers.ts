/**
 * The key quotas in process, on the same DynamoDB Local: the service's
 * admission against a peer built on rate-limiter-flexible (bench/quota-peer.ts:
 * one RateLimiterDynamo per quota of key, account and organization, per
 * minute and per day, in one RateLimiterUnion, on a table of its own).
 *
 * - service: what the pipeline does for a key-authenticated request:
 *   `authenticateKey` (facts cached after the first request) then
 *   `admitRequest` (one conditional UpdateItem per principal item, in
 *   parallel), on a platform of the scenario's own with every quota raised
 *   out of reach, as the latency runs are;
 * - peer, key read: a consistent GetItem of the key item on every request
 *   (the service's checks of digest, revocation and expiry on what it read),
 *   then the union; a team would need this read for a revoked key to stop at
 *   once: the limiters re-check nothing;
 * - peer, cached key: the union after the service's own cached lookup (no
 *   read, and then nothing re-checks the key's standing): the limiters' cost
 *   alone.
 * The peer's latency quotas are raised out of reach too (same limiters, same
 * writes; only the numbers differ). Each call runs in a request scope of its
 * own, and both clients carry the service's DynamoDB accounting and the same
 * configuration, so calls, round trips and capacity units are counted alike.
 * Writes that fail their condition (each warm limiter's first write) are
 * counted apart: AWS bills them, DynamoDB Local reports nothing for them.
 *
 * Two bursts on lowered quotas, each by the service and then by the peer:
 * - hot organization: the hot-organization plan's keys (several managers of
 *   one organization) all at once over the organization's minute quota;
 * - key over its limit: one key far over a lowered key-minute quota, then
 *   other keys of its organization ask for exactly what its minute quota has
 *   left. A rejected request's points stay spent in the peer.
 * Afterwards the minute counters are read back: what they hold beyond the
 * admitted requests was consumed by refused ones.
 */
import { CreateTableCommand, DeleteTableCommand, DynamoDB, DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { ApiError } from '../../lambdas/shared/errors';
import { accountKey, apiKeyKey, orgKey } from '../../lambdas/shared/identity/access-items';
import { authenticateKey, KeyFactsCache, type KeyItemReader } from '../../lambdas/shared/identity/key-authentication';
import { ORGANIZATION_SCOPES } from '../../lambdas/shared/identity/scopes';
import { counterAttribute, decisionDepsOf } from '../../lambdas/shared/limits/admission';
import { admitRequest } from '../../lambdas/shared/limits/key-admission';
import { windowOf, type Limit } from '../../lambdas/shared/limits/limits-table';
import type { Platform } from '../../lambdas/shared/platform';
import { createDocumentClient, instrumentDynamoClient } from '../../lambdas/shared/storage/dynamo-client';
import { LOCAL_AWS_ENV, localDynamoClient } from '../../local/dynamo-local';
import { localDocumentClient } from '../../local/local-stack';
import { summarizeDynamo } from '../dynamo-per-request';
import { runLoad } from '../load';
import { benchPlatform, latencyLimits, limitsWith } from '../platform';
import { KeyItemGet, peerItemKey, RateLimiterFlexiblePeer } from '../quota-peer';
import { defineScenario, type LatencyRow, type QuotaBurstPhase, type QuotaPeerBurstRow, type QuotaPeerFigures, type Row } from '../scenario';
import { mean, round, summarizeLatency } from '../stats';
import { GET_ITEM_SCENARIO } from './dynamo-get-item';
import { parallelUpdates, UPDATE_ITEM_SCENARIO } from './dynamo-update-item';
import { countFailedConditions, inScope, type Measured } from './invitation-peers';

export const QUOTA_PEERS_SCENARIO = 'quota-peers';
const BASELINE = { scenario: GET_ITEM_SCENARIO, variant: 'raw' } as const;
/** Less than this left in the current UTC minute: wait for the next one (the service's windows are UTC minutes). */
const MIN_SECONDS_LEFT = 15;

type Path = QuotaPeerFigures['path'];

const PATHS: Readonly<Record<Path, { label: string; planned: string }>> = {
  service: {
    label: 'service admission, in process',
    planned: 'UpdateItem key + UpdateItem account + UpdateItem organization (key facts cached)',
  },
  'peer-read': {
    label: 'rate-limiter-flexible + key GetItem, in process',
    planned: 'GetItem key item → 6 × UpdateItem restarting the window (fails: it is live) → 6 × UpdateItem adding the point',
  },
  'peer-cached': {
    label: 'rate-limiter-flexible, cached key, in process',
    planned: '6 × UpdateItem restarting the window (fails: it is live) → 6 × UpdateItem adding the point (key facts cached)',
  },
};

type Outcome = { readonly kind: 'admitted' } | { readonly kind: 'rejected'; readonly policy: string } | { readonly kind: 'other'; readonly name: string };

/** One side of the comparison: admit one request presenting `authorization`. */
interface Side {
  admit(authorization: string): Promise<Outcome>;
}

const nameOf = (error: unknown) => (error instanceof ApiError ? error.code : ((error as { name?: string } | undefined)?.name ?? 'error'));

/** The pipeline's two steps for a key-authenticated route without a category (GET /me): lookup, then admission. */
function serviceSide(platform: Platform): Side {
  return {
    admit: async (authorization) => {
      try {
        const key = await authenticateKey(authorization, { reader: platform.admissionStore, cache: platform.keyCache, now: platform.clock() });
        const admission = await admitRequest(key, {}, { ...decisionDepsOf(platform), rateLog: platform.rateLog });
        await admission.release();
        return { kind: 'admitted' };
      } catch (error) {
        if (error instanceof ApiError && error.code === 'RATE_LIMITED') return { kind: 'rejected', policy: error.headers['X-RateLimit-Policy'] ?? 'unknown' };
        return { kind: 'other', name: nameOf(error) };
      }
    },
  };
}

/** The peer: the key looked up (read each time, or from `cache`), then the union. */
function peerSide(peer: RateLimiterFlexiblePeer, reader: KeyItemReader, cache: KeyFactsCache): Side {
  return {
    admit: async (authorization) => {
      try {
        const { facts } = await authenticateKey(authorization, { reader, cache, now: new Date() });
        const decision = await peer.admit(facts);
        if (decision.admitted) return { kind: 'admitted' };
        if (decision.errors.length > 0) return { kind: 'other', name: decision.errors.map(nameOf).join('+') };
        return { kind: 'rejected', policy: decision.policies.join('+') };
      } catch (error) {
        return { kind: 'other', name: nameOf(error) };
      }
    },
  };
}

/** A key cache that remembers nothing: the lookup reads the key item on every request. */
const noKeyCache = () => new KeyFactsCache(0);

interface MeasuredOutcome extends Measured {
  readonly outcome: Outcome;
}

async function measuredAdmission(id: string, side: Side, authorization: string): Promise<MeasuredOutcome> {
  let outcome: Outcome = { kind: 'other', name: 'not run' };
  const measured = await inScope(id, async () => {
    outcome = await side.admit(authorization);
  });
  return { ...measured, outcome };
}

/**
 * Both sides' SDK clients: DynamoDB Local's endpoint and credentials, the SDK's defaults otherwise, as the other in-process
 * rows (scenarios/invitation-peers.ts). Not the deployed 1 s request timeout: on a loaded machine the peer's 48 writes in
 * flight at 8 clients time out now and then, and one failed request ends a latency phase.
 */
const clientConfig = (endpoint: string) => ({
  endpoint,
  region: LOCAL_AWS_ENV.AWS_REGION,
  credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
});

interface Organization {
  readonly partnerId: string;
  readonly accountIds: readonly string[];
  /** Per account, its keys: `{ keyId, authorization }`. */
  readonly keys: readonly (readonly { readonly keyId: string; readonly accountId: string; readonly authorization: string }[])[];
}

interface State {
  readonly admin: DynamoDBClient;
  readonly seedClient: DynamoDBDocumentClient;
  readonly serviceClient: DynamoDBClient;
  readonly serviceDocuments: DynamoDBDocumentClient;
  readonly peerClient: DynamoDB;
  readonly peerDocuments: DynamoDBDocumentClient;
  readonly peerTable: string;
  readonly hot: Organization;
  readonly keyOverLimit: Organization;
}

/** Burst keys of `keysPerAccount` per manager account of a fresh organization. */
async function createOrganization(client: DynamoDBDocumentClient, table: string, name: string, keysPerAccount: readonly number[]): Promise<Organization> {
  const office = createBackOffice(client, table);
  const { partner_id: partnerId } = await office.organizations.create(name);
  const accountIds: string[] = [];
  const keys: Organization['keys'][number][] = [];
  for (const [m, count] of keysPerAccount.entries()) {
    const { account_id: accountId } = await office.accounts.create(`${name} manager ${m + 1}`);
    await office.memberships.set(partnerId, accountId, 'manager');
    accountIds.push(accountId);
    const created = [];
    for (let k = 0; k < count; k += 1) {
      const key = await office.keys.create({ accountId, partnerId, scopes: [...ORGANIZATION_SCOPES] });
      created.push({ keyId: key.key_id, accountId, authorization: `Bearer ${key.key}` });
    }
    keys.push(created);
  }
  return { partnerId, accountIds, keys };
}

/** The peer limiters' table, as RateLimiterDynamo would create it (partition key `key`, TTL on `expire`), made beforehand. */
async function createPeerTable(admin: DynamoDBClient, table: string): Promise<void> {
  await admin.send(
    new CreateTableCommand({
      TableName: table,
      AttributeDefinitions: [{ AttributeName: 'key', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'key', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await admin.send(new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { AttributeName: 'expire', Enabled: true } }));
}

/** The minute quotas a burst request counts on: which principal, which policy. */
const MINUTE_POLICIES = { key: 'key-minute', account: 'account-minute', organization: 'organization-minute' } as const;

interface BurstRequest {
  readonly keyId: string;
  readonly accountId: string;
  readonly authorization: string;
}

/**
 * What exact minute quotas that refund a refused request's other counts admit, per phase, taking the
 * requests one after another. The bursts are shaped so the totals do not depend on the order: in each
 * phase one quota binds (the organization's, or the single key's).
 */
export function exactAdmissions(phases: readonly (readonly BurstRequest[])[], partnerId: string, limits: Readonly<Record<string, number>>): number[] {
  const counts = new Map<string, number>();
  const limitOf = (policy: string) => limits[policy] ?? Number.POSITIVE_INFINITY;
  return phases.map((requests) => {
    let admitted = 0;
    for (const r of requests) {
      const items = [
        [`key:${r.keyId}`, limitOf(MINUTE_POLICIES.key)],
        [`account:${r.accountId}`, limitOf(MINUTE_POLICIES.account)],
        [`organization:${partnerId}`, limitOf(MINUTE_POLICIES.organization)],
      ] as const;
      if (items.every(([item, limit]) => (counts.get(item) ?? 0) < limit)) {
        for (const [item] of items) counts.set(item, (counts.get(item) ?? 0) + 1);
        admitted += 1;
      }
    }
    return admitted;
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for the next UTC minute when fewer than MIN_SECONDS_LEFT remain; returns the seconds waited. */
async function freshMinute(progress: (message: string) => void): Promise<number> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left >= MIN_SECONDS_LEFT * 1000) return 0;
  const waited = left + 250;
  progress(`waiting ${(waited / 1000).toFixed(1)} s for a fresh minute window`);
  await sleep(waited);
  return round(waited / 1000, 1);
}

async function serviceCounters(client: DynamoDBDocumentClient, table: string, organization: Organization, windowId: number) {
  const read = async (key: { pk: string; sk: string }, policy: string) => {
    const { Item } = await client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
    const counter = Item?.[counterAttribute(policy)] as { w?: number; n?: number } | undefined;
    return counter?.w === windowId ? (counter.n ?? 0) : 0;
  };
  const sum = async (reads: Promise<number>[]) => (await Promise.all(reads)).reduce((a, b) => a + b, 0);
  return {
    organization: await read(orgKey(organization.partnerId), MINUTE_POLICIES.organization),
    keys: await sum(organization.keys.flat().map((k) => read(apiKeyKey(k.keyId), MINUTE_POLICIES.key))),
    accounts: await sum(organization.accountIds.map((id) => read(accountKey(id), MINUTE_POLICIES.account))),
  };
}

async function peerCounters(client: DynamoDBDocumentClient, table: string, organization: Organization) {
  const read = async (policy: string, id: string) => {
    const { Item } = await client.send(new GetCommand({ TableName: table, Key: peerItemKey(policy, id), ConsistentRead: true }));
    // The library's own reading: an item whose window has expired counts nothing.
    return Item && (Item.expire as number) > Date.now() / 1000 ? (Item.points as number) : 0;
  };
  const sum = async (reads: Promise<number>[]) => (await Promise.all(reads)).reduce((a, b) => a + b, 0);
  return {
    organization: await read(MINUTE_POLICIES.organization, organization.partnerId),
    keys: await sum(organization.keys.flat().map((k) => read(MINUTE_POLICIES.key, k.keyId))),
    accounts: await sum(organization.accountIds.map((id) => read(MINUTE_POLICIES.account, id))),
  };
}

interface BurstPlan {
  readonly burst: string;
  readonly organization: Organization;
  readonly limits: Readonly<Record<string, number>>;
  readonly clients: number;
  readonly phases: readonly { readonly what: string; readonly requests: readonly BurstRequest[] }[];
}

/** One burst by one side: its phases one after another, each all at once; then the counters. */
async function runBurst(
  path: 'service' | 'peer',
  side: Side,
  plan: BurstPlan,
  /** The minute counters after the burst; the service's in the UTC window the burst started in. */
  counters: (windowId: number) => Promise<QuotaPeerBurstRow['counters']>,
  progress: (message: string) => void,
): Promise<QuotaPeerBurstRow> {
  const expected = exactAdmissions(
    plan.phases.map((p) => p.requests),
    plan.organization.partnerId,
    plan.limits,
  );
  // The service counts in UTC minutes: the whole burst must fit in one. The peer's windows start at each principal's first request.
  const waited = path === 'service' ? await freshMinute(progress) : 0;
  const startWindow = windowOf(60, Date.now()).id;
  const started = performance.now();
  const durations: number[] = [];
  const measured: MeasuredOutcome[] = [];
  const phases: QuotaBurstPhase[] = [];
  for (const [index, phase] of plan.phases.entries()) {
    progress(`${path}: ${plan.burst}, ${phase.what}: ${phase.requests.length} requests at ${plan.clients} concurrent`);
    let next = 0;
    const load = await runLoad({
      concurrency: plan.clients,
      warmup: 0,
      requests: phase.requests.length,
      operation: () => {
        const n = next++;
        return measuredAdmission(`${path}-${plan.burst}-${index}-${n}`, side, phase.requests[n].authorization);
      },
    });
    durations.push(...load.durationsMs);
    measured.push(...load.values);
    const rejected: Record<string, number> = {};
    const other: Record<string, number> = {};
    for (const { outcome } of load.values) {
      if (outcome.kind === 'rejected') rejected[outcome.policy] = (rejected[outcome.policy] ?? 0) + 1;
      if (outcome.kind === 'other') other[outcome.name] = (other[outcome.name] ?? 0) + 1;
    }
    phases.push({
      what: phase.what,
      keys: new Set(phase.requests.map((r) => r.keyId)).size,
      requests: phase.requests.length,
      admitted: load.values.filter((m) => m.outcome.kind === 'admitted').length,
      expected_admitted: expected[index],
      rejected,
      other,
    });
  }
  const elapsedMs = performance.now() - started;
  const endWindow = windowOf(60, Date.now()).id;
  const after = await counters(startWindow);
  const admitted = phases.reduce((sum, p) => sum + p.admitted, 0);
  const latency = summarizeLatency(durations, elapsedMs);
  const row: QuotaPeerBurstRow = {
    kind: 'quota-peer-burst',
    scenario: QUOTA_PEERS_SCENARIO,
    burst: plan.burst,
    path,
    limits: plan.limits,
    clients: plan.clients,
    keys: plan.organization.keys.flat().length,
    accounts: plan.organization.accountIds.length,
    phases,
    requests: phases.reduce((sum, p) => sum + p.requests, 0),
    admitted,
    expected_admitted: phases.reduce((sum, p) => sum + p.expected_admitted, 0),
    counters: after,
    consumed_by_rejected: { organization: after.organization - admitted, keys: after.keys - admitted, accounts: after.accounts - admitted },
    ...(path === 'service' ? { window_id: startWindow, same_window: startWindow === endWindow } : {}),
    waited_s: waited,
    elapsed_ms: Math.round(elapsedMs),
    p50_ms: latency.p50_ms,
    p99_ms: latency.p99_ms,
    dynamo: summarizeDynamo(
      measured.map((m) => m.figures),
      'client',
    ),
    failed_conditional_writes: round(mean(measured.map((m) => m.failedConditions)), 2),
    exact_admission: phases.every((p) => p.admitted === p.expected_admitted && Object.keys(p.other).length === 0),
    counters_exact: after.organization === admitted && after.keys === admitted && after.accounts === admitted,
  };
  if (path === 'service' && !(row.exact_admission && row.counters_exact && row.same_window)) {
    progress(`warning: the service's ${plan.burst} burst was not exact (or its window changed mid-run): ${JSON.stringify(row)}`);
  }
  return row;
}

/** `count` requests spread round-robin over `keys`. */
const roundRobin = (keys: readonly BurstRequest[], count: number) => Array.from({ length: count }, (_, i) => keys[i % keys.length]);

export const quotaPeers = defineScenario<State>({
  name: QUOTA_PEERS_SCENARIO,
  description: 'key quotas in process: the service admission against rate-limiter-flexible (RateLimiterDynamo × 6 in a RateLimiterUnion), same DynamoDB Local',
  setup: async ({ stack, plan, progress }) => {
    const admin = localDynamoClient(stack.dynamoEndpoint);
    const peerTable = `${stack.tables.access}-rate-limiter-flexible`;
    progress(`creating ${peerTable} (partition key key, TTL on expire) for the rate-limiter-flexible peer`);
    await createPeerTable(admin, peerTable);

    const serviceClient = countFailedConditions(new DynamoDBClient(clientConfig(stack.dynamoEndpoint)));
    const serviceDocuments = createDocumentClient(serviceClient);
    // The aggregated client the library calls (updateItem, getItem), with the same accounting as the service's.
    const peerClient = new DynamoDB(clientConfig(stack.dynamoEndpoint));
    countFailedConditions(instrumentDynamoClient(peerClient));
    const peerDocuments = DynamoDBDocumentClient.from(peerClient);

    const seedClient = localDocumentClient(stack.dynamoEndpoint);
    const { managers, keysPerManager } = plan.hotOrganization;
    const { otherKeys } = plan.quotaPeers.keyOverLimit;
    progress(`creating two organizations for the bursts (${managers} × ${keysPerManager} keys; 1 + ${otherKeys} keys)`);
    const hot = await createOrganization(seedClient, stack.tables.access, 'Quota peers: hot organization', Array.from({ length: managers }, () => keysPerManager));
    const keyOverLimit = await createOrganization(seedClient, stack.tables.access, 'Quota peers: key over its limit', [1, otherKeys]);
    return { admin, seedClient, serviceClient, serviceDocuments, peerClient, peerDocuments, peerTable, hot, keyOverLimit };
  },
  run: async ({ stack, demo, plan, progress }, state) => {
    const rows: Row[] = [];
    const accessTable = stack.tables.access;
    const reader = new KeyItemGet(state.peerDocuments, accessTable);
    const servicePlatform = (limits: readonly Limit[]) => benchPlatform(limits, { documentClient: state.serviceDocuments, tables: stack.tables });
    const peer = (limits: readonly Limit[]) => new RateLimiterFlexiblePeer({ client: state.peerClient, table: state.peerTable, limits });

    // Latency: the demo organization key, every quota out of reach on both sides.
    const raised = latencyLimits();
    const raisedPeer = peer(raised);
    const sides: Record<Path, Side> = {
      service: serviceSide(servicePlatform(raised)),
      'peer-read': peerSide(raisedPeer, reader, noKeyCache()),
      'peer-cached': peerSide(raisedPeer, reader, new KeyFactsCache()),
    };
    const authorization = `Bearer ${demo.organization_key}`;
    const { warmupRequests, measuredRequests } = plan.quotaPeers;
    // The three paths one after another at each concurrency, so the rows compared were measured close together.
    for (const concurrency of plan.concurrencies) {
      for (const path of Object.keys(PATHS) as Path[]) {
        progress(`${PATHS[path].label} at ${concurrency} concurrent`);
        let next = 0;
        const phase = await runLoad({
          concurrency,
          warmup: warmupRequests,
          requests: measuredRequests,
          operation: async () => {
            const result = await measuredAdmission(`${path}-${concurrency}-${next++}`, sides[path], authorization);
            if (result.outcome.kind !== 'admitted') throw new Error(`${PATHS[path].label}: ${JSON.stringify(result.outcome)}, expected admitted`);
            return result;
          },
        });
        const failed = mean(phase.values.map((m) => m.failedConditions));
        const dynamo = summarizeDynamo(
          phase.values.map((m) => m.figures),
          'client',
          path === 'service' ? { firstTryCalls: 3 } : {},
        );
        rows.push({
          kind: 'latency',
          scenario: QUOTA_PEERS_SCENARIO,
          label: PATHS[path].label,
          variant: path,
          concurrency,
          ...summarizeLatency(phase.durationsMs, phase.elapsedMs),
          dynamo,
          baseline: BASELINE,
          ...(path === 'service' ? { floor: { scenario: UPDATE_ITEM_SCENARIO, variant: parallelUpdates(3) } } : {}),
          quota_peer: {
            path,
            planned: PATHS[path].planned,
            failed_conditional_writes: round(failed, 2),
            aws_wcu_floor: round((dynamo?.wcu ?? 0) + failed, 2),
            operations: phase.values[0]?.operations ?? [],
          },
        } satisfies LatencyRow);
      }
    }

    // Bursts on lowered quotas: the service first, then the peer, on the same keys (their counters live in different tables).
    const hotPlan = plan.hotOrganization;
    const overPlan = plan.quotaPeers.keyOverLimit;
    const asRequests = (organization: Organization) => organization.keys.map((keys) => keys.map((k) => ({ keyId: k.keyId, accountId: k.accountId, authorization: k.authorization })));
    const hotKeys = asRequests(state.hot).flat();
    const [[overKey], otherKeys] = asRequests(state.keyOverLimit);
    const bursts: BurstPlan[] = [
      {
        burst: 'hot organization',
        organization: state.hot,
        limits: hotPlan.limits,
        clients: hotPlan.clients,
        phases: [{ what: `${hotKeys.length} keys`, requests: roundRobin(hotKeys, hotPlan.requests) }],
      },
      {
        burst: 'key over its limit',
        organization: state.keyOverLimit,
        limits: overPlan.limits,
        clients: overPlan.clients,
        phases: [
          { what: 'one key', requests: roundRobin([overKey], overPlan.overLimitRequests) },
          { what: `${otherKeys.length} other keys`, requests: roundRobin(otherKeys, otherKeys.length * overPlan.otherKeyRequests) },
        ],
      },
    ];
    for (const burst of bursts) {
      const lowered = limitsWith(burst.limits);
      const platform = servicePlatform(lowered);
      const serviceRow = await runBurst(
        'service',
        serviceSide(platform),
        burst,
        (windowId) => serviceCounters(state.seedClient, accessTable, burst.organization, windowId),
        progress,
      );
      rows.push(serviceRow);
      rows.push(await runBurst('peer', peerSide(peer(lowered), reader, noKeyCache()), burst, () => peerCounters(state.seedClient, state.peerTable, burst.organization), progress));
    }
    return rows;
  },
  teardown: async (_context, state) => {
    if (!state) return;
    await state.admin.send(new DeleteTableCommand({ TableName: state.peerTable })).catch(() => undefined);
    state.admin.destroy();
    state.seedClient.destroy();
    state.serviceClient.destroy();
    state.peerClient.destroy();
  },
});
