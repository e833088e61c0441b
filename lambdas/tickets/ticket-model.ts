/**
 * Formal tickets created through organization invitations: the stored item
 * and the spec's Ticket object. A ticket's id is derived from its
 * invitation's (`ticketIdFor`), so creating the ticket of an invitation
 * twice names the same ticket: a retried or reconciled claim confirms the
 * ticket it finds instead of creating a second one.
 */
import { createHash } from 'node:crypto';
import type * as z from 'zod/mini';
import type { GameGroup } from '../records/games';
import type { TicketSchema } from './ticket-contracts';

export const TICKET_STATUSES = ['open', 'waiting_user', 'resolved'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export interface TicketItem {
  readonly id: string;
  readonly invitation_id: string;
  readonly partner_id: string;
  readonly game: GameGroup;
  readonly status: TicketStatus;
  readonly created_at: string;
  readonly updated_at: string;
  /** Visible non-system messages. */
  readonly message_count: number;
}

/** The spec's Ticket object, as its contract's schema declares it. */
export type Ticket = z.input<typeof TicketSchema>;

export function ticketIdFor(invitationId: string): string {
  return `tkt_${createHash('sha256').update(`ticket-of-invitation/v1\n${invitationId}`).digest('hex').slice(0, 24)}`;
}

export function toTicket(item: TicketItem): Ticket {
  return {
    id: item.id,
    invitation_id: item.invitation_id,
    partner_id: item.partner_id,
    game: item.game,
    status: item.status,
    created_at: item.created_at,
    updated_at: item.updated_at,
    message_count: item.message_count,
  };
}
