/**
 * The spec's Entitlements summary, computed at query time from an owner's
 * grants (an account's for GET /entitlements, an organization's for
 * GET /partners/{partner_id}/entitlements). Pure: the store reads the
 * grants, this decides what they mean at `now`.
 *
 * A grant is current from `starts_at` (inclusive) until `expires_at`
 * (exclusive; null = permanent). Queued grants (not started yet) never add to
 * the balance; they only set `next_starts_at`. Refunded use is not use.
 */
import type * as z from 'zod/mini';
import { GAME_GROUPS, type GameGroup } from '../records/games';
import type { EntitlementsSchema, GameEntitlementSchema } from './entitlement-contracts';

export interface Grant {
  readonly grant_id: string;
  readonly game: GameGroup;
  /** Counted units; absent for an unlimited grant. */
  readonly units?: number;
  readonly unlimited: boolean;
  readonly starts_at: string;
  /** null: permanent. */
  readonly expires_at: string | null;
  /** Use linked to this grant, refunds already taken off. */
  readonly used_units: number;
}

/** One game's summary, as the contract's schema declares it (entitlement-contracts.ts). */
export type GameSummary = z.input<typeof GameEntitlementSchema>;

/** The spec's entitlements summary, as the contract's schema declares it. */
export type EntitlementSummary = z.input<typeof EntitlementsSchema>;

export const isCurrent = (grant: Grant, now: Date) =>
  Date.parse(grant.starts_at) <= now.getTime() && (grant.expires_at === null || now.getTime() < Date.parse(grant.expires_at));

const isQueued = (grant: Grant, now: Date) => Date.parse(grant.starts_at) > now.getTime();

const earliest = (times: readonly string[]) => (times.length === 0 ? null : times.reduce((a, b) => (Date.parse(b) < Date.parse(a) ? b : a)));

export function summarizeGame(game: GameGroup, grants: readonly Grant[], now: Date): GameSummary {
  const mine = grants.filter((g) => g.game === game);
  const current = mine.filter((g) => isCurrent(g, now));
  const counted = current.filter((g) => !g.unlimited);
  const total = counted.reduce((sum, g) => sum + (g.units ?? 0), 0);
  const remaining = counted.reduce((sum, g) => sum + Math.max(0, (g.units ?? 0) - g.used_units), 0);
  const permanent = current.some((g) => g.expires_at === null);
  return {
    game,
    remaining_units: remaining,
    unlimited: current.some((g) => g.unlimited),
    total_units: total,
    used_units: current.reduce((sum, g) => sum + g.used_units, 0),
    // Earliest expiry of the current grants; null when one of them is permanent, or none is current.
    expires_at: permanent ? null : earliest(current.map((g) => g.expires_at as string)),
    next_starts_at: earliest(mine.filter((g) => isQueued(g, now)).map((g) => g.starts_at)),
  };
}

/** Always two entries, minecraft then fps, zeros when nothing is held. */
export function summarizeEntitlements(owner: { type: 'partner' | 'account'; id: string }, grants: readonly Grant[], now: Date): EntitlementSummary {
  return { owner_type: owner.type, owner_id: owner.id, games: GAME_GROUPS.map((game) => summarizeGame(game, grants, now)) };
}
