/**
 * A route is declared once, in its group's `*-contracts.ts` (RouteDeclaration); the group's `*-routes.ts`, what its
 * cold start reads, is generated from it (scripts/route-tables.ts, `npm run routes`). A stale table fails here; a
 * declaration its table does not follow at the same method, path and authentication fails the type check.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import type { GroupContracts } from '../../../lambdas/shared/http/contract';
import { ROUTES } from '../../../lambdas/service/routes';
import { ROUTE_CONTRACTS } from '../../../lambdas/service/contracts';
import { groupTables, renderRouteTable } from '../../../scripts/route-tables';

const committed = (file: string) => readFileSync(join(import.meta.dirname, '..', '..', '..', file), 'utf8');

describe('the route tables', () => {
  it('are committed as generated from the declarations: run `npm run routes` (or `npm run openapi`) after declaring a route', async () => {
    const tables = await groupTables();
    expect(tables.map((table) => table.group).sort()).toEqual([...new Set(ROUTES.map((route) => route.group))].sort());
    for (const table of tables) expect(committed(table.file), table.file).toBe(renderRouteTable(table));
  });

  it('take each route’s query names and body from its contract', () => {
    for (const route of ROUTES) {
      const contract = ROUTE_CONTRACTS[route.id];
      expect([...route.query].sort(), route.id).toEqual(Object.keys(contract.query?.shape ?? {}).sort());
      expect(route.body, route.id).toBe(contract.body ? 'json' : 'none');
    }
  });

  it('refuse, at compile time, a declaration its table does not follow', () => {
    const table = [{ id: 'thing', method: 'GET', path: '/things/{thing_id}', group: 'system', auth: 'key', query: [], body: 'none' }] as const;
    const contract = { summary: 'A thing', status: 200, data: z.object({}) } as const;
    const followed = { thing: { method: 'GET', path: '/things/{thing_id}', auth: 'key', ...contract } } as const satisfies GroupContracts<typeof table>;
    // @ts-expect-error: declared POST, the table still says GET (`npm run routes` not run).
    const otherMethod = { thing: { method: 'POST', path: '/things/{thing_id}', auth: 'key', ...contract } } as const satisfies GroupContracts<typeof table>;
    // @ts-expect-error: a route the table does not have yet.
    const newRoute = { thing: followed.thing, other: followed.thing } as const satisfies GroupContracts<typeof table>;
    expect([followed, otherMethod, newRoute].map((declarations) => Object.keys(declarations).length)).toEqual([1, 1, 2]);
  });
});
