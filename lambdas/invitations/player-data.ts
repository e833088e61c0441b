/**
 * The player's own data a claim carries (decided here; the spec leaves it
 * open): `in_game_name`, 1–40 characters, no control characters;
 * `game_account_id`, 1–64 characters of letters, digits and `_ . : -` (a
 * Minecraft UUID, a Steam id, a Riot id without `#`). Both are trimmed.
 * On its own so the route contracts (in every function) take only these
 * schemas, not the claim's code.
 */
import * as z from 'zod/mini';

export const PLAYER_DATA_FIELDS = {
  in_game_name: z.string().check(
    z.trim(),
    z.refine((name) => [...name].length >= 1 && [...name].length <= 40),
    z.regex(/^[^\p{Cc}]*$/u),
  ),
  game_account_id: z.string().check(z.trim(), z.regex(/^[A-Za-z0-9_.:-]{1,64}$/)),
};
export const PlayerDataSchema = z.strictObject(PLAYER_DATA_FIELDS);
export type PlayerData = z.output<typeof PlayerDataSchema>;
