/**
 * Re-checked changes in web settings (docs/web-settings.md, "A session alone is not enough"): the password (and a
 * code when two-factor is on) asked again before a change that outlives the session.
 *
 * - **Counted where only the session pays.** The pipeline counts such a call on the session's own item before the
 *   check (`settings-session-*` rows, settings-admission.ts `admitSessionCall`), and on the account's change quotas
 *   only once the check passed (`chargeAccepted`). So a stolen session's wrong guesses spend nothing the owner's
 *   session needs; the remedies (password change, two-factor confirm, sign out everywhere) never count on the account.
 * - **Every failure seen.** A wrong password or code is audited (`reauth.failed`, with the route and source IP) and
 *   joins the session's failures; the SESSION_FAILED_RECHECKS-th ends the session (`session.ended`). The session row
 *   bounds how many guesses can be in flight before the failures are recorded.
 */
import { randomUUID } from 'node:crypto';
import type { BackOffice } from '../back-office/back-office';
import { BackOfficeError } from '../back-office/errors';
import { SESSION_FAILED_RECHECKS } from '../back-office/sessions';
import type { Accepted } from '../back-office/sign-in';
import type { SettingsOperationInput, SettingsSession } from './settings-pipeline';

/** A wrong password or code, as the back office tells it apart from refusals that share the code. */
export const isWrongSecret = (error: unknown): boolean => error instanceof BackOfficeError && error.wrongSecret;

/**
 * Run a domain call that re-checks the password (and code): `accepted` (to call once the check passed, before the
 * change) counts the call on the account's change quotas; a wrong secret is recorded before its error is answered.
 */
export async function reChecked<T>(input: SettingsOperationInput, office: Pick<BackOffice, 'sessions' | 'audit'>, call: (accepted: Accepted) => Promise<T>): Promise<T> {
  const accepted: Accepted = input.chargeAccepted ?? (async () => undefined);
  try {
    return await call(accepted);
  } catch (error) {
    if (isWrongSecret(error)) await recordFailure(input, office);
    throw error;
  }
}

/** The failure audited and added to the session's (one round trip); the session ended at its last allowed one (one more). */
async function recordFailure(input: SettingsOperationInput, office: Pick<BackOffice, 'sessions' | 'audit'>): Promise<void> {
  const session = input.session as SettingsSession;
  const source = { via: 'settings' as const, sourceIp: input.sourceIp };
  const details = { route: `${input.route.method} ${input.route.path}` };
  // A fresh id per failure, never the request's (a client can choose API Gateway's request id and so repeat it).
  const [{ failures, gone }] = await Promise.all([
    office.sessions.recordFailedReCheck(session.token, randomUUID()),
    office.audit.record(session.accountId, 'reauth.failed', source, details),
  ]);
  if (gone || failures < SESSION_FAILED_RECHECKS) return;
  // Concurrent failures count 1, 2, 3, …: the one that reached the bound records the end (a later one ends it again if needed).
  await Promise.all([
    office.sessions.close(session.token),
    ...(failures === SESSION_FAILED_RECHECKS ? [office.audit.record(session.accountId, 'session.ended', source, details)] : []),
  ]);
}
