/**
 * Who a request acts as: the key, its creating account and, for organization
 * keys, the bound organization, with the key's scopes and expiry.
 */
import type { KeyFacts } from './access-items';

export interface Principal {
  readonly keyId: string;
  readonly accountId: string;
  /** The bound organization; null for personal keys. */
  readonly partnerId: string | null;
  readonly scopes: readonly string[];
  readonly expiresAt: string | null;
}

export function principalOf(facts: KeyFacts): Principal {
  return {
    keyId: facts.key_id,
    accountId: facts.account_id,
    partnerId: facts.partner_id,
    scopes: facts.scopes,
    expiresAt: facts.expires_at,
  };
}
