/**
 * The organization record list's page as the spec defines it: `items` of
 * Record objects (at most `limit`), ascending by `updated_at` then `id`, and
 * `next_cursor`, opaque or null. The list is a live view, so a record may
 * appear again on a later page (clients de-duplicate by id); what must hold
 * is that a page continues after the previous one's last record.
 */
import { rateLimitHeaderProblems, successProblems } from './expectations';
import type { Probe } from './probe';

export const RECORD_UUID = /^[Uu][Ss][Ss]-[0-9]{8}-[A-Za-z0-9]{12}$/;
const RESULTS = ['clean', 'warning', 'cheating'];
const STRING_FIELDS = ['id', 'player_name', 'game_category', 'game', 'result_label', 'checker_name', 'public_notes'] as const;

export interface RecordKey {
  readonly id: string;
  readonly updated_at: string;
}

export interface RecordPage {
  readonly problems: string[];
  readonly items: readonly RecordKey[];
  readonly nextCursor: string | null;
}

/** Negative when `a` comes first in the list's order: `updated_at`, then `id`. */
export function compareRecords(a: RecordKey, b: RecordKey): number {
  const byTime = Date.parse(a.updated_at) - Date.parse(b.updated_at);
  if (byTime !== 0) return byTime;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const isIsoTime = (value: unknown) => typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value));

function recordProblems(record: unknown, at: string): string[] {
  if (typeof record !== 'object' || record === null) return [`${at} is not an object`];
  const fields = record as Record<string, unknown>;
  const problems: string[] = [];
  for (const name of STRING_FIELDS) if (typeof fields[name] !== 'string') problems.push(`${at}.${name} is not a string`);
  if (typeof fields.uuid !== 'string' || !RECORD_UUID.test(fields.uuid)) problems.push(`${at}.uuid ${JSON.stringify(fields.uuid)} does not match the record uuid pattern`);
  if (!RESULTS.includes(fields.result as string)) problems.push(`${at}.result ${JSON.stringify(fields.result)} is not clean, warning or cheating`);
  for (const name of ['checked_at', 'updated_at']) if (!isIsoTime(fields[name])) problems.push(`${at}.${name} ${JSON.stringify(fields[name])} is not an ISO 8601 time`);
  return problems;
}

/** A 200 page of at most `limit` records in the list's order, with the rate-limit headers of an admitted request. */
export function recordPageProblems(probe: Probe, limit: number): RecordPage {
  const { problems, data } = successProblems(probe);
  problems.push(...rateLimitHeaderProblems(probe));
  const items = Array.isArray(data.items) ? data.items : [];
  if (!Array.isArray(data.items)) problems.push(`data.items is ${JSON.stringify(data.items)}, not an array`);
  if (items.length > limit) problems.push(`${items.length} items on a page of limit=${limit}`);
  items.forEach((item, i) => problems.push(...recordProblems(item, `items[${i}]`)));
  const valid = problems.length === 0 ? (items as RecordKey[]) : [];
  for (let i = 1; i < valid.length; i += 1) {
    if (compareRecords(valid[i - 1], valid[i]) >= 0) problems.push(`items[${i}] (${valid[i].id}) does not come after items[${i - 1}] (${valid[i - 1].id}) by updated_at, then id`);
  }
  const nextCursor = data.next_cursor;
  if (nextCursor !== null && (typeof nextCursor !== 'string' || nextCursor === '')) problems.push(`data.next_cursor is ${JSON.stringify(nextCursor)}, not a string or null`);
  return { problems, items: valid, nextCursor: typeof nextCursor === 'string' && nextCursor !== '' ? nextCursor : null };
}
