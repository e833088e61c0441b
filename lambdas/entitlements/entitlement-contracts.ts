/**
 * The contracts of the entitlements group's routes (each declared once here, rules and contract: *-routes.ts is generated from them; group `entitlements`): the personal and
 * the organization's summaries.
 */
import * as z from 'zod/mini';
import { described, isoTime, named, type GroupContracts } from '../shared/http/contract';
import type { ENTITLEMENT_ROUTES } from './entitlement-routes';
import { GAME_GROUPS } from '../records/games';

export const GameEntitlementSchema = named(
  'GameEntitlement',
  z.object({
    game: z.enum(GAME_GROUPS),
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

export const ENTITLEMENT_CONTRACTS = {
  entitlements: {
    method: 'GET', path: '/entitlements', auth: 'key', scope: 'entitlements:read',
    summary: 'Personal entitlements',
    clientMethod: 'entitlements',
    description: "Remaining service units of the key's creating account, computed at query time. An organization key gets 403 PERSONAL_KEY_REQUIRED.",
    status: 200,
    data: EntitlementsSchema,
    errors: ['PERSONAL_KEY_REQUIRED'],
  },
  'org-entitlements': {
    method: 'GET', path: '/partners/{partner_id}/entitlements', auth: 'key', scope: 'entitlements:read', partnerBound: true,
    summary: 'Organization entitlements',
    clientMethod: 'partnerEntitlements',
    description: 'Remaining service units of the bound organization, computed at query time; display and reminders only.',
    status: 200,
    data: EntitlementsSchema,
  },
} as const satisfies GroupContracts<typeof ENTITLEMENT_ROUTES>;
