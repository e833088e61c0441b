/**
 * The `records` function: `GET /records/{uuid}`, `GET /partners/{partner_id}/records`
 * and `GET /partners/{partner_id}/records/{record_id}`.
 */
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import { RECORD_CONTRACTS } from './record-contracts';
import { listOrganizationRecords } from './list-organization-records';
import { lookupPublicRecord } from './lookup-public-record';
import { readOrganizationRecord } from './read-organization-record';

export const operations = { 'record-lookup': lookupPublicRecord, 'org-records': listOrganizationRecords, 'org-record': readOrganizationRecord };

export const definition = { operations, contracts: RECORD_CONTRACTS };

export const handler = createPartnerApiHandler(definition);
