/**
 * Screening records: the stored item, the spec's Record object (the only
 * shape that leaves the service: internal and staff notes never do), and the
 * input the back office accepts.
 *
 * Decisions where the spec is silent (docs/records.md):
 * - A record is public unless the back office marks it `public: false`; a
 *   deleted record is never public. Public lookup is exact, by uuid,
 *   case-insensitive.
 * - `game` filter values: the category `Minecraft` maps to `minecraft`, every
 *   other supported category to `fps`.
 * - `result_label` defaults to `Clean`, `Warning` or `Cheating`.
 */
import * as z from 'zod/mini';
import type { GameGroup } from './games';

export const RECORD_UUID_PATTERN = /^[Uu][Ss][Ss]-[0-9]{8}-[A-Za-z0-9]{12}$/;
export const RESULTS = ['clean', 'warning', 'cheating'] as const;
export type Result = (typeof RESULTS)[number];
export const DEFAULT_RESULT_LABELS: Readonly<Record<Result, string>> = { clean: 'Clean', warning: 'Warning', cheating: 'Cheating' };

export const gameGroupOf = (category: string): GameGroup => (category.trim().toLowerCase() === 'minecraft' ? 'minecraft' : 'fps');
export const uuidKey = (uuid: string) => uuid.toLowerCase();
/** A player name as the list's `player_name` filter compares it: whole name, Unicode NFC, case-insensitive. */
export const normalizedPlayerName = (name: string) => name.normalize('NFC').toLowerCase();

const text = (max: number) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max));

/** What the back office (`record put`) accepts; unknown fields are refused. */
export const RecordInputSchema = z.strictObject({
  uuid: z.string().check(z.regex(RECORD_UUID_PATTERN)),
  player_name: text(120),
  game_category: text(60),
  game: text(120),
  checked_at: z.iso.datetime({ offset: true }),
  result: z.enum(RESULTS),
  result_label: z.optional(text(60)),
  checker_name: text(120),
  public_notes: z._default(z.string().check(z.maxLength(2000)), ''),
  internal_notes: z.optional(z.string().check(z.maxLength(4000))),
  staff_notes: z.optional(z.string().check(z.maxLength(4000))),
  public: z._default(z.boolean(), true),
});
export type RecordInput = z.output<typeof RecordInputSchema>;

/** The spec's Record object. */
export interface PublicRecord {
  readonly id: string;
  readonly uuid: string;
  readonly player_name: string;
  readonly game_category: string;
  readonly game: string;
  readonly checked_at: string;
  readonly result: Result;
  readonly result_label: string;
  readonly checker_name: string;
  readonly public_notes: string;
  readonly updated_at: string;
}

/** The stored record: the public fields, the notes that never leave, and what the indexes read. */
export interface RecordItem extends PublicRecord {
  readonly partner_id: string;
  readonly uuid_key: string;
  readonly player_key: string;
  readonly game_group: GameGroup;
  readonly internal_notes?: string;
  readonly staff_notes?: string;
  readonly public: boolean;
  readonly version: number;
  /** Archived by staff under the organization's rules (one unit of `archived_game` used: `archive_use`). Internal. */
  readonly archived_at?: string;
  readonly archived_game?: GameGroup;
  readonly archive_use?: string;
}

/** Exactly the spec's fields, in its order: nothing else (notes, owner, index keys) can leak through. */
export function toPublicRecord(item: PublicRecord): PublicRecord {
  return {
    id: item.id,
    uuid: item.uuid,
    player_name: item.player_name,
    game_category: item.game_category,
    game: item.game,
    checked_at: item.checked_at,
    result: item.result,
    result_label: item.result_label,
    checker_name: item.checker_name,
    public_notes: item.public_notes,
    updated_at: item.updated_at,
  };
}
