/** The `records` function's operations, one chunk loaded beside a cold start's first round trip (handler.ts). */
import type { GroupOperations } from '../shared/http/pipeline';
import { listOrganizationRecords } from './list-organization-records';
import { lookupPublicRecord } from './lookup-public-record';
import { readOrganizationRecord } from './read-organization-record';
import type { RECORD_CONTRACTS } from './record-contracts';

export { listOrganizationRecords, lookupPublicRecord, readOrganizationRecord };

/** The group's operations by route id, each typed by its route's contract: the handler serves this table. */
export const RECORD_OPERATIONS = {
  'record-lookup': lookupPublicRecord,
  'org-records': listOrganizationRecords,
  'org-record': readOrganizationRecord,
} satisfies GroupOperations<typeof RECORD_CONTRACTS>;
