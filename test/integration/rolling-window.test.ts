/**
 * The delivery pipeline's "at most 10 starts per round" as a rolling limit on DynamoDB Local
 * (limits-table.ts RollingLimit, admission-store.ts): a callback's attempts, arriving in bursts and
 * concurrently over five minutes of a test clock, are admitted at most 10 in every 60-second window,
 * wherever the window starts, with at most 3 in flight; and the limit is reached (not refusing
 * more than it must). The fixed UTC minute it replaces let 20 through around a minute's boundary.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../lambdas/shared/errors';
import { AdmissionStore } from '../../lambdas/shared/limits/admission-store';
import { decide, planHolderItems, type DecisionDeps } from '../../lambdas/shared/limits/admission';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { WindowMemory } from '../../lambdas/shared/limits/window-memory';
import { newWebhookId, webhookKey } from '../../lambdas/webhooks/webhook-items';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ webhooks: false });
});
afterAll(() => stack?.stop());

const WINDOW_MS = 60_000;
const STARTS = 10;

/** One attempt's admission for the callback at `at` (ms): admitted (with its release), or refused with the answer's headers. */
async function attempt(store: AdmissionStore, windows: WindowMemory, key: ReturnType<typeof webhookKey>, at: number) {
  const deps: DecisionDeps = { store, windows, limits: LIMITS, now: new Date(at) };
  try {
    const decision = await decide(
      planHolderItems([{ holder: 'webhook-delivery', key, guard: { kind: 'webhook' } }], { category: 'webhook-attempt' }, deps),
      (_item, old) => (!old || old.status !== 'active' ? 'WEBHOOK_INACTIVE' : undefined),
      deps,
    );
    return { admitted: true as const, release: decision.release };
  } catch (error) {
    if (error instanceof ApiError && (error.code === 'RATE_LIMITED' || error.code === 'CONCURRENCY_LIMITED')) return { admitted: false as const, error };
    throw error;
  }
}

describe('starts per callback in any 60 seconds', () => {
  it('admits at most 10 in every sliding 60-second window (bursts, concurrency, minute boundaries), and reaches 10', async () => {
    // Prepare: an active callback; a start clock that crosses minute boundaries at odd offsets.
    const key = webhookKey('org_rolling', newWebhookId());
    await stack.client.send(new PutCommand({ TableName: stack.tables.access, Item: { ...key, status: 'active' } }));
    const store = new AdmissionStore(stack.client, stack.tables.access);
    const windows = new WindowMemory();
    const start = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 55_000;
    const admittedAt: number[] = [];
    let refusedRolling = 0;

    // Act: every 1.5 s of the test clock a burst of 6 concurrent attempts (each released at once: in-flight limits aside),
    // for five minutes: 1,200 attempts asked for, where at most 10 a minute may start.
    for (let t = start; t < start + 5 * WINDOW_MS; t += 1500) {
      const results = await Promise.all(Array.from({ length: 6 }, () => attempt(store, windows, key, t)));
      for (const result of results) {
        if (result.admitted) {
          admittedAt.push(t);
          await result.release();
        } else if (result.error.headers['X-RateLimit-Policy'] === 'webhook-delivery-starts-minute') {
          refusedRolling += 1;
          // The answer says when the oldest start leaves the window: then, and not before, one more fits.
          expect(Number(result.error.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
          expect(Number(result.error.headers['Retry-After'])).toBeLessThanOrEqual(60);
        }
      }
    }

    // Assess: every window [s, s + 60 s) over the run, starting at every admitted instant, holds at most 10.
    expect(refusedRolling).toBeGreaterThan(0);
    const inWindow = (from: number) => admittedAt.filter((at) => at >= from && at < from + WINDOW_MS).length;
    for (const from of admittedAt) expect(inWindow(from), `window from ${new Date(from).toISOString()}`).toBeLessThanOrEqual(STARTS);
    for (let from = start - WINDOW_MS; from < start + 5 * WINDOW_MS; from += 500) expect(inWindow(from)).toBeLessThanOrEqual(STARTS);
    // Not stricter than it must be: the limit is reached, and about 10 start in each minute of the run.
    expect(Math.max(...admittedAt.map(inWindow))).toBe(STARTS);
    expect(admittedAt.length).toBeGreaterThanOrEqual(5 * STARTS - 2);
  }, 120_000);

  it('holds at most 3 attempts in flight however many ask at once', async () => {
    const key = webhookKey('org_rolling', newWebhookId());
    await stack.client.send(new PutCommand({ TableName: stack.tables.access, Item: { ...key, status: 'active' } }));
    const store = new AdmissionStore(stack.client, stack.tables.access);

    const results = await Promise.all(Array.from({ length: 8 }, () => attempt(store, new WindowMemory(), key, Date.now())));

    const admitted = results.filter((r) => r.admitted);
    expect(admitted).toHaveLength(3);
    expect(results.filter((r) => !r.admitted).every((r) => !r.admitted && r.error.code === 'CONCURRENCY_LIMITED')).toBe(true);
  });
});
