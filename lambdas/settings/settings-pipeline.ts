/**
 * Web settings' front door (docs/web-settings.md), for the settings and webhooks functions: the shared steps
 * (lambdas/shared/http/pipeline.ts), then
 *   5. authentication – no API key (400 API_KEY_NOT_ACCEPTED); the cross-site request checks
 *                       (web-session.ts); two settings_session cookies refused; on signed-in routes
 *                       the session behind the cookie (one read), else 401 SESSION_REQUIRED
 *   6. admission      – the account's limits (and a group's extra holders: a webhook callback, its
 *                       organization), re-checking the session's generations in the same write; a view's
 *                       reads (viewReads), or a change's (prefetch), run beside that write, so a view is two
 *                       sequential round trips; a change that re-checks the password, or a remedy, counts on
 *                       its session's own item here and on the account only once the check passed
 *                       (chargeAccepted, re-check.ts);
 *                       signing in counts by source IP and e-mail in its operation, once the body is parsed
 * and the answer as the bare object the web settings' script reads (errors in the web-settings shape), or the page.
 */
import type { Platform } from '../shared/platform';
import { apiError } from '../shared/errors';
import { COOKIE_HEADER } from '../shared/http/credential-headers';
import { settingsResponse } from '../shared/http/envelope';
import {
  admissionSignal,
  answerWith,
  composeApiHandler,
  prefetchedOr,
  refuseApiKey,
  startPrefetch,
  type ApiHandler,
  type FunctionDefinition,
  type Middleware,
  type Operation,
  type OperationInput,
  type Prefetch,
} from '../shared/http/pipeline';
import { SETTINGS_PATH, type RouteDefinition } from '../shared/http/routes';
import { decisionDepsOf } from '../shared/limits/admission';
import { covers, isSettingsCategory, quotaLimits } from '../shared/limits/limits-table';
import { admitSessionCall, admitSettingsCall, isSessionCounted, type SettingsHolderItem } from './settings-admission';
import { enforceSameOrigin, presentedSessionToken } from './web-session';

/** A signed-in web-settings session: its account, the credential generation it was opened under, and its token (for sign-out). */
export interface SettingsSession {
  readonly accountId: string;
  readonly credGen: number;
  /** The account's session generation it was opened under. */
  readonly sessionGen: number;
  /** The session's absolute end. */
  readonly expiresAt: string;
  readonly token: string;
}

/** A web-settings operation's input: the shared one, and the session on signed-in routes. */
export interface SettingsOperationInput extends OperationInput {
  readonly session?: SettingsSession;
  /**
   * On routes that re-check the password (and code) and count on the account's change quotas: counts the call there,
   * once the check passed (or throws the 429). A no-op on the remedies, which count on their session only (re-check.ts).
   */
  readonly chargeAccepted?: () => Promise<void>;
}

/**
 * A view's reads, which need only the session: started as soon as the session is known, beside the admission's
 * write, so a signed-in view costs two sequential round trips (the session; the admission and the reads together)
 * instead of three. Reads only: a refused call's reads are dropped unused.
 */
export type ViewReads<T = unknown> = (session: Omit<SettingsSession, 'token'>, platform: Platform) => Promise<T>;

/** A group's view reads by route id (`{…} satisfies GroupViewReads<typeof X_CONTRACTS>`): none for a route it lacks. */
export type GroupViewReads<T> = { readonly [K in keyof T]?: ViewReads };

/** What `reads` answered beside the admission (`input.prefetched`: the route's own), or, when it failed or none ran, `reads` now. */
export function viewRead<T>(input: SettingsOperationInput, reads: ViewReads<T>): Promise<T> {
  // The route's own reads: any answer is theirs (a failed one reads again).
  return prefetchedOr(input, () => reads(input.session as SettingsSession, input.platform), (value): value is T => value !== undefined);
}
export type SettingsOperation = Operation<SettingsOperationInput>;

/** How a function with web-settings routes finds the live session behind a cookie's token (settings-operations.ts). */
export type SessionLookup = (token: string, platform: Platform) => Promise<Omit<SettingsSession, 'token'> | undefined>;

/**
 * The items beyond the signed-in account that a web-settings call counts on, found from its path (a webhook callback's
 * and its organization's counters: lambdas/webhooks). Read before the one admission decision; unknown ids give none
 * (the operation then answers 404).
 */
export type AdmissionHolders = (call: {
  readonly route: RouteDefinition;
  readonly pathParameters: Readonly<Record<string, string>>;
  readonly session: Omit<SettingsSession, 'token'>;
  readonly platform: Platform;
}) => Promise<readonly SettingsHolderItem[]>;

export interface SettingsFunction extends FunctionDefinition<SettingsOperationInput> {
  /** The session lookup; without one, no session is ever found (the sign-in function's one route takes none). */
  readonly sessions?: SessionLookup;
  /** Extra holder items of this function's calls (see AdmissionHolders). */
  readonly admissionHolders?: AdmissionHolders;
  /** Per view route, the reads started beside its admission (see ViewReads). */
  readonly viewReads?: Readonly<Record<string, ViewReads>>;
  /** Per route, the reads started beside its admission that need the raw request (a creation's reads, an audit page's cursor: see Prefetch). */
  readonly prefetch?: Readonly<Record<string, Prefetch<SettingsSession>>>;
}

/** No API key; the cross-site checks; the session behind the cookie on signed-in routes. */
const sessionAuthentication = (sessions: SessionLookup | undefined): Middleware => ({
  before: async (request) => {
    const state = request.context.pipeline;
    const route = state.route as RouteDefinition;
    const { platform, event } = state;
    state.signal = admissionSignal(request.context, platform);
    refuseApiKey(event);
    enforceSameOrigin(event);
    // Every settings API call (signing in and out too; the page itself is served): two settings_session cookies are
    // refused with 400 DUPLICATE_CREDENTIAL_COOKIE before anything is read, counted or written (lambdas/shared/http/cookies.ts).
    const token = route.path.startsWith(`${SETTINGS_PATH}/api/`) ? presentedSessionToken(event.headers.get(COOKIE_HEADER)) : undefined;
    if (route.auth === 'web') return;
    const session = token && sessions ? await sessions(token, platform) : undefined;
    if (!token || !session) throw apiError('SESSION_REQUIRED');
    state.credentials = { session: { ...session, token } };
    state.accountId = session.accountId;
  },
});

/** The account's limits (and the group's extra holders), re-checking the session in the same write; a view's reads beside it. */
const settingsAdmission = (holders: AdmissionHolders | undefined, viewReads: SettingsFunction['viewReads'], prefetches: SettingsFunction['prefetch']): Middleware => ({
  before: async (request) => {
    const state = request.context.pipeline;
    const route = state.route as RouteDefinition;
    const session = (state.credentials as { session?: SettingsSession } | undefined)?.session;
    const category = route.category;
    if (session && category !== undefined && category !== 'settings-sign-in' && isSettingsCategory(category)) {
      const { platform } = state;
      // A group may count the call on more items than the account (a webhook callback, its organization): one decision.
      const extra = holders ? await holders({ route, pathParameters: state.event.pathParameters, session, platform }) : [];
      const reads = route.method === 'GET' ? viewReads?.[route.id] : undefined;
      // A failed read is read again by the operation (viewRead, prefetchedOr); a refused call's is dropped unused.
      const prefetched = startPrefetch(reads ? () => reads(session, platform) : prefetches?.[route.id], { event: state.event, caller: session, platform });
      const call = { category, accountId: session.accountId, credGen: session.credGen, sessionGen: session.sessionGen, extra };
      if (isSessionCounted(category, platform.limits)) {
        // Re-checked changes and remedies: counted on the session before the check; on the account once it passed.
        await admitSessionCall({ ...call, token: session.token }, decisionDepsOf(platform, state.signal));
        const charged = quotaLimits(platform.limits).some((limit) => limit.holder === 'settings-account' && covers(limit, category));
        const chargeAccepted = charged ? () => admitSettingsCall(call, decisionDepsOf(platform)) : async () => undefined;
        state.credentials = { ...(state.credentials as object), chargeAccepted };
      } else {
        await admitSettingsCall(call, decisionDepsOf(platform, state.signal));
      }
      state.prefetched = prefetched;
    }
    // Signing in counts by source IP and e-mail address in its operation, once the body is parsed (settings-admission.ts).
    state.admitted = true;
  },
});

/** A web-settings function's handler (settings, webhooks). */
export function createSettingsHandler(definition: SettingsFunction): ApiHandler {
  return composeApiHandler<SettingsOperationInput>(definition, {
    doors: ['web', 'session'],
    steps: [sessionAuthentication(definition.sessions), settingsAdmission(definition.admissionHolders, definition.viewReads, definition.prefetch)],
    credentials: (state) => {
      const { session, chargeAccepted } = (state.credentials ?? {}) as Pick<SettingsOperationInput, 'session' | 'chargeAccepted'>;
      return { session, ...(chargeAccepted ? { chargeAccepted } : {}) };
    },
    respond: answerWith(settingsResponse),
  });
}
