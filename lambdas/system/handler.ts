/**
 * The `system` function: `GET /health`, and the answer for every path or
 * method no route declares (API Gateway sends those here: 404 NOT_FOUND).
 */
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import { health } from './health';
import { SYSTEM_CONTRACTS } from './system-contracts';

export const definition = { operations: { health }, contracts: SYSTEM_CONTRACTS };

export const handler = createPartnerApiHandler(definition);
