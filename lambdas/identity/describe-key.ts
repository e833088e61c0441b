import type { GroupOperations, OperationOf } from '../shared/http/pipeline';
import type { IDENTITY_CONTRACTS } from './identity-contracts';
import type { Principal } from '../shared/identity/principal';
import { isScope } from '../shared/identity/scopes';

/** The spec's Identity object; `partner_id` only for organization keys. */
export function identityOf(principal: Principal) {
  return {
    key_id: principal.keyId,
    account_id: principal.accountId,
    ...(principal.partnerId !== null ? { partner_id: principal.partnerId } : {}),
    // Stored facts carry strings; only the spec's scopes are ever granted, and only they are answered.
    scopes: principal.scopes.filter(isScope),
    expires_at: principal.expiresAt,
  };
}

/** GET /me: what the presented key is. Needs no business scope. */
export const describeKey: OperationOf<typeof IDENTITY_CONTRACTS, 'me'> = async ({ principal }) => ({ data: identityOf(principal as Principal) });

/** The group's operations by route id: the handler serves this table. */
export const IDENTITY_OPERATIONS = { me: describeKey } satisfies GroupOperations<typeof IDENTITY_CONTRACTS>;
