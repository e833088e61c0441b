/**
 * A hot organization: many keys of several manager accounts of one
 * organization send a burst at once, with the organization's minute quota
 * lowered (a platform of the run's own, behind a local front of its own), so
 * the burst crosses it. An exact quota admits min(requests, limit), rejects
 * the rest with 429 and that policy, and leaves the organization item's
 * minute counter at the admitted count (the key and account counters too:
 * the writes of a rejected request are compensated).
 *
 * Everything happens in one minute window: the run waits for the next minute
 * when too little of the current one is left, and reports whether the burst
 * started and ended in the same window.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountKey, apiKeyKey, orgKey } from '../../lambdas/shared/identity/access-items';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { ORGANIZATION_SCOPES } from '../../lambdas/shared/identity/scopes';
import { counterAttribute } from '../../lambdas/shared/limits/admission';
import { windowOf } from '../../lambdas/shared/limits/limits-table';
import type { Platform } from '../../lambdas/shared/platform';
import { startLocalFront, type LocalFront } from '../../local/http-front';
import { localDocumentClient } from '../../local/local-stack';
import { dynamoPerRequest } from '../dynamo-per-request';
import { KeepAliveClient, type HttpAnswer } from '../http-client';
import { runLoad } from '../load';
import { benchHandlers, benchPlatform, limitsWith } from '../platform';
import { defineScenario, type QuotaRow } from '../scenario';
import { summarizeLatency } from '../stats';

const SCENARIO = 'hot-organization';
/** The policy the burst is meant to cross. */
const POLICY = 'organization-minute';
/** Less than this left in the current minute: wait for the next one. */
const MIN_SECONDS_LEFT = 10;

interface State {
  readonly documentClient: DynamoDBDocumentClient;
  readonly partnerId: string;
  readonly accountIds: readonly string[];
  readonly keys: readonly { readonly keyId: string; readonly key: string }[];
  readonly platform: Platform;
  readonly front: LocalFront;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function counterOf(client: DynamoDBDocumentClient, table: string, key: { pk: string; sk: string }, attribute: string) {
  const { Item } = await client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
  const counter = Item?.[attribute] as { w?: number; n?: number } | undefined;
  return { w: counter?.w ?? null, n: counter?.n ?? null };
}

export const hotOrganization = defineScenario<State>({
  name: SCENARIO,
  description: 'hot organization: many keys of one organization in one burst, organization-minute quota lowered',
  setup: async ({ stack, plan, progress }) => {
    const { managers, keysPerManager, limits } = plan.hotOrganization;
    const documentClient = localDocumentClient(stack.dynamoEndpoint);
    const office = createBackOffice(documentClient, stack.tables.access);
    progress(`creating an organization with ${managers} manager accounts of ${keysPerManager} keys each`);
    const { partner_id: partnerId } = await office.organizations.create('Hot organization');
    const accountIds: string[] = [];
    const keys: { keyId: string; key: string }[] = [];
    for (let m = 0; m < managers; m += 1) {
      const { account_id } = await office.accounts.create(`Hot manager ${m + 1}`);
      await office.memberships.set(partnerId, account_id, 'manager');
      accountIds.push(account_id);
      for (let k = 0; k < keysPerManager; k += 1) {
        const created = await office.keys.create({ accountId: account_id, partnerId, scopes: [...ORGANIZATION_SCOPES] });
        keys.push({ keyId: created.key_id, key: created.key });
      }
    }
    // The deployed pipeline on a platform with the lowered limits, behind a front without edge checks.
    const platform = benchPlatform(limitsWith(limits), { tables: stack.tables });
    const front = await startLocalFront({ handlers: benchHandlers(() => platform) });
    return { documentClient, partnerId, accountIds, keys, platform, front };
  },
  run: async ({ stack, plan, progress, accessLog }, state) => {
    const { requests, clients, limits } = plan.hotOrganization;
    const limit = limits[POLICY];
    if (limit === undefined) throw new Error(`The hot-organization plan sets no ${POLICY} limit`);

    const left = 60_000 - (Date.now() % 60_000);
    let waited = 0;
    if (left < MIN_SECONDS_LEFT * 1000) {
      waited = left + 250;
      progress(`waiting ${(waited / 1000).toFixed(1)} s for a fresh minute window`);
      await sleep(waited);
    }

    progress(`${requests} GET /me over ${state.keys.length} keys at ${clients} concurrent, ${POLICY} limit ${limit}`);
    const client = new KeepAliveClient(state.front.baseUrl, clients);
    let next = 0;
    const startWindow = windowOf(60, Date.now()).id;
    let phase;
    try {
      accessLog.clear();
      phase = await runLoad<HttpAnswer>({
        concurrency: clients,
        warmup: 0,
        requests,
        operation: () => client.get('/me', { Authorization: `Bearer ${state.keys[next++ % state.keys.length].key}` }),
      });
    } finally {
      client.close();
    }
    const endWindow = windowOf(60, Date.now()).id;

    const rejected: Record<string, number> = {};
    const other: Record<string, number> = {};
    const admittedIds: string[] = [];
    for (const answer of phase.values) {
      if (answer.status === 200 && answer.requestId) {
        admittedIds.push(answer.requestId);
      } else if (answer.status === 429) {
        const policy = String(answer.headers['x-ratelimit-policy'] ?? 'unknown');
        rejected[policy] = (rejected[policy] ?? 0) + 1;
      } else {
        other[answer.status] = (other[answer.status] ?? 0) + 1;
      }
    }
    const unexpected = phase.values.find((a) => a.status !== 200 && a.status !== 429);
    if (unexpected) progress(`warning: answers other than 200/429, e.g. ${unexpected.status}: ${unexpected.body}`);
    const admittedDynamo = dynamoPerRequest(accessLog, admittedIds);
    accessLog.clear();

    const table = stack.tables.access;
    const organizationCounter = await counterOf(state.documentClient, table, orgKey(state.partnerId), counterAttribute(POLICY));
    const sumCounters = async (keys: { pk: string; sk: string }[], attribute: string) => {
      const counters = await Promise.all(keys.map((key) => counterOf(state.documentClient, table, key, attribute)));
      return counters.reduce((sum, c) => sum + (c.w === startWindow ? (c.n ?? 0) : 0), 0);
    };
    const keyCountersSum = await sumCounters(state.keys.map((k) => apiKeyKey(k.keyId)), counterAttribute('key-minute'));
    const accountCountersSum = await sumCounters(state.accountIds.map(accountKey), counterAttribute('account-minute'));

    const admitted = admittedIds.length;
    const expected = Math.min(requests, limit);
    const sameWindow = startWindow === endWindow;
    const latency = summarizeLatency(phase.durationsMs, phase.elapsedMs);
    const row: QuotaRow = {
      kind: 'quota',
      scenario: SCENARIO,
      policy: POLICY,
      limit,
      limits,
      requests,
      clients,
      keys: state.keys.length,
      accounts: state.accountIds.length,
      admitted,
      expected_admitted: expected,
      rejected,
      other,
      organization_counter: organizationCounter,
      key_counters_sum: keyCountersSum,
      account_counters_sum: accountCountersSum,
      window_id: startWindow,
      same_window: sameWindow,
      waited_s: Math.round(waited / 100) / 10,
      elapsed_ms: Math.round(phase.elapsedMs),
      p50_ms: latency.p50_ms,
      p99_ms: latency.p99_ms,
      admitted_dynamo: admittedDynamo,
      exact:
        sameWindow &&
        admitted === expected &&
        (rejected[POLICY] ?? 0) === requests - expected &&
        Object.keys(other).length === 0 &&
        organizationCounter.w === startWindow &&
        organizationCounter.n === admitted &&
        keyCountersSum === admitted &&
        accountCountersSum === admitted,
    };
    if (!row.exact) progress(`warning: the hot-organization quota was not exact (or the window changed mid-run): ${JSON.stringify(row)}`);
    return [row];
  },
  teardown: async (_context, state) => {
    if (!state) return;
    await state.front.close();
    state.platform.documentClient.destroy();
    state.documentClient.destroy();
  },
});
