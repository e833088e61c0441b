/** The `records` function: `GET /records/{uuid}` (the organization record endpoints come next). */
import { createApiHandler } from '../shared/http/pipeline';
import { lookupPublicRecord } from './lookup-public-record';

export const handler = createApiHandler({ operations: { 'record-lookup': lookupPublicRecord } });
