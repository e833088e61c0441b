/**
 * The ticket bridge's creation of an invitation's ticket (`createForInvitation`) under lost answers, on DynamoDB
 * Local with faults injected at the call (docs/faults.md). It needed no change for issue 31: the ticket's id is
 * derived from the invitation's and its write is conditioned on the ticket's absence, so whatever meets the write
 * again (the SDK's retry of a lost answer, the claim's or the reconciler's next try after an error) confirms the
 * ticket it finds. These tests hold it there: one ticket (its brief on it since issue 34: one Put, notes or not), the
 * same ticket answered.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoTicketBridge, TicketServiceUnavailable, type TicketRequest } from '../../lambdas/tickets/ticket-bridge';
import { ticketIdFor } from '../../lambdas/tickets/ticket-model';
import { withFaultyClient } from '../support/faulty-client';
import type { TestStack } from '../support/test-stack';

let stack: TestStack;
/** The bridge on a client whose calls the plan can fail (only inside `faults.invocation`). */
let bridge: DynamoTicketBridge;
const faults = withFaultyClient((world) => {
  stack = world.stack;
  bridge = new DynamoTicketBridge(world.client, stack.tables.domain);
});

let serial = 0;
const request = (notes?: string): TicketRequest => ({
  invitationId: `00000000-0000-8000-8000-${String((serial += 1)).padStart(12, '0')}`,
  partnerId: 'org_ticket_creation',
  game: 'fps',
  notes,
  player: { in_game_name: 'Alex', game_account_id: 'alex' },
});

/** Every item of the ticket's partition (the ticket and its entries), and the ticket's brief. */
async function partition(invitationId: string) {
  const { Items = [] } = await stack.client.send(
    new QueryCommand({ TableName: stack.tables.domain, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `TICKET#${ticketIdFor(invitationId)}` }, ConsistentRead: true }),
  );
  return { items: Items.map((item) => String(item.sk)), brief: Items.find((item) => item.sk === 'TICKET')?.brief };
}

describe('creating an invitation’s ticket when an answer is lost', () => {
  it.each([
    ['without notes (a Put)', undefined, 'PutItem', ['TICKET']],
    ['with notes (a Put: the brief on the ticket item)', 'Brief for staff.', 'PutItem', ['TICKET']],
  ] as const)('%s, lose-answer: the SDK’s retry meets its own ticket and answers it', async (_, notes, call, items) => {
    // Prepare
    const wanted = request(notes);
    const fault = faults.arm({ component: 'api', call, effect: 'lose-answer' });

    // Act
    const ticket = await faults.invocation('api', () => bridge.createForInvitation(wanted, new Date()));

    // Assess
    expect(fault.fired()).toBe(true);
    expect(ticket).toMatchObject({ id: ticketIdFor(wanted.invitationId), invitation_id: wanted.invitationId, status: 'open', message_count: 0 });
    expect(await partition(wanted.invitationId)).toEqual({ items, brief: notes });
  });

  it.each([
    ['without notes (a Put)', undefined, 'PutItem', ['TICKET']],
    ['with notes (a Put: the brief on the ticket item)', 'Brief for staff.', 'PutItem', ['TICKET']],
  ] as const)('%s, fail-after: 503 to the claim, and its next try confirms the ticket written', async (_, notes, call, items) => {
    // Prepare
    const wanted = request(notes);
    const fault = faults.arm({ component: 'api', call, effect: 'fail-after' });
    await expect(faults.invocation('api', () => bridge.createForInvitation(wanted, new Date()))).rejects.toBeInstanceOf(TicketServiceUnavailable);

    // Act
    const ticket = await bridge.createForInvitation(wanted, new Date());

    // Assess
    expect(fault.fired()).toBe(true);
    expect(ticket.id).toBe(ticketIdFor(wanted.invitationId));
    expect(await partition(wanted.invitationId)).toEqual({ items, brief: notes });
  });
});
