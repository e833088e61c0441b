/**
 * The ticket bridge: the service's side of the spec's external ticket
 * store. `DynamoTicketBridge` keeps tickets in the `domain` table:
 *
 * | item | pk | sk | holds |
 * |---|---|---|---|
 * | ticket | `TICKET#<ticket id>` | `TICKET` | the TicketItem, the player's data and the draft notes as its first message |
 *
 * Creating the ticket of an invitation is idempotent: the ticket id is
 * derived from the invitation id and the Put is conditioned on its absence,
 * so a second creation finds and confirms the first ticket. Any failure of
 * the store (timeouts included) is a TicketServiceUnavailable, which the API
 * answers 503 TICKET_SERVICE_UNAVAILABLE with Retry-After.
 */
import { GetCommand, PutCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eventItem } from '../outbox/outbox';
import type { GameGroup } from '../records/record-model';
import { isConditionFailure, retryOnConflict } from '../shared/storage/conditions';
import { ticketIdFor, toTicket, type TicketItem, type TicketStatus } from './ticket-model';

export interface TicketRequest {
  readonly invitationId: string;
  readonly partnerId: string;
  readonly game: GameGroup;
  readonly notes?: string;
  readonly player: { readonly in_game_name: string; readonly game_account_id: string };
}

export interface TicketBridge {
  /** The invitation's ticket, created now or found (never a second one). */
  createForInvitation(request: TicketRequest, now: Date): Promise<TicketItem>;
  get(ticketId: string): Promise<TicketItem | undefined>;
}

/** A change of a ticket by staff, the player or the system (the back office today; the player page next). */
export type TicketChange =
  | { readonly kind: 'message'; readonly author: 'staff' | 'user'; readonly text: string }
  | { readonly kind: 'status'; readonly status: TicketStatus }
  | { readonly kind: 'assign'; readonly to: string };

export class TicketServiceUnavailable extends Error {
  constructor(options?: { cause?: unknown }) {
    super('The ticket service is unavailable', options);
    this.name = 'TicketServiceUnavailable';
  }
}

export const ticketKey = (ticketId: string) => ({ pk: `TICKET#${ticketId}`, sk: 'TICKET' });

export class DynamoTicketBridge implements TicketBridge {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async createForInvitation(request: TicketRequest, now: Date): Promise<TicketItem> {
    const ticket: TicketItem = {
      id: ticketIdFor(request.invitationId),
      invitation_id: request.invitationId,
      partner_id: request.partnerId,
      game: request.game,
      status: 'open',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      message_count: request.notes ? 1 : 0,
    };
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...ticketKey(ticket.id),
            kind: 'ticket',
            ...ticket,
            player: request.player,
            messages: request.notes ? [{ author: 'organization', text: request.notes, at: ticket.created_at }] : [],
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return ticket;
    } catch (error) {
      if (isConditionFailure(error)) {
        const existing = await this.get(ticket.id);
        if (existing) return existing;
      }
      throw new TicketServiceUnavailable({ cause: error });
    }
  }

  /**
   * Apply a change with its event, in one transaction conditioned on the
   * ticket's `updated_at` as read (a concurrent change retries): a message
   * appends to the conversation and counts in `message_count` with
   * `ticket.message.created`; a status change or an assignment (system
   * actions, not counted) comes with `ticket.status.updated`.
   */
  async change(ticketId: string, change: TicketChange, now: Date): Promise<TicketItem | undefined> {
    return retryOnConflict(
      async () => {
        const ticket = await this.get(ticketId);
        if (!ticket) return undefined;
        const at = now.toISOString();
        const next: TicketItem = {
          ...toTicket(ticket),
          status: change.kind === 'status' ? change.status : ticket.status,
          message_count: ticket.message_count + (change.kind === 'message' ? 1 : 0),
          // Strictly later than what was read, so the condition below tells every change apart.
          updated_at: at > ticket.updated_at ? at : new Date(Date.parse(ticket.updated_at) + 1).toISOString(),
        };
        const entry =
          change.kind === 'message'
            ? { author: change.author, text: change.text, at }
            : change.kind === 'status'
              ? { author: 'system', text: `status: ${change.status}`, at }
              : { author: 'system', text: `assigned to ${change.to}`, at };
        const type = change.kind === 'message' ? 'ticket.message.created' : 'ticket.status.updated';
        const { item: event } = eventItem(ticket.partner_id, { type, data: { ticket_id: ticket.id, invitation_id: ticket.invitation_id, status: next.status } }, now);
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: this.table,
                  Key: ticketKey(ticketId),
                  UpdateExpression: `SET #status = :status, message_count = :count, updated_at = :updated, messages = list_append(if_not_exists(messages, :none), :entry)${change.kind === 'assign' ? ', assignee = :to' : ''}`,
                  ConditionExpression: 'updated_at = :read',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: {
                    ':status': next.status,
                    ':count': next.message_count,
                    ':updated': next.updated_at,
                    ':entry': [entry],
                    ':none': [],
                    ':read': ticket.updated_at,
                    ...(change.kind === 'assign' ? { ':to': change.to } : {}),
                  },
                },
              },
              { Put: { TableName: this.table, Item: event, ConditionExpression: 'attribute_not_exists(pk)' } },
            ],
          }),
        );
        return next;
      },
      10,
      () => new Error('Too many concurrent changes to this ticket; try again'),
    );
  }

  async get(ticketId: string): Promise<TicketItem | undefined> {
    try {
      const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: ticketKey(ticketId), ConsistentRead: true }));
      return Item as TicketItem | undefined;
    } catch (error) {
      throw new TicketServiceUnavailable({ cause: error });
    }
  }
}
