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
import { randomId, type IdentityStore } from './identity-store';

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
   */
  async create(name = 'Account', credentials: { email?: string; password?: string } = {}): Promise<{ account_id: string; email?: string }> {
    const now = this.store.clock().toISOString();
    const account: AccountItem = {
      account_id: randomId('acc'),
      name,
      status: 'active',
      cred_gen: 1,
      key_set_version: 0,
      created_at: now,
      updated_at: now,
    };
    if (credentials.email === undefined) {
      if (credentials.password !== undefined) throw new BackOfficeError('INVALID_ARGUMENT', 'A password needs an e-mail address to sign in with');
      await this.store.putNew(accountKey(account.account_id), 'account', account);
      return { account_id: account.account_id };
    }
    const email = normalizeEmail(credentials.email);
    if (!email) throw new BackOfficeError('INVALID_ARGUMENT', 'The e-mail address is not valid');
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
            { Put: { TableName: table, Item: { ...accountKey(account.account_id), type: 'account', ...account, leases: {} }, ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName: table, Item: { ...signInKey(account.account_id), type: 'sign_in', ...signIn } } },
            { Put: { TableName: table, Item: { ...emailKey(email), type: 'email', account_id: account.account_id }, ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new BackOfficeError('EMAIL_TAKEN', `Another account uses ${email}`);
      throw error;
    }
    return { account_id: account.account_id, email };
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
   */
  async changePassword(accountId: string, current: string, next: string, source: AuditSource): Promise<{ account_id: string; status: string }> {
    checkedPassword(next);
    const signIn = (await this.store.getItem(signInKey(accountId))) as SignInItem | undefined;
    if (!signIn?.password_hash || !(await verifyPassword(current, signIn.password_hash))) {
      throw new BackOfficeError('INVALID_PASSWORD', 'The current password is wrong.');
    }
    return this.writePassword(accountId, next, source, signIn.password_hash);
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
                  UpdateExpression: 'SET password_hash = :hash, password_changed_at = :now',
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

