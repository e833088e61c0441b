/**
 * The contracts of the records group's routes (each declared once here, rules and contract: *-routes.ts is generated from them; group `records`): the public lookup, the
 * organization's list and one of its records.
 */
import * as z from 'zod/mini';
import { described, isoTime, named, withErrorCode, type GroupContracts } from '../shared/http/contract';
import type { RECORD_ROUTES } from './record-routes';
import { MAX_CURSOR_LENGTH } from './record-cursor';
import { RECORD_UUID_PATTERN, RESULTS } from './record-model';
import { GAME_GROUPS } from './games';

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

export const RECORD_CONTRACTS = {
  'record-lookup': {
    method: 'GET', path: '/records/{uuid}', auth: 'key', scope: 'public:read',
    summary: 'Exact public record lookup',
    clientMethod: 'lookupRecord',
    description:
      'The public record with this uuid, compared case-insensitively. No listing or name search exists. A missing record never means the player passed.',
    pathParameters: z.object({ uuid: withErrorCode(z.string().check(z.regex(RECORD_UUID_PATTERN)), 'INVALID_RECORD_UUID') }),
    status: 200,
    data: RecordSchema,
    errors: ['RECORD_NOT_FOUND'],
  },
  'org-records': {
    method: 'GET', path: '/partners/{partner_id}/records', auth: 'key', scope: 'records:read', partnerBound: true,
    summary: 'List and synchronize the records of the organization',
    clientMethod: 'listRecords',
    description:
      'Ascending by updated_at, then id; filters combine (AND). A live view, not a snapshot: a record changed during paging moves to the end and may appear twice, so clients de-duplicate by id. The cursor is bound to the filters it was made with: a changed filter or an altered cursor answers 422 INVALID_CURSOR. Synchronize incrementally with updated_after set to the newest updated_at already seen.',
    query: RecordListQuerySchema,
    status: 200,
    data: RecordPageSchema,
  },
  'org-record': {
    method: 'GET', path: '/partners/{partner_id}/records/{record_id}', auth: 'key', scope: 'records:read', partnerBound: true,
    summary: 'One record of the organization',
    clientMethod: 'getRecord',
    description:
      'A record that does not exist, belongs to another organization, or was deleted answers 404 RECORD_NOT_FOUND at once. Never a pass.',
    status: 200,
    data: RecordSchema,
    errors: ['RECORD_NOT_FOUND'],
  },

} as const satisfies GroupContracts<typeof RECORD_ROUTES>;
