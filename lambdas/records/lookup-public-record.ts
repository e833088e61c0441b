import { ApiError } from '../shared/errors';
import type { OperationOf } from '../shared/http/pipeline';
import { perPlatform } from '../shared/platform';
import { requireTable } from '../shared/storage/table-names';
import { toPublicRecord } from './record-model';
import { RecordStore } from './record-store';
import type { RECORD_CONTRACTS } from './record-contracts';

/** One store per container (per platform), built on first use. */
export const recordStoreOf = perPlatform((platform) => new RecordStore(platform.documentClient, requireTable(platform.tables, 'domain'), platform.clock));

/** GET /records/{uuid}: the public record, exact and case-insensitive; 404 RECORD_NOT_FOUND otherwise (never a pass). */
export const lookupPublicRecord: OperationOf<typeof RECORD_CONTRACTS, 'record-lookup'> = async ({ pathParameters, platform }) => {
  const record = await recordStoreOf(platform).findPublicByUuid(pathParameters.uuid);
  if (!record) throw new ApiError('RECORD_NOT_FOUND');
  return { data: toPublicRecord(record) };
};
