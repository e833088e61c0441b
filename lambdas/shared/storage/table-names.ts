/**
 * The tables a function is granted, by id, from the environment the stack sets. Apart from the DynamoDB client
 * (dynamo-client.ts re-exports these) so that the platform reads its table names without loading the SDK: a function
 * that calls no table (system) never does (docs/infrastructure.md "Cold start").
 */
import { TABLE_IDS, tableEnvName, type TableId } from './table-ids';

export type TableNames = Readonly<Partial<Record<TableId, string>>>;

/**
 * Table names of this deployment, from the environment the stack sets. A
 * function gets only the tables it is granted (least privilege, declared
 * next to the routes): the others are absent.
 */
export function tableNamesFromEnv(env: NodeJS.ProcessEnv = process.env): TableNames {
  const names: Partial<Record<TableId, string>> = {};
  for (const id of TABLE_IDS) {
    const name = env[tableEnvName(id)];
    if (name) names[id] = name;
  }
  return names;
}

/** The name of a table this function must have been granted; a clear error otherwise. */
export function requireTable(tables: TableNames, id: TableId): string {
  const name = tables[id];
  if (!name) throw new Error(`Environment variable ${tableEnvName(id)} is not set: this function is not granted the ${id} table (see dataAccessOf in lambdas/service/data-access.ts)`);
  return name;
}
