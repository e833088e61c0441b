/**
 * The environment a deployed Lambda gets from the stack (table names, stage),
 * pointed at DynamoDB Local. Set before the first request, since handlers
 * build their clients on first use.
 */
import { tableEnvName, TABLE_IDS, type TableId } from '../lambdas/shared/storage/table-definitions';
import { LOCAL_AWS_ENV } from './dynamo-local';

export function useLocalEnvironment(endpoint: string, tables: Record<TableId, string>): void {
  // EDGE_GUARD=off: the local front applies every edge rule itself (WAF's and the bursts), once per request.
  Object.assign(process.env, LOCAL_AWS_ENV, { AWS_ENDPOINT_URL_DYNAMODB: endpoint, STAGE: 'local', EDGE_GUARD: 'off' });
  for (const id of TABLE_IDS) process.env[tableEnvName(id)] = tables[id];
}
