/**
 * The settings API's operations: thin adapters from the pipeline's parsed
 * input to the back office's domain (the same sign-in, sessions, keys,
 * accounts and audit code the admin CLI uses), and from its errors to the
 * spec's web-settings codes. The pipeline has already refused API keys,
 * cross-site requests (web-session.ts), and, on signed-in routes, checked the
 * session and counted the account's limits (settings-admission.ts).
 */
import type { BackOffice, CreateKeyInput } from '../back-office/back-office';
import { isEarlierKeyCreation, type EarlierKeyCreation, type KeyCreation } from '../back-office/api-keys';
import { decodeAuditCursor } from '../back-office/audit';
import { SESSION_ABSOLUTE_MS } from '../back-office/sessions';
import { viewRead, type SettingsOperation as Operation, type SettingsSession, type ViewReads } from './settings-pipeline';
import { clearedSessionCookie, presentedSessionToken, sessionCookie } from './web-session';
import { isAcceptablePassword, PASSWORD_MAX_CHARACTERS, PASSWORD_MIN_CHARACTERS } from '../back-office/passwords';
import type { AccountItem } from '../shared/identity/access-items';
import { COOKIE_HEADER } from '../shared/http/credential-headers';
import { prefetchedOr, type Prefetch } from '../shared/http/pipeline';
import { optionalIdempotencyKey, prefetchIdempotencyKey } from './idempotency-key';
import { reChecked } from './re-check';
import { domain, officeOf, sessionOf, sessionView, sourceOf } from './settings-office';
import { ApiError } from '../shared/errors';
import type { SignInItem } from '../back-office/sign-in-items';

export { lookupSession } from './settings-office';

const signOutOperation: Operation = async (input) => {
  await officeOf(input.platform).sessions.close(presentedSessionToken(input.headers.get(COOKIE_HEADER)));
  return { data: { signed_out: true }, headers: { 'Set-Cookie': clearedSessionCookie(input.fullPath) } };
};

/** The views' reads, which the pipeline starts beside their admission (settings-pipeline.ts ViewReads). */
const accountReads: ViewReads<{ account: AccountItem | undefined; signIn: SignInItem | undefined }> = async (session, platform) => {
  const office = officeOf(platform);
  const [account, signIn] = await Promise.all([office.accounts.get(session.accountId), office.signIn.get(session.accountId)]);
  return { account, signIn };
};
const organizationReads: ViewReads<Awaited<ReturnType<BackOffice['memberships']['ofAccount']>>> = (session, platform) => officeOf(platform).memberships.ofAccount(session.accountId);
const keyReads: ViewReads<Awaited<ReturnType<BackOffice['keys']['list']>>> = (session, platform) => officeOf(platform).keys.list(session.accountId);

export const settingsViewReads: Readonly<Record<string, ViewReads>> = {
  'settings-session': accountReads,
  'settings-organizations': organizationReads,
  'settings-keys': keyReads,
};

const sessionOperation: Operation = async (input) => {
  const session = sessionOf(input);
  const { account, signIn } = await viewRead(input, accountReads);
  if (!account || !signIn) throw new ApiError('SESSION_REQUIRED');
  return { data: await sessionView(officeOf(input.platform), session.accountId, session.expiresAt, { account, signIn }) };
};

const organizationsOperation: Operation = async (input) => ({
  data: { organizations: await viewRead(input, organizationReads) },
});

const keysOperation: Operation = async (input) => {
  const { keys } = await viewRead(input, keyReads);
  return { data: { keys: keys.map(({ key_id, name, partner_id, scopes, created_at, expires_at, status, reason }) => ({ key_id, name, partner_id, scopes, created_at, expires_at, status, ...(reason ? { reason } : {}) })) } };
};

/** The key creation's earlier attempt with the request's Idempotency-Key (the account's key entries), read beside its admission. */
const prefetchKeyCreation: Prefetch<SettingsSession> = ({ event, caller, platform }) => {
  const idempotencyKey = prefetchIdempotencyKey(event.headers);
  return idempotencyKey ? officeOf(platform).keys.earlierCreation(caller.accountId, idempotencyKey) : undefined;
};

export const settingsPrefetch: Readonly<Record<string, Prefetch<SettingsSession>>> = { 'settings-key-create': prefetchKeyCreation };

/** 201 with the new key and its value; 200 with the key an earlier attempt of the same request created, without it. */
function keyAnswer(creation: KeyCreation) {
  if (creation.outcome === 'conflict') throw new ApiError('IDEMPOTENCY_CONFLICT');
  const { key_id, name, partner_id, scopes, created_at, expires_at } = creation.key;
  const replayed = creation.outcome === 'replayed';
  return { status: replayed ? 200 : 201, data: { key_id, key: replayed ? null : creation.key.key, name, partner_id, scopes, created_at, expires_at, replayed } };
}

const keyCreateOperation: Operation = async (input) => {
  const body = input.body as { name?: string; partner_id?: string; scopes: string[]; days?: number; permanent?: boolean; password: string; two_factor_code?: string };
  const office = officeOf(input.platform);
  const { accountId } = sessionOf(input);
  const idempotencyKey = optionalIdempotencyKey(input.headers);
  const request: CreateKeyInput = {
    accountId,
    name: body.name,
    partnerId: body.partner_id,
    scopes: body.scopes,
    days: body.days,
    permanent: body.permanent,
    source: sourceOf(input),
  };
  // An earlier attempt of this request is answered before the re-check: the answer shows no key value (that was shown
  // once), nothing the session cannot list, and a retry needs no second two-factor code (the first was used).
  if (idempotencyKey) {
    const ours = (read: unknown): read is EarlierKeyCreation => isEarlierKeyCreation(read) && read.idempotencyKey === idempotencyKey && read.accountId === accountId;
    const earlier = await prefetchedOr(input, () => office.keys.earlierCreation(accountId, idempotencyKey), ours);
    if (earlier.entry) return keyAnswer(office.keys.replay(earlier.entry, request));
  }
  // A session alone (stolen, or a browser left open) does not mint a key: the password, and a code when two-factor is on;
  // counted on the account's change quotas once they passed (re-check.ts).
  await domain(() => reChecked(input, office, async (accepted) => {
    await office.signIn.confirm(accountId, body.password, body.two_factor_code);
    await accepted();
  }));
  if (!idempotencyKey) return keyAnswer({ outcome: 'created', key: await domain(() => office.keys.create(request)) });
  return keyAnswer(await domain(() => office.keys.createIdempotent(request, idempotencyKey)));
};

const keyRevokeOperation: Operation = async (input) => {
  const keyId = String(input.pathParameters.key_id);
  return { data: await domain(() => officeOf(input.platform).keys.revoke(keyId, { by: sessionOf(input).accountId, source: sourceOf(input) })) };
};

const passwordOperation: Operation = async (input) => {
  const body = input.body as { current_password: string; new_password: string };
  if (!isAcceptablePassword(body.new_password)) {
    throw new ApiError('INVALID_FIELD', `The new password needs ${PASSWORD_MIN_CHARACTERS}–${PASSWORD_MAX_CHARACTERS} characters, not only spaces (new_password).`);
  }
  const office = officeOf(input.platform);
  const { accountId, expiresAt } = sessionOf(input);
  const changed = await domain(() => reChecked(input, office, () => office.accounts.changePassword(accountId, body.current_password, body.new_password, sourceOf(input))));
  // A retry of a change already made (docs/web-settings.md): nothing changed now; the session it came with goes on.
  if (changed.replayed) return { data: { password_changed: true, session_expires_at: expiresAt } };
  // Every session of the account ended with the change; this browser signs in again at once.
  const opened = await domain(() => office.sessions.open(accountId));
  return {
    data: { password_changed: true, session_expires_at: opened.expires_at },
    headers: { 'Set-Cookie': sessionCookie(opened.token, input.fullPath, SESSION_ABSOLUTE_MS / 1000) },
  };
};

const enrolOperation: Operation = async (input) => {
  const { password } = input.body as { password: string };
  const office = officeOf(input.platform);
  return { data: await domain(() => reChecked(input, office, (accepted) => office.signIn.enrolTwoFactor(sessionOf(input).accountId, password, sourceOf(input), accepted))) };
};

const confirmOperation: Operation = async (input) => {
  const { password, code } = input.body as { password: string; code: string };
  const office = officeOf(input.platform);
  const { accountId, expiresAt } = sessionOf(input);
  const confirmed = await domain(() => reChecked(input, office, () => office.signIn.confirmTwoFactor(accountId, password, code, sourceOf(input))));
  // A retry of a confirmation already made: nothing changed now, and a used code opens no session.
  if (confirmed.replayed) return { data: { two_factor: 'on' as const, session_expires_at: expiresAt } };
  // Every session of the account ended with it; this browser signs in again at once.
  const opened = await domain(() => office.sessions.open(accountId));
  return {
    data: { two_factor: 'on' as const, session_expires_at: opened.expires_at },
    headers: { 'Set-Cookie': sessionCookie(opened.token, input.fullPath, SESSION_ABSOLUTE_MS / 1000) },
  };
};

const disableOperation: Operation = async (input) => {
  const { password, code } = input.body as { password: string; code: string };
  const office = officeOf(input.platform);
  return { data: await domain(() => reChecked(input, office, (accepted) => office.signIn.disableTwoFactor(sessionOf(input).accountId, password, code, sourceOf(input), accepted))) };
};

/** Sign out everywhere: every session of the account ends, this one too (its cookie cleared); keys stay. Needs no password. */
const signOutEverywhereOperation: Operation = async (input) => {
  await domain(() => officeOf(input.platform).sessions.endAll(sessionOf(input).accountId, sourceOf(input)));
  return { data: { signed_out: true }, headers: { 'Set-Cookie': clearedSessionCookie(input.fullPath) } };
};

const auditOperation: Operation = async (input) => {
  const cursor = (input.query as { cursor?: string }).cursor;
  if (cursor !== undefined && decodeAuditCursor(cursor) === undefined) throw new ApiError('INVALID_CURSOR', 'The cursor is not one this view gave: start again without it.');
  return { data: await domain(() => officeOf(input.platform).audit.page(sessionOf(input).accountId, cursor)) };
};

export const settingsOperations = {
  'settings-sign-out': signOutOperation,
  'settings-session': sessionOperation,
  'settings-organizations': organizationsOperation,
  'settings-keys': keysOperation,
  'settings-key-create': keyCreateOperation,
  'settings-key-revoke': keyRevokeOperation,
  'settings-password': passwordOperation,
  'settings-two-factor-enrol': enrolOperation,
  'settings-two-factor-confirm': confirmOperation,
  'settings-two-factor-disable': disableOperation,
  'settings-sign-out-everywhere': signOutEverywhereOperation,
  'settings-audit': auditOperation,
} satisfies Record<string, Operation>;
