/**
 * `POST /partners/{partner_id}/invitations` through the local front, body
 * `{"game":"fps"}`, at each concurrency of the plan:
 *
 * - new: each request with a fresh Idempotency-Key. An organization holds at
 *   most 50 active invitations (429 TOO_MANY_INVITES beyond), so the requests
 *   are spread round-robin over organizations of their own (created with the
 *   back office, each with a manager and an organization key with scopes
 *   `invitations:read,invitations:write`): at most 50 creations each, warmup
 *   included, and at least twice as many organizations as clients, so that
 *   concurrent requests do not race on one organization item. Nothing is
 *   revoked: each organization's `active` map grows from 0 to at most 50
 *   entries over the run, as an organization's would.
 * - replay: the demo organization key sends Idempotency-Keys it already used
 *   (20 invitations created before the runs, untimed), same body: 200.
 *
 * The bench platform raises the invitation quotas and concurrency limits out
 * of reach, so admission still takes and releases its leases (key, account,
 * organization, in that order) but never refuses. Per-request DynamoDB work
 * comes from the handler's access-log line: admission (3 sequential
 * conditional writes, one per layer), the store (BatchGetItem, then for a new
 * invitation TransactWriteItems), and the release of the 3 leases (one round
 * trip of parallel writes).
 */
import { randomUUID } from 'node:crypto';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { ACTIVE_INVITATION_LIMIT } from '../../lambdas/invitations/invitation-model';
import { localDocumentClient } from '../../local/local-stack';
import { dynamoPerRequest } from '../dynamo-per-request';
import { KeepAliveClient } from '../http-client';
import { runLoad } from '../load';
import { defineScenario, type BenchContext, type LatencyRow } from '../scenario';
import { summarizeLatency } from '../stats';
import { GET_ITEM_SCENARIO } from './dynamo-get-item';

export const INVITATION_CREATE_SCENARIO = 'invitation-create';
export const INVITATION_BODY = { game: 'fps' } as const;
/** Invitations the replay runs cycle through. */
export const REPLAYED_INVITATIONS = 20;
/** Admission of a concurrency-limited route: one conditional write per layer (key, account, organization), in order; then one round trip releasing the 3 leases. */
const ADMISSION = { calls: 3 + 3, roundTrips: 3 + 1 } as const;
/** Store calls when nothing is retried: BatchGetItem (+ TransactWriteItems for a new invitation). */
const STORE_CALLS = { new: 2, replay: 1 } as const;

const BASELINE = { scenario: GET_ITEM_SCENARIO, variant: 'raw' } as const;
const SCOPES = ['invitations:read', 'invitations:write'];

/** A fresh Idempotency-Key (the contract: 16–128 of [A-Za-z0-9_-]). */
export const freshIdempotencyKey = (prefix: string) => `${prefix}-${randomUUID()}`;

/**
 * Organizations a run of `requests` creations (warmup included) at `concurrency` clients is spread over:
 * at most 50 creations each, and at least two per client.
 */
export const organizationsFor = (requests: number, concurrency: number) => Math.max(Math.ceil(requests / ACTIVE_INVITATION_LIMIT), 2 * concurrency);

interface Organization {
  readonly partnerId: string;
  readonly key: string;
}

interface State {
  /** Per concurrency, the organizations its new run creates in. */
  readonly organizations: ReadonlyMap<number, readonly Organization[]>;
  readonly replayKeys: readonly string[];
}

const path = (partnerId: string) => `/partners/${partnerId}/invitations`;

function checked(context: BenchContext, answer: { status: number; requestId: string | undefined; body: string }, status: number): string {
  if (answer.status !== status || !answer.requestId) {
    throw new Error(`POST …/invitations answered ${answer.status} (expected ${status}): ${answer.body}\n${context.accessLog.drainFailures().join('\n')}`);
  }
  return answer.requestId;
}

export const invitationCreate = defineScenario<State>({
  name: INVITATION_CREATE_SCENARIO,
  description: 'POST /partners/{partner_id}/invitations through the local front: new creations and replays',
  setup: async (context) => {
    const { stack, plan, progress, demo } = context;
    const documentClient = localDocumentClient(stack.dynamoEndpoint);
    const office = createBackOffice(documentClient, stack.tables.access);
    const organizations = new Map<number, Organization[]>();
    try {
      for (const concurrency of plan.concurrencies) {
        const count = organizationsFor(plan.warmupRequests + plan.measuredRequests, concurrency);
        progress(`invitation creation: ${count} organizations for the new run at ${concurrency} concurrent`);
        const created: Organization[] = [];
        for (let i = 0; i < count; i += 1) {
          const { partner_id: partnerId } = await office.organizations.create(`Bench invitations ${concurrency}/${i + 1}`);
          const { account_id: accountId } = await office.accounts.create(`Bench inviter ${concurrency}/${i + 1}`);
          await office.memberships.set(partnerId, accountId, 'manager');
          const { key } = await office.keys.create({ accountId, partnerId, scopes: SCOPES });
          created.push({ partnerId, key });
        }
        organizations.set(concurrency, created);
      }
    } finally {
      documentClient.destroy();
    }

    // The invitations the replay runs replay, created once by the demo organization key.
    const http = new KeepAliveClient(stack.baseUrl, 1);
    const replayKeys: string[] = [];
    try {
      for (let i = 0; i < REPLAYED_INVITATIONS; i += 1) {
        const idempotencyKey = freshIdempotencyKey('bench-replay');
        checked(context, await http.post(path(demo.partner_id), INVITATION_BODY, { Authorization: `Bearer ${demo.organization_key}`, 'Idempotency-Key': idempotencyKey }), 201);
        replayKeys.push(idempotencyKey);
      }
    } finally {
      http.close();
    }
    return { organizations, replayKeys };
  },
  run: async (context, state) => {
    const { plan, progress, accessLog, stack, demo } = context;
    const rows: LatencyRow[] = [];
    for (const outcome of ['new', 'replay'] as const) {
      for (const concurrency of plan.concurrencies) {
        progress(`POST …/invitations ${outcome} at ${concurrency} concurrent`);
        const organizations = outcome === 'new' ? (state.organizations.get(concurrency) ?? []) : [{ partnerId: demo.partner_id, key: demo.organization_key }];
        const http = new KeepAliveClient(stack.baseUrl, concurrency);
        let next = 0;
        accessLog.clear();
        let phase;
        try {
          phase = await runLoad({
            concurrency,
            warmup: plan.warmupRequests,
            requests: plan.measuredRequests,
            operation: async () => {
              const n = next++;
              const organization = organizations[n % organizations.length];
              const idempotencyKey = outcome === 'new' ? freshIdempotencyKey('bench-new') : state.replayKeys[n % state.replayKeys.length];
              const answer = await http.post(path(organization.partnerId), INVITATION_BODY, {
                Authorization: `Bearer ${organization.key}`,
                'Idempotency-Key': idempotencyKey,
              });
              return checked(context, answer, outcome === 'new' ? 201 : 200);
            },
          });
        } finally {
          http.close();
        }
        const dynamo = dynamoPerRequest(accessLog, phase.values, ADMISSION.calls + STORE_CALLS[outcome]);
        accessLog.clear();
        if (dynamo?.logged !== phase.values.length) {
          progress(`warning: ${dynamo?.logged ?? 0} of ${phase.values.length} requests left an access-log line with DynamoDB figures`);
        }
        rows.push({
          kind: 'latency',
          scenario: INVITATION_CREATE_SCENARIO,
          label: 'POST …/invitations',
          variant: outcome,
          concurrency,
          ...summarizeLatency(phase.durationsMs, phase.elapsedMs),
          dynamo,
          baseline: BASELINE,
          invitation: {
            path: 'service',
            outcome,
            organizations: organizations.length,
            admission_calls: ADMISSION.calls,
            admission_round_trips: ADMISSION.roundTrips,
          },
        });
      }
    }
    return rows;
  },
});
