/**
 * The tables by id, their physical names and the environment variables that carry them: all a function needs at its
 * cold start to know its tables (table-names.ts). A module of its own, apart from the key schemas and indexes of
 * table-definitions.ts (which re-exports these), so that no function loads those definitions to read two names.
 */
export const TABLE_IDS = ['access', 'domain'] as const;

export type TableId = (typeof TABLE_IDS)[number];

/** Physical table name for a stage. Deterministic so that the admin CLI and operators can find a stage's tables. */
export function physicalTableName(stage: string, id: TableId): string {
  return `partner-api-${stage}-${id}`;
}

/** Environment variable through which a Lambda learns a table's name. */
export function tableEnvName(id: TableId): string {
  return `TABLE_${id.toUpperCase()}`;
}
