/**
 * Screening records in the back office: create or update by uuid, delete,
 * move, archive (using one unit of the organization's entitlement), and read
 * an organization's outbox. Each change and its business event are
 * written together (lambdas/records/record-store.ts); the input is the
 * record JSON the operator gives (internal and staff notes accepted and
 * stored, never returned by the API).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { listEvents } from '../outbox/outbox';
import { EntitlementError, EntitlementStore } from '../entitlements/entitlement-store';
import { RecordInputSchema, toPublicRecord } from '../records/record-model';
import { GAME_GROUPS, type GameGroup } from '../records/games';
import { RecordAlreadyArchived, RecordNotFound, RecordOwnedElsewhere, RecordStore } from '../records/record-store';
import { repeatableRequest } from '../shared/storage/repeatable-requests';
import { BackOfficeError, officeError } from './errors';

export class RecordsOffice {
  private readonly store: RecordStore;
  private readonly entitlements: EntitlementStore;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    clock?: () => Date,
    /** Whether an organization exists and is active (the identity back office answers it). */
    private readonly organizationIsActive: (partnerId: string) => Promise<boolean> = async () => true,
  ) {
    this.store = new RecordStore(client, table, clock);
    this.entitlements = new EntitlementStore(client, table, clock);
  }

  /**
   * Create or update the organization's record with the input's uuid. Put, move, delete and archive take the admin
   * CLI's request id: the same request run again answers the first run's outcome (`replayed`) and changes nothing.
   */
  async put(partnerId: string, input: unknown, requestId?: string) {
    const parsed = RecordInputSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new BackOfficeError('INVALID_ARGUMENT', `Invalid record: ${issue.path.join('.') || '(root)'}: ${z.prettifyError(parsed.error).split('\n')[0]}`);
    }
    const request = requestId === undefined ? undefined : repeatableRequest('record put', requestId, { org: partnerId, record: parsed.data });
    try {
      const { record, event, replayed } = await this.store.put(partnerId, parsed.data, request);
      return { ...toPublicRecord(record), partner_id: partnerId, public: record.public, event_id: event.id, ...(replayed ? { replayed } : {}) };
    } catch (error) {
      if (error instanceof RecordOwnedElsewhere) throw new BackOfficeError('CONFLICT', error.message);
      throw officeError(error);
    }
  }

  async delete(partnerId: string, recordId: string, requestId?: string) {
    const request = requestId === undefined ? undefined : repeatableRequest('record delete', requestId, { org: partnerId, record: recordId });
    try {
      const { event, replayed } = await this.store.delete(partnerId, recordId, request);
      return { record_id: recordId, deleted: true, event_id: event.id, ...(replayed ? { replayed } : {}) };
    } catch (error) {
      if (error instanceof RecordNotFound) throw new BackOfficeError('RECORD_NOT_FOUND', error.message);
      throw officeError(error);
    }
  }

  /** Move a record to another organization (the old one only learns that it left). */
  async move(recordId: string, toPartnerId: string, requestId?: string) {
    if (!(await this.organizationIsActive(toPartnerId))) throw new BackOfficeError('ORG_NOT_FOUND', `No active organization ${toPartnerId}`);
    const request = requestId === undefined ? undefined : repeatableRequest('record move', requestId, { record: recordId, to: toPartnerId });
    try {
      const { record, events, replayed } = await this.store.move(recordId, toPartnerId, request);
      return { ...toPublicRecord(record), partner_id: record.partner_id, event_ids: events.map((e) => e.id), ...(replayed ? { replayed } : {}) };
    } catch (error) {
      if (error instanceof RecordNotFound) throw new BackOfficeError('RECORD_NOT_FOUND', error.message);
      throw officeError(error);
    }
  }

  /**
   * Archive a record under the organization's rules: one unit of the
   * organization's `game` entitlement is used, in the same transaction as the
   * record's archive marks and the `entitlement.updated` event. A record is
   * archived once: a second archive (or a concurrent one) is ALREADY_ARCHIVED
   * and uses nothing.
   */
  async archive(partnerId: string, recordId: string, game: string, requestId?: string) {
    if (!(GAME_GROUPS as readonly string[]).includes(game)) throw new BackOfficeError('INVALID_ARGUMENT', `--game must be ${GAME_GROUPS.join(' or ')}`);
    const owner = { type: 'partner' as const, id: partnerId };
    const request = requestId === undefined ? undefined : repeatableRequest('record archive', requestId, { org: partnerId, record: recordId, game });
    try {
      const archive = (useId: string, now: Date) => this.store.archiveChange(partnerId, recordId, game as GameGroup, useId, now);
      const use = await this.entitlements.use(owner, game as GameGroup, 1, archive, request);
      return { record_id: recordId, archived: true, game, ...use };
    } catch (error) {
      if (error instanceof RecordNotFound) throw new BackOfficeError('RECORD_NOT_FOUND', error.message);
      if (error instanceof RecordAlreadyArchived) throw new BackOfficeError('ALREADY_ARCHIVED', error.message);
      if (error instanceof EntitlementError) throw new BackOfficeError('INSUFFICIENT_UNITS', error.message);
      throw officeError(error);
    }
  }

  /** The organization's business events, in order, after `afterId`. */
  async events(partnerId: string, afterId?: string) {
    return { partner_id: partnerId, events: await listEvents(this.client, this.table, partnerId, afterId) };
  }
}
