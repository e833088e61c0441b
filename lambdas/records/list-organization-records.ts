/**
 * GET /partners/{partner_id}/records: the organization's records, ascending
 * by `updated_at`, then `id`, filtered, in pages with a signed cursor.
 *
 * The query is already validated by the route's contract (the spec's codes);
 * this normalizes the filters, checks the cursor against them, reads one
 * page (record-list.ts) and signs where the next one starts.
 *
 * A live view: a record changed during paging moves to the end, where the
 * traversal meets it again. A change takes its `updated_at` a moment before
 * it is visible in the index, so it could land just behind a cursor that
 * has already passed that instant; a cursor therefore never passes the
 * instant SETTLE_MS before the page was read. Near the live end, records
 * changed in those last seconds may come again on the next page (clients
 * de-duplicate by id, as the spec says); a record that exists throughout a
 * traversal is returned at least once.
 */
import { ApiError } from '../shared/errors';
import type { OperationOf } from '../shared/http/pipeline';
import type { Principal } from '../shared/identity/principal';
import { perPlatform } from '../shared/platform';
import { requireTable } from '../shared/storage/table-names';
import { signCursor, verifyCursor } from './record-cursor';
import { RecordList, type PageRead, type RecordFilters } from './record-list';
import { normalizedPlayerName } from './record-model';
import type { RECORD_CONTRACTS } from './record-contracts';

/** Longer than a change takes from taking its time to being visible in the list index. */
export const SETTLE_MS = 2_000;
export const DEFAULT_LIMIT = 20;

/** The list's query as its contract parsed it. */
type ListQuery = Parameters<OperationOf<typeof RECORD_CONTRACTS, 'org-records'>>[0]['query'];

const recordListOf = perPlatform((platform) => new RecordList(platform.documentClient, requireTable(platform.tables, 'domain')));

export const listOrganizationRecords: OperationOf<typeof RECORD_CONTRACTS, 'org-records'> = async ({ query: input, principal, platform }) => {
  const partnerId = (principal as Principal).partnerId as string;
  const filters = filtersOf(input);
  const binding = cursorBinding(partnerId, filters);
  // The secret is read once per container (and again after SECRET_CACHE_MS); the first page does not wait for it.
  const secrets = platform.secret('record-cursor').versions();
  // Awaited below only when a cursor is read or made; a failure then answers there, never as an unhandled rejection.
  secrets.catch(() => undefined);
  let position: string | undefined;
  if (input.cursor !== undefined) {
    position = verifyCursor(input.cursor, binding, await secrets);
    if (position === undefined) throw new ApiError('INVALID_CURSOR');
  }
  const limit = input.limit === undefined ? DEFAULT_LIMIT : Number(input.limit);
  const readAt = platform.clock().getTime();
  const page = await recordListOf(platform).readPage(partnerId, filters, limit, position);
  const next = nextPosition(page, startOf(position, filters), readAt);
  return { data: { items: page.records, next_cursor: next === undefined ? null : signCursor((await secrets).current, binding, next) } };
};

/** The filters as the index compares them: `updated_after` as a list-order mark (UTC, milliseconds, rounded up). */
export function filtersOf(input: ListQuery): RecordFilters {
  return {
    ...(input.updated_after !== undefined ? { updatedAfter: listOrderMark(input.updated_after) } : {}),
    ...(input.result !== undefined ? { result: input.result } : {}),
    ...(input.game !== undefined ? { game: input.game } : {}),
    ...(input.player_name !== undefined ? { playerName: normalizedPlayerName(input.player_name) } : {}),
  };
}

/**
 * An RFC 3339 date-time as a list-order mark: UTC with milliseconds, as
 * `updated_at` is stored. Digits past the millisecond round up, so the bound
 * stays inclusive of exactly the instants at or after it.
 */
export function listOrderMark(dateTime: string): string {
  const instant = new Date(dateTime).getTime();
  const fraction = /\.(\d+)/.exec(dateTime)?.[1] ?? '';
  const beyondMilliseconds = /[1-9]/.test(fraction.slice(3));
  return new Date(instant + (beyondMilliseconds ? 1 : 0)).toISOString();
}

/** What a cursor is bound to: the organization and every filter (limit is not one). */
export function cursorBinding(partnerId: string, filters: RecordFilters): string {
  return JSON.stringify([partnerId, filters.updatedAfter ?? null, filters.result ?? null, filters.game ?? null, filters.playerName ?? null]);
}

/** Where this page started reading: the cursor's position, or the `updated_after` bound when that is later. */
function startOf(position: string | undefined, filters: RecordFilters): string {
  const bound = filters.updatedAfter ?? '';
  return position !== undefined && position >= bound ? position : bound;
}

/**
 * Where the next page starts (exclusive), or undefined when the traversal
 * ends: after the page's last item, but never past the settle mark
 * (SETTLE_MS before the read) as long as that still moves forward.
 */
export function nextPosition(page: PageRead, start: string, readAt: number): string | undefined {
  if (!page.more || page.continueFrom === undefined) return undefined;
  const settle = new Date(readAt - SETTLE_MS).toISOString();
  if (page.continueFrom <= settle) return page.continueFrom;
  return settle > start ? settle : page.continueFrom;
}
