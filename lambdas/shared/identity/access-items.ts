/**
 * Item layout of the identity part of the `access` table: accounts,
 * organizations, memberships and API keys.
 *
 * Revocation is modelled with generations so that the check on every request
 * reads a fixed set of items and "restoring restores nothing":
 * - an account's `cred_gen` rises on password reset and on re-activation;
 *   keys remember the generation they were created under;
 * - an organization's `key_gen` rises when it is restored from archive;
 * - an organization's `managers` map holds, per manager account, a grant id
 *   minted each time the account becomes manager; keys remember theirs.
 * A key whose remembered generation or grant no longer matches is revoked
 * for good, whatever happens later.
 */
export const accountKey = (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' });
export const orgKey = (partnerId: string) => ({ pk: `ORG#${partnerId}`, sk: 'ORG' });
export const membershipKey = (partnerId: string, accountId: string) => ({ pk: `ORG#${partnerId}`, sk: `MEMBER#${accountId}` });
export const apiKeyKey = (keyId: string) => ({ pk: `KEY#${keyId}`, sk: 'KEY' });
/** One registry entry per key under its account, read consistently to count and list an account's keys. */
export const accountKeyEntryKey = (accountId: string, keyId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `KEY#${keyId}` });
export const ACCOUNT_KEY_ENTRY_PREFIX = 'KEY#';

export type AccountStatus = 'active' | 'deactivated';
export type OrgStatus = 'active' | 'archived';
export type Role = 'manager' | 'member';

export interface AccountItem {
  account_id: string;
  name: string;
  status: AccountStatus;
  cred_gen: number;
  /**
   * Raised when two-factor is turned on (or reset by the operator): every web-settings session opened
   * under an earlier value ends, while keys stay (they follow `cred_gen`). Absent means 0.
   */
  session_gen?: number;
  /** Optimistic lock serializing key creation, so the 20-key limit holds under concurrency. */
  key_set_version: number;
  created_at: string;
  updated_at: string;
}

export interface OrgItem {
  partner_id: string;
  name: string;
  status: OrgStatus;
  key_gen: number;
  managers: Record<string, string>;
  created_at: string;
  updated_at: string;
}

export interface MembershipItem {
  partner_id: string;
  account_id: string;
  role: Role;
  grant?: string;
  updated_at: string;
}

/** What never changes about a key: safe to cache in a warm Lambda. */
export interface KeyFacts {
  key_id: string;
  digest: string;
  account_id: string;
  partner_id: string | null;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  account_gen: number;
  org_gen: number | null;
  manager_grant: string | null;
}

export interface ApiKeyItem extends KeyFacts {
  revoked_at?: string;
}

/** The account's listing entry of a key: the key's facts (no digest) and the name its creator gave it. */
export type AccountKeyEntry = Omit<ApiKeyItem, 'digest'> & { readonly name?: string };

export function toKeyFacts(item: ApiKeyItem): KeyFacts {
  return {
    key_id: item.key_id,
    digest: item.digest,
    account_id: item.account_id,
    partner_id: item.partner_id ?? null,
    scopes: [...item.scopes],
    created_at: item.created_at,
    expires_at: item.expires_at ?? null,
    account_gen: item.account_gen,
    org_gen: item.org_gen ?? null,
    manager_grant: item.manager_grant ?? null,
  };
}
