/**
 * The admission under explored interleavings (test/support/interleaver.ts): concurrent attempts on one holder item with
 * a rolling limit (10 starts in any 60 s) and a concurrency limit (3 in flight) — the delivery pipeline's per-callback
 * item, the one holder with both — each admitted attempt releasing its lease as a later step, their DynamoDB calls
 * ordered by fast-check's scheduler, lost answers and failures placed among them.
 *
 * What must hold (the model):
 * - never more than 3 leases held at once, never more than 10 starts in the window;
 * - a lost answer the SDK retried counts once: when no write failed for its caller, the item ends with no lease held
 *   and exactly as many start entries as attempts admitted;
 * - a failure after an applied write (the caller saw 503) may leave its lease until it expires and its start counted —
 *   never an admission beyond a limit.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../lambdas/shared/errors';
import { AdmissionStore } from '../../lambdas/shared/limits/admission-store';
import { decide, planHolderItems, type DecisionDeps } from '../../lambdas/shared/limits/admission';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { WindowMemory } from '../../lambdas/shared/limits/window-memory';
import { newWebhookId, webhookKey } from '../../lambdas/webhooks/webhook-items';
import { faultSteps, Interleaver, InjectedStorageFault, raceParameters, runPlan, ScheduledStep } from '../support/interleaver';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ webhooks: false });
});
afterAll(() => stack?.stop());

const IN_FLIGHT = 3;
const STARTS = 10;
const FIFO = Array.from({ length: 128 }, (_, i) => i + 1);

interface World {
  readonly interleaver: Interleaver;
  readonly deps: DecisionDeps;
  readonly key: ReturnType<typeof webhookKey>;
  /** Leases held now (admitted, not yet released), the most at once, admissions. */
  readonly held: { now: number; most: number; admitted: number };
}

/** One delivery attempt's admission on the callback's item, holding its lease until a later step releases it. */
const attempt = ScheduledStep.operation<World, 'admitted'>('attempt', async ({ deps, key, held }) => {
  const decision = await decide(
    planHolderItems([{ holder: 'webhook-delivery', key, guard: { kind: 'webhook' } }], { category: 'webhook-attempt' }, deps),
    (_item, old) => (!old || old.status !== 'active' ? 'WEBHOOK_INACTIVE' : undefined),
    deps,
  );
  held.admitted += 1;
  held.now += 1;
  held.most = Math.max(held.most, held.now);
  // The release is a later step of the interleaving: other attempts run while this one holds its lease.
  await decision.release();
  held.now -= 1;
  return 'admitted';
});
const plans = fc.commands([fc.constant(attempt), fc.constant(attempt), fc.constant(attempt), faultSteps<World, 'admitted'>()], { maxCommands: 8 });

describe('the admission under explored interleavings', () => {
  it('never holds more than its limits, and counts exactly once through lost answers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), plans, async (scheduler, commands) => {
        // Prepare: an active callback's item; one instant for every attempt.
        const key = webhookKey('org_race', newWebhookId());
        await stack.client.send(new PutCommand({ TableName: stack.tables.access, Item: { ...key, status: 'active' } }));
        const interleaver = new Interleaver(scheduler, stack.dynamoEndpoint);
        const store = new AdmissionStore(interleaver.client, stack.tables.access);
        const world: World = { interleaver, key, deps: { store, windows: new WindowMemory(), limits: LIMITS, now: new Date(), cleanupTimeoutMs: 5_000 }, held: { now: 0, most: 0, admitted: 0 } };

        // Act
        const { steps: plan, outcomes } = await runPlan<World, 'admitted'>(commands, world);
        interleaver.destroy();
        const { most: mostHeld, admitted } = world.held;

        // Assess
        const item = (await stack.client.send(new GetCommand({ TableName: stack.tables.access, Key: key, ConsistentRead: true }))).Item ?? {};
        const answers = outcomes.filter((_, i) => plan[i].fault === undefined);
        const unexpected = answers.filter(
          (o) => o.status === 'rejected' && !(o.reason instanceof InjectedStorageFault) && !(o.reason instanceof ApiError && ['CONCURRENCY_LIMITED', 'RATE_LIMITED', 'RATE_LIMIT_UNAVAILABLE'].includes(o.reason.code)),
        );
        const failedForCaller = answers.some((o) => o.status === 'rejected' && ((o.reason instanceof ApiError && o.reason.code === 'RATE_LIMIT_UNAVAILABLE') || o.reason instanceof InjectedStorageFault));
        const faultsPlaced = plan.some((s) => s.fault !== undefined && s.fault !== 'lose-answer');
        const leases = Object.keys((item.leases as Record<string, unknown> | undefined) ?? {}).length;
        const starts = Object.keys((item[rollingAttribute(item)] as Record<string, unknown> | undefined) ?? {}).length;
        const context = `steps: ${interleaver.steps.join(' → ')}; answers: ${answers.map((o) => (o.status === 'fulfilled' ? o.value : ((o.reason as { code?: string }).code ?? String(o.reason)))).join(', ')}; item: ${JSON.stringify(item)}`;
        expect(unexpected.map((o) => String((o as PromiseRejectedResult).reason)), context).toEqual([]);
        expect(mostHeld, context).toBeLessThanOrEqual(IN_FLIGHT);
        expect(admitted, context).toBeLessThanOrEqual(STARTS);
        expect(starts, context).toBeLessThanOrEqual(STARTS);
        if (!failedForCaller && !faultsPlaced) {
          expect(leases, context).toBe(0);
          expect(starts, context).toBe(admitted);
        }
      }),
      { ...raceParameters(8), examples: [[fc.schedulerFor(FIFO), [ScheduledStep.fault<World, 'admitted'>('lose-answer'), attempt, attempt]]] },
    );
  });
});

/** The rolling limit's map attribute (named by the admission's planner): the one map besides the leases. */
function rollingAttribute(item: Record<string, unknown>): string {
  return Object.keys(item).find((name) => name !== 'leases' && typeof item[name] === 'object' && item[name] !== null && !Array.isArray(item[name])) ?? 'none';
}
