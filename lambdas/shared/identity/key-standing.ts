/**
 * Whether a key may be used right now, from its immutable facts and the
 * current state of the items that can revoke it. One function decides, for
 * the request path (which answer to give) and for the back office (how to
 * list and count keys), so the two can never disagree.
 */
import type { ErrorCode } from '../errors';
import type { AccountItem, KeyFacts, OrgItem } from './access-items';

export interface KeyState {
  /** The key item's mutable part; undefined when the item is gone. */
  readonly key: { revoked_at?: string } | undefined;
  readonly account: Pick<AccountItem, 'status' | 'cred_gen'> | undefined;
  /** Present for organization keys. */
  readonly org?: Pick<OrgItem, 'status' | 'key_gen' | 'managers'> | undefined;
}

export type KeyStanding =
  | { readonly usable: true }
  | {
      readonly usable: false;
      /** Listing status: expired, or revoked (explicitly or by a lifecycle trigger). */
      readonly status: 'expired' | 'revoked';
      readonly reason: string;
      /** The answer a request with this key gets. */
      readonly denial: ErrorCode;
    };

const revoked = (reason: string, denial: ErrorCode = 'INVALID_API_KEY'): KeyStanding => ({
  usable: false,
  status: 'revoked',
  reason,
  denial,
});

export function assessKey(facts: KeyFacts, state: KeyState, now: Date): KeyStanding {
  if (!state.key || state.key.revoked_at) return revoked('revoked_by_creator');
  if (facts.expires_at !== null && Date.parse(facts.expires_at) <= now.getTime()) {
    return { usable: false, status: 'expired', reason: 'expired', denial: 'INVALID_API_KEY' };
  }
  const account = state.account;
  if (!account || account.status !== 'active') return revoked('account_deactivated');
  if (account.cred_gen !== facts.account_gen) return revoked('account_credentials_reset');
  if (facts.partner_id === null) return { usable: true };

  const org = state.org;
  if (!org) return revoked('organization_missing');
  // A restore raises key_gen: keys from before an archive stay revoked.
  if (org.key_gen !== facts.org_gen) return revoked('organization_archived');
  // While the organization is archived its keys answer 409; they never work again after a restore.
  if (org.status !== 'active') return revoked('organization_archived', 'PARTNER_INACTIVE');
  const grant = org.managers?.[facts.account_id];
  // While the creator is not a manager the key answers 403; a later re-promotion mints a new grant.
  if (grant === undefined) return revoked('creator_not_manager', 'PARTNER_MANAGER_REQUIRED');
  if (grant !== facts.manager_grant) return revoked('creator_not_manager');
  return { usable: true };
}
