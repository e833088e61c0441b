import type { Operation } from '../shared/http/pipeline';

/** GET /health: liveness of the API itself; needs no key and touches no table. */
export const health: Operation = async () => ({ data: { status: 'ok', version: 'v1' } });
