/**
 * The partner API v1, typed from the service's own OpenAPI document (schema.generated.ts, `npm run openapi`): one
 * method per operation, the spec's client rules in the transport (transport.ts), every failed answer a
 * PartnerApiError, and the list operations as async iterators that keep their filters.
 */
import createClient from 'openapi-fetch';
import { randomUUID } from 'node:crypto';
import { errorOf, PartnerApiError, rateLimitOf, type RateLimitInfo } from './errors.js';
import type { components, operations, paths, webhooks } from './schema.generated.js';
import { createTransport, type TransportOptions } from './transport.js';

type Schemas = components['schemas'];
export type PartnerRecord = Schemas['Record'];
export type RecordPage = Schemas['RecordPage'];
export type Invitation = Schemas['Invitation'];
export type CreatedInvitation = Schemas['CreatedInvitation'];
export type InvitationPage = Schemas['InvitationPage'];
export type InvitationLink = Schemas['InvitationLink'];
export type Ticket = Schemas['Ticket'];
export type TicketPage = Schemas['TicketPage'];
export type Entitlements = Schemas['Entitlements'];
export type Identity = Schemas['Identity'];
export type Health = Schemas['Health'];
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

/** A success with what the answer said beside its data. */
export interface Answer<T> {
  readonly data: T;
  readonly requestId: string | undefined;
  readonly rateLimit: RateLimitInfo;
}

export interface CreatedInvitationAnswer extends Answer<CreatedInvitation> {
  /** The Idempotency-Key the creation was sent with (generated when not given): keep it to retry the same creation. */
  readonly idempotencyKey: string;
  /** True when the service answered with an earlier creation of the same key (200, `replayed: true`). */
  readonly replayed: boolean;
}

type Result = { data?: unknown; error?: unknown; response: Response };

async function answer<T>(call: Promise<Result>): Promise<Answer<T>> {
  const { data, error, response } = await call.catch((error: unknown) => {
    throw new PartnerApiError(error instanceof Error && error.name === 'TimeoutError' ? 'DEADLINE_EXCEEDED' : 'NETWORK_ERROR', String((error as Error)?.message ?? error), 0, undefined, {}, undefined, {
      cause: error,
    });
  });
  if (!response.ok) throw errorOf(response, error);
  const body = data as { data: T; request_id?: string };
  return { data: body.data, requestId: body.request_id ?? response.headers.get('x-request-id') ?? undefined, rateLimit: rateLimitOf(response.headers) };
}

export function createPartnerClient(options: PartnerClientOptions) {
  const transport = createTransport(options);
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: transport,
  });
  const partner = (partnerId: string) => ({ path: { partner_id: partnerId } });

  const client = {
    /** GET /health (no key needed). */
    health: () => answer<Health>(api.GET('/health')),
    /** GET /me: the key, its organization and scopes. */
    me: () => answer<Identity>(api.GET('/me')),
    /** GET /entitlements: the key's own (personal) entitlements. */
    entitlements: () => answer<Entitlements>(api.GET('/entitlements')),
    /** GET /records/{uuid}: a public screening record by its UUID. */
    lookupRecord: (uuid: string) => answer<PartnerRecord>(api.GET('/records/{uuid}', { params: { path: { uuid } } })),
    /** GET /partners/{partner_id}/records: one page (see `iterateRecords` for all of them). */
    listRecords: (partnerId: string, { limit, ...query }: RecordFilters & { cursor?: string } = {}) =>
      answer<RecordPage>(api.GET('/partners/{partner_id}/records', { params: { ...partner(partnerId), query: { ...query, ...(limit === undefined ? {} : { limit: String(limit) }) } } })),
    getRecord: (partnerId: string, recordId: string) =>
      answer<PartnerRecord>(api.GET('/partners/{partner_id}/records/{record_id}', { params: { path: { partner_id: partnerId, record_id: recordId } } })),
    partnerEntitlements: (partnerId: string) => answer<Entitlements>(api.GET('/partners/{partner_id}/entitlements', { params: partner(partnerId) })),
    listInvitations: (partnerId: string, page = 1) =>
      answer<InvitationPage>(api.GET('/partners/{partner_id}/invitations', { params: { ...partner(partnerId), query: { page: String(page) } } })),
    /**
     * POST /partners/{partner_id}/invitations. Retried (network errors, 408, 429, 502–504) with the same
     * Idempotency-Key and body; a key is generated when none is given and returned, so a caller that gives up can retry
     * the very same creation later. Never generate a new key to clear an error.
     */
    createInvitation: async (partnerId: string, invitation: NewInvitation, idempotencyKey: string = `inv-${randomUUID()}`): Promise<CreatedInvitationAnswer> => {
      const created = await answer<CreatedInvitation>(
        api.POST('/partners/{partner_id}/invitations', { params: { ...partner(partnerId), header: { 'Idempotency-Key': idempotencyKey } }, body: invitation }),
      );
      return { ...created, idempotencyKey, replayed: created.data.replayed === true };
    },
    getInvitation: (partnerId: string, invitationId: string) =>
      answer<Invitation>(api.GET('/partners/{partner_id}/invitations/{invitation_id}', { params: { path: { partner_id: partnerId, invitation_id: invitationId } } })),
    getInvitationLink: (partnerId: string, invitationId: string) =>
      answer<InvitationLink>(api.GET('/partners/{partner_id}/invitations/{invitation_id}/link', { params: { path: { partner_id: partnerId, invitation_id: invitationId } } })),
    revokeInvitation: (partnerId: string, invitationId: string) =>
      answer<Invitation>(api.POST('/partners/{partner_id}/invitations/{invitation_id}/revoke', { params: { path: { partner_id: partnerId, invitation_id: invitationId } } })),
    listTickets: (partnerId: string, page = 1) => answer<TicketPage>(api.GET('/partners/{partner_id}/tickets', { params: { ...partner(partnerId), query: { page: String(page) } } })),
    getTicket: (partnerId: string, invitationId: string) =>
      answer<Ticket>(api.GET('/partners/{partner_id}/tickets/{invitation_id}', { params: { path: { partner_id: partnerId, invitation_id: invitationId } } })),

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

/**
 * The client's method for each operation of the document (by operationId). A route added to the service reaches the
 * document and schema.generated.ts by `npm run openapi`; until the client has a method for it, this does not
 * type-check. The README's method list is rendered from it (scripts/route-docs.ts).
 */
export const OPERATION_METHODS = {
  health: 'health',
  me: 'me',
  entitlements: 'entitlements',
  'org-entitlements': 'partnerEntitlements',
  'record-lookup': 'lookupRecord',
  'org-records': 'listRecords',
  'org-record': 'getRecord',
  invitations: 'listInvitations',
  'invitation-create': 'createInvitation',
  invitation: 'getInvitation',
  'invitation-link': 'getInvitationLink',
  'invitation-revoke': 'revokeInvitation',
  tickets: 'listTickets',
  ticket: 'getTicket',
} as const satisfies { readonly [K in Exclude<keyof operations, keyof webhooks>]: keyof PartnerClient };

/** The service holds a record-list cursor 2 s behind the live end (records' SETTLE_MS): waits of 1 s, 4 in a row at most. */
const LIVE_END_WAIT_MS = 1000;
const LIVE_END_WAITS = 4;
