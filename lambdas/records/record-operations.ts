/** The `records` function's operations, one chunk loaded beside a cold start's first round trip (handler.ts). */
export { listOrganizationRecords } from './list-organization-records';
export { lookupPublicRecord } from './lookup-public-record';
export { readOrganizationRecord } from './read-organization-record';
