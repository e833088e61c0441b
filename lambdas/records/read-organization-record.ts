import { ApiError } from '../shared/errors';
import type { OperationOf } from '../shared/http/pipeline';
import type { Principal } from '../shared/identity/principal';
import { recordStoreOf } from './lookup-public-record';
import { toPublicRecord } from './record-model';
import type { RECORD_CONTRACTS } from './record-contracts';

/**
 * GET /partners/{partner_id}/records/{record_id}: a record of the key's
 * organization (the pipeline already checked the binding). A record of
 * another organization, or a deleted one, is 404 RECORD_NOT_FOUND at once:
 * the read is strongly consistent, and the owner is checked on the item.
 */
export const readOrganizationRecord: OperationOf<typeof RECORD_CONTRACTS, 'org-record'> = async ({ pathParameters, principal, platform }) => {
  const record = await recordStoreOf(platform).get((principal as Principal).partnerId as string, pathParameters.record_id);
  if (!record) throw new ApiError('RECORD_NOT_FOUND');
  return { data: toPublicRecord(record) };
};
