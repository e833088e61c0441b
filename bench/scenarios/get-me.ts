/**
 * `GET /me` through the local front: HTTP over loopback with keep-alive, the
 * API Gateway v1 event, the identity handler's pipeline, DynamoDB Local.
 * Every request is admitted: per principal item (key, account and, for an
 * organization key, the organization) one conditional UpdateItem, in
 * parallel, re-checks the key's standing and counts the request in the
 * item's minute and day windows.
 *
 * Warm: the key's immutable facts are in the container's cache: one round
 * trip of parallel writes. Cold: the cache is emptied before each request, as
 * in a container that has not seen the key: a GetItem of the key item, then
 * the writes, two round trips. It is not a Lambda cold start, whose import
 * cost the bundle rows show.
 *
 * Run once with the demo organization key (3 items) and once with the demo
 * personal key (2 items). Per-request DynamoDB work comes from the handler's
 * own access-log line.
 */
import { dynamoPerRequest } from '../dynamo-per-request';
import { KeepAliveClient } from '../http-client';
import { runLoad } from '../load';
import { defineScenario, type BenchContext, type LatencyRow, type RegisteredScenario } from '../scenario';
import { summarizeLatency } from '../stats';
import { GET_ITEM_SCENARIO } from './dynamo-get-item';
import { parallelUpdates, UPDATE_ITEM_SCENARIO } from './dynamo-update-item';
import { GET_ME_REPLAY_SCENARIO, replayVariant } from './get-me-replay';

const BASELINE = { scenario: GET_ITEM_SCENARIO, variant: 'raw' } as const;

type KeyKind = 'organization' | 'personal';

interface AuthenticatedGet {
  readonly scenario: string;
  readonly label: string;
  readonly kind: KeyKind;
  /** Items admission writes (key, account[, organization]). */
  readonly items: number;
  /** DynamoDB calls the operation itself makes after admission. */
  readonly operationCalls: number;
  readonly description: string;
  /** The path below the base URL; `setup` may prepare what it reads. */
  path(context: BenchContext): Promise<string>;
}

const ME = async () => '/me';

const GET_ME: Record<KeyKind, AuthenticatedGet> = {
  organization: {
    scenario: 'get-me',
    label: 'GET /me, org key',
    kind: 'organization',
    items: 3,
    operationCalls: 0,
    description: 'GET /me with the demo organization key (admission writes key, account, organization) through the local front',
    path: ME,
  },
  personal: {
    scenario: 'get-me-personal-key',
    label: 'GET /me, personal key',
    kind: 'personal',
    items: 2,
    operationCalls: 0,
    description: 'GET /me with the demo personal key (admission writes key, account) through the local front',
    path: ME,
  },
};

/** GETs of `path` with `headers` (a key, or a session cookie) under load; `cold` empties the key cache before each. */
export async function measure(context: BenchContext, headers: Record<string, string>, path: string, args: { concurrency: number; warmup: number; requests: number; cold: boolean }) {
  const client = new KeepAliveClient(context.stack.baseUrl, args.concurrency);
  const keyCache = context.platform.keyCache;
  try {
    return await runLoad({
      concurrency: args.concurrency,
      warmup: args.warmup,
      requests: args.requests,
      prepare: args.cold ? () => keyCache.clear() : undefined,
      operation: async () => {
        const answer = await client.get(path, headers);
        if (answer.status !== 200 || !answer.requestId) {
          throw new Error(`GET ${path} answered ${answer.status}: ${answer.body}\n${context.accessLog.drainFailures().join('\n')}`);
        }
        return answer.requestId;
      },
    });
  } finally {
    client.close();
  }
}

export function authenticatedGetScenario(spec: AuthenticatedGet): RegisteredScenario {
  const { scenario, label, kind, items, operationCalls, description } = spec;
  return defineScenario({
    name: scenario,
    description,
    run: async (context) => {
      const { plan, progress } = context;
      const key = kind === 'organization' ? context.demo.organization_key : context.demo.personal_key;
      const path = await spec.path(context);
      const runs = [
        ...plan.concurrencies.map((concurrency) => ({
          variant: 'warm',
          concurrency,
          warmup: plan.warmupRequests,
          requests: plan.measuredRequests,
          cold: false,
        })),
        // Cold requests one at a time: emptying the shared cache under concurrent clients would warm some of them.
        { variant: 'cold', concurrency: 1, warmup: Math.ceil(plan.coldRequests / 10), requests: plan.coldRequests, cold: true },
      ];
      const rows: LatencyRow[] = [];
      for (const run of runs) {
        progress(`${label} ${run.variant} at ${run.concurrency} concurrent`);
        context.accessLog.clear();
        const phase = await measure(context, { Authorization: `Bearer ${key}` }, path, run);
        // First try: one write per principal item, after a read of the key item when cold, then the operation's own calls.
        const dynamo = dynamoPerRequest(context.accessLog, phase.values, items + (run.cold ? 1 : 0) + operationCalls);
        context.accessLog.clear();
        if (dynamo?.logged !== phase.values.length) {
          progress(`warning: ${dynamo?.logged ?? 0} of ${phase.values.length} requests left an access-log line with DynamoDB figures`);
        }
        rows.push({
          kind: 'latency',
          scenario,
          label,
          variant: run.variant,
          concurrency: run.concurrency,
          ...summarizeLatency(phase.durationsMs, phase.elapsedMs),
          dynamo,
          baseline: BASELINE,
          // Warm admission is these parallel writes and nothing else in DynamoDB.
          ...(run.cold || operationCalls > 0
            ? {}
            : { floor: { scenario: UPDATE_ITEM_SCENARIO, variant: parallelUpdates(items) }, replay: { scenario: GET_ME_REPLAY_SCENARIO, variant: replayVariant(kind) } }),
          // Admission-only rows carry the key: the admission targets (report.ts) are computed from them alone.
          ...(operationCalls === 0 ? { key: { kind, items } } : {}),
        });
      }
      return rows;
    },
  });
}

export const getMe = authenticatedGetScenario(GET_ME.organization);
export const getMePersonalKey = authenticatedGetScenario(GET_ME.personal);
