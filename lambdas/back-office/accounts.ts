/**
 * Accounts: creation and the lifecycle triggers that revoke an account's
 * keys. Deactivation, re-activation and a password reset are each one
 * conditional write to the account item (status, `cred_gen`): no key has to
 * be found and rewritten, so none can be missed, and restoring restores
 * nothing (docs/identity.md).
 */
import { accountKey, type AccountItem } from '../shared/identity/access-items';
import { BackOfficeError } from './errors';
import { randomId, type IdentityStore } from './identity-store';

export class Accounts {
  constructor(private readonly store: IdentityStore) {}

  async create(name = 'Account'): Promise<{ account_id: string }> {
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
    await this.store.putNew(accountKey(account.account_id), 'account', account);
    return { account_id: account.account_id };
  }

  get(accountId: string): Promise<AccountItem | undefined> {
    return this.store.getAccount(accountId);
  }

  /** Deactivation revokes every key of the account (the status check plus, for after re-activation, the generation). */
  async deactivate(accountId: string) {
    return this.update(accountId, 'SET #status = :deactivated, updated_at = :now', { ':deactivated': 'deactivated' });
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
      'attribute_exists(pk) AND #status = :deactivated',
    );
  }

  /** A password change or reset revokes every key (and, once webhooks exist, every webhook) of the account. */
  async resetPassword(accountId: string) {
    return this.update(accountId, 'SET cred_gen = cred_gen + :one, updated_at = :now', { ':one': 1 });
  }

  private async update(accountId: string, expression: string, values: Record<string, unknown>, condition = 'attribute_exists(pk)') {
    const item = await this.store.updateExisting<AccountItem>(accountKey(accountId), { expression, condition, values }, () => new BackOfficeError('ACCOUNT_NOT_FOUND', `No account ${accountId}`));
    return { account_id: item.account_id, status: item.status };
  }
}
