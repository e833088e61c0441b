/**
 * DynamoDB adapter of invitations (`domain` table).
 *
 * | item | pk | sk | holds |
 * |---|---|---|---|
 * | invitation | `INV#<id>` | `INV` | the InvitationItem; `gsi1pk` `INVORG#<partner>`, `gsi1sk` its `seq`, zero-padded (the list) |
 * | organization | `INVORG#<partner>` | `STATE` | `seq` (invitations created), `active` (creation number → expiry in epoch ms, or -1 while claiming), `joined`, `version` |
 *
 * Creation is one consistent BatchGetItem (the scope's invitation and the
 * organization item), then, for a new invitation, one transaction: the
 * invitation (on the condition that it does not exist) and the organization
 * item (on the condition that its `version` is the one read, with the new
 * entry in `active`, expired entries pruned and `seq` + 1). The active count
 * is computed from `active` at the request's instant, so an expired
 * invitation frees its slot at its expiry, and the version condition makes
 * the limit exact under concurrent creation: a lost race reads again.
 *
 * A replay is the BatchGetItem alone. Two concurrent creations of one scope:
 * the loser's invitation Put fails its condition and the winner's item comes
 * back with the cancellation (ReturnValuesOnConditionCheckFailure), so the
 * loser answers the replay, never a second invitation and never a 5xx.
 */
import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { eventItem } from '../outbox/outbox';
import { ApiError } from '../shared/errors';
import { perPlatform } from '../shared/platform';
import { requireTable } from '../shared/storage/table-names';
import { isConditionFailure, isWriteConflict, retryOnConflict } from '../shared/storage/conditions';
import { writeOnce } from '../shared/storage/write-once';
import {
  ACTIVE_INVITATION_LIMIT,
  stateAt,
  INVITATION_LIFETIME_MS,
  INVITATION_PAGE_SIZE,
  invitationIdFor,
  normalizeNotes,
  requestFingerprint,
  type InvitationItem,
  type InvitationRequest,
} from './invitation-model';

import { findInvitation, invitationKey } from './invitation-lookup';

export { invitationKey };
export const organizationKey = (partnerId: string) => ({ pk: `INVORG#${partnerId}`, sk: 'STATE' });
const SEQ_DIGITS = 12;
const seqKey = (seq: number) => String(seq).padStart(SEQ_DIGITS, '0');

interface OrganizationItem {
  readonly seq: number;
  readonly version: number;
  /**
   * Creation number → expiry in epoch milliseconds (pending), or CLAIMING. Kept compact (about 20
   * bytes an entry) because every creation rewrites the item in a transaction, which bills its size
   * twice. Terminal and expired entries are pruned on the next creation.
   */
  readonly active: Readonly<Record<string, number>>;
  /** Joined invitations per block of JOINED_BLOCK creation sequence numbers (the ticket list's index). */
  readonly joined?: Readonly<Record<string, number>>;
}

/** Claims in progress are listed per UTC hour of their start: `CLAIMING#<YYYY-MM-DDTHH>`, sort key the invitation id. */
export const claimBucket = (at: Date) => `CLAIMING#${at.toISOString().slice(0, 13)}`;
export const claimMarkerKey = (bucket: string, id: string) => ({ pk: bucket, sk: id });

/** The `active` value of a claiming invitation: it holds its slot whatever the time. */
const CLAIMING = -1;

/** Creation sequence numbers per block of the joined index: a ticket page reads at most this many entries beyond its own. */
export const JOINED_BLOCK = 50;
const joinedBlock = (seq: number) => Math.floor((seq - 1) / JOINED_BLOCK);

/** What a claim writes of its submission: the player's data and the digests of the browser's credential and of the submission's id. */
export interface ClaimWrite {
  readonly player: Readonly<Record<string, string>>;
  readonly credentialDigest: string;
  readonly submissionDigest?: string;
}

/** A ticket to put in the claim's joining transaction (the ticket bridge's `creationFor`: the bridge owns the item's shape). */
export interface TicketPut {
  readonly ticket: { readonly id: string; readonly status: string };
  readonly put: { readonly Put: { readonly TableName: string; readonly Item: Record<string, unknown>; readonly ConditionExpression: string } };
}

export interface CreationScope {
  readonly keyId: string;
  readonly partnerId: string;
  readonly idempotencyKey: string;
}

/** What a creation decides on (readForCreation). */
export interface CreationRead {
  readonly kind: 'creation-read';
  /** The scope's invitation id. */
  readonly id: string;
  readonly existing: InvitationItem | undefined;
  readonly organization: OrganizationItem | undefined;
}

export const isCreationRead = (value: unknown): value is CreationRead => (value as CreationRead | undefined)?.kind === 'creation-read';

/** An invitation as read by its id (`find`), `item` undefined when there is none: what the partner API's door prefetches. */
export interface InvitationRead {
  readonly kind: 'invitation-read';
  readonly item: InvitationItem | undefined;
}

export const isInvitationRead = (value: unknown): value is InvitationRead => (value as InvitationRead | undefined)?.kind === 'invitation-read';

export type Creation =
  | { readonly outcome: 'created'; readonly item: InvitationItem }
  | { readonly outcome: 'replayed'; readonly item: InvitationItem }
  | { readonly outcome: 'conflict' }
  /** `freesAtMs`: when the earliest pending invitation expires (absent when only claims in progress hold the slots). */
  | { readonly outcome: 'limit'; readonly freesAtMs?: number };

/** Creations a page's early read allows for since this container last counted the organization's invitations (InvitationStore.page). */
export const PAGE_SLACK = 10;

/**
 * The creation numbers of page `page` of `total` invitations, newest first, with `slack` more above (for creations
 * not counted yet); undefined when the page is past the end.
 */
export function pageRange(total: number, page: number, slack: number): { lowest: number; highest: number } | undefined {
  const highest = total - (page - 1) * INVITATION_PAGE_SIZE;
  if (highest < 1 && slack === 0) return undefined;
  return { lowest: Math.max(1, highest - INVITATION_PAGE_SIZE + 1), highest: Math.max(1, highest + slack) };
}

/**
 * The blocks of the joined index that page `page` (1-based, newest first) takes, and how many joined invitations of
 * the first to pass over, from the organization item's joined counts per block.
 */
export function joinedPageBlocks(joined: Readonly<Record<string, number>>, page: number): Array<{ block: number; skip: number }> {
  const counts = Object.entries(joined)
    .map(([block, count]) => [Number(block), count] as const)
    .filter(([, count]) => count > 0)
    .sort(([a], [b]) => b - a);
  let skip = (page - 1) * INVITATION_PAGE_SIZE;
  // The newest blocks first: pass over whole blocks before the page, then take blocks until the page is covered.
  const blocks: Array<{ block: number; skip: number }> = [];
  let needed = INVITATION_PAGE_SIZE;
  for (const [block, count] of counts) {
    if (needed <= 0) break;
    if (skip >= count) {
      skip -= count;
      continue;
    }
    blocks.push({ block, skip });
    needed -= count - skip;
    skip = 0;
  }
  return blocks;
}

/** Lost races on the organization item are retried from what the failed write returned; production allows 4 in flight per organization. */
const MAX_ATTEMPTS = 80;

export class InvitationStore {
  /** Per organization, the most invitations this container has seen it hold (page). */
  private readonly seqSeen = new Map<string, number>();
  /** Per organization, the joined counts per block this container last read (joinedPage). */
  private readonly joinedSeen = new Map<string, Readonly<Record<string, number>>>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /**
   * `read`: the creation's BatchGetItem already made (readForCreation, started beside the admission), used for the first
   * attempt when it is this scope's; otherwise read here.
   */
  async create(scope: CreationScope, input: InvitationRequest, now: Date, read?: CreationRead): Promise<Creation> {
    const id = invitationIdFor(scope.keyId, scope.partnerId, scope.idempotencyKey);
    const fingerprint = requestFingerprint(input.game, input.notes);
    const replay = (item: InvitationItem): Creation => (item.request_fp === fingerprint ? { outcome: 'replayed', item } : { outcome: 'conflict' });

    let known: OrganizationItem | undefined | 'unknown' = 'unknown';
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(40, 4 * 2 ** attempt)));
      let organization: OrganizationItem | undefined;
      if (known === 'unknown') {
        const found = attempt === 0 && read?.id === id ? read : await this.readForCreation(scope);
        if (found.existing) return replay(found.existing);
        organization = found.organization;
      } else {
        // The organization item as the lost race returned it: the invitation's own condition still guards the scope.
        organization = known;
      }

      const active = Object.entries(organization?.active ?? {});
      const live = active.filter(([, value]) => value === CLAIMING || value > now.getTime());
      if (live.length >= ACTIVE_INVITATION_LIMIT) {
        const expiries = live.map(([, value]) => value).filter((value) => value !== CLAIMING);
        return { outcome: 'limit', ...(expiries.length > 0 ? { freesAtMs: Math.min(...expiries) } : {}) };
      }

      const notes = normalizeNotes(input.notes);
      const item: InvitationItem = {
        id,
        partner_id: scope.partnerId,
        key_id: scope.keyId,
        game: input.game,
        ...(notes ? { notes } : {}),
        request_fp: fingerprint,
        state: 'pending',
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + INVITATION_LIFETIME_MS).toISOString(),
        archived_at: null,
        ticket_id: null,
        seq: (organization?.seq ?? 0) + 1,
      };
      const nextActive = Object.fromEntries([...live, [String(item.seq), Date.parse(item.expires_at)]]);
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: this.table,
                  Item: { ...invitationKey(id), kind: 'invitation', ...item, gsi1pk: `INVORG#${scope.partnerId}`, gsi1sk: seqKey(item.seq) },
                  ConditionExpression: 'attribute_not_exists(pk)',
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                },
              },
              {
                Put: {
                  TableName: this.table,
                  Item: {
                    ...organizationKey(scope.partnerId),
                    kind: 'invitation_org',
                    seq: item.seq,
                    active: nextActive,
                    joined: organization?.joined ?? {},
                    version: (organization?.version ?? 0) + 1,
                  },
                  ...(organization
                    ? { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': organization.version } }
                    : { ConditionExpression: 'attribute_not_exists(pk)' }),
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                },
              },
            ],
          }),
        );
        return { outcome: 'created', item };
      } catch (error) {
        const winner = cancelledItem(error, 0) as InvitationItem | undefined;
        if (winner) return replay(winner);
        if (!isConditionFailure(error) && !isWriteConflict(error)) throw error;
        const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
        known = reasons[1]?.Code === 'ConditionalCheckFailed' ? (cancelledItem(error, 1) as OrganizationItem | undefined) : 'unknown';
      }
    }
    throw new Error('Too many concurrent invitation creations for this organization; try again');
  }

  /** The invitation, if it is this organization's. One strongly consistent read. */
  async get(partnerId: string, id: string): Promise<InvitationItem | undefined> {
    const item = await this.find(id);
    return item?.partner_id === partnerId ? item : undefined;
  }

  /**
   * Revoke a pending, unexpired invitation of the organization: its state and
   * its active entry change together. Answers the invitation as it is then:
   * `revoked` (also when it already was), or in the state that kept it from
   * being revoked; undefined when the organization has no such invitation.
   */
  async revoke(partnerId: string, id: string, now: Date, first?: InvitationRead): Promise<InvitationItem | undefined> {
    // A lost race (claimed or revoked meanwhile, or another write to the organization item: a creation,
    // another invitation's claim) reads again and decides on what it is now. `first`: the invitation as the
    // caller just read it (the partner API's door reads it beside the admission), for the first try only.
    let given = first;
    return this.retryOnConflict(id, async () => {
      const read = given ? (given.item?.partner_id === partnerId ? given.item : undefined) : await this.get(partnerId, id);
      given = undefined;
      if (!read || stateAt(read, now) !== 'pending') return read;
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            this.invitationUpdate(id, 'SET #state = :revoked, revoked_at = :now', '#state = :pending AND expires_at > :now', {
              ':revoked': 'revoked',
              ':pending': 'pending',
              ':now': now.toISOString(),
            }),
            this.activeEntry(partnerId, read.seq, 'release'),
          ],
        }),
      );
      return { ...read, state: 'revoked', revoked_at: now.toISOString() };
    });
  }

  /**
   * A claim in one transaction (claim.ts), when the ticket store answers: `pending` and unexpired → `joined`, with the
   * player's data, the digests of the browser's credential and of the submission's id (its resubmission is answered
   * again, reissueCredential), `claim_started_at` (the credential's 90 days count from it), the ticket id and
   * `joined_at`, the draft notes erased (the fingerprint stays); the ticket's Put (the ticket bridge's item,
   * conditioned on its absence); the organization's active entry released and the join counted in its block;
   * `invitation.joined`. Four items: no marker (nothing is left in between to find) and no joined-index entry (the
   * ticket list reads joined invitations from gsi1, joinedPage).
   *
   * Of any number of concurrent claims exactly one passes; the others get the invitation as the failed condition saw
   * it (`current`, the cancellation's old image: no read), undefined when there is none. The SDK's retry of a try whose
   * answer was lost carries the same ClientRequestToken and is not applied twice. A conflict with another write to
   * the organization item (a creation, another claim) wrote nothing: tried again from a fresh read.
   */
  async claimAndJoin(
    read: InvitationItem,
    claim: ClaimWrite,
    ticketFor: (item: InvitationItem) => TicketPut,
    now: Date,
  ): Promise<{ joined: InvitationItem } | { current: InvitationItem | undefined }> {
    let known: InvitationItem | undefined = read;
    return this.retryOnConflict(read.id, async () => {
      const item = known ?? (await this.find(read.id));
      known = undefined;
      if (!item || stateAt(item, now) !== 'pending') return { current: item };
      const { ticket, put } = ticketFor(item);
      const at = now.toISOString();
      const { item: event } = eventItem(item.partner_id, { type: 'invitation.joined', data: { ticket_id: ticket.id, invitation_id: item.id, status: ticket.status } }, now);
      const joining = this.invitationUpdate(
        item.id,
        `SET #state = :joined, ticket_id = :ticket, joined_at = :now, claim_started_at = :now, player = :player, credential_digest = :digest${claim.submissionDigest === undefined ? '' : ', submission_digest = :submission'} REMOVE notes`,
        '#state = :pending AND expires_at > :now',
        {
          ':joined': 'joined',
          ':pending': 'pending',
          ':ticket': ticket.id,
          ':now': at,
          ':player': claim.player,
          ':digest': claim.credentialDigest,
          ...(claim.submissionDigest === undefined ? {} : { ':submission': claim.submissionDigest }),
        },
      );
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Update: { ...joining.Update, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
              put,
              this.activeEntry(item.partner_id, item.seq, 'release', joinedBlock(item.seq)),
              { Put: { TableName: this.table, Item: event, ConditionExpression: 'attribute_not_exists(pk)' } },
            ],
          }),
        );
      } catch (error) {
        // Another claim (or a revoke) came first: the invitation as it is now came back with the cancellation.
        const current = cancelledItem(error, 0) as InvitationItem | undefined;
        if (current) return { current };
        throw error;
      }
      const { notes: _erased, ...kept } = item;
      const submission = claim.submissionDigest === undefined ? {} : { submission_digest: claim.submissionDigest };
      return { joined: { ...kept, state: 'joined', ticket_id: ticket.id, claim_started_at: at, player: claim.player, credential_digest: claim.credentialDigest, ...submission } };
    });
  }

  /**
   * Start a claim: `pending` and unexpired → `claiming`, with the player's
   * data, the digest of the credential their browser will hold and the digest
   * of the submission's id (when it has one: its resubmission is answered
   * again, reissueCredential), and the organization's active entry marked
   * `claiming` (it stays active past the expiry until the claim completes).
   * Of any number of concurrent claims, exactly one passes the condition
   * (`claimed`); the others get the invitation as it was read (`current`,
   * undefined when there is none). A transaction: the SDK's retry of a try
   * whose answer was lost carries the same ClientRequestToken and is not
   * applied twice.
   */
  async beginClaim(
    id: string,
    claim: ClaimWrite,
    now: Date,
    /** The invitation as the caller just read it (saves the first read). */
    read?: InvitationItem,
  ): Promise<{ claimed: InvitationItem } | { current: InvitationItem | undefined }> {
    let known = read;
    // Another submission (or a revoke) came first, or another write to the organization item won the
    // race: read again; only a state other than pending ends it.
    return this.retryOnConflict(id, async () => {
      const item = known ?? (await this.find(id));
      known = undefined;
      if (!item || stateAt(item, now) !== 'pending') return { current: item };
      const at = now.toISOString();
      const bucket = claimBucket(now);
      const submission = claim.submissionDigest === undefined ? {} : { submission_digest: claim.submissionDigest };
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            this.invitationUpdate(
              id,
              `SET #state = :claiming, claim_started_at = :now, claim_bucket = :bucket, player = :player, credential_digest = :digest${claim.submissionDigest === undefined ? '' : ', submission_digest = :submission'}`,
              '#state = :pending AND expires_at > :now',
              {
                ':claiming': 'claiming',
                ':pending': 'pending',
                ':now': at,
                ':bucket': bucket,
                ':player': claim.player,
                ':digest': claim.credentialDigest,
                ...(claim.submissionDigest === undefined ? {} : { ':submission': claim.submissionDigest }),
              },
            ),
            // Until the claim completes, the reconciler finds it here (claim-reconciler.ts).
            { Put: { TableName: this.table, Item: { ...claimMarkerKey(bucket, id), kind: 'claim_marker', invitation_id: id } } },
            this.activeEntry(item.partner_id, item.seq, CLAIMING),
          ],
        }),
      );
      return {
        claimed: { ...item, state: 'claiming', player: claim.player, credential_digest: claim.credentialDigest, ...submission, claim_started_at: at, claim_bucket: bucket },
      };
    });
  }

  /**
   * Hand a claim's credential out again, to a resubmission of the submission that made the claim (its
   * answer was lost: claim.ts `resumeClaim`): the stored digest becomes `credentialDigest` on the condition
   * that the claim is that submission's and still holds the digest the caller read, so the credential nobody
   * received stops working and exactly one is valid. Stamped (writeOnce): the SDK's retry of a re-issue whose
   * answer was lost recognises its own effect. False when the condition genuinely failed: another
   * resubmission of the same submission re-issued it first.
   */
  async reissueCredential(item: InvitationItem, credentialDigest: string): Promise<boolean> {
    if (!item.submission_digest || !item.credential_digest) return false;
    const outcome = await writeOnce(
      this.client,
      new UpdateCommand({
        TableName: this.table,
        Key: invitationKey(item.id),
        UpdateExpression: 'SET credential_digest = :digest',
        ConditionExpression: 'submission_digest = :submission AND credential_digest = :read',
        ExpressionAttributeValues: { ':digest': credentialDigest, ':submission': item.submission_digest, ':read': item.credential_digest },
      }),
    );
    return outcome.applied;
  }

  /**
   * Complete a claim once its ticket exists: `claiming` → `joined` with the
   * ticket id, the draft notes erased (the fingerprint stays), the active
   * entry released, and `invitation.joined` in the same transaction. Done
   * once: a second completion (a reconciler racing the player) finds the
   * condition false and writes nothing.
   */
  async completeClaim(item: InvitationItem, ticket: { id: string; status: string }, now: Date): Promise<boolean> {
    // A transaction conflict with another write to the organization item wrote nothing: try again.
    return this.retryOnConflict(item.id, () => this.joinOnce(item, ticket, now));
  }

  /** Run a read-and-write attempt again after a lost race (storage/conditions.ts), then 503. */
  private retryOnConflict<T>(id: string, attempt: () => Promise<T>): Promise<T> {
    return retryOnConflict(attempt, CONFLICT_ATTEMPTS, () => new InvitationStoreContended(id));
  }

  private async joinOnce(item: InvitationItem, ticket: { id: string; status: string }, now: Date): Promise<boolean> {
    const { item: event } = eventItem(item.partner_id, { type: 'invitation.joined', data: { ticket_id: ticket.id, invitation_id: item.id, status: ticket.status } }, now);
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            this.invitationUpdate(item.id, 'SET #state = :joined, ticket_id = :ticket, joined_at = :now REMOVE notes', '#state = :claiming', {
              ':joined': 'joined',
              ':claiming': 'claiming',
              ':ticket': ticket.id,
              ':now': now.toISOString(),
            }),
            this.activeEntry(item.partner_id, item.seq, 'release', joinedBlock(item.seq)),
            ...(item.claim_bucket ? [{ Delete: { TableName: this.table, Key: claimMarkerKey(item.claim_bucket, item.id) } }] : []),
            { Put: { TableName: this.table, Item: event, ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Archive an invitation of the organization (archived_at set once; the list and tickets show it). */
  async archive(partnerId: string, id: string, now: Date): Promise<InvitationItem | undefined> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: invitationKey(id),
          UpdateExpression: 'SET archived_at = :now',
          ConditionExpression: 'partner_id = :partner AND attribute_type(archived_at, :null)',
          ExpressionAttributeValues: { ':now': now.toISOString(), ':partner': partnerId, ':null': 'NULL' },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    return this.get(partnerId, id);
  }

  /**
   * Move a pending invitation's expiry to `now` (the back office's
   * `invitation expire-now`, for trying expiry locally): the invitation and
   * its active entry together. Answers the invitation as it is then: expired
   * (also when it already was), or in the state that kept it from expiring
   * (claimed or revoked meanwhile); undefined when there is no such invitation.
   */
  async expireNow(id: string, now: Date): Promise<InvitationItem | undefined> {
    // As revoke: a lost race (the invitation claimed or revoked meanwhile, or another write to the organization item, a
    // creation or another invitation's claim) wrote nothing; it reads again and decides on what it is now, so the
    // answer is never a still-pending invitation that was not expired.
    return this.retryOnConflict(id, async () => {
      const item = await this.find(id);
      if (!item || stateAt(item, now) !== 'pending') return item;
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            this.invitationUpdate(id, 'SET expires_at = :now', '#state = :pending AND expires_at > :now', { ':now': now.toISOString(), ':pending': 'pending' }),
            this.activeEntry(item.partner_id, item.seq, now.getTime()),
          ],
        }),
      );
      return { ...item, expires_at: now.toISOString() };
    });
  }

  /** The invitation, whichever organization's (the player site knows only the id). */
  find(id: string): Promise<InvitationItem | undefined> {
    return findInvitation(this.client, this.table, id);
  }

  /**
   * Page `page` (1-based) of the organization's invitations, newest created first: the organization item's `seq` says
   * how many there are, and the page is the seq range it covers, one Query however deep.
   *
   * The range depends on the count, which grows with every creation, so the count and the range would be two reads in
   * a row. This container remembers the count it last saw per organization (`seqSeen`; it only grows) and queries the
   * range that count implies, stretched upward by PAGE_SLACK creations, beside the organization item's read: when no
   * more than PAGE_SLACK invitations were created since, the page is in what came back (one round trip). Otherwise,
   * and on a container's first page of the organization, the exact range is queried after the count (two).
   */
  async page(partnerId: string, page: number): Promise<{ items: InvitationItem[]; total: number }> {
    const guess = this.seqSeen.get(partnerId);
    const stretched = guess === undefined ? undefined : pageRange(guess, page, PAGE_SLACK);
    const early = stretched && this.seqRange(partnerId, stretched);
    early?.catch(() => undefined);
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: organizationKey(partnerId), ConsistentRead: true }));
    const total = (Item as OrganizationItem | undefined)?.seq ?? 0;
    this.seqSeen.set(partnerId, Math.max(total, guess ?? 0));
    const range = pageRange(total, page, 0);
    if (!range) return { items: [], total };
    const covered = early && stretched && stretched.lowest <= range.lowest && stretched.highest >= range.highest;
    const items = covered ? (await early).filter((item) => item.seq >= range.lowest && item.seq <= range.highest) : await this.seqRange(partnerId, range);
    return { items, total };
  }

  /** The organization's invitations numbered `lowest`…`highest`, newest first: one Query of the creation-order index. */
  private async seqRange(partnerId: string, { lowest, highest }: { lowest: number; highest: number }): Promise<InvitationItem[]> {
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :low AND :high',
        ExpressionAttributeValues: { ':pk': `INVORG#${partnerId}`, ':low': seqKey(lowest), ':high': seqKey(highest) },
        ScanIndexForward: false,
      }),
    );
    return Items as InvitationItem[];
  }

  /**
   * The organization item's update of an invitation's active entry: `release` removes it (counting
   * a join in `joinedInBlock`), a number sets it (an expiry, or CLAIMING). It changes `version`, so
   * a creation that read the item before retries.
   */
  private activeEntry(partnerId: string, seq: number, change: 'release' | number, joinedInBlock?: number) {
    const joined = joinedInBlock === undefined ? '' : ', joined.#block = if_not_exists(joined.#block, :zero) + :one';
    return {
      Update: {
        TableName: this.table,
        Key: organizationKey(partnerId),
        UpdateExpression: change === 'release' ? `REMOVE active.#id SET version = version + :one${joined}` : 'SET active.#id = :value, version = version + :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#id': String(seq), ...(joinedInBlock === undefined ? {} : { '#block': String(joinedInBlock) }) },
        ExpressionAttributeValues: { ':one': 1, ...(change === 'release' ? {} : { ':value': change }), ...(joinedInBlock === undefined ? {} : { ':zero': 0 }) },
      },
    };
  }

  /** A conditional update of an invitation in a transaction (`#state` names its state). */
  private invitationUpdate(id: string, update: string, condition: string, values: Record<string, unknown>) {
    return {
      Update: {
        TableName: this.table,
        Key: invitationKey(id),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: values,
      },
    };
  }

  /**
   * Page `page` (1-based) of the organization's joined invitations, newest
   * created first. The organization item counts joined invitations per
   * block of JOINED_BLOCK creation numbers (the joining transactions count
   * them); the page's blocks are found from those counts and read in
   * parallel from gsi1, where every invitation is listed by creation number
   * (one Query each of the block's range, the joined ones kept: at most one
   * block's worth beyond the page): two round trips, however deep the page;
   * one when this container's last counts already named the page's blocks
   * (their queries start beside the counts' read).
   * The index is eventually consistent, as the invitations list is: an
   * invitation that joined a moment ago may be counted before it is listed.
   */
  async joinedPage(partnerId: string, page: number): Promise<{ items: InvitationItem[]; total: number }> {
    // The blocks the counts this container last saw imply, read beside the counts themselves (as `page` does with
    // the count of invitations): a block read is all of the block, usable whatever the fresh counts say of the page.
    const seen = this.joinedSeen.get(partnerId);
    const early = new Map(seen ? joinedPageBlocks(seen, page).map(({ block }) => [block, this.joinedInBlock(partnerId, block)] as const) : []);
    for (const read of early.values()) read.catch(() => undefined);
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: organizationKey(partnerId), ConsistentRead: true }));
    const joined = (Item as OrganizationItem | undefined)?.joined ?? {};
    this.joinedSeen.set(partnerId, joined);
    const total = Object.values(joined).reduce((sum, count) => sum + Math.max(0, count), 0);
    const blocks = joinedPageBlocks(joined, page);
    const items = await Promise.all(blocks.map(async ({ block, skip: offset }) => (await (early.get(block) ?? this.joinedInBlock(partnerId, block))).slice(offset)));
    return { items: items.flat().slice(0, INVITATION_PAGE_SIZE), total };
  }

  /** The joined invitations of one block of creation numbers, newest first: one Query of gsi1 (more only past 1 MB). */
  private async joinedInBlock(partnerId: string, block: number): Promise<InvitationItem[]> {
    const items: InvitationItem[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const { Items = [], LastEvaluatedKey } = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :low AND :high',
          FilterExpression: '#state = :joined',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':pk': `INVORG#${partnerId}`,
            ':low': seqKey(block * JOINED_BLOCK + 1),
            ':high': seqKey((block + 1) * JOINED_BLOCK),
            ':joined': 'joined',
          },
          ScanIndexForward: false,
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(Items as InvitationItem[]));
      start = LastEvaluatedKey;
    } while (start);
    return items;
  }

  /** What a creation of `scope` decides on: its invitation, if it exists (a replay), and the organization item. One consistent BatchGetItem. */
  async readForCreation(scope: CreationScope): Promise<CreationRead> {
    const id = invitationIdFor(scope.keyId, scope.partnerId, scope.idempotencyKey);
    const invitation = invitationKey(id);
    const { Responses } = await this.client.send(
      new BatchGetCommand({ RequestItems: { [this.table]: { Keys: [invitation, organizationKey(scope.partnerId)], ConsistentRead: true } } }),
    );
    const items = Responses?.[this.table] ?? [];
    return {
      kind: 'creation-read',
      id,
      existing: items.find((item) => item.pk === invitation.pk) as InvitationItem | undefined,
      organization: items.find((item) => item.pk !== invitation.pk) as OrganizationItem | undefined,
    };
  }
}

/** The item whose condition cancelled a transaction (entry `index`), as it is now, if that entry is why. */
function cancelledItem(error: unknown, index: number): Record<string, unknown> | undefined {
  const reasons = (error as { CancellationReasons?: Array<{ Code?: string; Item?: Record<string, unknown> }> })?.CancellationReasons;
  const reason = reasons?.[index];
  if (reason?.Code !== 'ConditionalCheckFailed' || !reason.Item) return undefined;
  // The document client does not unmarshall cancellation reasons.
  return unmarshall(reason.Item as Parameters<typeof unmarshall>[0]);
}

/** Attempts of a write that loses races on the organization item to other invitations' writes. */
const CONFLICT_ATTEMPTS = 8;

/**
 * The organization item stayed contended through every attempt (many concurrent writes of one
 * organization's invitations): nothing was written; the caller may try again shortly (503).
 */
export class InvitationStoreContended extends ApiError {
  constructor(id: string) {
    super('TICKET_SERVICE_UNAVAILABLE', 'The invitation service is busy; try again shortly.', { 'Retry-After': '1' }, { cause: new Error(`invitation ${id}: organization item contended`) });
    this.name = 'InvitationStoreContended';
  }
}

/** The container's invitation store over the platform's client and `domain` table (the invitations, tickets and player functions). */
export const invitationStoreOf = perPlatform((platform) => new InvitationStore(platform.documentClient, requireTable(platform.tables, 'domain')));
