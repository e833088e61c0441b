/**
 * Invitations and tickets in the back office: staff and system actions on a
 * joined invitation's ticket (each with its event, in the ticket bridge's
 * transaction), archiving an invitation, and moving one invitation's expiry
 * to now (to try expiry locally).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { stateAt, toInvitation } from '../invitations/invitation-model';
import { InvitationStore } from '../invitations/invitation-store';
import { DynamoTicketBridge, TicketRequestConflict, type TicketChange } from '../tickets/ticket-bridge';
import { TICKET_STATUSES, type TicketStatus } from '../tickets/ticket-model';
import { BackOfficeError } from './errors';
import { repeatableRequest } from '../shared/storage/repeatable-requests';

export class InvitationsOffice {
  private readonly invitations: InvitationStore;
  private readonly tickets: DynamoTicketBridge;

  constructor(
    client: DynamoDBDocumentClient,
    table: string,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.invitations = new InvitationStore(client, table);
    this.tickets = new DynamoTicketBridge(client, table);
  }

  /**
   * `ticket message --invitation I --author staff|user --text T`: a visible message, with ticket.message.created.
   * The ticket actions take the CLI's request id (optional here): the same request made again after an error answers
   * the ticket the first left, `replayed`, with one entry and one event; the id with other arguments is
   * REQUEST_ID_REUSED (ticket-bridge.ts `change`).
   */
  message(invitationId: string, author: string, text: string | undefined, requestId?: string) {
    if (author !== 'staff' && author !== 'user') throw new BackOfficeError('INVALID_ARGUMENT', '--author must be staff or user');
    const trimmed = (text ?? '').trim();
    if (trimmed.length < 1 || trimmed.length > 4000) throw new BackOfficeError('INVALID_ARGUMENT', '--text must be 1–4000 characters');
    return this.changeTicket(invitationId, { kind: 'message', author, text: trimmed }, requestId);
  }

  /** `ticket status --invitation I --status open|waiting_user|resolved`: with ticket.status.updated. */
  status(invitationId: string, status: string, requestId?: string) {
    if (!(TICKET_STATUSES as readonly string[]).includes(status)) throw new BackOfficeError('INVALID_ARGUMENT', `--status must be ${TICKET_STATUSES.join(', ')}`);
    return this.changeTicket(invitationId, { kind: 'status', status: status as TicketStatus }, requestId);
  }

  /** `ticket assign --invitation I --to NAME`: with ticket.status.updated. */
  assign(invitationId: string, to: string, requestId?: string) {
    if (to.trim().length < 1 || to.length > 120) throw new BackOfficeError('INVALID_ARGUMENT', '--to must be 1–120 characters');
    return this.changeTicket(invitationId, { kind: 'assign', to: to.trim() }, requestId);
  }

  /** `invitation archive --org O --invitation I`. */
  async archive(partnerId: string, invitationId: string) {
    const now = this.clock();
    const item = await this.invitations.archive(partnerId, invitationId, now);
    if (!item) throw new BackOfficeError('INVITATION_NOT_FOUND', `No invitation ${invitationId} in ${partnerId}`);
    return { ...toInvitation(item, now), partner_id: partnerId };
  }

  /** `invitation expire-now --invitation I`: a pending invitation expires now (its slot is free at once). */
  async expireNow(invitationId: string) {
    const now = this.clock();
    const item = await this.invitations.expireNow(invitationId, now);
    if (!item) throw new BackOfficeError('INVITATION_NOT_FOUND', `No invitation ${invitationId}`);
    return { ...toInvitation(item, now), partner_id: item.partner_id };
  }

  private async changeTicket(invitationId: string, change: TicketChange, requestId: string | undefined) {
    const { kind, ...fields } = change;
    const request = requestId === undefined ? undefined : repeatableRequest(`ticket ${kind}`, requestId, { invitation: invitationId, ...fields });
    const now = this.clock();
    const invitation = await this.invitations.find(invitationId);
    if (!invitation) throw new BackOfficeError('INVITATION_NOT_FOUND', `No invitation ${invitationId}`);
    if (stateAt(invitation, now) !== 'joined' || !invitation.ticket_id) throw new BackOfficeError('NOT_JOINED', `Invitation ${invitationId} has no ticket yet`);
    const changed = await this.tickets.change(invitation.ticket_id, change, now, request).catch((error: unknown) => {
      throw error instanceof TicketRequestConflict ? new BackOfficeError('REQUEST_ID_REUSED', error.reused.message) : error;
    });
    if (!changed) throw new BackOfficeError('INVITATION_NOT_FOUND', `No ticket for invitation ${invitationId}`);
    return changed.replayed ? { ...changed.ticket, replayed: true as const } : changed.ticket;
  }
}
