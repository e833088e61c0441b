/**
 * A function's route code in a chunk of its own, off the cold start: what the request needs before its first await
 * (the front door's authentication and admission, the DynamoDB client) loads with the handler; a group's operations,
 * their reads beside the admission and their stores load while the first round trip is in flight. The pipeline starts
 * every chunk a function declares (FunctionDefinition.chunks) when a request starts, beside its contracts
 * (contract-loading.ts); each export taken from a chunk waits for it before it runs (docs/infrastructure.md "Cold start").
 *
 *   const GROUP = lazyChunk(() => import('./invitation-operations'));
 *   export const operations = { invitation: GROUP.fn((m) => m.readInvitation), … };
 *
 * Warm, a chunk is a settled promise: a call waits one microtask for it, not a round trip.
 */
import { loadOnce } from '../load-once';

/** A function of a chunk, called once the chunk is loaded. */
export type Lazy<F extends (...args: never[]) => unknown> = (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>>>;

export interface LazyChunk<M> {
  /** Start loading (a request's start; nothing is awaited, a failure is tried again by the next caller). */
  start(): void;
  loaded(): Promise<M>;
  /** One of the chunk's functions (an operation, a route's reads, a lookup), called once the chunk is loaded. */
  fn<A extends unknown[], R>(pick: (module: M) => (...args: A) => R): (...args: A) => Promise<Awaited<R>>;
  /**
   * A table of the chunk's functions by route id (its operations, its routes' reads): the ids are listed here, since
   * the table is not loaded yet; an id the chunk's table lacks is a compile error.
   */
  table<K extends string, F extends (...args: never[]) => unknown>(ids: readonly K[], pick: (module: M) => Readonly<Record<K, F>>): Record<K, Lazy<F>>;
  /**
   * The chunk's table of operations for `routes` (a group's *-routes.ts): one for each route, each keeping its own type
   * (the chunk's table is typed by the routes' contracts, GroupOperations). A route the table lacks is a compile error.
   */
  routeTable<R extends readonly { readonly id: string }[], T extends { readonly [K in R[number]['id']]: (...args: never[]) => unknown }>(
    routes: R,
    pick: (module: M) => T,
  ): { readonly [K in R[number]['id']]: Lazy<T[K]> };
  /**
   * The chunk's table of what some of `routes` have (their reads beside the admission): an entry for every route, which
   * once the chunk is loaded calls the route's own, or answers undefined when it has none. A route the group lacks is a
   * compile error in the chunk's table (`satisfies { [K in …]?: … }`).
   */
  optionalRouteTable<R extends readonly { readonly id: string }[], T extends { readonly [K in R[number]['id']]?: (...args: never[]) => unknown }>(
    routes: R,
    pick: (module: M) => T,
  ): { readonly [K in R[number]['id']]: Lazy<NonNullable<T[keyof T]>> };
}

export function lazyChunk<M>(load: () => Promise<M>): LazyChunk<M> {
  const loaded = loadOnce(load);
  function fn<A extends unknown[], R>(pick: (module: M) => (...args: A) => R) {
    return async (...args: A): Promise<Awaited<R>> => await pick(await loaded())(...args);
  }
  // Each id's entry of the chunk's table, called once the chunk is loaded (undefined where the table has none).
  const tableOf = (ids: readonly string[], pick: (module: M) => object): never =>
    Object.fromEntries(ids.map((id) => [id, async (...args: never[]) => (pick(await loaded()) as Record<string, ((...a: never[]) => unknown) | undefined>)[id]?.(...args)])) as never;
  // One entry per route; the two differ in their types only (a route the table lacks answers undefined either way).
  const routeTable = (routes: readonly { readonly id: string }[], pick: (module: M) => object): never => tableOf(routes.map(({ id }) => id), pick);
  return {
    start: () => {
      loaded().catch(() => undefined);
    },
    loaded,
    fn,
    table: tableOf,
    routeTable,
    optionalRouteTable: routeTable,
  };
}
