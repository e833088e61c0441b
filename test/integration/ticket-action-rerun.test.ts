/**
 * The back office's ticket actions (`ticket message`, `ticket status`, `ticket assign`) are safe to run again with
 * their request id (issue 31), on DynamoDB Local with faults injected at the call: the action's transaction applied
 * and every try's answer lost (`fail-after`), then the operator's re-run with the same request id → the ticket the
 * first run left, `replayed`, one conversation entry and one event (one event id). The same request id with other
 * arguments is REQUEST_ID_REUSED, and nothing more is written. Concurrent runs of one request make one change.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import { claimInvitation } from '../../lambdas/invitations/claim';
import { InvitationStore } from '../../lambdas/invitations/invitation-store';
import { DynamoTicketBridge } from '../../lambdas/tickets/ticket-bridge';
import { toTicket } from '../../lambdas/tickets/ticket-model';
import { runAdminCommand } from '../../scripts/admin-cli';
import { FaultPlan } from '../../local/fault-injection';
import { localDocumentClient } from '../../local/local-stack';
import { createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
const faults = new FaultPlan();
/** The back office on a client whose calls the plan can fail (only inside `faults.invocation`). */
let office: BackOffice;
let client: ReturnType<typeof localDocumentClient>;
let invitations: InvitationStore;
let tickets: DynamoTicketBridge;
beforeAll(async () => {
  stack = await startTestStack({ webhooks: false });
  client = faults.instrument(localDocumentClient(stack.dynamoEndpoint));
  office = createBackOffice(client, stack.tables.access, undefined, stack.tables.domain);
  invitations = new InvitationStore(stack.client, stack.tables.domain);
  tickets = new DynamoTicketBridge(stack.client, stack.tables.domain);
});
afterEach(() => faults.reset());
afterAll(async () => {
  client?.destroy();
  await stack?.stop();
});

let serial = 0;
async function joinedInvitation() {
  const org = await createOrgWithManagerKey(stack.office, ['tickets:read']);
  const creation = await invitations.create({ keyId: org.key.key_id, partnerId: org.partner_id, idempotencyKey: `ticket-rerun-${(serial += 1)}-0123456789` }, { game: 'fps' }, new Date());
  if (creation.outcome !== 'created') throw new Error(creation.outcome);
  const claimed = await claimInvitation({ invitations, tickets }, creation.item.id, { in_game_name: 'Alex', game_account_id: 'alex' }, new Date());
  if (claimed.outcome !== 'joined') throw new Error(claimed.outcome);
  return { partnerId: org.partner_id, id: creation.item.id, ticketId: claimed.ticketId };
}

const eventsOf = async (partnerId: string, type: string) => (await stack.office.records!.events(partnerId)).events.filter((event) => event.type === type);

async function entriesOf(ticketId: string) {
  const { Items = [] } = await stack.client.send(
    new QueryCommand({ TableName: stack.tables.domain, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :entry)', ExpressionAttributeValues: { ':pk': `TICKET#${ticketId}`, ':entry': 'ENTRY#' }, ConsistentRead: true }),
  );
  return Items.map((item) => `${item.author}: ${item.text}`);
}

/** The action's transaction applied, its answer lost on every try: the run fails as the operator sees it. */
const loseEveryAnswer = () => faults.arm({ component: 'api', call: 'TransactWriteItems', effect: 'fail-after' });

const ACTIONS = [
  { name: 'ticket message', run: (id: string, requestId: string) => office.invitations!.message(id, 'staff', 'We are looking into it.', requestId), event: 'ticket.message.created', entry: 'staff: We are looking into it.' },
  { name: 'ticket status', run: (id: string, requestId: string) => office.invitations!.status(id, 'waiting_user', requestId), event: 'ticket.status.updated', entry: 'system: status: waiting_user' },
  { name: 'ticket assign', run: (id: string, requestId: string) => office.invitations!.assign(id, 'Sam Reviewer', requestId), event: 'ticket.status.updated', entry: 'system: assigned to Sam Reviewer' },
] as const;

describe("the back office's ticket actions, run again with the same request id", () => {
  it.each(ACTIONS)('$name: a re-run after a lost answer answers the first run’s ticket, replayed, with one entry and one event', async (action) => {
    // Prepare
    const { partnerId, id, ticketId } = await joinedInvitation();
    const fault = loseEveryAnswer();
    const requestId = `rerun-${action.name.replace(' ', '-')}-${serial}`;
    await expect(faults.invocation('api', () => action.run(id, requestId))).rejects.toMatchObject({ code: 'TICKET_SERVICE_UNAVAILABLE' });

    // Act
    const again = await action.run(id, requestId);

    // Assess
    expect(fault.fired()).toBe(true);
    expect(again).toEqual({ ...toTicket((await tickets.get(ticketId))!), replayed: true });
    expect(await eventsOf(partnerId, action.event)).toHaveLength(1);
    expect(await entriesOf(ticketId)).toEqual([action.entry]);
  });

  it('through the admin CLI: a run without --request-id tells the id it made, and the re-run with it finishes the action once', async () => {
    // Prepare
    const { partnerId, id } = await joinedInvitation();
    const fault = loseEveryAnswer();
    const told: string[] = [];
    const requestIds = { create: () => `cli-made-${serial}-0123456789`, announce: (requestId: string) => told.push(requestId) };
    const argv = ['ticket', 'status', '--invitation', id, '--status', 'resolved'];
    const failure = await faults.invocation('api', () => runAdminCommand(argv, office, undefined, requestIds)).catch((error: Error) => error);

    // Act
    const again = (await runAdminCommand([...argv, '--request-id', told[0]], office)) as { status: string; replayed?: true };

    // Assess
    expect(fault.fired()).toBe(true);
    expect(told).toEqual([`cli-made-${serial}-0123456789`]);
    expect((failure as Error).message).toContain(`re-run with --request-id ${told[0]}`);
    expect(again).toMatchObject({ status: 'resolved', replayed: true });
    expect(await eventsOf(partnerId, 'ticket.status.updated')).toHaveLength(1);
  });

  it('answers a re-run after a success with the same ticket, replayed, and writes nothing more', async () => {
    // Prepare
    const { partnerId, id } = await joinedInvitation();
    const first = await office.invitations!.message(id, 'user', 'Here is my video.', 'rerun-after-success');

    // Act
    const again = await office.invitations!.message(id, 'user', 'Here is my video.', 'rerun-after-success');

    // Assess
    expect(again).toEqual({ ...first, replayed: true });
    expect(await eventsOf(partnerId, 'ticket.message.created')).toHaveLength(1);
  });

  it('refuses the same request id with other arguments (another text, another invitation): REQUEST_ID_REUSED, nothing written', async () => {
    // Prepare
    const { partnerId, id, ticketId } = await joinedInvitation();
    const other = await joinedInvitation();
    const fault = loseEveryAnswer();
    await expect(faults.invocation('api', () => office.invitations!.message(id, 'staff', 'The first text.', 'rerun-reused'))).rejects.toBeDefined();

    // Act: both settled before either is looked at (a rejection left waiting is an unhandled one).
    const [anotherText, anotherTicket] = await Promise.allSettled([
      office.invitations!.message(id, 'staff', 'Another text.', 'rerun-reused'),
      office.invitations!.message(other.id, 'staff', 'The first text.', 'rerun-reused'),
    ]);

    // Assess
    expect(fault.fired()).toBe(true);
    expect(anotherText).toMatchObject({ status: 'rejected', reason: { code: 'REQUEST_ID_REUSED' } });
    expect(anotherTicket).toMatchObject({ status: 'rejected', reason: { code: 'REQUEST_ID_REUSED' } });
    expect(await entriesOf(ticketId)).toEqual(['staff: The first text.']);
    expect(await entriesOf(other.ticketId)).toEqual([]);
    expect(await eventsOf(partnerId, 'ticket.message.created')).toHaveLength(1);
    expect(await eventsOf(other.partnerId, 'ticket.message.created')).toHaveLength(0);
  });

  it('makes one change of 6 concurrent runs of one request, each answering its ticket', async () => {
    // Prepare
    const { partnerId, id, ticketId } = await joinedInvitation();

    // Act
    const runs = await Promise.all(Array.from({ length: 6 }, () => office.invitations!.message(id, 'staff', 'Sent six times at once.', 'rerun-concurrent')));

    // Assess
    const ticket = toTicket((await tickets.get(ticketId))!);
    expect(runs.map((run) => toTicket(run))).toEqual(Array(6).fill(ticket));
    expect(runs.filter((run) => !('replayed' in run))).toHaveLength(1);
    expect(ticket.message_count).toBe(1);
    expect(await entriesOf(ticketId)).toEqual(['staff: Sent six times at once.']);
    expect(await eventsOf(partnerId, 'ticket.message.created')).toHaveLength(1);
  });
});
