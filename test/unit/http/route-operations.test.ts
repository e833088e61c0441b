/**
 * A function's operations cover its group's routes at compile time (RouteOperations): a route without an operation,
 * or an operation for a route the group lacks, does not type-check (`npm test` type-checks first), instead of answering
 * 404 at run time. The fixtures below are the two mistakes; `@ts-expect-error` fails the type check if either compiled.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import type { RouteContract } from '../../../lambdas/shared/http/contract';
import type { GroupOperations, GroupPrefetch, OperationOf, Prefetch, RouteOperations } from '../../../lambdas/shared/http/pipeline';
import type { GroupViewReads, ViewReads } from '../../../lambdas/settings/settings-pipeline';
import { operations as webhookOperations } from '../../../lambdas/webhooks/handler';
import { WEBHOOK_ROUTES } from '../../../lambdas/webhooks/webhook-routes';

describe('RouteOperations', () => {
  it('is every route id of the group, and the webhooks function has exactly those operations', () => {
    expectTypeOf<keyof RouteOperations<typeof WEBHOOK_ROUTES>>().toEqualTypeOf<(typeof WEBHOOK_ROUTES)[number]['id']>();
    expect(Object.keys(webhookOperations).sort()).toEqual(WEBHOOK_ROUTES.map((route) => route.id).sort());
  });

  it('refuses a table that misses a route, or names one the group lacks', () => {
    const routes = [{ id: 'one' }, { id: 'two' }] as const;
    const operation = async () => ({ data: {} });
    // @ts-expect-error: the route `two` has no operation.
    const missing = { one: operation } satisfies RouteOperations<typeof routes>;
    // @ts-expect-error: `three` is no route of the group.
    const extra = { one: operation, two: operation, three: operation } satisfies RouteOperations<typeof routes>;
    const complete = { one: operation, two: operation } satisfies RouteOperations<typeof routes>;
    expect([missing, extra, complete].map((table) => Object.keys(table).length)).toEqual([1, 3, 2]);
  });
});

/**
 * Operations typed by their contracts (GroupOperations, OperationOf): the input is what the contract's schemas parse,
 * the result what its response schema allows. Each fixture below is one mistake `tsc` refuses (`@ts-expect-error`
 * fails the type check if it ever compiled); the last table is the one that compiles.
 */
describe('GroupOperations', () => {
  const contracts = {
    create: {
      summary: 'create',
      status: 201,
      body: z.strictObject({ name: z.string(), note: z.optional(z.string()) }),
      data: z.strictObject({ id: z.string(), name: z.string(), tags: z.array(z.string()) }),
    },
    read: { summary: 'read', status: 200, pathParameters: z.object({ thing_id: z.string() }), data: z.strictObject({ id: z.string() }) },
  } as const satisfies Record<string, RouteContract>;
  type Contracts = typeof contracts;
  const tags: readonly string[] = ['a'];

  it('types the input by the contract, and refuses a result missing a required field or of the wrong type', () => {
    const create: OperationOf<Contracts, 'create'> = async ({ body }) => ({ status: 201, data: { id: 'x', name: body.name, tags } });
    expectTypeOf<Parameters<typeof create>[0]['body']>().toEqualTypeOf<{ name: string; note?: string | undefined }>();
    // @ts-expect-error: `name` is required by the response schema.
    const missingField: OperationOf<Contracts, 'create'> = async () => ({ data: { id: 'x', tags } });
    // @ts-expect-error: `id` is a string in the response schema.
    const wrongType: OperationOf<Contracts, 'read'> = async () => ({ data: { id: 1 } });
    // @ts-expect-error: the contract's body has no `colour`.
    const unknownInput: OperationOf<Contracts, 'create'> = async ({ body }) => ({ data: { id: body.colour, name: '', tags } });
    const read: OperationOf<Contracts, 'read'> = async ({ pathParameters }) => ({ data: { id: pathParameters.thing_id } });
    expect([create, missingField, wrongType, unknownInput, read].every((operation) => typeof operation === 'function')).toBe(true);
  });

  it('refuses a table missing a route or naming one without a contract', () => {
    const create: OperationOf<Contracts, 'create'> = async ({ body }) => ({ data: { id: 'x', name: body.name, tags } });
    const read: OperationOf<Contracts, 'read'> = async ({ pathParameters }) => ({ data: { id: pathParameters.thing_id } });
    // @ts-expect-error: the route `read` has no operation.
    const missing = { create } satisfies GroupOperations<Contracts>;
    // @ts-expect-error: `delete` has no contract.
    const extra = { create, read, delete: read } satisfies GroupOperations<Contracts>;
    // @ts-expect-error: `read`'s operation answers `create`'s contract.
    const swapped = { create: read, read: create } satisfies GroupOperations<Contracts>;
    const complete = { create, read } satisfies GroupOperations<Contracts>;
    expect([missing, extra, swapped, complete].map((table) => Object.keys(table).length)).toEqual([1, 3, 2, 2]);
  });

  it('keys the reads beside the admission by the contracts too: some routes may have none, a route id the group lacks does not compile', () => {
    const prefetch: Prefetch<unknown> = () => undefined;
    const reads: ViewReads = async () => undefined;
    const some = { read: prefetch } satisfies GroupPrefetch<Contracts, unknown>;
    // @ts-expect-error: `raed` is no route of the group.
    const misspelt = { raed: prefetch } satisfies GroupPrefetch<Contracts, unknown>;
    const views = { read: reads } satisfies GroupViewReads<Contracts>;
    // @ts-expect-error: `raed` is no route of the group.
    const misspeltView = { raed: reads } satisfies GroupViewReads<Contracts>;
    expect([some, misspelt, views, misspeltView].map((table) => Object.keys(table))).toEqual([['read'], ['raed'], ['read'], ['raed']]);
  });
});
