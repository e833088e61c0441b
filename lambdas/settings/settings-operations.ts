/**
 * The settings API's operations: thin adapters from the pipeline's parsed
 * input to the back office's domain (the same sign-in, sessions, keys,
 * accounts and audit code the admin CLI uses), and from its errors to the
 * spec's web-settings codes. The pipeline has already refused API keys,
 * cross-site requests (web-session.ts), and, on signed-in routes, checked the
 * session and counted the account's limits (settings-admission.ts).
 */
import type { BackOffice, CreateKeyInput } from '../back-office/back-office';
import type { KeyCreation, KeyCreationReads } from '../back-office/api-keys';
import { decodeAuditCursor } from '../back-office/audit';
import { SESSION_ABSOLUTE_MS } from '../back-office/sessions';
import { viewRead, type GroupViewReads, type SettingsOperationInput, type SettingsSession, type ViewReads } from './settings-pipeline';
import { clearedSessionCookie, presentedSessionToken, sessionCookie } from './web-session';
import { isAcceptablePassword, PASSWORD_MAX_CHARACTERS, PASSWORD_MIN_CHARACTERS } from '../back-office/passwords';
import type { AccountItem } from '../shared/identity/access-items';
import { isScope } from '../shared/identity/scopes';
import { COOKIE_HEADER } from '../shared/http/credential-headers';
import { prefetchedOr, type GroupOperations, type GroupPrefetch, type OperationOf, type Prefetch } from '../shared/http/pipeline';
import type { ApiEvent } from '../shared/http/api-event';
import { optionalIdempotencyKey } from './idempotency-key';
import { reChecked } from './re-check';
import { domain, officeOf, sessionOf, sessionView, sourceOf } from './settings-office';
import { ApiError } from '../shared/errors';
import type { SignInItem } from '../back-office/sign-in-items';
import type { SETTINGS_CONTRACTS } from './settings-contracts';

/** Each operation is typed by its route's contract (settings-contracts.ts): its parsed input, the data it may answer. */
type Contracts = typeof SETTINGS_CONTRACTS;

const signOutOperation: OperationOf<Contracts, 'settings-sign-out', SettingsOperationInput> = async (input) => {
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

export const SETTINGS_VIEW_READS = {
  'settings-session': accountReads,
  'settings-organizations': organizationReads,
  'settings-keys': keyReads,
} satisfies GroupViewReads<Contracts>;

const sessionOperation: OperationOf<Contracts, 'settings-session', SettingsOperationInput> = async (input) => {
  const session = sessionOf(input);
  const { account, signIn } = await viewRead(input, accountReads);
  if (!account || !signIn) throw new ApiError('SESSION_REQUIRED');
  return { data: await sessionView(officeOf(input.platform), session.accountId, session.expiresAt, { account, signIn }) };
};

const organizationsOperation: OperationOf<Contracts, 'settings-organizations', SettingsOperationInput> = async (input) => ({
  data: { organizations: await viewRead(input, organizationReads) },
});

/** A key's scopes are stored as strings (KeyFacts), each a Scope checked at creation: isScope narrows them to the contract's enum. */
const keysOperation: OperationOf<Contracts, 'settings-keys', SettingsOperationInput> = async (input) => {
  const { keys } = await viewRead(input, keyReads);
  return { data: { keys: keys.map(({ key_id, name, partner_id, scopes, created_at, expires_at, status, reason }) => ({ key_id, name, partner_id, scopes: scopes.filter(isScope), created_at, expires_at, status, ...(reason ? { reason } : {}) })) } };
};

/** What a key creation decides from (its earlier attempt, the count, the organization) and the sign-in item its re-check reads. */
interface KeyCreationPrefetch {
  readonly kind: 'key-creation';
  readonly reads: KeyCreationReads;
  readonly signIn: SignInItem | undefined;
}
const isKeyCreationPrefetch = (value: unknown): value is KeyCreationPrefetch => (value as KeyCreationPrefetch | undefined)?.kind === 'key-creation';

/** The body's `partner_id` as the request sent it, for a read only: the contract has not judged the body yet. */
function partnerIdOf(body: ApiEvent['body']): string | undefined {
  try {
    const partnerId = (JSON.parse(body?.toString('utf8') ?? '') as { partner_id?: unknown } | null)?.partner_id;
    return typeof partnerId === 'string' && partnerId.length > 0 && partnerId.length <= 128 ? partnerId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Everything the key creation reads, beside its admission (one round trip): the creation's reads (the account, the
 * organization the body names, the account's key and organization entries) and the sign-in item. The operation uses
 * the creation's reads only when they are for its validated body's organization (api-keys.ts mint).
 */
const prefetchKeyCreation: Prefetch<SettingsSession> = ({ event, caller, platform }) => {
  const office = officeOf(platform);
  return Promise.all([office.keys.creationReads(caller.accountId, partnerIdOf(event.body)), office.signIn.get(caller.accountId)]).then(
    ([reads, signIn]): KeyCreationPrefetch => ({ kind: 'key-creation', reads, signIn }),
  );
};

/** The audit page a view's cursor names, tagged with its account and cursor so the operation knows it for its own. */
interface AuditPageRead {
  readonly kind: 'audit-page';
  readonly accountId: string;
  readonly cursor: string | undefined;
  readonly page: Awaited<ReturnType<BackOffice['audit']['page']>>;
}
const isAuditPageRead = (value: unknown): value is AuditPageRead => (value as AuditPageRead | undefined)?.kind === 'audit-page';

/**
 * The audit view's page (one Query, whatever its depth: the cursor is the last entry's sort key), read beside its
 * admission. A cursor given more than once, or not one this view gave, reads nothing: the operation answers 400.
 */
const prefetchAuditPage: Prefetch<SettingsSession> = ({ event, caller, platform }) => {
  const cursors = event.query.get('cursor');
  if (cursors !== undefined && cursors.length !== 1) return undefined;
  const cursor = cursors?.[0];
  if (cursor !== undefined && decodeAuditCursor(cursor) === undefined) return undefined;
  return officeOf(platform)
    .audit.page(caller.accountId, cursor)
    .then((page): AuditPageRead => ({ kind: 'audit-page', accountId: caller.accountId, cursor, page }));
};

export const SETTINGS_PREFETCH = { 'settings-key-create': prefetchKeyCreation, 'settings-audit': prefetchAuditPage } satisfies GroupPrefetch<Contracts, SettingsSession>;

/** 201 with the new key and its value; 200 with the key an earlier attempt of the same request created, without it. */
function keyAnswer(creation: KeyCreation) {
  if (creation.outcome === 'conflict') throw new ApiError('IDEMPOTENCY_CONFLICT');
  const { key_id, name, partner_id, scopes, created_at, expires_at } = creation.key;
  const replayed = creation.outcome === 'replayed';
  return { status: replayed ? 200 : 201, data: { key_id, key: replayed ? null : creation.key.key, name, partner_id, scopes: scopes.filter(isScope), created_at, expires_at, replayed } };
}

const keyCreateOperation: OperationOf<Contracts, 'settings-key-create', SettingsOperationInput> = async (input) => {
  const { body } = input;
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
  // Read beside the admission (or now, when that read failed): so the call's sequential round trips are the session,
  // the admission with these reads, the account's change quotas, and the key's transaction.
  const ours = (read: unknown): read is KeyCreationPrefetch => isKeyCreationPrefetch(read) && read.reads.accountId === accountId;
  const { reads, signIn } = await prefetchedOr(input, async (): Promise<KeyCreationPrefetch> => ({ kind: 'key-creation', reads: await office.keys.creationReads(accountId, body.partner_id), signIn: undefined }), ours);
  // An earlier attempt of this request is answered before the re-check: the answer shows no key value (that was shown
  // once), nothing the session cannot list, and a retry needs no second two-factor code (the first was used).
  if (idempotencyKey) {
    const earlier = office.keys.earlierIn(reads, idempotencyKey);
    if (earlier.entry) return keyAnswer(office.keys.replay(earlier.entry, request));
  }
  // A session alone (stolen, or a browser left open) does not mint a key: the password, and a code when two-factor is on;
  // counted on the account's change quotas once they passed (re-check.ts).
  await domain(() => reChecked(input, office, async (accepted) => {
    await office.signIn.confirm(accountId, body.password, body.two_factor_code, signIn);
    await accepted();
  }));
  if (!idempotencyKey) return keyAnswer({ outcome: 'created', key: await domain(() => office.keys.create(request, reads)) });
  return keyAnswer(await domain(() => office.keys.createIdempotent(request, idempotencyKey, reads)));
};

const keyRevokeOperation: OperationOf<Contracts, 'settings-key-revoke', SettingsOperationInput> = async (input) => {
  const keyId = input.pathParameters.key_id;
  return { data: await domain(() => officeOf(input.platform).keys.revoke(keyId, { by: sessionOf(input).accountId, source: sourceOf(input) })) };
};

const passwordOperation: OperationOf<Contracts, 'settings-password', SettingsOperationInput> = async (input) => {
  const { body } = input;
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

const enrolOperation: OperationOf<Contracts, 'settings-two-factor-enrol', SettingsOperationInput> = async (input) => {
  const { password } = input.body;
  const office = officeOf(input.platform);
  return { data: await domain(() => reChecked(input, office, (accepted) => office.signIn.enrolTwoFactor(sessionOf(input).accountId, password, sourceOf(input), accepted))) };
};

const confirmOperation: OperationOf<Contracts, 'settings-two-factor-confirm', SettingsOperationInput> = async (input) => {
  const { password, code } = input.body;
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

const disableOperation: OperationOf<Contracts, 'settings-two-factor-disable', SettingsOperationInput> = async (input) => {
  const { password, code } = input.body;
  const office = officeOf(input.platform);
  return { data: await domain(() => reChecked(input, office, (accepted) => office.signIn.disableTwoFactor(sessionOf(input).accountId, password, code, sourceOf(input), accepted))) };
};

/** Sign out everywhere: every session of the account ends, this one too (its cookie cleared); keys stay. Needs no password. */
const signOutEverywhereOperation: OperationOf<Contracts, 'settings-sign-out-everywhere', SettingsOperationInput> = async (input) => {
  await domain(() => officeOf(input.platform).sessions.endAll(sessionOf(input).accountId, sourceOf(input)));
  return { data: { signed_out: true }, headers: { 'Set-Cookie': clearedSessionCookie(input.fullPath) } };
};

const auditOperation: OperationOf<Contracts, 'settings-audit', SettingsOperationInput> = async (input) => {
  const { cursor } = input.query;
  if (cursor !== undefined && decodeAuditCursor(cursor) === undefined) throw new ApiError('INVALID_CURSOR', 'The cursor is not one this view gave: start again without it.');
  const { accountId } = sessionOf(input);
  // The page read beside the admission when it is this call's (the same account and cursor), else read now.
  const ours = (read: unknown): read is AuditPageRead => isAuditPageRead(read) && read.accountId === accountId && read.cursor === cursor;
  const read = await prefetchedOr(input, async () => ({ kind: 'audit-page' as const, accountId, cursor, page: await domain(() => officeOf(input.platform).audit.page(accountId, cursor)) }), ours);
  return { data: read.page };
};

/** The group's operations by route id but the page (its own chunk, settings-page.ts): the handler serves this table, loaded off the cold start. */
export const SETTINGS_OPERATIONS = {
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
} satisfies GroupOperations<Omit<Contracts, 'settings-page'>, SettingsOperationInput>;
