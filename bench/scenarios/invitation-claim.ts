/**
 * The player's side of an invitation, at each concurrency of the plan:
 *
 * - claim, through the service: `POST /join/{id}/claim` with
 *   `{token, in_game_name, game_account_id}`, the token taken from the
 *   fragment of the link the creation answered (`data.link`,
 *   `<base>/join/<id>#token=<TOKEN>`). Every request claims an invitation of
 *   its own, created untimed before the phase through `POST
 *   …/invitations` (8 at once), spread round-robin over organizations of the
 *   scenario's own (at most 50 active invitations each, at least two per
 *   client, so concurrent claims update different organization items).
 *   Answer 201 joined, with the ticket.
 * - view, through the service: `GET /join/{id}/view` with `X-Join-Token`, the
 *   link's preview (200, access `link`; it writes nothing but the player
 *   admission's counters), cycling over 20 pending invitations.
 * - claim, in process: `claimInvitation` (lambdas/invitations/claim.ts) on a
 *   document client built as the service builds it, each call in a request
 *   scope of its own, on invitations created untimed with
 *   `InvitationStore.create`: the domain's work without HTTP, the pipeline,
 *   the player admission, the operation's token check and its answer.
 *
 * Claims run `plan.claims` requests (fewer than the other rows: each takes an
 * invitation of its own and costs about ten GetItems); views the plan's usual
 * counts.
 *
 * The player site counts every call by source IP, and by join link the calls
 * that prove they hold it, as all of these do: they carry the token (30 calls a
 * minute per IP, 10 claims an hour per link as deployed): the bench's
 * requests all come from 127.0.0.1, so the player handler runs on the
 * latency platform (bench/platform.ts), whose player limits are raised out
 * of reach like every quota. Admission still makes its two conditional
 * writes (the IP item and the link item, in parallel, one round trip).
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { claimInvitation, type ClaimDependencies } from '../../lambdas/invitations/claim';
import { InvitationStore } from '../../lambdas/invitations/invitation-store';
import { DynamoTicketBridge } from '../../lambdas/tickets/ticket-bridge';
import { currentRequestScope, type RequestScope } from '../../lambdas/shared/observability/request-scope';
import { createDocumentClient } from '../../lambdas/shared/storage/dynamo-client';
import { localDynamoClient } from '../../local/dynamo-local';
import { localDocumentClient } from '../../local/local-stack';
import { dynamoPerRequest, summarizeDynamo } from '../dynamo-per-request';
import { KeepAliveClient, type HttpAnswer } from '../http-client';
import { runLoad } from '../load';
import { defineScenario, type BenchContext, type ClaimFigures, type LatencyRow } from '../scenario';
import { round, summarizeLatency } from '../stats';
import { GET_ITEM_SCENARIO } from './dynamo-get-item';
import { freshIdempotencyKey, INVITATION_BODY, organizationsFor } from './invitation-create';
import { countFailedConditions, inScope } from './invitation-peers';

export const INVITATION_CLAIM_SCENARIO = 'invitation-claim';
const BASELINE = { scenario: GET_ITEM_SCENARIO, variant: 'raw' } as const;
const SCOPES = ['invitations:read', 'invitations:write'];
/** Pending invitations the view runs cycle through. */
const VIEWED_INVITATIONS = 20;
/** Clients creating the claims' invitations before each phase (untimed). */
const CREATION_CLIENTS = 8;

/** The player admission: one conditional UpdateItem on the source IP's item and one on the join link's, in parallel. */
const PLAYER_ADMISSION = { calls: 2, roundTrips: 1 } as const;

/**
 * What each row's request does when nothing is retried, in order (→: the next round trip; +: in parallel).
 * Service claim: admission with the operation's find beside it (the player door's prefetch); beginClaim's
 * transaction; the ticket's PutItem; completeClaim's transaction.
 */
export const PLANNED = {
  service: {
    claim: 'UpdateItem+UpdateItem+GetItem → TransactWriteItems(3) → PutItem → TransactWriteItems(5)',
    view: 'UpdateItem+UpdateItem+GetItem',
  },
  domain: { claim: 'GetItem → TransactWriteItems(3) → PutItem → TransactWriteItems(5)' },
} as const;
const FIRST_TRY_CALLS = { service: { claim: 6, view: 3 }, domain: { claim: 4 } } as const;

const PLAYER = { in_game_name: 'Bench player' } as const;
const gameAccountId = (n: number) => `bench_player_${n}`;

/** Per request scope: items written in transactions, and single writes (PutItem, UpdateItem, DeleteItem), attempts that failed included. */
const writes = new WeakMap<RequestScope, { transactionItems: number; singleWrites: number }>();

/**
 * Counts the writes of each request scope as AWS bills them, whatever DynamoDB Local reports: it reports a
 * TransactWriteItems as 2 WCU per distinct item size (three 1 KB items: 2 WCU), AWS 2 WCU per KB of each item.
 */
function countWrites(client: DynamoDBClient): DynamoDBClient {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const scope = currentRequestScope();
      if (scope) {
        const counted = writes.get(scope) ?? { transactionItems: 0, singleWrites: 0 };
        const command = String(context.commandName ?? '');
        if (command === 'TransactWriteItemsCommand' || command === 'TransactWriteCommand') counted.transactionItems += ((args.input as { TransactItems?: unknown[] }).TransactItems ?? []).length;
        else if (/^(Put|Update|Delete)(Item)?Command$/.test(command)) counted.singleWrites += 1;
        writes.set(scope, counted);
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchBilledWrites' },
  );
  return client;
}

interface Organization {
  readonly partnerId: string;
  readonly key: string;
}

/** An invitation as its link gives it to a player. */
interface Link {
  readonly id: string;
  readonly token: string;
}

interface State {
  /** The service claims' organizations, reused by every phase (a claim releases its active entry). */
  readonly organizations: readonly Organization[];
  readonly viewed: readonly Link[];
  readonly domain: ClaimDependencies;
  readonly destroy: () => void;
}

const invitationsPath = (partnerId: string) => `/partners/${partnerId}/invitations`;

function answered(context: BenchContext, what: string, answer: HttpAnswer, status: number): string {
  if (answer.status !== status || !answer.requestId) {
    throw new Error(`${what} answered ${answer.status} (expected ${status}): ${answer.body}\n${context.accessLog.drainFailures().join('\n')}`);
  }
  return answer.requestId;
}

/** Create `count` invitations through the service (untimed, 8 at once), round-robin over the organizations; their links. */
async function createLinks(context: BenchContext, organizations: readonly Organization[], count: number): Promise<Link[]> {
  const { stack } = context;
  const http = new KeepAliveClient(stack.baseUrl, CREATION_CLIENTS);
  let next = 0;
  try {
    const phase = await runLoad({
      concurrency: CREATION_CLIENTS,
      warmup: 0,
      requests: count,
      operation: async (): Promise<Link> => {
        const organization = organizations[next++ % organizations.length];
        const answer = await http.post(invitationsPath(organization.partnerId), INVITATION_BODY, {
          Authorization: `Bearer ${organization.key}`,
          'Idempotency-Key': freshIdempotencyKey('bench-claim'),
        });
        answered(context, 'POST …/invitations', answer, 201);
        const { data } = JSON.parse(answer.body) as { data: { id: string; link: string } };
        const [page, fragment = ''] = data.link.split('#');
        const token = new URLSearchParams(fragment).get('token');
        if (page !== `${stack.baseUrl}/join/${data.id}` || !token) throw new Error(`Unexpected join link ${data.link}`);
        return { id: data.id, token };
      },
    });
    return phase.values;
  } finally {
    http.close();
    context.accessLog.clear();
  }
}

function claimFigures(path: ClaimFigures['path'], operation: ClaimFigures['operation'], invitations: number, organizations: number): ClaimFigures {
  const admission = path === 'service' ? PLAYER_ADMISSION : { calls: 0, roundTrips: 0 };
  return {
    path,
    operation,
    invitations,
    organizations,
    admission_calls: admission.calls,
    admission_round_trips: admission.roundTrips,
    planned: path === 'service' ? PLANNED.service[operation] : PLANNED.domain.claim,
  };
}

export const invitationClaim = defineScenario<State>({
  name: INVITATION_CLAIM_SCENARIO,
  description: "the player's claim (POST /join/{id}/claim) and the link's preview (GET /join/{id}/view) through the local front, and claimInvitation in process",
  setup: async (context) => {
    const { stack, plan, progress } = context;
    const count = organizationsFor(plan.claims.warmupRequests + plan.claims.measuredRequests, Math.max(...plan.concurrencies));
    progress(`invitation claim: ${count + 1} organizations (claims, and one for the previews)`);
    const documentClient = localDocumentClient(stack.dynamoEndpoint);
    const office = createBackOffice(documentClient, stack.tables.access);
    const organizations: Organization[] = [];
    try {
      for (let i = 0; i <= count; i += 1) {
        const { partner_id: partnerId } = await office.organizations.create(`Bench claims ${i + 1}`);
        const { account_id: accountId } = await office.accounts.create(`Bench claim inviter ${i + 1}`);
        await office.memberships.set(partnerId, accountId, 'manager');
        const { key } = await office.keys.create({ accountId, partnerId, scopes: SCOPES });
        organizations.push({ partnerId, key });
      }
    } finally {
      documentClient.destroy();
    }
    const viewOrganization = organizations.pop() as Organization;
    const viewed = await createLinks(context, [viewOrganization], VIEWED_INVITATIONS);

    // The domain function, on the service's instrumented document client (failed conditions counted apart).
    const client = countWrites(countFailedConditions(localDynamoClient(stack.dynamoEndpoint)));
    const domainClient = createDocumentClient(client);
    const domain: ClaimDependencies = {
      invitations: new InvitationStore(domainClient, stack.tables.domain),
      tickets: new DynamoTicketBridge(domainClient, stack.tables.domain),
    };
    return { organizations, viewed, domain, destroy: () => client.destroy() };
  },
  run: async (context, state) => {
    const { plan, progress, accessLog, stack } = context;
    const rows: LatencyRow[] = [];
    const total = plan.claims.warmupRequests + plan.claims.measuredRequests;

    for (const operation of ['claim', 'view'] as const) {
      for (const concurrency of plan.concurrencies) {
        let links: readonly Link[];
        if (operation === 'claim') {
          progress(`creating ${total} invitations to claim (untimed, ${CREATION_CLIENTS} at once)`);
          links = await createLinks(context, state.organizations, total);
        } else {
          links = state.viewed;
        }
        progress(`${operation === 'claim' ? 'POST /join/{id}/claim' : 'GET /join/{id}/view'} at ${concurrency} concurrent`);
        const http = new KeepAliveClient(stack.baseUrl, concurrency);
        let next = 0;
        accessLog.clear();
        let phase;
        try {
          const counts = operation === 'claim' ? plan.claims : plan;
          phase = await runLoad({
            concurrency,
            warmup: counts.warmupRequests,
            requests: counts.measuredRequests,
            operation: async () => {
              const n = next++;
              const link = links[n % links.length];
              if (operation === 'view') {
                const answer = await http.get(`/join/${link.id}/view`, { 'X-Join-Token': link.token });
                const requestId = answered(context, 'GET /join/{id}/view', answer, 200);
                const { data } = JSON.parse(answer.body) as { data: { access: string; invitation: { state: string } } };
                if (data.access !== 'link' || data.invitation.state !== 'pending') throw new Error(`Unexpected view ${answer.body}`);
                return requestId;
              }
              const answer = await http.post(`/join/${link.id}/claim`, { token: link.token, ...PLAYER, game_account_id: gameAccountId(n) });
              const requestId = answered(context, 'POST /join/{id}/claim', answer, 201);
              const { data } = JSON.parse(answer.body) as { data: { invitation: { state: string }; ticket: { id: string } | null } };
              if (data.invitation.state !== 'joined' || !data.ticket?.id) throw new Error(`Unexpected claim answer ${answer.body}`);
              return requestId;
            },
          });
        } finally {
          http.close();
        }
        const dynamo = dynamoPerRequest(accessLog, phase.values, FIRST_TRY_CALLS.service[operation]);
        accessLog.clear();
        if (dynamo?.logged !== phase.values.length) {
          progress(`warning: ${dynamo?.logged ?? 0} of ${phase.values.length} requests left an access-log line with DynamoDB figures`);
        }
        rows.push({
          kind: 'latency',
          scenario: INVITATION_CLAIM_SCENARIO,
          label: operation === 'claim' ? 'POST /join/{id}/claim' : 'GET /join/{id}/view',
          variant: operation,
          concurrency,
          ...summarizeLatency(phase.durationsMs, phase.elapsedMs),
          dynamo,
          baseline: BASELINE,
          claim: claimFigures('service', operation, Math.min(links.length, total), operation === 'claim' ? state.organizations.length : 1),
        });
      }
    }

    // The domain function in process, on invitations its store creates (untimed) in organizations of the run's own.
    for (const concurrency of plan.concurrencies) {
      const partners = Array.from({ length: organizationsFor(total, concurrency) }, () => `bench-claim-${randomUUID()}`);
      progress(`creating ${total} invitations in process for claimInvitation (untimed)`);
      const keyId = `bench-claim-${randomUUID()}`;
      let created = 0;
      const creation = await runLoad({
        concurrency: CREATION_CLIENTS,
        warmup: 0,
        requests: total,
        operation: async () => {
          const n = created++;
          const scope = { keyId, partnerId: partners[n % partners.length], idempotencyKey: freshIdempotencyKey('bench-claim') };
          const result = await state.domain.invitations.create(scope, INVITATION_BODY, new Date());
          if (result.outcome !== 'created') throw new Error(`InvitationStore.create: ${result.outcome}`);
          return result.item.id;
        },
      });
      const ids = creation.values;
      progress(`claimInvitation in process at ${concurrency} concurrent`);
      let next = 0;
      const phase = await runLoad({
        concurrency,
        warmup: plan.claims.warmupRequests,
        requests: plan.claims.measuredRequests,
        operation: async () => {
          const n = next++;
          let billed = { transactionItems: 0, singleWrites: 0 };
          const measured = await inScope(`claim-${concurrency}-${n}`, async () => {
            const outcome = await claimInvitation(state.domain, ids[n], { ...PLAYER, game_account_id: gameAccountId(n) }, new Date());
            if (outcome.outcome !== 'joined') throw new Error(`claimInvitation: ${JSON.stringify(outcome)}`);
            billed = writes.get(currentRequestScope() as RequestScope) ?? billed;
          });
          return { ...measured, billed };
        },
      });
      const failed = phase.values.reduce((sum, m) => sum + m.failedConditions, 0);
      const perRequest = (f: (m: (typeof phase.values)[number]) => number) => round(phase.values.reduce((sum, m) => sum + f(m), 0) / phase.values.length, 2);
      rows.push({
        kind: 'latency',
        scenario: INVITATION_CLAIM_SCENARIO,
        label: 'claimInvitation, in process',
        variant: 'claim in process',
        concurrency,
        ...summarizeLatency(phase.durationsMs, phase.elapsedMs),
        dynamo: summarizeDynamo(
          phase.values.map((m) => m.figures),
          'client',
          { firstTryCalls: FIRST_TRY_CALLS.domain.claim },
        ),
        baseline: BASELINE,
        claim: {
          ...claimFigures('domain', 'claim', total, partners.length),
          failed_conditional_writes: round(failed / phase.values.length, 2),
          operations: phase.values[0]?.operations ?? [],
          transaction_items: perRequest((m) => m.billed.transactionItems),
          aws_wcu_floor: perRequest((m) => 2 * m.billed.transactionItems + m.billed.singleWrites),
        },
      });
    }
    return rows;
  },
  teardown: async (_context, state) => state?.destroy(),
});
