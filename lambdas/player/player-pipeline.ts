/**
 * The player site's front door (docs/player-site.md): the shared steps (lambdas/shared/http/pipeline.ts), then
 *   5. authentication – no API key (400 API_KEY_NOT_ACCEPTED); two player_credential cookies refused;
 *                       what the call proves about its join link (player-possession.ts: the link's
 *                       token, checked locally, or the claiming browser's credential: one read)
 *   6. admission      – the site's limits by source IP always, and by join link only for a call that
 *                       proved possession (player-admission.ts); the page itself is counted by nothing
 * and the answer in the API envelope, or the page.
 */
import type { Platform } from '../shared/platform';
import type { ApiEvent } from '../shared/http/api-event';
import { COOKIE_HEADER } from '../shared/http/credential-headers';
import { successResponse } from '../shared/http/envelope';
import {
  admissionSignal,
  answerWith,
  composeApiHandler,
  refuseApiKey,
  startPrefetch,
  type ApiHandler,
  type FunctionDefinition,
  type Middleware,
  type Operation,
  type OperationInput,
  type PipelineState,
  type Prefetch,
} from '../shared/http/pipeline';
import type { RouteDefinition } from '../shared/http/routes';
import { decisionDepsOf } from '../shared/limits/admission';
import { isPlayerCategory } from '../shared/limits/limits-table';
import { admitPlayerCall } from './player-admission';
import { presentedCredential } from './player-credential';

/**
 * What a player-site call proved about its join link before admission counts it (player-possession.ts): the link's
 * token, the claiming browser's credential, or nothing. Only a proof spends the link's limits (`join-*`); a call that
 * proves nothing counts by source IP alone, so knowing an invitation id cannot deny its holder.
 */
export interface PlayerPossession {
  readonly proof: 'token' | 'credential' | 'none';
  /** The path's invitation id when it is a well-formed one; absent otherwise. */
  readonly invitationId?: string;
  /** What the check read to decide (the invitation), handed to the operation so the call reads it once. */
  readonly read?: unknown;
}

/** How the player function decides a call's possession, from the path's invitation id as sent. */
export type PossessionCheck = (call: {
  readonly route: RouteDefinition;
  readonly invitationId: string;
  readonly headers: ApiEvent['headers'];
  /** The raw body (at most 4096 bytes, after the transport rules): a claim's token travels in it. */
  readonly body: Buffer | undefined;
  readonly platform: Platform;
  readonly now: Date;
}) => Promise<PlayerPossession>;

/** A player-site operation's input: the shared one, and what the call proved (absent for the page). */
export interface PlayerOperationInput extends OperationInput {
  readonly possession?: PlayerPossession;
}
export type PlayerOperation = Operation<PlayerOperationInput>;

export interface PlayerFunction extends FunctionDefinition<PlayerOperationInput> {
  /** How a call's possession of its link is decided (player-possession.ts); required to serve a player call. */
  readonly possession?: PossessionCheck;
  /** Reads beside the admission, knowing what the call proved (pipeline.ts Prefetch). */
  readonly prefetch?: Readonly<Record<string, Prefetch<PlayerPossession>>>;
}

const possessionOf = (state: PipelineState): PlayerPossession | undefined => (state.credentials as { possession?: PlayerPossession } | undefined)?.possession;

/** No API key; one player_credential cookie at most; what the call proves about its join link (the page proves nothing). */
const possessionAuthentication = (check: PossessionCheck | undefined): Middleware => ({
  before: async (request) => {
    const state = request.context.pipeline;
    const route = state.route as RouteDefinition;
    const { event, platform } = state;
    state.signal = admissionSignal(request.context, platform);
    refuseApiKey(event);
    if (!isPlayerCategory(route.category)) return;
    // Two player_credential cookies: 400 DUPLICATE_CREDENTIAL_COOKIE before anything is read or counted (cookies.ts).
    presentedCredential(event.headers.get(COOKIE_HEADER));
    // The player group judges the id (player-possession.ts); a proof names the well-formed id it holds.
    const invitationId = event.pathParameters.invitation_id;
    const possession: PlayerPossession =
      invitationId === undefined || !check ? { proof: 'none' } : await check({ route, invitationId, headers: event.headers, body: event.body, platform, now: platform.clock() });
    state.credentials = { possession };
  },
});

/** The site's limits: by source IP always, by join link only for a call that proved possession; the route's reads beside them. */
const playerAdmission = (prefetches: Readonly<Record<string, Prefetch<PlayerPossession>>> | undefined): Middleware => ({
  before: async (request) => {
    const state = request.context.pipeline;
    const route = state.route as RouteDefinition;
    if (isPlayerCategory(route.category)) {
      const possession = possessionOf(state);
      const prefetch = prefetches?.[route.id];
      const prefetched = prefetch && possession ? startPrefetch(prefetch, { event: state.event, caller: possession, platform: state.platform }) : undefined;
      await admitPlayerCall(
        {
          category: route.category,
          sourceIp: state.event.sourceIp ?? 'unknown',
          invitationId: possession?.invitationId,
          possession: possession !== undefined && possession.proof !== 'none',
        },
        decisionDepsOf(state.platform, state.signal),
      );
      state.prefetched = prefetched;
    }
    state.admitted = true;
  },
});

/** The player function's handler. */
export function createPlayerHandler(definition: PlayerFunction): ApiHandler {
  // Without a possession check no player call would ever count on its join link: refuse to build such a function.
  const unchecked = (definition.router?.routes ?? definition.routes ?? []).filter((r) => isPlayerCategory(r.category) && definition.operations[r.id] !== undefined);
  if (unchecked.length > 0 && !definition.possession) {
    throw new Error(`createPlayerHandler: the player routes ${unchecked.map((r) => r.id).join(', ')} need the possession option`);
  }
  return composeApiHandler<PlayerOperationInput>(definition, {
    doors: ['player'],
    steps: [possessionAuthentication(definition.possession), playerAdmission(definition.prefetch)],
    credentials: (state) => ({ possession: possessionOf(state) }),
    respond: answerWith(successResponse),
  });
}
