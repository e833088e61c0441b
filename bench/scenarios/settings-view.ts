/**
 * `GET /settings/api/keys` through the local front, signed in to web
 * settings (the session cookie), for an account with three personal keys:
 * the session read, then admission's one conditional update of the account
 * item (counts the view, re-checks the account against the session) and,
 * beside it, the listing's reads (the account item, for each key's standing,
 * and the Query of its key entries: settings-pipeline.ts viewReads). Two
 * sequential round trips, four calls, one write unit. Baseline: a raw
 * GetItem in the same run.
 */
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { PERSONAL_SCOPES } from '../../lambdas/shared/identity/scopes';
import { localDocumentClient } from '../../local/local-stack';
import { dynamoPerRequest } from '../dynamo-per-request';
import { defineScenario, type BenchContext, type LatencyRow } from '../scenario';
import { summarizeLatency } from '../stats';
import { GET_ITEM_SCENARIO } from './dynamo-get-item';
import { measure } from './get-me';

const PATH = '/settings/api/keys';
/** First-try calls: the session GetItem, then the account item's UpdateItem beside the account GetItem and the entries' Query. */
const CALLS = 4;

/** An account with three keys, signed in through the API: its session cookie. */
async function signedIn(context: BenchContext): Promise<string> {
  const client = localDocumentClient(context.stack.dynamoEndpoint);
  const email = `bench-settings-${Date.now()}@example.com`;
  const password = 'bench settings password';
  try {
    const office = createBackOffice(client, context.stack.tables.access);
    const { account_id } = await office.accounts.create('Bench settings', { email, password });
    for (let i = 0; i < 3; i += 1) await office.keys.create({ accountId: account_id, name: `key ${i}`, scopes: [...PERSONAL_SCOPES] });
  } finally {
    client.destroy();
  }
  const response = await fetch(`${context.stack.baseUrl}/settings/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: new URL(context.stack.baseUrl).origin, 'X-Settings-Request': '1' },
    body: JSON.stringify({ email, password }),
  });
  const cookie = response.headers.get('set-cookie');
  if (response.status !== 200 || !cookie) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  return cookie.split(';')[0];
}

export const settingsView = defineScenario({
  name: 'settings-view',
  description: 'GET /settings/api/keys signed in (session cookie): session read, then the account item counter with the session re-check beside the account and its key entries',
  run: async (context) => {
    const { plan, progress } = context;
    const cookie = await signedIn(context);
    const rows: LatencyRow[] = [];
    for (const concurrency of plan.concurrencies) {
      progress(`GET /settings/api/keys at ${concurrency} concurrent`);
      context.accessLog.clear();
      const phase = await measure(context, { Cookie: cookie }, PATH, { concurrency, warmup: plan.warmupRequests, requests: plan.measuredRequests, cold: false });
      const dynamo = dynamoPerRequest(context.accessLog, phase.values, CALLS);
      context.accessLog.clear();
      rows.push({
        kind: 'latency',
        scenario: 'settings-view',
        label: 'GET /settings/api/keys',
        variant: 'warm',
        concurrency,
        ...summarizeLatency(phase.durationsMs, phase.elapsedMs),
        dynamo,
        baseline: { scenario: GET_ITEM_SCENARIO, variant: 'raw' },
      });
    }
    return rows;
  },
});
