/**
 * The items the player site's admission counts on in the `access` table (player-admission.ts):
 * one per source IP and one per join link, sort key `LIMITS`. Their partition key prefixes are
 * the only keys of `access` the unauthenticated player function may write: its IAM policy allows
 * `UpdateItem` there only under `dynamodb:LeadingKeys` matching these prefixes (routes.ts
 * PLAYER_ADMISSION_DATA_ACCESS, lib/constructs/api-function.ts), so a flaw in the player code cannot
 * reach password hashes, sessions, keys or grants. A leaf module: routes.ts reads it at load time.
 */
export const PLAYER_IP_KEY_PREFIX = 'PLAYER#IP#';
export const JOIN_LINK_KEY_PREFIX = 'PLAYER#LINK#';
export const PLAYER_COUNTER_SORT_KEY = 'LIMITS';

/** Every partition key prefix the player site's admission writes. */
export const PLAYER_COUNTER_KEY_PREFIXES: readonly string[] = [PLAYER_IP_KEY_PREFIX, JOIN_LINK_KEY_PREFIX];
