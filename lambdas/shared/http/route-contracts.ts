/**
 * The contract of every route of the route table (routes.ts), as zod
 * schemas: what each operation takes and what its success `data` is. The
 * OpenAPI document (docs/openapi.json, `npm run openapi`) is generated from
 * this table; a test fails when a route has no contract, when a contract's
 * query parameters differ from its route's, or when the document is stale.
 */
import * as z from 'zod/mini';
import { MAX_CURSOR_LENGTH } from '../../records/record-cursor';
import { INVITATION_ID_PATTERN } from '../../invitations/invitation-model';
import { TICKET_STATUSES } from '../../tickets/ticket-model';
import { GAME_GROUPS, RECORD_UUID_PATTERN, RESULTS } from '../../records/record-model';
import { ORGANIZATION_SCOPES } from '../identity/scopes';
import { withErrorCode } from './contract';
import { SETTINGS_CONTRACTS } from './settings-contracts';
import { WEBHOOK_CONTRACTS } from './webhook-contracts';
import { PLAYER_CONTRACTS } from './player-contracts';
import type { RouteContract } from './contract';
import type { RouteId } from './routes';

const isoTime = () => z.iso.datetime({ offset: true });

/** Name a schema (a component of the OpenAPI document) or describe a field. */
function named<T extends z.ZodMiniType>(id: string, schema: T): T {
  z.globalRegistry.add(schema, { id });
  return schema;
}
function described<T extends z.ZodMiniType>(description: string, schema: T): T {
  z.globalRegistry.add(schema, { description });
  return schema;
}

/** Data of GET /health. */
export const HealthSchema = named(
  'Health',
  z.object({
    status: z.literal('ok'),
    version: z.literal('v1'),
  }),
);

/** Data of GET /me. */
export const IdentitySchema = named(
  'Identity',
  z.object({
    key_id: described("The key's identifier", z.string()),
    account_id: described('The creating account', z.string()),
    partner_id: z.optional(described('The bound organization; present for organization keys', z.string())),
    scopes: described('Granted scopes', z.array(z.enum(ORGANIZATION_SCOPES))),
    expires_at: described('null: the key never expires automatically', z.nullable(isoTime())),
  }),
);

/** The spec's Record object. */
export const RecordSchema = named(
  'Record',
  z.object({
    id: described('Resource id of the record, used by the organization detail endpoint', z.string()),
    uuid: described('Record identifier, compared case-insensitively; not a game-account UUID', z.string().check(z.regex(RECORD_UUID_PATTERN))),
    player_name: described('Name in this record; not unique, may change', z.string()),
    game_category: z.string(),
    game: described('Display name of the checked game', z.string()),
    checked_at: described('Time of the check', isoTime()),
    result: described('clean: check passed; warning: suspicious traces, never a synonym of cheating; cheating: the record concludes cheating', z.enum(RESULTS)),
    result_label: z.string(),
    checker_name: z.string(),
    public_notes: z.string(),
    updated_at: isoTime(),
  }),
);

/** The spec's Record page. */
export const RecordPageSchema = named(
  'RecordPage',
  z.object({
    items: described('May be empty; ascending by updated_at, then id', z.array(RecordSchema)),
    next_cursor: described(
      'Opaque; pass it unchanged (URL-encoded) with the same filters for the next page. null ends the traversal; a page may hold fewer than limit records (even none) while it is not null',
      z.nullable(z.string()),
    ),
  }),
);

/** The record list's query (the spec's limits and codes). */
export const RecordListQuerySchema = z.object({
  limit: withErrorCode(z.optional(described('1–100, default 20', z.string().check(z.regex(/^(100|[1-9][0-9]?)$/)))), 'INVALID_LIMIT'),
  cursor: withErrorCode(
    z.optional(described('next_cursor of the previous page', z.string().check(z.minLength(1), z.maxLength(MAX_CURSOR_LENGTH)))),
    'INVALID_CURSOR',
  ),
  updated_after: withErrorCode(
    z.optional(described('Inclusive lower bound (>=) on updated_at; RFC 3339 date-time with Z or an offset', calendarDateTime())),
    'INVALID_DATE',
  ),
  result: withErrorCode(z.optional(z.enum(RESULTS)), 'INVALID_RESULT'),
  game: withErrorCode(z.optional(described('minecraft: the Minecraft category; fps: every other supported game', z.enum(GAME_GROUPS))), 'INVALID_GAME'),
  player_name: withErrorCode(
    z.optional(
      described(
        'Whole-name exact match, case-insensitive; 1–120 characters, no control characters',
        z.string().check(
          z.refine((name) => [...name].length >= 1 && [...name].length <= 120),
          z.regex(/^[^\p{Cc}]*$/u),
        ),
      ),
    ),
    'INVALID_FIELD',
  ),
});

/** An RFC 3339 date-time (Z or an offset) naming a real instant: 2026-02-30 is refused, not rolled over. */
function calendarDateTime() {
  return isoTime().check(
    z.refine((text) => {
      const [, year, month, day] = /^(\d{4})-(\d{2})-(\d{2})/.exec(text) ?? [];
      const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
      return date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
    }),
  );
}

const invitationFields = {
  id: described('Invitation id (uuid); never the formal ticket id', z.string().check(z.regex(INVITATION_ID_PATTERN))),
  game: z.enum(GAME_GROUPS),
  state: described('pending, claiming, joined, expired or revoked', z.enum(['pending', 'claiming', 'joined', 'expired', 'revoked'])),
  ticket_id: described('Formal ticket id once joined, otherwise null', z.nullable(z.string())),
  created_at: isoTime(),
  expires_at: described('Creation time plus 7 days', isoTime()),
  archived_at: described('When the organization archived it', z.nullable(isoTime())),
};

/** The spec's Invitation object as reads return it: state metadata only (no link, no notes). */
export const InvitationSchema = named('Invitation', z.strictObject(invitationFields));

/** The creation response: the Invitation with `link` (null on a replay of an unusable invitation) and `replayed`. */
export const CreatedInvitationSchema = named(
  'CreatedInvitation',
  z.strictObject({
    ...invitationFields,
    link: described('Full join link with the #token=<TOKEN> fragment; null when the invitation is no longer usable', z.nullable(z.string())),
    replayed: z.boolean(),
  }),
);

/** The link-retrieval response: the Invitation with its `link`. */
export const InvitationLinkSchema = named('InvitationLink', z.strictObject({ ...invitationFields, link: z.string() }));

const InvitationPageSchema = named(
  'InvitationPage',
  z.object({
    items: described('20 per page, newest created first', z.array(InvitationSchema)),
    page: z.int(),
    page_count: described('Pages of 20 the organization has now (0 when none)', z.int()),
  }),
);

const TicketPageSchema = named(
  'TicketPage',
  z.object({
    items: described('Joined invitations, newest created first, 20 per page', z.array(InvitationSchema)),
    page_count: described('Pages of 20 the organization has now (0 when none)', z.int()),
  }),
);

/** The spec's Ticket object. */
export const TicketSchema = named(
  'Ticket',
  z.strictObject({
    id: described('Formal ticket id', z.string()),
    invitation_id: z.string().check(z.regex(INVITATION_ID_PATTERN)),
    partner_id: z.string(),
    game: z.enum(GAME_GROUPS),
    status: described('open: waiting for staff; waiting_user: waiting for the player; resolved (says nothing about the screening result)', z.enum(TICKET_STATUSES)),
    created_at: isoTime(),
    updated_at: isoTime(),
    message_count: described('Current visible non-system messages; not strictly monotonic', z.int().check(z.minimum(0))),
  }),
);

const invitationPath = z.object({
  partner_id: z.string(),
  invitation_id: withErrorCode(z.string().check(z.regex(INVITATION_ID_PATTERN)), 'INVITE_UNAVAILABLE'),
});

const GameEntitlementSchema = named(
  'GameEntitlement',
  z.object({
    game: z.enum(['minecraft', 'fps']),
    remaining_units: described('Sum of remaining counted units of currently valid entitlements', z.int().check(z.minimum(0))),
    unlimited: described('An unlimited entitlement is currently valid; remaining_units alone then does not decide availability', z.boolean()),
    total_units: described('Total units of currently valid counted entitlements', z.int().check(z.minimum(0))),
    used_units: described('Use linked to currently valid entitlements, refunds excluded', z.int().check(z.minimum(0))),
    expires_at: described('Earliest expiry of current entitlements; null when a permanent one exists or none is valid', z.nullable(isoTime())),
    next_starts_at: described('Nearest start of a queued entitlement', z.nullable(isoTime())),
  }),
);

/** The spec's Entitlements object. */
export const EntitlementsSchema = named(
  'Entitlements',
  z.object({
    owner_type: described('`partner` for an organization, `account` for a personal key', z.enum(['partner', 'account'])),
    owner_id: z.string(),
    games: described('Always two entries: minecraft, then fps', z.array(GameEntitlementSchema).check(z.length(2))),
  }),
);

export const ROUTE_CONTRACTS: Readonly<Record<RouteId, RouteContract>> = {
  ...PLAYER_CONTRACTS,
  ...SETTINGS_CONTRACTS,
  ...WEBHOOK_CONTRACTS,
  health: {
    summary: 'Health',
    description: 'Liveness of the API. Needs no key; edge protection applies to it too.',
    status: 200,
    data: HealthSchema,
  },
  me: {
    summary: 'Inspect the presented key',
    description: 'What the presented key is. Needs no business scope.',
    status: 200,
    data: IdentitySchema,
  },
  entitlements: {
    summary: 'Personal entitlements',
    description: "Remaining service units of the key's creating account, computed at query time. An organization key gets 403 PERSONAL_KEY_REQUIRED.",
    status: 200,
    data: EntitlementsSchema,
    errors: ['PERSONAL_KEY_REQUIRED'],
  },
  'org-entitlements': {
    summary: 'Organization entitlements',
    description: 'Remaining service units of the bound organization, computed at query time; display and reminders only.',
    status: 200,
    data: EntitlementsSchema,
  },
  'record-lookup': {
    summary: 'Exact public record lookup',
    description:
      'The public record with this uuid, compared case-insensitively. No listing or name search exists. A missing record never means the player passed.',
    pathParameters: z.object({ uuid: withErrorCode(z.string().check(z.regex(RECORD_UUID_PATTERN)), 'INVALID_RECORD_UUID') }),
    status: 200,
    data: RecordSchema,
    errors: ['RECORD_NOT_FOUND'],
  },
  invitations: {
    summary: 'List the organization\u2019s invitations',
    description: 'Newest created first, 20 per page; new invitations can shift pages, so de-duplicate by id. Each page costs the same however deep.',
    query: z.object({ page: withErrorCode(z.optional(described('1–10000, default 1', z.string().check(z.regex(/^(10000|[1-9][0-9]{0,3})$/)))), 'INVALID_PAGE') }),
    status: 200,
    data: InvitationPageSchema,
  },
  'invitation-create': {
    summary: 'Create a one-time player invitation',
    description:
      'Idempotent per key id + organization + Idempotency-Key: a replay answers 200 with the original invitation and replayed true (link null once it is used, expired or revoked); the same key with another game or other notes is 409 IDEMPOTENCY_CONFLICT. At most 50 active invitations per organization.',
    body: z.strictObject({
      game: withErrorCode(z.enum(GAME_GROUPS), 'INVALID_GAME'),
      notes: withErrorCode(
        z.optional(
          described(
            'Draft notes for the ticket: empty, or 2–600 characters after trimming',
            z.string().check(z.refine((notes) => notes.trim() === '' || ([...notes.trim()].length >= 2 && [...notes.trim()].length <= 600))),
          ),
        ),
        'INVALID_FIELD',
      ),
    }),
    status: 201,
    replayStatus: 200,
    data: CreatedInvitationSchema,
    errors: ['IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_CONFLICT', 'TOO_MANY_INVITES', 'INVALID_GAME'],
  },
  invitation: {
    summary: 'One invitation',
    description: 'State metadata only: no link, no notes, no player credential. Missing, of another organization or malformed: 404 INVITE_UNAVAILABLE.',
    pathParameters: invitationPath,
    status: 200,
    data: InvitationSchema,
    errors: ['INVITE_UNAVAILABLE'],
  },
  'invitation-link': {
    summary: 'The join link of a usable invitation',
    description: 'Only for a pending, unexpired invitation; otherwise 409 INVITE_UNAVAILABLE. Needs invitations:write.',
    pathParameters: invitationPath,
    status: 200,
    data: InvitationLinkSchema,
    errors: ['INVITE_UNAVAILABLE'],
    errorStatus: { INVITE_UNAVAILABLE: 409 },
  },
  'invitation-revoke': {
    summary: 'Revoke an unused invitation',
    description:
      'Answers the Invitation with state revoked; revoking it again answers the same. A claiming, joined or expired invitation (or none) is 409 INVITE_UNAVAILABLE. No request body.',
    pathParameters: invitationPath,
    status: 200,
    data: InvitationSchema,
    errors: ['INVITE_UNAVAILABLE'],
    errorStatus: { INVITE_UNAVAILABLE: 409 },
  },
  tickets: {
    summary: 'List the organization\u2019s tickets',
    description:
      'Joined invitations only (archived ones included), newest invitation first, 20 per page; id is the invitation id, ticket_id the formal ticket id. No message bodies. Each page costs the same however deep.',
    query: z.object({ page: withErrorCode(z.optional(described('1–10000, default 1', z.string().check(z.regex(/^(10000|[1-9][0-9]{0,3})$/)))), 'INVALID_PAGE') }),
    status: 200,
    data: TicketPageSchema,
  },
  ticket: {
    summary: 'One ticket, by its invitation id',
    description:
      'The last path segment is the invitation id, not the formal ticket id. Not yet joined: 409 PLAYER_NOT_JOINED. Missing, another organization\u2019s, or a failed ticket association check: 404 TICKET_NOT_FOUND, with no conversation content.',
    pathParameters: z.object({ partner_id: z.string(), invitation_id: withErrorCode(z.string().check(z.regex(INVITATION_ID_PATTERN)), 'TICKET_NOT_FOUND') }),
    status: 200,
    data: TicketSchema,
    errors: ['TICKET_NOT_FOUND', 'PLAYER_NOT_JOINED', 'PARTNER_ACCESS_FORBIDDEN', 'TICKET_SERVICE_UNAVAILABLE'],
  },
  'org-records': {
    summary: 'List and synchronize the records of the organization',
    description:
      'Ascending by updated_at, then id; filters combine (AND). A live view, not a snapshot: a record changed during paging moves to the end and may appear twice, so clients de-duplicate by id. The cursor is bound to the filters it was made with: a changed filter or an altered cursor answers 422 INVALID_CURSOR. Synchronize incrementally with updated_after set to the newest updated_at already seen.',
    query: RecordListQuerySchema,
    status: 200,
    data: RecordPageSchema,
  },
  'org-record': {
    summary: 'One record of the organization',
    description:
      'A record that does not exist, belongs to another organization, or was deleted answers 404 RECORD_NOT_FOUND at once. Never a pass.',
    status: 200,
    data: RecordSchema,
    errors: ['RECORD_NOT_FOUND'],
  },
};
