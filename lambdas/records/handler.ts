/**
 * The `records` function: `GET /records/{uuid}`, `GET /partners/{partner_id}/records`
 * and `GET /partners/{partner_id}/records/{record_id}`.
 */
import { createApiHandler } from '../shared/http/pipeline';
import { listOrganizationRecords } from './list-organization-records';
import { lookupPublicRecord } from './lookup-public-record';
import { readOrganizationRecord } from './read-organization-record';

export const operations = { 'record-lookup': lookupPublicRecord, 'org-records': listOrganizationRecords, 'org-record': readOrganizationRecord };

export const handler = createApiHandler({ operations });
