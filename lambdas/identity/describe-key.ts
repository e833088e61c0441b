import type { Operation } from '../shared/http/pipeline';
import type { Principal } from '../shared/identity/principal';

/** The spec's Identity object; `partner_id` only for organization keys. */
export function identityOf(principal: Principal) {
  return {
    key_id: principal.keyId,
    account_id: principal.accountId,
    ...(principal.partnerId !== null ? { partner_id: principal.partnerId } : {}),
    scopes: [...principal.scopes],
    expires_at: principal.expiresAt,
  };
}

/** GET /me: what the presented key is. Needs no business scope. */
export const describeKey: Operation = async ({ principal }) => ({ data: identityOf(principal as Principal) });
