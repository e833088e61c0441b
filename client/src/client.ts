/**
 * The partner API v1, typed from the service's own OpenAPI document (schema.generated.ts, `npm run openapi`): one
 * method per operation, generated from it (methods.generated.ts), the spec's client rules in the transport (transport.ts), every failed answer a
 * PartnerApiError, and the list operations as async iterators that keep their filters.
 */
import createClient from 'openapi-fetch';
import { randomUUID } from 'node:crypto';
import type { Answer } from './answer.js';
import { operationMethods, OPERATION_METHODS } from './methods.generated.js';
import type { CreatedInvitation, PartnerRecord, TicketPage } from './models.generated.js';
import type { paths } from './schema.generated.js';
import { createTransport, type TransportOptions } from './transport.js';

export type { Answer };

type RecordQuery = NonNullable<paths['/partners/{partner_id}/records']['get']['parameters']['query']>;
/** The list's filters as the document declares them, `limit` as a number (1–100). */
export type RecordFilters = Omit<RecordQuery, 'cursor' | 'limit'> & { readonly limit?: number };
export type NewInvitation = NonNullable<paths['/partners/{partner_id}/invitations']['post']['requestBody']>['content']['application/json'];

export interface PartnerClientOptions extends TransportOptions {
  /** The stage's ApiBaseUrl output (ends with `/v1`). */
  readonly baseUrl: string;
  /** `pak_live_…`: never logged, never put in a URL. */
  readonly apiKey: string;
}

export interface CreatedInvitationAnswer extends Answer<CreatedInvitation> {
  /** The Idempotency-Key the creation was sent with (generated when not given): keep it to retry the same creation. */
  readonly idempotencyKey: string;
  /** True when the service answered with an earlier creation of the same key (200, `replayed: true`). */
  readonly replayed: boolean;
}

export function createPartnerClient(options: PartnerClientOptions) {
  const transport = createTransport(options);
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: transport,
  });
  // One method per operation, generated from the document (methods.generated.ts); what follows adds what it cannot say.
  const methods = operationMethods(api);

  const client = {
    ...methods,
    /** GET /partners/{partner_id}/records: one page (see `iterateRecords` for all of them); `limit` a number. */
    listRecords: (partnerId: string, { limit, ...query }: RecordFilters & { cursor?: string } = {}) =>
      methods.listRecords(partnerId, { ...query, ...(limit === undefined ? {} : { limit: String(limit) }) }),
    /** GET /partners/{partner_id}/invitations: page `page` (1 to `page_count`). */
    listInvitations: (partnerId: string, page = 1) => methods.listInvitations(partnerId, { page: String(page) }),
    /** GET /partners/{partner_id}/tickets: page `page` (1 to `page_count`). */
    listTickets: (partnerId: string, page = 1) => methods.listTickets(partnerId, { page: String(page) }),
    /**
     * POST /partners/{partner_id}/invitations. Retried (network errors, 408, 429, 502–504) with the same
     * Idempotency-Key and body; a key is generated when none is given and returned, so a caller that gives up can retry
     * the very same creation later. Never generate a new key to clear an error.
     */
    createInvitation: async (partnerId: string, invitation: NewInvitation, idempotencyKey: string = `inv-${randomUUID()}`): Promise<CreatedInvitationAnswer> => {
      const created = await methods.createInvitation(partnerId, invitation, { 'Idempotency-Key': idempotencyKey });
      return { ...created, idempotencyKey, replayed: created.data.replayed === true };
    },

    /**
     * Every record matching `filters`, page after page; the cursor travels with the very same filters. The list is a
     * live view: a record changed while paging comes again at its new place (yielded again, with its new `updated_at`),
     * and near the live end the service holds its cursor a moment back, so the last records may come twice (spec:
     * de-duplicate by id): a record already yielded at the same `updated_at` is not yielded again. A page holding
     * nothing new means the records ahead changed in the last seconds: the next request waits a second (at most
     * LIVE_END_WAITS times in a row, then the traversal ends there, at the live end) instead of asking for the same
     * records again at once.
     */
    async *iterateRecords(partnerId: string, filters: RecordFilters = {}): AsyncGenerator<PartnerRecord> {
      const yielded = new Set<string>();
      let cursor: string | undefined;
      let waits = 0;
      do {
        const { data } = await client.listRecords(partnerId, { ...filters, ...(cursor ? { cursor } : {}) });
        const fresh = data.items.filter((record) => !yielded.has(`${record.id}@${record.updated_at}`));
        for (const record of fresh) {
          yielded.add(`${record.id}@${record.updated_at}`);
          yield record;
        }
        cursor = data.next_cursor ?? undefined;
        // An empty page with a cursor is a combined filter's read budget spent: the traversal goes on at once.
        if (cursor && data.items.length > 0 && fresh.length === 0) {
          if ((waits += 1) > LIVE_END_WAITS) return;
          await new Promise((resolve) => setTimeout(resolve, LIVE_END_WAIT_MS));
        } else waits = 0;
      } while (cursor);
    },
    /** Every joined invitation (ticket list item), pages 1 to `page_count` as the service counts them on each page. */
    async *iterateTickets(partnerId: string): AsyncGenerator<TicketPage['items'][number]> {
      for (let page = 1; ; page += 1) {
        const { data } = await client.listTickets(partnerId, page);
        yield* data.items;
        if (page >= data.page_count || data.items.length === 0) return;
      }
    },
    records: {
      /**
       * The organization's records changed since `since` (inclusive), each once: the list is a live view (a record
       * updated while paging moves behind the cursor and is met again), so this de-duplicates by id and update time.
       * `watermark` is the latest `updated_at` seen: the next sync's `since` (inclusive, so nothing between is lost).
       */
      async sync(partnerId: string, options: { since?: string } & Omit<RecordFilters, 'updated_after'> = {}): Promise<{ records: PartnerRecord[]; watermark: string | undefined }> {
        const { since, ...filters } = options;
        const seen = new Map<string, PartnerRecord>();
        let watermark = since;
        // The largest page (100): a sync spends as few of the key's requests as it can.
        for await (const record of client.iterateRecords(partnerId, { limit: 100, ...filters, ...(since ? { updated_after: since } : {}) })) {
          const previous = seen.get(record.id);
          if (!previous || previous.updated_at < record.updated_at) seen.set(record.id, record);
          if (!watermark || record.updated_at > watermark) watermark = record.updated_at;
        }
        return { records: [...seen.values()], watermark };
      },
    },
  };
  return client;
}

export type PartnerClient = ReturnType<typeof createPartnerClient>;

export { OPERATION_METHODS };

/** The service holds a record-list cursor 2 s behind the live end (records' SETTLE_MS): waits of 1 s, 4 in a row at most. */
const LIVE_END_WAIT_MS = 1000;
const LIVE_END_WAITS = 4;
