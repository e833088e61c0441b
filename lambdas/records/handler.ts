/** The `records` function: `GET /records/{uuid}` and `GET /partners/{partner_id}/records/{record_id}` (the list comes next). */
import { createApiHandler } from '../shared/http/pipeline';
import { lookupPublicRecord } from './lookup-public-record';
import { readOrganizationRecord } from './read-organization-record';

export const handler = createApiHandler({ operations: { 'record-lookup': lookupPublicRecord, 'org-record': readOrganizationRecord } });
