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
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { GameGroup } from '../records/record-model';
import { isConditionFailure } from '../shared/storage/conditions';
import { ticketIdFor, type TicketItem } from './ticket-model';

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

  async get(ticketId: string): Promise<TicketItem | undefined> {
    try {
      const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: ticketKey(ticketId), ConsistentRead: true }));
      return Item as TicketItem | undefined;
    } catch (error) {
      throw new TicketServiceUnavailable({ cause: error });
    }
  }
}
