/**
 * Invitation creation in process, without HTTP or admission, on the same
 * DynamoDB Local: our store against a peer built on AWS Lambda Powertools'
 * idempotency utility.
 *
 * - store: `InvitationStore.create` (lambdas/invitations/invitation-store.ts),
 *   what the service's operation calls after admission: one consistent
 *   BatchGetItem (the scope's invitation and the organization item; a replay
 *   ends here), then one TransactWriteItems (the invitation, the organization
 *   item with its `active` map, `seq` and `version`).
 * - powertools: `makeIdempotent` of `@aws-lambda-powertools/idempotency` with
 *   its DynamoDB persistence layer (a table of its own, partition key `id`,
 *   created here), around a function that, given the key id, the
 *   organization, the Idempotency-Key and the body, writes the same
 *   invitation item with one plain PutItem. The idempotency key is the same
 *   scope (`[key_id, partner_id, idempotency_key]`) and the body is validated
 *   on replays (`payloadValidationJmesPath: 'body'`), as our request
 *   fingerprint is; everything else is Powertools' default (records kept 1 h,
 *   no in-memory cache). It does less than the store: no 50-active limit, no
 *   creation sequence, no organization item.
 *
 * Each call runs in a request scope of its own, and both clients carry the
 * service's DynamoDB accounting (`instrumentDynamoClient`), so calls, round
 * trips and capacity units are counted per call exactly as the access log
 * counts them. A write that fails its condition (Powertools' replay is a
 * conditional PutItem that fails and returns the record) consumes write
 * capacity in AWS, but DynamoDB Local reports none for it: such writes are
 * counted apart (`failed_conditional_writes`).
 *
 * New calls rotate over organizations as the HTTP run does (at most 50
 * creations each, at least two per client); replays cycle over 20
 * invitations created before the run.
 */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import {
  INVITATION_LIFETIME_MS,
  invitationIdFor,
  normalizeNotes,
  requestFingerprint,
  type InvitationItem,
} from '../../lambdas/invitations/invitation-model';
import { invitationKey, InvitationStore } from '../../lambdas/invitations/invitation-store';
import type { GameGroup } from '../../lambdas/records/games';
import { currentRequestScope, runInRequestScope, type RequestScope } from '../../lambdas/shared/observability/request-scope';
import { createDocumentClient, instrumentDynamoClient } from '../../lambdas/shared/storage/dynamo-client';
import { localDynamoClient } from '../../local/dynamo-local';
import type { DynamoFigures } from '../access-log';
import { summarizeDynamo } from '../dynamo-per-request';
import { runLoad } from '../load';
import { defineScenario, type LatencyRow } from '../scenario';
import { round, summarizeLatency } from '../stats';
import { GET_ITEM_SCENARIO } from './dynamo-get-item';
import { freshIdempotencyKey, INVITATION_BODY, organizationsFor, REPLAYED_INVITATIONS } from './invitation-create';

export const INVITATION_PEERS_SCENARIO = 'invitation-peers';
const BASELINE = { scenario: GET_ITEM_SCENARIO, variant: 'raw' } as const;

interface CreationRequest {
  readonly key_id: string;
  readonly partner_id: string;
  readonly idempotency_key: string;
  readonly body: { readonly game: GameGroup; readonly notes?: string };
}

/** Calls whose condition failed, per request scope (DynamoDB Local reports no capacity for them). */
const failedConditions = new WeakMap<RequestScope, number>();

/** Counts, in the current request scope, the writes that fail their condition. */
export function countFailedConditions(client: DynamoDBClient): DynamoDBClient {
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        const scope = currentRequestScope();
        const name = (error as { name?: string })?.name;
        const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> })?.CancellationReasons ?? [];
        const failed = name === 'ConditionalCheckFailedException' ? 1 : reasons.filter((r) => r.Code === 'ConditionalCheckFailed').length;
        if (scope && failed > 0) failedConditions.set(scope, (failedConditions.get(scope) ?? 0) + failed);
        throw error;
      }
    },
    { step: 'initialize', name: 'benchFailedConditions' },
  );
  return client;
}

export interface Measured {
  readonly figures: DynamoFigures;
  readonly failedConditions: number;
  /** The DynamoDB operations of the call, in call order. */
  readonly operations: readonly string[];
}

/** Runs one call in a request scope of its own and returns what its client counted. */
export async function inScope(id: string, call: () => Promise<void>): Promise<Measured> {
  return runInRequestScope(id, async () => {
    await call();
    const scope = currentRequestScope() as RequestScope;
    const d = scope.dynamo;
    return {
      figures: { calls: d.calls, round_trips: d.roundTrips, rcu: d.readUnits, wcu: d.writeUnits },
      failedConditions: failedConditions.get(scope) ?? 0,
      operations: [...d.operations],
    };
  });
}

/** The invitation item as the store writes it, without the organization's sequence (the peer keeps no organization item). */
function invitationItem(request: CreationRequest, now: Date): InvitationItem {
  const notes = normalizeNotes(request.body.notes);
  return {
    id: invitationIdFor(request.key_id, request.partner_id, request.idempotency_key),
    partner_id: request.partner_id,
    key_id: request.key_id,
    game: request.body.game,
    ...(notes ? { notes } : {}),
    request_fp: requestFingerprint(request.body.game, request.body.notes),
    state: 'pending',
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + INVITATION_LIFETIME_MS).toISOString(),
    archived_at: null,
    ticket_id: null,
    seq: 0,
  };
}

type PathName = 'store' | 'powertools';

interface Peer {
  readonly label: string;
  /** Create (or replay) one invitation; throws unless the outcome is the expected one. */
  create(request: CreationRequest, outcome: 'new' | 'replay'): Promise<void>;
  /** DynamoDB calls of a first-try new creation and replay (more: a retry). */
  readonly firstTryCalls: { readonly new: number; readonly replay: number };
}

interface State {
  readonly admin: DynamoDBClient;
  readonly clients: readonly DynamoDBClient[];
  readonly idempotencyTable: string;
  readonly peers: Readonly<Record<PathName, Peer>>;
  /** Times the Powertools-wrapped function ran (it must not on a replay). */
  readonly powertoolsRuns: { count: number };
}

export const invitationPeers = defineScenario<State>({
  name: INVITATION_PEERS_SCENARIO,
  description: 'invitation creation in process: InvitationStore.create against Powertools idempotency around a PutItem, same DynamoDB Local',
  setup: async ({ stack, progress }) => {
    const idempotencyTable = `${stack.tables.domain}-powertools-idempotency`;
    const admin = localDynamoClient(stack.dynamoEndpoint);
    progress(`creating ${idempotencyTable} (partition key id) for Powertools idempotency`);
    await admin.send(
      new CreateTableCommand({
        TableName: idempotencyTable,
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );

    // Our store, on the service's instrumented document client.
    const storeClient = countFailedConditions(localDynamoClient(stack.dynamoEndpoint));
    const store = new InvitationStore(createDocumentClient(storeClient), stack.tables.domain);

    // The peer: Powertools' persistence layer and the plain PutItem share one instrumented client.
    const powertoolsClient = countFailedConditions(instrumentDynamoClient(localDynamoClient(stack.dynamoEndpoint)));
    const documentClient = DynamoDBDocumentClient.from(powertoolsClient, { marshallOptions: { removeUndefinedValues: true } });
    const powertoolsRuns = { count: 0 };
    const createInvitation = async (request: CreationRequest): Promise<InvitationItem> => {
      powertoolsRuns.count += 1;
      const item = invitationItem(request, new Date());
      await documentClient.send(
        new PutCommand({ TableName: stack.tables.domain, Item: { ...invitationKey(item.id), kind: 'invitation', ...item } }),
      );
      return item;
    };
    const config = new IdempotencyConfig({ eventKeyJmesPath: '[key_id, partner_id, idempotency_key]', payloadValidationJmesPath: 'body' });
    // In a Lambda the handler registers its context on each invocation; here a function with 30 s left, so the
    // INPROGRESS record gets its in-progress expiry as deployed (without it Powertools warns on every call).
    config.registerLambdaContext({ getRemainingTimeInMillis: () => 30_000 } as Context);
    const createIdempotently = makeIdempotent(createInvitation, {
      persistenceStore: new DynamoDBPersistenceLayer({ tableName: idempotencyTable, awsSdkV3Client: powertoolsClient }),
      config,
    });

    const peers: Record<PathName, Peer> = {
      store: {
        label: 'InvitationStore.create, in process',
        firstTryCalls: { new: 2, replay: 1 },
        create: async (request, outcome) => {
          const creation = await store.create(
            { keyId: request.key_id, partnerId: request.partner_id, idempotencyKey: request.idempotency_key },
            request.body,
            new Date(),
          );
          const expected = outcome === 'new' ? 'created' : 'replayed';
          if (creation.outcome !== expected) throw new Error(`InvitationStore.create: ${creation.outcome}, expected ${expected}`);
        },
      },
      powertools: {
        label: 'Powertools makeIdempotent + PutItem, in process',
        firstTryCalls: { new: 3, replay: 1 },
        // Whether the function ran (new) or not (replay) is checked over each phase, from powertoolsRuns.
        create: async (request) => {
          const item = await createIdempotently(request);
          if (item.id !== invitationIdFor(request.key_id, request.partner_id, request.idempotency_key)) throw new Error('Powertools answered another invitation');
        },
      },
    };
    return { admin, clients: [storeClient, powertoolsClient], idempotencyTable, peers, powertoolsRuns };
  },
  run: async ({ plan, progress }, state) => {
    const rows: LatencyRow[] = [];
    for (const outcome of ['new', 'replay'] as const) {
      for (const path of ['store', 'powertools'] as const) {
        const peer = state.peers[path];
        const keyId = `bench-${path}-${randomUUID()}`;
        // Replays: invitations created once, untimed.
        const replayPartner = `bench-${path}-replay-${randomUUID()}`;
        const replayed: CreationRequest[] = [];
        if (outcome === 'replay') {
          for (let i = 0; i < REPLAYED_INVITATIONS; i += 1) {
            const request = { key_id: keyId, partner_id: replayPartner, idempotency_key: freshIdempotencyKey('bench-replay'), body: INVITATION_BODY };
            await peer.create(request, 'new');
            replayed.push(request);
          }
        }
        for (const concurrency of plan.concurrencies) {
          progress(`${peer.label}: ${outcome} at ${concurrency} concurrent`);
          const organizations =
            outcome === 'new'
              ? Array.from({ length: organizationsFor(plan.warmupRequests + plan.measuredRequests, concurrency) }, () => `bench-${path}-${randomUUID()}`)
              : [replayPartner];
          let next = 0;
          const runsBefore = state.powertoolsRuns.count;
          const phase = await runLoad({
            concurrency,
            warmup: plan.warmupRequests,
            requests: plan.measuredRequests,
            operation: () => {
              const n = next++;
              const request =
                outcome === 'new'
                  ? { key_id: keyId, partner_id: organizations[n % organizations.length], idempotency_key: freshIdempotencyKey('bench-new'), body: INVITATION_BODY }
                  : replayed[n % replayed.length];
              return inScope(`${path}-${outcome}-${concurrency}-${n}`, () => peer.create(request, outcome));
            },
          });
          if (path === 'powertools') {
            const ran = state.powertoolsRuns.count - runsBefore;
            const expected = outcome === 'new' ? plan.warmupRequests + plan.measuredRequests : 0;
            if (ran !== expected) throw new Error(`Powertools ran the function ${ran} times for ${expected} ${outcome} calls`);
          }
          const failed = phase.values.reduce((sum, m) => sum + m.failedConditions, 0);
          rows.push({
            kind: 'latency',
            scenario: INVITATION_PEERS_SCENARIO,
            label: peer.label,
            variant: outcome,
            concurrency,
            ...summarizeLatency(phase.durationsMs, phase.elapsedMs),
            dynamo: summarizeDynamo(
              phase.values.map((m) => m.figures),
              'client',
              { firstTryCalls: peer.firstTryCalls[outcome] },
            ),
            baseline: BASELINE,
            invitation: {
              path,
              outcome,
              organizations: organizations.length,
              failed_conditional_writes: round(failed / phase.values.length, 2),
              admission_calls: 0,
              admission_round_trips: 0,
            },
          });
        }
      }
    }
    return rows;
  },
  teardown: async (_context, state) => {
    if (!state) return;
    await state.admin.send(new DeleteTableCommand({ TableName: state.idempotencyTable })).catch(() => undefined);
    state.admin.destroy();
    for (const client of state.clients) client.destroy();
  },
});
