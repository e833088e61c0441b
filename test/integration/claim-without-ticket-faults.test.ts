/**
 * The claim while the ticket store is unavailable (claim.ts: `beginClaim`, pending → claiming, finished later) under
 * faults at its transaction's call site, in process on DynamoDB Local: a claim applied whose every answer was lost,
 * then resubmitted with the same submission id, is that claim answered again (claiming, a fresh credential, the
 * undelivered one revoked); once the store answers, the view's or the reconciler's finish makes one ticket and one
 * `invitation.joined`. Another submission is refused.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { claimInvitation, credentialDigest, finishClaim } from '../../lambdas/invitations/claim';
import { InvitationStore } from '../../lambdas/invitations/invitation-store';
import { DynamoTicketBridge } from '../../lambdas/tickets/ticket-bridge';
import { withFaultyClient } from '../support/faulty-client';
import type { TestStack } from '../support/test-stack';

let stack: TestStack;
let invitations: InvitationStore;
let storeDown = true;
/** The ticket bridge, unavailable while `storeDown` (as the local switch `ticketBridgeDown` makes it). */
let tickets: DynamoTicketBridge;
const faults = withFaultyClient((world) => {
  stack = world.stack;
  invitations = new InvitationStore(world.client, stack.tables.domain);
  tickets = new DynamoTicketBridge(world.client, stack.tables.domain, () => storeDown);
});

const player = { in_game_name: 'Steve', game_account_id: 'steve_01' };
let serial = 0;

async function newInvitation() {
  const scope = { keyId: 'key_claim_down', partnerId: `org_claim_down_${(serial += 1)}_${Date.now()}`, idempotencyKey: `claim-down-key-${serial}-abcdef` };
  const creation = await invitations.create(scope, { game: 'minecraft', notes: 'Brief.' }, new Date());
  if (creation.outcome !== 'created') throw new Error(creation.outcome);
  return creation.item;
}

const ticketsOf = async (invitationId: string) =>
  ((await stack.client.send(new ScanCommand({ TableName: stack.tables.domain, ConsistentRead: true }))).Items ?? []).filter((item) => item.sk === 'TICKET' && item.invitation_id === invitationId);

describe('the claim while the ticket store is unavailable, its transaction applied and every answer lost', () => {
  it('answers the same submission again (claiming, a fresh credential), refuses another, and finishes with one ticket and one event', async () => {
    // Prepare
    storeDown = true;
    const item = await newInvitation();
    const claimTransaction = (input: Readonly<Record<string, unknown>>) => JSON.stringify(input).includes('claim_bucket');
    const rule = faults.arm({ component: 'api', call: 'TransactWriteItems', matches: claimTransaction, effect: 'fail-after' });
    const deps = { invitations, tickets };

    // Act
    const lost = await faults.invocation('api', () => claimInvitation(deps, item.id, player, new Date(), undefined, 'submission-one-0123456789abcdef')).catch((error: unknown) => error);
    const other = await claimInvitation(deps, item.id, player, new Date(), undefined, 'submission-two-0123456789abcdef');
    const again = await claimInvitation(deps, item.id, player, new Date(), undefined, 'submission-one-0123456789abcdef');
    storeDown = false;
    const claiming = (await invitations.find(item.id))!;
    const finished = await finishClaim(deps, claiming, new Date());

    // Assess
    expect(rule.fired()).toBe(true);
    expect(lost).toBeInstanceOf(Error);
    expect(other).toEqual({ outcome: 'unavailable', state: 'claiming' });
    expect(again).toMatchObject({ outcome: 'resumed', item: { state: 'claiming' }, credential: expect.any(String) });
    expect(claiming.credential_digest).toBe(credentialDigest((again as { credential: string }).credential));
    expect(await invitations.find(item.id)).toMatchObject({ state: 'joined', ticket_id: finished.id });
    const [ticket, ...more] = await ticketsOf(item.id);
    expect(more).toEqual([]);
    expect(ticket).toMatchObject({ id: finished.id, brief: 'Brief.' });
    expect((await stack.office.records!.events(item.partner_id)).events.filter((event) => event.type === 'invitation.joined')).toHaveLength(1);
  });
});
