/**
 * A function's route contracts as the pipeline reads them: its table, or a table loaded on first use. Loaded, the
 * contracts and zod (their schemas, the input parser of contract.ts) are a chunk of their own that a cold start does
 * not load: the pipeline starts loading it when a request starts and awaits it at the input step, so it loads while
 * the request's first round trip (authentication, admission) is in flight (docs/infrastructure.md "Cold start").
 */
import type { ContractTable, parseInput as ParseInput } from './contract';
import { loadOnce } from '../load-once';
import type { RouteDefinition } from './routes';

const LAZY = Symbol('contracts loaded on first use');

/** A table of contracts loaded on first use: `lazyContracts(() => import('./x-contracts').then((m) => m.X_CONTRACTS))`. */
export interface LazyContracts {
  readonly [LAZY]: () => Promise<ContractTable>;
}

/** What a function declares (FunctionDefinition.contracts). */
export type DeclaredContracts = ContractTable | LazyContracts;

export const lazyContracts = (load: () => Promise<ContractTable>): LazyContracts => ({ [LAZY]: load });

const isLazy = (contracts: DeclaredContracts): contracts is LazyContracts => LAZY in contracts;

/** The contracts loaded, with the parser that checks input against them. */
export interface LoadedContracts {
  readonly table: ContractTable;
  readonly parseInput: typeof ParseInput;
}

export interface FunctionContracts {
  /** Start loading (a request's start; nothing is awaited). */
  start(): void;
  loaded(): Promise<LoadedContracts>;
}

/**
 * A route of the function's that has an operation must have its contract too (its input would otherwise go
 * unchecked): a table at hand is checked now, at the handler's construction; one loaded on first use when it loads.
 */
export function functionContracts(declared: DeclaredContracts, operations: Readonly<Record<string, unknown>>, routes: readonly RouteDefinition[]): FunctionContracts {
  if (!isLazy(declared)) assertCovered(declared, operations, routes);
  const loaded = loadOnce(async (): Promise<LoadedContracts> => {
    const [table, { parseInput }] = await Promise.all([isLazy(declared) ? declared[LAZY]() : declared, import('./contract')]);
    if (isLazy(declared)) assertCovered(table, operations, routes);
    return { table, parseInput };
  });
  return {
    start: () => {
      loaded().catch(() => undefined);
    },
    loaded,
  };
}

function assertCovered(table: ContractTable, operations: Readonly<Record<string, unknown>>, routes: readonly RouteDefinition[]): void {
  const uncovered = routes.filter((route) => operations[route.id] !== undefined && table[route.id] === undefined);
  if (uncovered.length > 0) throw new Error(`composeApiHandler: the routes ${uncovered.map((r) => r.id).join(', ')} have an operation but no contract`);
}
