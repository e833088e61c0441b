/**
 * The partner API's front door (docs/request-pipeline.md): the shared steps (pipeline.ts), then
 *   5. authentication – the key behind the Authorization header (cached facts or one read); a route
 *                       that needs no key (GET /health) is admitted as it is
 *   6. admission      – the key's standing (revocation, account, organization, membership, re-checked
 *                       inside the quota writes), quotas, concurrency: one decision (limits/admission.ts);
 *                       the route's reads (prefetch) beside it, for a caller the route will authorize
 *   7. authorization  – scope and organization binding of the admitted request
 * and the answer in the spec's envelope. Six groups serve through it (system, identity, records,
 * entitlements, invitations, tickets), which is why it lives in shared/.
 */
import { authorizeRoute } from '../identity/authorization';
import { authenticateKey } from '../identity/key-authentication';
import { principalOf, type Principal } from '../identity/principal';
import { decisionDepsOf } from '../limits/admission';
import { admitRequest } from '../limits/key-admission';
import { AUTHORIZATION_HEADER } from './credential-headers';
import { successResponse } from './envelope';
import { admissionSignal, answerWith, composeApiHandler, startPrefetch, type ApiHandler, type FunctionDefinition, type Middleware, type Prefetch } from './pipeline';
import type { RouteDefinition } from './routes';

/** Who is calling: the key behind the Authorization header (401 otherwise). */
const keyAuthentication = (): Middleware => ({
  before: async (request) => {
    const state = request.context.pipeline;
    const route = state.route as RouteDefinition;
    if (route.auth === 'none') {
      state.admitted = true;
      return;
    }
    const { platform, event } = state;
    state.signal = admissionSignal(request.context, platform);
    const authorization = event.headers.get(AUTHORIZATION_HEADER);
    state.key = await authenticateKey(authorization?.length === 1 ? authorization[0] : undefined, {
      reader: platform.admissionStore,
      cache: platform.keyCache,
      now: platform.clock(),
      signal: state.signal,
    });
    // From here on the key is recognized: the call is logged whatever its outcome (see isCallLogged).
    state.principal = principalOf(state.key.facts);
  },
});

/**
 * Whether the key is still usable and every quota and slot covering the route has room (docs/limits.md). The route's
 * reads (FunctionDefinition.prefetch) start beside the admission's writes, for a caller the route will authorize only:
 * another organization's items are not even read.
 */
const keyAdmission = (prefetches: Readonly<Record<string, Prefetch<Principal>>> | undefined): Middleware => ({
  before: async (request) => {
    const state = request.context.pipeline;
    if (!state.key) return;
    const { platform, event } = state;
    const route = state.route as RouteDefinition;
    const prefetch = prefetches?.[route.id];
    const caller = state.principal;
    const prefetched = prefetch && caller && authorizes(caller, route, event.pathParameters.partner_id) ? startPrefetch(prefetch, { event, caller, platform }) : undefined;
    state.admission = await admitRequest(state.key, { category: route.category }, {
      ...decisionDepsOf(platform, state.signal),
      rateLog: platform.rateLog,
    });
    state.prefetched = prefetched;
    state.admitted = true;
  },
});

function authorizes(principal: Principal, route: RouteDefinition, partnerId: string | undefined): boolean {
  try {
    authorizeRoute(principal, route, partnerId);
    return true;
  } catch {
    return false;
  }
}

/** Scope and organization binding of the admitted request. */
const authorization = (): Middleware => ({
  before: (request) => {
    const state = request.context.pipeline;
    if (!state.admission) return;
    authorizeRoute(state.admission.principal, state.route as RouteDefinition, state.event.pathParameters.partner_id);
  },
});

/** A partner API function: its reads beside the admission know the caller's key (its principal). */
export interface PartnerFunction extends FunctionDefinition {
  readonly prefetch?: Readonly<Record<string, Prefetch<Principal>>>;
}

/** A partner API function's handler: its operations behind API keys. */
export function createPartnerApiHandler(definition: PartnerFunction): ApiHandler {
  return composeApiHandler(definition, {
    doors: ['none', 'key'],
    steps: [keyAuthentication(), keyAdmission(definition.prefetch), authorization()],
    credentials: () => ({}),
    respond: answerWith(successResponse),
  });
}
