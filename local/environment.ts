/**
 * The environment a deployed Lambda gets from the stack (table names, stage),
 * pointed at DynamoDB Local. Set before the first request, since handlers
 * build their clients on first use.
 */
import { tableEnvName, TABLE_IDS, type TableId } from '../lambdas/shared/storage/table-definitions';
import { LOCAL_AWS_ENV } from './dynamo-local';

export function useLocalEnvironment(endpoint: string, tables: Record<TableId, string>): void {
  // Nothing local-only here: what a deployed function reads, it could be given. The local stack's own options (no
  // in-function edge guard, its switches) reach the handlers in process (local-stack.ts, configureSharedPlatform).
  Object.assign(process.env, LOCAL_AWS_ENV, { AWS_ENDPOINT_URL_DYNAMODB: endpoint, STAGE: 'local' });
  for (const id of TABLE_IDS) process.env[tableEnvName(id)] = tables[id];
}
