/**
 * The front doors' prefetch (lambdas/shared/http/pipeline.ts): a route's reads started beside the admission are handed
 * to the operation; a failed one is never unhandled and the operation reads again; one that is not the operation's
 * (its guard says no) is read again too.
 */
import { describe, expect, it, vi } from 'vitest';
import { prefetchedOr, startPrefetch, type OperationInput } from '../../../lambdas/shared/http/pipeline';

const input = (prefetched?: Promise<unknown>) => ({ prefetched }) as unknown as OperationInput;
const isNumber = (value: unknown): value is number => typeof value === 'number';

describe('startPrefetch', () => {
  it('starts the reads with the request and hands their promise on', async () => {
    const prefetch = vi.fn(async ({ caller }: { caller: string }) => `${caller} read`);
    const started = startPrefetch(prefetch, { event: {} as never, caller: 'me', platform: {} as never });
    expect(prefetch).toHaveBeenCalledTimes(1);
    await expect(started).resolves.toBe('me read');
  });

  it('starts nothing without a prefetch, and leaves no rejection unhandled', async () => {
    expect(startPrefetch(undefined, { event: {} as never, caller: 'me', platform: {} as never })).toBeUndefined();
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      startPrefetch(async () => Promise.reject(new Error('store down')), { event: {} as never, caller: 'me', platform: {} as never });
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});

describe('prefetchedOr', () => {
  it("answers the prefetched value when it is the operation's", async () => {
    const fresh = vi.fn(async () => 2);
    await expect(prefetchedOr(input(Promise.resolve(1)), fresh, isNumber)).resolves.toBe(1);
    expect(fresh).not.toHaveBeenCalled();
  });

  it('reads again when nothing was prefetched, when the prefetch failed, or when it is not what the operation needs', async () => {
    const fresh = vi.fn(async () => 2);
    await expect(prefetchedOr(input(), fresh, isNumber)).resolves.toBe(2);
    await expect(prefetchedOr(input(Promise.reject(new Error('timed out'))), fresh, isNumber)).resolves.toBe(2);
    await expect(prefetchedOr(input(Promise.resolve('another read')), fresh, isNumber)).resolves.toBe(2);
    expect(fresh).toHaveBeenCalledTimes(3);
  });
});
