/**
 * Writes of one organization's invitations share its organization item, so
 * in DynamoDB a claim, a revoke or a join can lose a transaction conflict to
 * a write of another invitation (DynamoDB Local serializes them and never
 * shows it). The losing write wrote nothing: it reads again and retries,
 * never answering "unavailable" for a pending invitation, never a 500; a
 * store contended through every attempt is a 503 with Retry-After.
 */
import { TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { stateAt, type InvitationItem } from '../../../lambdas/invitations/invitation-model';
import { InvitationStore, InvitationStoreContended } from '../../../lambdas/invitations/invitation-store';
import { documentClient } from '../support/admission-fixtures';

const ddbMock = mockClient(DynamoDBDocumentClient);
const NOW = new Date('2026-11-23T12:00:00.000Z');
const pending: InvitationItem = {
  id: '0196a0b2-7c1d-8e4f-9a0b-1c2d3e4f5a6b',
  partner_id: 'org_1',
  key_id: 'key_1',
  game: 'minecraft',
  request_fp: 'fp',
  state: 'pending',
  created_at: '2026-11-22T12:00:00.000Z',
  expires_at: '2026-11-29T12:00:00.000Z',
  archived_at: null,
  ticket_id: null,
  seq: 7,
};
/** A cancelled transaction, with a reason per item. */
const cancelled = (...reasons: CancellationReason[]) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: { httpStatusCode: 400 }, CancellationReasons: reasons });
const conflict = () => cancelled({ Code: 'None' }, { Code: 'TransactionConflict' });
const store = () => new InvitationStore(documentClient, 'domain');
const player = { player: { in_game_name: 'Steve', game_account_id: 'steve' }, credentialDigest: 'digest' };

beforeEach(() => {
  ddbMock.reset();
  ddbMock.on(GetCommand).resolves({ Item: pending });
});

describe('invitation writes that lose a conflict on the organization item', () => {
  it('claim: reads again and claims the still-pending invitation', async () => {
    ddbMock.on(TransactWriteCommand).rejectsOnce(conflict()).resolves({});
    const outcome = await store().beginClaim(pending.id, player, NOW, pending);
    expect(outcome).toMatchObject({ claimed: { id: pending.id, state: 'claiming' } });
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(2);
    // The caller's read saved the first GetItem; the retry read again.
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(1);
  });

  it('claim in one transaction: reads again and joins the still-pending invitation, with its ticket', async () => {
    ddbMock.on(TransactWriteCommand).rejectsOnce(conflict()).resolves({});
    const ticketFor = (item: InvitationItem) => ({ ticket: { id: 'tkt_1', status: 'open' }, put: { Put: { TableName: 'domain', Item: { pk: 'TICKET#tkt_1', sk: 'TICKET', invitation_id: item.id }, ConditionExpression: 'attribute_not_exists(pk)' } } });
    const outcome = await store().claimAndJoin(pending, player, ticketFor, NOW);
    expect(outcome).toMatchObject({ joined: { id: pending.id, state: 'joined', ticket_id: 'tkt_1' } });
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(2);
    expect(ddbMock.commandCalls(TransactWriteCommand)[1].args[0].input.TransactItems).toHaveLength(4);
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(1);
  });

  it('claim in one transaction: another claim came first, answered from the cancellation without a read', async () => {
    const joined = { ...pending, state: 'joined', ticket_id: 'tkt_1' };
    const lost = cancelled({ Code: 'ConditionalCheckFailed', Item: marshall(joined) }, { Code: 'ConditionalCheckFailed' }, { Code: 'None' }, { Code: 'None' });
    ddbMock.on(TransactWriteCommand).rejects(lost);
    const ticketFor = () => ({ ticket: { id: 'tkt_1', status: 'open' }, put: { Put: { TableName: 'domain', Item: { pk: 'TICKET#tkt_1', sk: 'TICKET' }, ConditionExpression: 'attribute_not_exists(pk)' } } });
    expect(await store().claimAndJoin(pending, player, ticketFor, NOW)).toEqual({ current: joined });
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('revoke: reads again and revokes', async () => {
    ddbMock.on(TransactWriteCommand).rejectsOnce(conflict()).resolves({});
    expect(await store().revoke('org_1', pending.id, NOW)).toMatchObject({ state: 'revoked' });
  });

  it('expire-now: reads again and expires the still-pending invitation, never answering it unexpired', async () => {
    ddbMock.on(TransactWriteCommand).rejectsOnce(conflict()).resolves({});
    const expired = await store().expireNow(pending.id, NOW);
    expect(expired).toMatchObject({ state: 'pending', expires_at: NOW.toISOString() });
    expect(stateAt(expired as InvitationItem, NOW)).toBe('expired');
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(2);
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(2);
  });

  it('expire-now: claimed meanwhile (its condition failed): answers the invitation as it is, not expired', async () => {
    const joined = { ...pending, state: 'joined', ticket_id: 'tkt_1' };
    const claimedMeanwhile = cancelled({ Code: 'ConditionalCheckFailed' }, { Code: 'None' });
    ddbMock.on(GetCommand).resolvesOnce({ Item: pending }).resolves({ Item: joined });
    ddbMock.on(TransactWriteCommand).rejects(claimedMeanwhile);
    expect(await store().expireNow(pending.id, NOW)).toEqual(joined);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('join: retries the joining transaction', async () => {
    ddbMock.on(TransactWriteCommand).rejectsOnce(conflict()).resolves({});
    expect(await store().completeClaim({ ...pending, state: 'claiming' }, { id: 'tkt_1', status: 'open' }, NOW)).toBe(true);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });

  it('answers 503 with Retry-After when every attempt loses, having written nothing', async () => {
    ddbMock.on(TransactWriteCommand).rejects(conflict());
    const attempt = store().beginClaim(pending.id, player, NOW);
    await expect(attempt).rejects.toBeInstanceOf(InvitationStoreContended);
    await expect(store().revoke('org_1', pending.id, NOW)).rejects.toMatchObject({ code: 'TICKET_SERVICE_UNAVAILABLE', status: 503, headers: { 'Retry-After': '1' } });
    await expect(store().expireNow(pending.id, NOW)).rejects.toBeInstanceOf(InvitationStoreContended);
  });
});
