/**
 * The game groups of API v1, declared once: records, invitations, entitlements and their events name a game by one of
 * these. A leaf module (no import), so the delivery worker's event list and the entitlements' pure summary take it
 * without a schema library.
 */
export const GAME_GROUPS = ['minecraft', 'fps'] as const;
export type GameGroup = (typeof GAME_GROUPS)[number];
