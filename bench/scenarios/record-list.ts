/**
 * `GET /partners/{partner_id}/records` on an organization with
 * `plan.listRecords` records (20,000 in a full run), with the demo
 * organization key, limit 20, one client: for no filter, each single filter
 * and one combination, the first page and a deep page (a cursor 90% into
 * that filter's traversal, signed as the service signs the cursors it hands
 * out, since reaching it by paging would take thousands of requests).
 *
 * Per page: latency (baseline: a raw GetItem in the same run), read units
 * from the handler's access log, and the items the page's Query reads (an
 * untimed probe of the same code, RecordList.readPage) against the records
 * it returns. Targets: a deep page within 1.2× of the first; a single filter
 * reads at most about twice what it returns.
 *
 * The records are bulk-loaded (local/bulk-records.ts), one minute apart,
 * cycling through results, games and 500 player names.
 */
import { cursorBinding, filtersOf } from '../../lambdas/records/list-organization-records';
import { signCursor } from '../../lambdas/records/record-cursor';
import { RecordList } from '../../lambdas/records/record-list';
import type { RecordInput } from '../../lambdas/records/record-model';
import { loadRecords } from '../../local/bulk-records';
import { localDocumentClient } from '../../local/local-stack';
import { dynamoPerRequest } from '../dynamo-per-request';
import { KeepAliveClient } from '../http-client';
import { runLoad } from '../load';
import { defineScenario, type LatencyRow } from '../scenario';
import { summarizeLatency } from '../stats';
import { GET_ITEM_SCENARIO } from './dynamo-get-item';

const LIMIT = 20;
const RESULTS = ['clean', 'clean', 'warning', 'clean', 'cheating'] as const;
const GAMES = [
  { game_category: 'Minecraft', game: 'Minecraft: Java Edition' },
  { game_category: 'FPS', game: 'Counter-Strike 2' },
  { game_category: 'FPS', game: 'Valorant' },
];
const PLAYERS = 500;

const FILTERS: ReadonlyArray<{ readonly name: string; readonly query: Readonly<Record<string, string>> }> = [
  { name: 'none', query: {} },
  { name: 'result=warning', query: { result: 'warning' } },
  { name: 'game=minecraft', query: { game: 'minecraft' } },
  { name: 'player_name', query: { player_name: 'player-00042' } },
  { name: 'result+game', query: { result: 'warning', game: 'minecraft' } },
];

function input(i: number): RecordInput {
  return {
    uuid: `USS-${String(50_000_000 + i)}-Bench${String(i).padStart(7, '0')}`,
    player_name: `Player-${String(i % PLAYERS).padStart(5, '0')}`,
    ...GAMES[i % GAMES.length],
    checked_at: '2026-01-01T00:00:00.000Z',
    result: RESULTS[i % RESULTS.length],
    checker_name: 'Bench Checker',
    public_notes: 'No client modifications found; the account was checked with the standard procedure.',
    public: true,
  };
}

const matches = (i: number, query: Readonly<Record<string, string>>) =>
  (query.result === undefined || RESULTS[i % RESULTS.length] === query.result) &&
  (query.game === undefined || (GAMES[i % GAMES.length].game_category === 'Minecraft') === (query.game === 'minecraft')) &&
  (query.player_name === undefined || `player-${String(i % PLAYERS).padStart(5, '0')}` === query.player_name);

export const recordList = defineScenario({
  name: 'record-list',
  description: 'GET /partners/{partner_id}/records, first and deep pages, per filter, on a large organization',
  run: async (context) => {
    const { plan, progress, stack, demo } = context;
    const count = plan.listRecords;
    const client = localDocumentClient(stack.dynamoEndpoint);
    const start = Date.UTC(2020, 0, 1);
    progress(`record list: loading ${count} records`);
    const orders = await loadRecords(client, stack.tables.domain, {
      partnerId: demo.partner_id,
      count,
      input,
      timeOf: (i) => new Date(start + i * 60_000),
      lookups: false,
    });
    const secrets = await context.platform.secret('record-cursor').versions();
    const probe = new RecordList(client, stack.tables.domain);
    const http = new KeepAliveClient(stack.baseUrl, 1);
    const headers = { Authorization: `Bearer ${demo.organization_key}` };
    const rows: LatencyRow[] = [];
    try {
      for (const filter of FILTERS) {
        const filters = filtersOf(filter.query);
        const matching = orders.filter((_, i) => matches(i, filter.query));
        // 90% in, but with a full page (and one more) still ahead.
        const deepPosition = matching[Math.max(0, Math.min(Math.floor(matching.length * 0.9), matching.length - LIMIT - 2))];
        const cursor = signCursor(secrets.current, cursorBinding(demo.partner_id, filters), deepPosition);
        for (const page of ['first', 'deep'] as const) {
          const query = new URLSearchParams({ ...filter.query, limit: String(LIMIT), ...(page === 'deep' ? { cursor } : {}) });
          const path = `/partners/${demo.partner_id}/records?${query}`;
          progress(`record list: ${filter.name}, ${page} page`);
          let returned = 0;
          context.accessLog.clear();
          const phase = await runLoad({
            concurrency: 1,
            warmup: Math.ceil(plan.warmupRequests / 10),
            requests: Math.ceil(plan.measuredRequests / 10),
            operation: async () => {
              const answer = await http.get(path, headers);
              if (answer.status !== 200 || !answer.requestId) throw new Error(`GET ${path} answered ${answer.status}: ${answer.body}`);
              returned = (JSON.parse(answer.body) as { data: { items: unknown[] } }).data.items.length;
              return answer.requestId;
            },
          });
          const read = await probe.readPage(demo.partner_id, filters, LIMIT, page === 'deep' ? deepPosition : undefined);
          rows.push({
            kind: 'latency',
            scenario: 'record-list',
            label: `GET …/records ${filter.name}`,
            variant: page,
            concurrency: 1,
            ...summarizeLatency(phase.durationsMs, phase.elapsedMs),
            dynamo: dynamoPerRequest(context.accessLog, phase.values),
            baseline: { scenario: GET_ITEM_SCENARIO, variant: 'raw' },
            list: { filter: filter.name, page, records: count, returned, read: read.itemsRead },
          });
          context.accessLog.clear();
        }
      }
    } finally {
      http.close();
      client.destroy();
    }
    return rows;
  },
});
