/**
 * The `system` function: `GET /health`, and the answer for every path or
 * method no route declares (API Gateway sends those here: 404 NOT_FOUND).
 */
import { createApiHandler } from '../shared/http/pipeline';
import { health } from './health';

export const handler = createApiHandler({ operations: { health } });
