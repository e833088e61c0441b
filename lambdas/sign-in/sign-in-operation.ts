/**
 * Signing in to web settings (`POST /settings/api/session`), the `sign-in` function's one operation
 * (docs/web-settings.md, "Signing in"): counted by source IP and by the address (or by the browser's device cookie for
 * that address: device-cookie.ts) before any check, then the password (and code); a refusal is recorded for the
 * address's owner (refused-sign-ins.ts). On success the session, its audit entry and the refusals since the last
 * sign-in are written in one round trip, and the answer sets the session and device cookies.
 */
import { SESSION_ABSOLUTE_MS } from '../back-office/sessions';
import { EMAIL_MAX_CHARACTERS, normalizeEmail } from '../back-office/sign-in-items';
import { admitSignIn } from '../settings/settings-admission';
import { domain, officeOf, sessionView, sourceOf } from '../settings/settings-office';
import type { SettingsOperationInput } from '../settings/settings-pipeline';
import type { GroupOperations, OperationOf } from '../shared/http/pipeline';
import { sessionCookie } from '../settings/web-session';
import { decisionDepsOf } from '../shared/limits/admission';
import { logger } from '../shared/observability/logger';
import { currentRequestScope } from '../shared/observability/request-scope';
import { deviceCookieOf, presentedDevice } from './device-cookie';
import { refusedSignInsOf, signInEntryNames } from './refused-sign-ins';
import type { SIGN_IN_CONTRACTS } from './sign-in-contracts';

/** The operation is typed by its route's contract (sign-in-contracts.ts): its parsed body, the data it may answer. */
type Contracts = typeof SIGN_IN_CONTRACTS;

export const signInOperation: OperationOf<Contracts, 'settings-sign-in', SettingsOperationInput> = async (input) => {
  const { body } = input;
  const office = officeOf(input.platform);
  const { platform } = input;
  // Counted before any check, by source IP and address (an unknown or malformed one as it was typed), or by the
  // browser's device instead of the address when its device cookie is for that address (device-cookie.ts).
  const email = normalizeEmail(body.email) ?? body.email.trim().toLowerCase().slice(0, EMAIL_MAX_CHARACTERS);
  const device = await presentedDevice(input, email);
  const refused = refusedSignInsOf(platform);
  // A refusal (a limit's, a wrong password, a wrong code) is recorded for the address's owner (refused-sign-ins.ts).
  const signedIn = await refused.recordingRefusal(email, body.two_factor_code, async () => {
    await admitSignIn({ sourceIp: input.sourceIp ?? 'unknown', email, deviceId: device?.deviceId }, decisionDepsOf(platform, input.admissionSignal));
    return domain(() =>
      office.signIn.authenticate({
        email: body.email,
        password: body.password,
        twoFactorCode: body.two_factor_code,
        source: sourceOf(input),
        // The call log names the account of a known address, also on a refusal (never in the answer).
        onAccount: (accountId) => {
          const scope = currentRequestScope();
          if (scope) scope.accountId = accountId;
        },
      }),
    );
  });
  const accountId = signedIn.account.account_id;
  const entries = signInEntryNames(platform.clock());
  // The session, its audit entry and the refusals since the last sign-in (taken: one conditional write) in parallel:
  // one round trip.
  const [opened, , refusals] = await Promise.all([
    domain(() => office.sessions.open(signedIn.account)),
    office.audit.record(accountId, 'sign_in.succeeded', sourceOf(input), {}, entries.signedIn),
    refused.take(email),
  ]);
  // Only after refusals: their count in the trail (a failure is logged; the answer still shows them).
  if (refusals) {
    await office.audit
      .record(accountId, 'sign_in.refused_attempts', sourceOf(input), { count: refusals.count }, entries.refused)
      .catch((error: unknown) => logger.error('refused sign-ins not audited', { error }));
  }
  const view = await sessionView(office, accountId, opened.expires_at, signedIn);
  return {
    data: refusals ? { ...view, refused_sign_ins: refusals } : view,
    cookies: [sessionCookie(opened.token, input.fullPath, SESSION_ABSOLUTE_MS / 1000), ...(await deviceCookieOf(input, email, device))],
  };
};

/** The group's one operation by route id: the handler serves this table, loaded off the cold start. */
export const SIGN_IN_OPERATIONS = { 'settings-sign-in': signInOperation } satisfies GroupOperations<Contracts, SettingsOperationInput>;
