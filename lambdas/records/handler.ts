/**
 * The `records` function: `GET /records/{uuid}`, `GET /partners/{partner_id}/records`
 * and `GET /partners/{partner_id}/records/{record_id}`.
 */
import { lazyContracts } from '../shared/http/contract-loading';
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import { listOrganizationRecords } from './list-organization-records';
import { lookupPublicRecord } from './lookup-public-record';
import { readOrganizationRecord } from './read-organization-record';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts). */
const CONTRACTS = lazyContracts(() => import('./record-contracts').then((module) => module.RECORD_CONTRACTS));

export const operations = { 'record-lookup': lookupPublicRecord, 'org-records': listOrganizationRecords, 'org-record': readOrganizationRecord };

export const definition = { operations, contracts: CONTRACTS };

export const handler = createPartnerApiHandler(definition);
