import { ApiError } from '../shared/errors';
import type { GroupOperations, OperationOf } from '../shared/http/pipeline';
import type { Principal } from '../shared/identity/principal';
import { perPlatform, type Platform } from '../shared/platform';
import { requireTable } from '../shared/storage/table-names';
import { summarizeEntitlements } from './entitlement-summary';
import { EntitlementStore, type Owner } from './entitlement-store';
import type { ENTITLEMENT_CONTRACTS } from './entitlement-contracts';

/** Each operation is typed by its route's contract (entitlement-contracts.ts). */
type Contracts = typeof ENTITLEMENT_CONTRACTS;

const storeOf = perPlatform((platform) => new EntitlementStore(platform.documentClient, requireTable(platform.tables, 'domain'), platform.clock));

async function summaryOf(owner: Owner, platform: Platform, now: Date) {
  return summarizeEntitlements(owner, await storeOf(platform).grants(owner), now);
}

/** GET /entitlements: the creating account's summary; personal keys only. */
export const readPersonalEntitlements: OperationOf<Contracts, 'entitlements'> = async ({ principal, platform, now }) => {
  const { accountId, partnerId } = principal as Principal;
  if (partnerId !== null) throw new ApiError('PERSONAL_KEY_REQUIRED');
  return { data: await summaryOf({ type: 'account', id: accountId }, platform, now) };
};

/** GET /partners/{partner_id}/entitlements: the bound organization's summary (binding checked by the pipeline). */
export const readOrganizationEntitlements: OperationOf<Contracts, 'org-entitlements'> = async ({ principal, platform, now }) => ({
  data: await summaryOf({ type: 'partner', id: (principal as Principal).partnerId as string }, platform, now),
});

/** The group's operations by route id: the handler serves this table. */
export const ENTITLEMENT_OPERATIONS = {
  entitlements: readPersonalEntitlements,
  'org-entitlements': readOrganizationEntitlements,
} satisfies GroupOperations<Contracts>;
