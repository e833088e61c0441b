/**
 * Admission of a player-site call: the site needs no key, so its abuse
 * limits (the `player-ip` and `join-link` rows of the limits table) count by
 * the caller's source IP (as API Gateway saw it) and by the join link (the
 * invitation the call is about: one link, one token). Exact, like every
 * quota: one conditional update per item, both in parallel (one round trip,
 * one write unit each), compensated when the other refuses; the store not
 * answering fails closed (503 RATE_LIMIT_UNAVAILABLE).
 *
 * The link's item counts only calls that proved possession of the link
 * before admission (its token, or the claiming browser's credential: the
 * pipeline's authentication step, lambdas/player/player-possession.ts). An
 * invitation id is no secret (it is in the link's path, a browser history, a
 * proxy log, a screenshot): were calls that prove nothing counted on the
 * link, anyone knowing the id could spend the link's windows and refuse its
 * holder. Those calls count by source IP only, which still bounds guessing.
 *
 * The counters live in the `access` table beside the keys' (items
 * `PLAYER#IP#<ip>` and `PLAYER#LINK#<invitation id>`, sort key `LIMITS`),
 * created on first use, with a `ttl` two days ahead (after every window
 * they hold has ended), so addresses seen once do not stay for good. A link counter is only written for a well-formed
 * invitation id: a random id is refused before it (INVITE_UNAVAILABLE) after
 * counting the IP, so junk paths cannot fill the table beyond the IP limits.
 */
import { ApiError } from '../shared/errors';
import type { ItemKey } from '../shared/limits/admission-store';
import { counterItem, decide, planHolderItems, type DecisionDeps } from '../shared/limits/admission';
import type { PlayerCategory } from '../shared/limits/limits-table';
import { JOIN_LINK_KEY_PREFIX, PLAYER_COUNTER_SORT_KEY, PLAYER_IP_KEY_PREFIX } from './player-counter-keys';

export const playerIpKey = (sourceIp: string): ItemKey => ({ pk: `${PLAYER_IP_KEY_PREFIX}${sourceIp}`, sk: PLAYER_COUNTER_SORT_KEY });
export const joinLinkKey = (invitationId: string): ItemKey => ({ pk: `${JOIN_LINK_KEY_PREFIX}${invitationId}`, sk: PLAYER_COUNTER_SORT_KEY });

export interface PlayerCall {
  readonly category: PlayerCategory;
  readonly sourceIp: string;
  /** The invitation of the join link; undefined when the path's id is not a well-formed invitation id. */
  readonly invitationId: string | undefined;
  /** Whether the call proved it holds the link (its token) or is its claiming browser (its credential). */
  readonly possession: boolean;
}

/** Count the call under every player limit covering it, or throw the 429 (Retry-After: the longest wait). */
export async function admitPlayerCall(call: PlayerCall, deps: DecisionDeps): Promise<void> {
  const linkCounted = call.invitationId !== undefined && call.possession;
  const items = planHolderItems(
    [
      counterItem('player-ip', playerIpKey(call.sourceIp), deps.now),
      ...(linkCounted ? [counterItem('join-link', joinLinkKey(call.invitationId as string), deps.now)] : []),
    ],
    { category: call.category },
    deps,
  );
  await decide(items, () => undefined, deps);
  if (!call.invitationId) throw new ApiError('INVITE_UNAVAILABLE');
}
