/**
 * When a message the delivery worker failed on comes back (delivery-worker.ts failureBackoffSeconds):
 * a backoff doubling per receive, after what is left of the lease of an attempt the worker had
 * claimed, never later than the queue's visibility timeout, scaled with the local wait scale.
 */
import { describe, expect, it } from 'vitest';
import { ATTEMPT_LEASE_MS } from '../../../lambdas/webhooks/deliveries';
import { failureBackoffSeconds } from '../../../lambdas/webhooks/delivery-worker';
import { DELIVERY_QUEUE_VISIBILITY_SECONDS, WEBHOOK_PIPELINE } from '../../../lambdas/webhooks/pipeline-settings';

const NOW = 1_800_000_000_000;

describe('failureBackoffSeconds', () => {
  it('doubles per receive from 10 s when nothing was claimed', () => {
    expect([1, 2, 3, 4, 5].map((n) => failureBackoffSeconds(n, undefined, NOW))).toEqual([10, 20, 40, 80, 160]);
  });

  it('waits out the lease of an attempt the worker claimed (a message back sooner would find it held and be dropped)', () => {
    expect(failureBackoffSeconds(1, NOW + ATTEMPT_LEASE_MS, NOW)).toBe(ATTEMPT_LEASE_MS / 1000 + 10);
    expect(failureBackoffSeconds(1, NOW + 1500, NOW)).toBe(12);
    expect(failureBackoffSeconds(1, NOW - 1000, NOW)).toBe(10);
  });

  it('is never later than the queue’s visibility timeout, and the backoffs before the dead-letter queue sum to under it', () => {
    expect(failureBackoffSeconds(5, NOW + ATTEMPT_LEASE_MS, NOW)).toBe(DELIVERY_QUEUE_VISIBILITY_SECONDS);
    const beforeDeadLetter = [1, 2, 3, 4].reduce((sum, n) => sum + failureBackoffSeconds(n, undefined, NOW), 0);
    expect(beforeDeadLetter).toBe(150);
    expect(WEBHOOK_PIPELINE.queue.maxReceiveCount).toBe(5);
  });

  it('scales with the local wait scale, at least a second', () => {
    expect(failureBackoffSeconds(1, undefined, NOW, 0.0001)).toBe(1);
    expect(failureBackoffSeconds(3, NOW + 2500, NOW, 0.001)).toBe(4);
  });
});
