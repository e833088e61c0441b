/**
 * A function's operations cover its group's routes at compile time (RouteOperations): a route without an operation,
 * or an operation for a route the group lacks, does not type-check (`npm test` type-checks first), instead of answering
 * 404 at run time. The fixtures below are the two mistakes; `@ts-expect-error` fails the type check if either compiled.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { RouteOperations } from '../../../lambdas/shared/http/pipeline';
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
