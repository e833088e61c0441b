/**
 * The partner API's front door (docs/request-pipeline.md): the shared steps (pipeline.ts), then
 *   5. authentication – the key behind the Authorization header (cached facts or one read); a route
 *                       that needs no key (GET /health) is admitted as it is
 *   6. admission      – the key's standing (revocation, account, organization, membership, re-checked
 *                       inside the quota writes), quotas, concurrency: one decision (limits/admission.ts)
 *   7. authorization  – scope and organization binding of the admitted request
 * and the answer in the spec's envelope. Six groups serve through it (system, identity, records,
 * entitlements, invitations, tickets), which is why it lives in shared/.
 */
import { authorizeRoute } from '../identity/authorization';
import { authenticateKey } from '../identity/key-authentication';
import { principalOf } from '../identity/principal';
import { admitRequest, decisionDepsOf } from '../limits/admission';
import { AUTHORIZATION_HEADER } from './credential-headers';
import { successResponse } from './envelope';
import { admissionSignal, answerWith, composeApiHandler, type ApiHandler, type FunctionDefinition, type Middleware } from './pipeline';
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
    state.signal = admissionSignal(request.context);
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

/** Whether the key is still usable and every quota and slot covering the route has room (docs/limits.md). */
const keyAdmission = (): Middleware => ({
  before: async (request) => {
    const state = request.context.pipeline;
    if (!state.key) return;
    const { platform } = state;
    state.admission = await admitRequest(state.key, { category: (state.route as RouteDefinition).category }, {
      ...decisionDepsOf(platform, state.signal),
      rateLog: platform.rateLog,
    });
    state.admitted = true;
  },
});

/** Scope and organization binding of the admitted request. */
const authorization = (): Middleware => ({
  before: (request) => {
    const state = request.context.pipeline;
    if (!state.admission) return;
    authorizeRoute(state.admission.principal, state.route as RouteDefinition, state.event.pathParameters.partner_id);
  },
});

/** A partner API function's handler: its operations behind API keys. */
export function createPartnerApiHandler(definition: FunctionDefinition): ApiHandler {
  return composeApiHandler(definition, {
    doors: ['none', 'key'],
    steps: [keyAuthentication(), keyAdmission(), authorization()],
    credentials: () => ({}),
    respond: answerWith(successResponse),
  });
}
