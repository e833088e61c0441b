import type { GroupOperations, OperationOf } from '../shared/http/pipeline';
import type { SYSTEM_CONTRACTS } from './system-contracts';

/** GET /health: liveness of the API itself; needs no key and touches no table. */
export const health: OperationOf<typeof SYSTEM_CONTRACTS, 'health'> = async () => ({ data: { status: 'ok', version: 'v1' } });

/** The group's operations by route id. */
export const SYSTEM_OPERATIONS = { health } satisfies GroupOperations<typeof SYSTEM_CONTRACTS>;
