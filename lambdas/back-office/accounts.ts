/**
 * Accounts: creation and the lifecycle triggers that revoke an account's
 * keys. Deactivation, re-activation and a password reset are each one
 * conditional write to the account item (status, `cred_gen`): no key has to
 * be found and rewritten, so none can be missed, and restoring restores
 * nothing (docs/identity.md).
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { accountKey, type AccountItem } from '../shared/identity/access-items';
import { hashPassword, isAcceptablePassword, PASSWORD_MAX_CHARACTERS, PASSWORD_MIN_CHARACTERS, verifyPassword } from './passwords';
import { emailKey, normalizeEmail, signInKey, type SignInItem } from './sign-in-items';
import { isConditionFailure, isWriteConflict } from '../shared/storage/conditions';
import { auditPut, OPERATOR, type AuditAction, type AuditSource } from './audit';
import { BackOfficeError } from './errors';
import { CHANGE_RETRY_WINDOW_MS } from './change-retry';
import { firstRunOf, randomId, type IdentityStore } from './identity-store';
import { cancelledItem, repeatableRequest, requestScopedId } from '../shared/storage/repeatable-requests';

/** Never reserved: not an address normalizeEmail accepts. */
const DECOY_ADDRESS = 'decoy address (never reserved)';
/** Never an account: ids are `acc_` and hex (randomId). */
const DECOY_ACCOUNT_ID = 'acc_decoy';

export class Accounts {
  constructor(private readonly store: IdentityStore) {}

  /**
   * A new account. With `email`, the account can sign in to web settings once it has a password
   * (given here, or later with setPassword): the address is reserved in the same transaction, so
   * two accounts never share one, however concurrent their creation.
   *
   * With `requestId` (the admin CLI's `--request-id`) the account's id is derived from it, so running
   * the same request again (after an error that left its outcome unknown) answers the account the
   * first run made, `replayed`, instead of making a second one or refusing its own address as taken;
   * the same id with another name, address or password is REQUEST_ID_REUSED.
   */
  async create(
    name = 'Account',
    credentials: { email?: string; password?: string } = {},
    requestId?: string,
  ): Promise<{ account_id: string; email?: string; replayed?: true }> {
    if (credentials.email === undefined && credentials.password !== undefined) throw new BackOfficeError('INVALID_ARGUMENT', 'A password needs an e-mail address to sign in with');
    const email = credentials.email === undefined ? undefined : normalizeEmail(credentials.email);
    if (credentials.email !== undefined && email === undefined) throw new BackOfficeError('INVALID_ARGUMENT', 'The e-mail address is not valid');
    const request = requestId === undefined ? undefined : repeatableRequest('account create', requestId, { name, email, password: credentials.password !== undefined });
    const now = this.store.clock().toISOString();
    const account: AccountItem = {
      account_id: request ? requestScopedId('acc', request) : randomId('acc'),
      name,
      status: 'active',
      cred_gen: 1,
      key_set_version: 0,
      created_at: now,
      updated_at: now,
    };
    const firstRun = (first: Record<string, unknown>) => this.isFirstRun(first, name, email, credentials.password);
    if (email === undefined) {
      const existing = await this.store.putNew(accountKey(account.account_id), 'account', account);
      if (!existing) return { account_id: account.account_id };
      await firstRunOf(request, existing, firstRun);
      return { account_id: account.account_id, replayed: true };
    }
    const signIn: SignInItem = {
      account_id: account.account_id,
      email,
      ...(credentials.password !== undefined ? { password_hash: await hashPassword(checkedPassword(credentials.password)), password_changed_at: now } : {}),
    };
    const table = this.store.table;
    try {
      await this.store.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: table,
                Item: { ...accountKey(account.account_id), type: 'account', ...account, leases: {} },
                ConditionExpression: 'attribute_not_exists(pk)',
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            { Put: { TableName: table, Item: { ...signInKey(account.account_id), type: 'sign_in', ...signIn } } },
            { Put: { TableName: table, Item: { ...emailKey(email), type: 'email', account_id: account.account_id }, ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The account's own id is taken only by this request's first run (its id is derived from the request id).
      const existing = cancelledItem(error, 0);
      if (!existing) throw new BackOfficeError('EMAIL_TAKEN', `Another account uses ${email}`);
      await firstRunOf(request, existing, firstRun);
      return { account_id: account.account_id, email, replayed: true };
    }
    return { account_id: account.account_id, email };
  }

  /**
   * Whether the account a creation met under its request's id is what this run asks for: its name, its address (none,
   * or this one) and, when a password is given, that password (the hash is salted: verified, not compared). Read and
   * checked on a re-run only; the account item keeps no fingerprint (it stays under 1 KB: docs/limits.md).
   */
  private async isFirstRun(first: Record<string, unknown>, name: string, email: string | undefined, password: string | undefined): Promise<boolean> {
    if (first.name !== name) return false;
    const signIn = (await this.store.getItem(signInKey(String(first.account_id)))) as SignInItem | undefined;
    if (signIn?.email !== email) return false;
    return password === undefined || (signIn?.password_hash !== undefined && (await verifyPassword(password, signIn.password_hash)));
  }

  /** The account signing in with `email` (normalized), with its credentials; undefined when none. */
  async findByEmail(email: string): Promise<{ account: AccountItem; signIn: SignInItem } | undefined> {
    // An unknown or malformed address reads the same items as a known one (a reservation, then an account and its
    // sign-in item in parallel: decoys that never exist), so the round trips and read units of a sign-in do not
    // tell which addresses have an account (issue 21, finding 10; the password work is equal too: sign-in.ts).
    const normalized = normalizeEmail(email);
    const reservation = await this.store.getItem(emailKey(normalized ?? DECOY_ADDRESS));
    const accountId = reservation && normalized ? String(reservation.account_id) : DECOY_ACCOUNT_ID;
    const [account, signIn] = await Promise.all([this.store.getAccount(accountId), this.store.getItem(signInKey(accountId))]);
    if (!reservation || !normalized) return undefined;
    return account && signIn ? { account, signIn: signIn as unknown as SignInItem } : undefined;
  }

  /**
   * `account set-password`: a reset by the operator, or the account's own change. The new hash and a
   * raised credential generation in one transaction: every key of the account (and, once webhooks
   * exist, every webhook) is revoked for good. The account must have an e-mail to sign in with.
   */
  async setPassword(accountId: string, password: string): Promise<{ account_id: string; status: string }> {
    return this.writePassword(accountId, password, OPERATOR);
  }

  /**
   * The account's own change in web settings: the current password first (INVALID_PASSWORD), then
   * the new hash under the condition that the password is still the one just verified, so of two
   * concurrent changes with the same current password exactly one succeeds. Like a reset, it
   * revokes every key of the account for good and ends its sessions.
   *
   * `replayed`: the caller's retry of this very change, made while it saw an error (every answer lost,
   * or the function ended after the write): `current` is the password the change replaced and `next`
   * the one it set, within CHANGE_RETRY_WINDOW_MS. Nothing is written again (docs/web-settings.md).
   */
  async changePassword(accountId: string, current: string, next: string, source: AuditSource): Promise<{ account_id: string; status: string; replayed: boolean }> {
    checkedPassword(next);
    const signIn = (await this.store.getItem(signInKey(accountId))) as SignInItem | undefined;
    if (signIn?.password_hash && (await verifyPassword(current, signIn.password_hash))) {
      return { ...(await this.writePassword(accountId, next, source, signIn.password_hash)), replayed: false };
    }
    if (signIn && (await this.madeChange(signIn, current, next))) {
      const account = (await this.store.getAccount(accountId)) as AccountItem;
      return { account_id: account.account_id, status: account.status, replayed: true };
    }
    throw new BackOfficeError('INVALID_PASSWORD', 'The current password is wrong.', true);
  }

  /**
   * Whether the account's last own change, within the retry window, replaced `current` with `next`. Both are checked
   * whatever the first gives, so neither the answer nor its time tells a caller whether `current` alone was the
   * replaced password: only a caller who also knows the password now stored learns anything. Outside the window a
   * refusal costs one verification, as before; inside it, three.
   */
  private async madeChange(signIn: SignInItem, current: string, next: string): Promise<boolean> {
    if (!signIn.password_hash || !signIn.previous_password_hash || !signIn.password_changed_at) return false;
    if (this.store.clock().getTime() - Date.parse(signIn.password_changed_at) > CHANGE_RETRY_WINDOW_MS) return false;
    const replaced = await verifyPassword(current, signIn.previous_password_hash);
    const set = await verifyPassword(next, signIn.password_hash);
    return replaced && set;
  }

  private async writePassword(accountId: string, password: string, source: AuditSource, expectedHash?: string): Promise<{ account_id: string; status: string }> {
    const hash = await hashPassword(checkedPassword(password));
    const now = this.store.clock().toISOString();
    const table = this.store.table;
    // A lost race with another transaction on these items (TransactionConflict) is tried again; a failed condition is answered.
    await this.store.retryOnConflict(async () => {
      try {
        await this.store.client.send(
          new TransactWriteCommand({
            TransactItems: [
              raisedCredentialGeneration(table, accountId, now),
              {
                Update: {
                  TableName: table,
                  Key: signInKey(accountId),
                  // The account's own change keeps the hash it replaced, by which its caller's retry is known (changePassword);
                  // an operator's reset keeps none (re-running it sets the password again).
                  UpdateExpression:
                    expectedHash === undefined
                      ? 'SET password_hash = :hash, password_changed_at = :now REMOVE previous_password_hash'
                      : 'SET password_hash = :hash, password_changed_at = :now, previous_password_hash = :expected',
                  ConditionExpression: expectedHash === undefined ? 'attribute_exists(pk)' : 'password_hash = :expected',
                  ExpressionAttributeValues: { ':hash': hash, ':now': now, ...(expectedHash === undefined ? {} : { ':expected': expectedHash }) },
                },
              },
              auditPut(this.store, accountId, source.via === 'operator' ? 'password.reset' : 'password.changed', source),
            ],
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error) || isWriteConflict(error)) throw error;
        if (expectedHash !== undefined) throw new BackOfficeError('INVALID_PASSWORD', 'The password was changed meanwhile.');
        if (!(await this.store.getAccount(accountId))) throw new BackOfficeError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
        throw new BackOfficeError('INVALID_ARGUMENT', `Account ${accountId} has no e-mail address to sign in with`);
      }
    });
    const account = (await this.store.getAccount(accountId)) as AccountItem;
    return { account_id: account.account_id, status: account.status };
  }

  get(accountId: string): Promise<AccountItem | undefined> {
    return this.store.getAccount(accountId);
  }

  /** Deactivation revokes every key of the account (the status check plus, for after re-activation, the generation). */
  async deactivate(accountId: string) {
    return this.update(accountId, 'SET #status = :deactivated, updated_at = :now', { ':deactivated': 'deactivated' }, 'account.deactivated');
  }

  /**
   * Re-enabling an account restores no credential: the generation rises, so old keys stay revoked.
   * Re-enabling an active account changes nothing (and so revokes nothing).
   */
  async reactivate(accountId: string) {
    return this.update(
      accountId,
      'SET #status = :active, cred_gen = cred_gen + :one, updated_at = :now',
      { ':active': 'active', ':deactivated': 'deactivated', ':one': 1 },
      'account.reactivated',
      'attribute_exists(pk) AND #status = :deactivated',
    );
  }

  /**
   * `account reset-password`, for an account that may be compromised: the password is removed (none
   * signs in until the operator sets a new one with set-password), the credential generation rises
   * (every key, session and webhook callback of the account ends for good), and, with
   * `clearTwoFactor`, two-factor is turned off (for an owner who lost the authenticator: they enrol
   * again once signed in). One transaction with its audit entries (`password.reset`, and
   * `two_factor.reset`). An account without an e-mail has no password: its keys are revoked alone.
   */
  async resetPassword(accountId: string, options: { readonly clearTwoFactor?: boolean } = {}): Promise<{ account_id: string; status: string; two_factor_cleared: boolean }> {
    const now = this.store.clock().toISOString();
    const table = this.store.table;
    let cleared = false;
    await this.store.retryOnConflict(async () => {
      const signIn = (await this.store.getItem(signInKey(accountId))) as SignInItem | undefined;
      cleared = Boolean(options.clearTwoFactor && (signIn?.two_factor_secret || signIn?.two_factor_pending));
      const removes = ['password_hash', ...(options.clearTwoFactor ? ['two_factor_secret', 'two_factor_pending', 'two_factor_step'] : [])];
      try {
        await this.store.client.send(
          new TransactWriteCommand({
            TransactItems: [
              raisedCredentialGeneration(table, accountId, now),
              ...(signIn
                ? [
                    {
                      Update: {
                        TableName: table,
                        Key: signInKey(accountId),
                        UpdateExpression: `SET password_changed_at = :now REMOVE ${removes.join(', ')}`,
                        ConditionExpression: 'attribute_exists(pk)',
                        ExpressionAttributeValues: { ':now': now },
                      },
                    },
                  ]
                : []),
              auditPut(this.store, accountId, 'password.reset', OPERATOR),
              ...(cleared ? [auditPut(this.store, accountId, 'two_factor.reset', OPERATOR)] : []),
            ],
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error) || isWriteConflict(error)) throw error;
        throw new BackOfficeError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
      }
    });
    const account = (await this.store.getAccount(accountId)) as AccountItem;
    return { account_id: account.account_id, status: account.status, two_factor_cleared: cleared };
  }

  /** An operator's change of the account item, audited in the account's trail in the same transaction (none when its condition does not hold). */
  private async update(accountId: string, expression: string, values: Record<string, unknown>, action: AuditAction, condition = 'attribute_exists(pk)') {
    const item = await this.store.updateAudited<AccountItem>(
      accountKey(accountId),
      { expression, condition, values },
      () => [auditPut(this.store, accountId, action, OPERATOR)],
      () => new BackOfficeError('ACCOUNT_NOT_FOUND', `No account ${accountId}`),
    );
    return { account_id: item.account_id, status: item.status };
  }
}

/** The account's credential generation raised (every key, session and callback of it ends for good), for a transaction. */
function raisedCredentialGeneration(table: string, accountId: string, now: string) {
  return {
    Update: {
      TableName: table,
      Key: accountKey(accountId),
      UpdateExpression: 'SET cred_gen = cred_gen + :one, updated_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':one': 1, ':now': now },
    },
  };
}

function checkedPassword(password: string): string {
  if (!isAcceptablePassword(password)) {
    throw new BackOfficeError('INVALID_PASSWORD', `A password has ${PASSWORD_MIN_CHARACTERS}–${PASSWORD_MAX_CHARACTERS} characters, not only spaces`);
  }
  return password;
}

