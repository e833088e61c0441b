/**
 * Web-settings sessions: a random token in the browser's cookie, only its
 * SHA-256 stored (`access` table, `SESSION#<digest>` / `SESSION`), with an
 * idle expiry (30 minutes without a request) and an absolute one (12 hours
 * after sign-in), both decided by time attributes (TTL removes the item a day
 * later, and nothing relies on it).
 *
 * A session is bound to the account's credential generation at sign-in: a
 * password change or reset, or a deactivation, ends every session of the
 * account at once, with nothing to find and delete; so does its session
 * generation, raised when two-factor is turned on (keys stay). Resolving a session reads
 * the session; the settings API's admission then re-checks the account in
 * its counter write (lambdas/settings/settings-admission.ts), and records activity at most once a minute (a
 * conditional write, so concurrent requests write once).
 *
 * Lost answers (docs/faults.md): the session's Put is conditioned on a fresh key, which only its own earlier try can
 * hold, so it is written once (writeOnce) and recognises that try as its own; recording activity and signing out
 * meet their own effect harmlessly (a failed `seen_at` condition means "recorded already"; a delete of a deleted
 * item deletes nothing).
 */
import { randomBytes } from 'node:crypto';
import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { accountKey, type AccountItem } from '../shared/identity/access-items';
import { auditPut, type AuditSource } from './audit';
import { isConditionFailure } from '../shared/storage/conditions';
import { writeOnceOrThrow } from '../shared/storage/write-once';
import { lookupSession, SESSION_ABSOLUTE_MS, sessionKey, SESSION_TOKEN_PATTERN, type LiveSession, type SessionItem } from './session-item';
import { BackOfficeError } from './errors';
import type { IdentityStore } from './identity-store';

export { SESSION_ABSOLUTE_MS, SESSION_FAILED_RECHECKS, SESSION_IDLE_MS, SESSION_TOKEN_PATTERN, sessionDigest, sessionKey } from './session-item';

export interface OpenSession {
  /** For the cookie only; never stored. */
  readonly token: string;
  readonly expires_at: string;
}

/**
 * The transaction item that ends every session of the account: its session generation raised (sessions opened under
 * an older one answer 401 SESSION_REQUIRED from their next admission). Keys do not follow it.
 */
export function endingSessions(store: IdentityStore, accountId: string) {
  return {
    Update: {
      TableName: store.table,
      Key: accountKey(accountId),
      UpdateExpression: 'SET session_gen = if_not_exists(session_gen, :zero) + :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
    },
  };
}

export class Sessions {
  constructor(private readonly store: IdentityStore) {}

  /** A session for an account that just signed in (its item, when the caller has just read it: no second read). */
  async open(accountOrId: string | AccountItem): Promise<OpenSession> {
    const account = typeof accountOrId === 'string' ? await this.store.getAccount(accountOrId) : accountOrId;
    const accountId = typeof accountOrId === 'string' ? accountOrId : accountOrId.account_id;
    if (!account || account.status !== 'active') throw new BackOfficeError('ACCOUNT_INACTIVE', 'The account cannot sign in.');
    const now = this.store.clock();
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
    const item: SessionItem = { account_id: accountId, cred_gen: account.cred_gen, session_gen: account.session_gen ?? 0, created_at: now.toISOString(), seen_at: now.toISOString(), expires_at: expiresAt.toISOString() };
    // The condition can fail only on this write's own earlier try (the SDK's retry after a lost answer), which writeOnce
    // recognises: without it the browser got a 500 and no cookie for a session that exists.
    await writeOnceOrThrow(
      this.store.client,
      new PutCommand({
        TableName: this.store.table,
        Item: { ...sessionKey(token), type: 'session', ...item, ttl: Math.floor(expiresAt.getTime() / 1000) + 86_400 },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
      () => new Error('A fresh session token met an existing session'),
    );
    return { token, expires_at: item.expires_at };
  }

  /**
   * The session behind `token` if it is live by its times: the account and the credential generation
   * it was opened under, for the settings admission to re-check in its counter write (one read here).
   * Records activity at most once a minute (session-item.ts).
   */
  lookup(token: string | undefined): Promise<LiveSession | undefined> {
    return lookupSession({ client: this.store.client, table: this.store.table, clock: this.store.clock }, token);
  }

  /** The signed-in account behind `token`, or undefined when the session is unknown, idle, past its end, or its account changed. */
  async resolve(token: string | undefined): Promise<AccountItem | undefined> {
    const session = await this.lookup(token);
    if (!session) return undefined;
    const account = await this.store.getAccount(session.accountId);
    if (!account || account.status !== 'active' || account.cred_gen !== session.credGen || (account.session_gen ?? 0) !== session.sessionGen) return undefined;
    return account;
  }

  /**
   * A failed password or code re-check in this session (lambdas/settings/re-check.ts): `failureId`, fresh per failure, joins the
   * session's set of failures, and the answer is how many it holds. A set, so the SDK's retry of a write whose answer
   * was lost adds nothing; `gone`: the session had ended already (nothing left to end).
   */
  async recordFailedReCheck(token: string, failureId: string): Promise<{ failures: number; gone: boolean }> {
    try {
      const { Attributes } = await this.store.client.send(
        new UpdateCommand({
          TableName: this.store.table,
          Key: sessionKey(token),
          UpdateExpression: 'ADD failed_rechecks :failure',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':failure': new Set([failureId]) },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      const failures = Attributes?.failed_rechecks;
      return { failures: failures instanceof Set ? failures.size : 1, gone: false };
    } catch (error) {
      if (isConditionFailure(error)) return { failures: 0, gone: true };
      throw error;
    }
  }

  /**
   * Sign out everywhere: the account's session generation rises, with its audit entry, in one transaction, so every
   * session of the account (the caller's included) answers 401 SESSION_REQUIRED from its next call. Keys stay.
   * A retry raises it once more, which ends nothing more.
   */
  async endAll(accountId: string, source: AuditSource): Promise<void> {
    await this.store.client.send(
      new TransactWriteCommand({
        TransactItems: [
          endingSessions(this.store, accountId),
          auditPut(this.store, accountId, 'sessions.ended', source),
        ],
      }),
    );
  }

  /** Sign out: the session is gone (also when it already was). */
  async close(token: string | undefined): Promise<void> {
    if (!token || !SESSION_TOKEN_PATTERN.test(token)) return;
    await this.store.client.send(new DeleteCommand({ TableName: this.store.table, Key: sessionKey(token) }));
  }
}
