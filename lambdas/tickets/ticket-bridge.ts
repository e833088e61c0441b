/**
 * The ticket bridge: the service's side of the spec's external ticket
 * store. `DynamoTicketBridge` keeps tickets in the `domain` table:
 *
 * | item | pk | sk | holds |
 * |---|---|---|---|
 * | ticket | `TICKET#<ticket id>` | `TICKET` | the TicketItem, the player's data, `entry_count`, `brief` (the draft notes, when there were any) |
 * | entry | `TICKET#<ticket id>` | `ENTRY#<000001…>` | one conversation entry: author (organization, staff, user, system), text, time |
 * | request | `REQUEST#<digest>` | `REQUEST` | a change's request id (shared/storage/repeatable-requests.ts): a resubmission answers the first change |
 *
 * The draft notes are the ticket's brief for the staff who handle it (`brief` on the ticket item), not a message:
 * `message_count` counts staff and player messages only, no `ticket.message.created` is emitted for the brief, and the
 * player's view does not show it (docs/invitations.md, "Draft notes"). Kept on the ticket item, the brief costs the
 * claim's transaction no item of its own (tickets created before issue 34 hold it as their entry 1, author
 * `organization`, which the player's view skips the same way). Entries are items of their own so a conversation never
 * meets DynamoDB's 400 KB item limit; a page of the latest ones is one Query.
 *
 * Creating the ticket of an invitation is idempotent: the ticket id is
 * derived from the invitation id and the Put is conditioned on its absence,
 * so a second creation finds and confirms the first ticket. The claim puts
 * the ticket inside its own joining transaction (`creationFor`: the bridge
 * still decides the item's shape); `createForInvitation` is the path of a
 * claim that could not (the store was unavailable: the claim went on as
 * `claiming`, finished later). Any failure of the store (timeouts included)
 * is a TicketServiceUnavailable, which the API answers 503
 * TICKET_SERVICE_UNAVAILABLE with Retry-After.
 */
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eventItem } from '../outbox/outbox';
import { ApiError } from '../shared/errors';
import { perPlatform } from '../shared/platform';
import { requireTable } from '../shared/storage/table-names';
import type { GameGroup } from '../records/games';
import { isConditionFailure, retryOnConflict } from '../shared/storage/conditions';
import { ticketIdFor, toTicket, type TicketItem, type TicketStatus } from './ticket-model';
import { cancelledItem, RequestIdReused, requestRecordPut, sameRequest, type RepeatableRequest } from '../shared/storage/repeatable-requests';

export interface TicketRequest {
  readonly invitationId: string;
  readonly partnerId: string;
  readonly game: GameGroup;
  readonly notes?: string;
  readonly player: { readonly in_game_name: string; readonly game_account_id: string };
}

/** A ticket to create inside another write's transaction: the ticket, and its Put (conditioned on its absence). */
export interface TicketCreation {
  readonly ticket: TicketItem;
  readonly put: { readonly Put: { readonly TableName: string; readonly Item: Record<string, unknown>; readonly ConditionExpression: string } };
}

export interface TicketBridge {
  /**
   * The Put that creates the invitation's ticket, for the claim's joining transaction (claim.ts). Makes no call; throws
   * TicketServiceUnavailable while the store is unavailable, and the claim then takes the path that needs no ticket yet.
   */
  creationFor(request: TicketRequest, now: Date): TicketCreation;
  /** The invitation's ticket, created now or found (never a second one). */
  createForInvitation(request: TicketRequest, now: Date): Promise<TicketItem>;
  get(ticketId: string): Promise<TicketItem | undefined>;
}

export type EntryAuthor = 'organization' | 'staff' | 'user' | 'system';

export interface ConversationEntry {
  readonly seq: number;
  readonly author: EntryAuthor;
  readonly text: string;
  readonly at: string;
}

/**
 * Makes the bridge unavailable while it answers true: every call fails as a
 * store that does not answer would (TicketServiceUnavailable). Only the local
 * stack passes one (`ticket bridge --fail on`, local/ticket-bridge-switch.ts);
 * a deployed function builds its bridge without it, and no setting adds it.
 */
export type BridgeOutage = () => boolean;

/** A change of a ticket by staff, the player or the system (the back office, the player site). */
export type TicketChange =
  | { readonly kind: 'message'; readonly author: 'staff' | 'user'; readonly text: string }
  | { readonly kind: 'status'; readonly status: TicketStatus }
  | { readonly kind: 'assign'; readonly to: string };

/** A change made: the ticket as it left it; `replayed`: a resubmission of a change already made, answered again. */
export interface TicketChangeOutcome {
  readonly ticket: TicketItem;
  readonly replayed: boolean;
  /**
   * The latest `read.limit` conversation entries as the change left them, oldest first, when the change started from a
   * read (`read`) that showed the whole page as of its ticket and no other change came between: that page and the new
   * entry, with no Query after the write. Absent otherwise (a replay, a lost race, no read): the caller queries.
   */
  readonly conversation?: readonly ConversationEntry[];
}

/** A ticket item as stored: the Ticket and the count of its conversation's entries (the last entry's seq). */
type StoredTicket = TicketItem & { readonly entry_count?: number };

/**
 * A ticket and the latest entries of its conversation, read side by side (`read`: one round trip), e.g. beside the
 * admission of the player's message: the change starts from it (no read of its own) and answers from it.
 */
export interface TicketRead {
  readonly ticketId: string;
  readonly ticket: StoredTicket | undefined;
  /** The latest `limit` entries, oldest first. */
  readonly entries: readonly ConversationEntry[];
  readonly limit: number;
}

/**
 * Whether the read's page is its conversation as of its ticket: the two reads are separate calls, and an entry is
 * written with its ticket's `entry_count` in one transaction, so the page's last seq equals the ticket's count exactly
 * when no change landed between them (entries never change once written).
 */
const wholePage = (read: TicketRead): boolean => (read.entries.at(-1)?.seq ?? 0) === (read.ticket?.entry_count ?? 0);

/** Seconds a client waits before asking again when the ticket store is unavailable. */
export const TICKET_RETRY_AFTER_SECONDS = 5;

/** The ticket store failed or did not answer in time: 503 TICKET_SERVICE_UNAVAILABLE with Retry-After. */
export class TicketServiceUnavailable extends ApiError {
  constructor(options?: { cause?: unknown }) {
    super('TICKET_SERVICE_UNAVAILABLE', undefined, { 'Retry-After': String(TICKET_RETRY_AFTER_SECONDS) }, { cause: options?.cause });
    this.name = 'TicketServiceUnavailable';
  }
}

/** A change's request id was already used for another change (another text, another ticket): 409 IDEMPOTENCY_CONFLICT. */
export class TicketRequestConflict extends ApiError {
  constructor(readonly reused: RequestIdReused) {
    super('IDEMPOTENCY_CONFLICT', 'This message id was already used with a different message or change; nothing was changed.', undefined, { cause: reused });
    this.name = 'TicketRequestConflict';
  }
}

export const ticketKey = (ticketId: string) => ({ pk: `TICKET#${ticketId}`, sk: 'TICKET' });
const entryKey = (ticketId: string, seq: number) => ({ pk: `TICKET#${ticketId}`, sk: `ENTRY#${String(seq).padStart(6, '0')}` });

export class DynamoTicketBridge implements TicketBridge {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly outage?: BridgeOutage,
  ) {}

  private available(): void {
    if (this.outage?.()) throw new TicketServiceUnavailable({ cause: new Error('ticket bridge switched off (local stack)') });
  }

  creationFor(request: TicketRequest, now: Date): TicketCreation {
    this.available();
    const ticket: TicketItem = {
      id: ticketIdFor(request.invitationId),
      invitation_id: request.invitationId,
      partner_id: request.partnerId,
      game: request.game,
      status: 'open',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      // The brief (the draft notes) is not a message: staff and player messages count from 0.
      message_count: 0,
    };
    const item = { ...ticketKey(ticket.id), kind: 'ticket', ...ticket, player: request.player, entry_count: 0, ...(request.notes ? { brief: request.notes } : {}) };
    return { ticket, put: { Put: { TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } } };
  }

  async createForInvitation(request: TicketRequest, now: Date): Promise<TicketItem> {
    const { ticket, put } = this.creationFor(request, now);
    try {
      await this.client.send(new PutCommand(put.Put));
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
   * adds a conversation entry and counts in `message_count` with
   * `ticket.message.created`; a status change or an assignment (system
   * actions, not counted) comes with `ticket.status.updated`.
   *
   * The SDK's own retry of the transaction is harmless (its
   * ClientRequestToken); a caller's is a new transaction. So a change may
   * come with its request (the page's client message id, the admin CLI's
   * `--request-id`: repeatable-requests.ts), whose record the transaction
   * puts too: a resubmission after an applied change (every try's answer
   * lost, the function's deadline) meets it and answers the ticket the first
   * left, `replayed`, writing nothing (one entry, one event); the same id
   * with another change is TicketRequestConflict (409 IDEMPOTENCY_CONFLICT).
   *
   * With `read` (the ticket and its conversation's page, read before: `read`), the first try starts from it instead
   * of reading the ticket (the transaction's condition still holds it to what was read) and answers the page as the
   * change left it (`conversation`): the change is one round trip. A lost race reads again, as without it.
   */
  async change(ticketId: string, change: TicketChange, now: Date, request?: RepeatableRequest, read?: TicketRead): Promise<TicketChangeOutcome | undefined> {
    this.available();
    return this.applyChange(ticketId, change, now, request, read?.ticketId === ticketId ? read : undefined).catch((error: unknown) => {
      if (error instanceof RequestIdReused) throw new TicketRequestConflict(error);
      throw error instanceof TicketServiceUnavailable ? error : new TicketServiceUnavailable({ cause: error });
    });
  }

  private async applyChange(
    ticketId: string,
    change: TicketChange,
    now: Date,
    request: RepeatableRequest | undefined,
    read: TicketRead | undefined,
  ): Promise<TicketChangeOutcome | undefined> {
    // The read serves the first try only: a try after a lost race reads the ticket again.
    let unused = read?.ticket ? read : undefined;
    return retryOnConflict(
      async () => {
        const from = unused;
        unused = undefined;
        const ticket = from?.ticket ?? ((await this.get(ticketId)) as StoredTicket | undefined);
        if (!ticket) return undefined;
        const seq = (ticket.entry_count ?? 0) + 1;
        const at = now.toISOString();
        const next: TicketItem = {
          ...toTicket(ticket),
          status: change.kind === 'status' ? change.status : ticket.status,
          message_count: ticket.message_count + (change.kind === 'message' ? 1 : 0),
          // Strictly later than what was read, so the condition below tells every change apart.
          updated_at: at > ticket.updated_at ? at : new Date(Date.parse(ticket.updated_at) + 1).toISOString(),
        };
        const entry: { readonly author: EntryAuthor; readonly text: string } =
          change.kind === 'message'
            ? { author: change.author, text: change.text }
            : change.kind === 'status'
              ? { author: 'system', text: `status: ${change.status}` }
              : { author: 'system', text: `assigned to ${change.to}` };
        const added: ConversationEntry = { seq, ...entry, at };
        const type = change.kind === 'message' ? 'ticket.message.created' : 'ticket.status.updated';
        const { item: event } = eventItem(ticket.partner_id, { type, data: { ticket_id: ticket.id, invitation_id: ticket.invitation_id, status: next.status } }, now);
        const written = this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: this.table,
                  Key: ticketKey(ticketId),
                  UpdateExpression: `SET #status = :status, message_count = :count, updated_at = :updated, entry_count = :seq${change.kind === 'assign' ? ', assignee = :to' : ''}`,
                  ConditionExpression: 'updated_at = :read',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: {
                    ':status': next.status,
                    ':count': next.message_count,
                    ':updated': next.updated_at,
                    ':seq': seq,
                    ':read': ticket.updated_at,
                    ...(change.kind === 'assign' ? { ':to': change.to } : {}),
                  },
                },
              },
              { Put: { TableName: this.table, Item: { ...entryKey(ticketId, seq), kind: 'ticket_entry', ...added }, ConditionExpression: 'attribute_not_exists(pk)' } },
              { Put: { TableName: this.table, Item: event, ConditionExpression: 'attribute_not_exists(pk)' } },
              ...(request ? [requestRecordPut(this.table, request, { ticket: next }, now)] : []),
            ],
          }),
        );
        // The request's record already there: this request's change was made (its answer lost), or the id names another change.
        const replay = await written.then(() => undefined, (error: unknown) => earlierChange(error, request));
        if (replay) return replay;
        // The condition held: nothing changed since the read, so its page and the new entry are the conversation now.
        const conversation = from && wholePage(from) ? [...from.entries, added].slice(-from.limit) : undefined;
        return { ticket: next, replayed: false, ...(conversation ? { conversation } : {}) };
      },
      10,
      () => new Error('Too many concurrent changes to this ticket; try again'),
    );
  }

  /** The latest `limit` conversation entries, oldest first: one Query, however long the conversation. */
  async conversation(ticketId: string, limit: number): Promise<ConversationEntry[]> {
    this.available();
    try {
      const { Items = [] } = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :entry)',
          ExpressionAttributeValues: { ':pk': ticketKey(ticketId).pk, ':entry': 'ENTRY#' },
          ScanIndexForward: false,
          Limit: limit,
          ConsistentRead: true,
        }),
      );
      return Items.reverse().map((item) => ({ seq: item.seq as number, author: item.author as EntryAuthor, text: item.text as string, at: item.at as string }));
    } catch (error) {
      throw new TicketServiceUnavailable({ cause: error });
    }
  }

  /** The ticket and its latest `limit` conversation entries, read side by side: one round trip (see TicketRead). */
  async read(ticketId: string, limit: number): Promise<TicketRead> {
    const [ticket, entries] = await Promise.all([this.get(ticketId), this.conversation(ticketId, limit)]);
    return { ticketId, ticket, entries, limit };
  }

  async get(ticketId: string): Promise<TicketItem | undefined> {
    this.available();
    try {
      const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: ticketKey(ticketId), ConsistentRead: true }));
      return Item as TicketItem | undefined;
    } catch (error) {
      throw new TicketServiceUnavailable({ cause: error });
    }
  }
}

/** Where the request's record is in a change's transaction (after the ticket, the entry and the event). */
const REQUEST_RECORD_ENTRY = 3;

/**
 * Why a change's transaction failed, when it is its request's record: the change the request made earlier, answered
 * again (RequestIdReused when the record is another change's). Any other failure is thrown as it is.
 */
function earlierChange(error: unknown, request: RepeatableRequest | undefined): TicketChangeOutcome {
  const record = request ? cancelledItem(error, REQUEST_RECORD_ENTRY) : undefined;
  if (!request || !record) throw error;
  return { ticket: (sameRequest(request, record).result as { ticket: TicketItem }).ticket, replayed: true };
}

/**
 * The container's ticket bridge over the platform's client and `domain` table (the tickets and
 * player functions), unavailable while the local stack's switch says so (platform.localSwitches).
 */
export const ticketBridgeOf = perPlatform(
  (platform) => new DynamoTicketBridge(platform.documentClient, requireTable(platform.tables, 'domain'), platform.localSwitches?.ticketBridgeDown),
);
