/**
 * Key creation under explored interleavings (test/support/interleaver.ts): an account's creations with idempotency
 * keys, some sent again (the page's retry, a second tab), their DynamoDB calls ordered by fast-check's scheduler, lost
 * answers and failures placed among them.
 *
 * What must hold (the model):
 * - one key per idempotency key: every answer for one idempotency key names the same key;
 * - the account holds exactly the keys of the idempotency keys that answered 201 or a replay, plus at most those whose
 *   creation failed for its caller after it was applied — and a replay of each after the run finds its key, so the
 *   count of keys equals the distinct idempotency keys a creation reached, never more (no orphan nobody can find);
 * - never more than the account's limit of live keys.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { KEY_LIMIT_PER_ACCOUNT, type KeyCreation } from '../../lambdas/back-office/api-keys';
import { faultSteps, Interleaver, raceParameters, runPlan, ScheduledStep } from '../support/interleaver';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ webhooks: false });
});
afterAll(() => stack?.stop());

const FIFO = Array.from({ length: 128 }, (_, i) => i + 1);
const IDEMPOTENCY_KEYS = ['k1', 'k2', 'k3'] as const;
interface World {
  readonly interleaver: Interleaver;
  readonly office: ReturnType<typeof createBackOffice>;
  readonly accountId: string;
  /** The idempotency key a step's own key stands for in this run (scoped to the run's account). */
  readonly scope: (key: string) => string;
}

type Answer = { readonly key: string; readonly creation: KeyCreation };
const keyInput = (accountId: string, key: string) => ({ accountId, name: `key ${key}`, scopes: ['public:read'] });
const createWith = (key: (typeof IDEMPOTENCY_KEYS)[number]) =>
  ScheduledStep.operation<World, Answer>(`create ${key}`, async ({ office, accountId, scope }) => ({ key, creation: await office.keys.createIdempotent(keyInput(accountId, key), scope(key)) }), key);
const [createK1, createK2, createK3] = IDEMPOTENCY_KEYS.map(createWith);
const plans = fc.commands([fc.constant(createK1), fc.constant(createK2), fc.constant(createK3), faultSteps<World, Answer>()], { maxCommands: 6 });

let serial = 0;

describe('key creation under explored interleavings', () => {
  it('makes one key per idempotency key, none that a replay cannot find, and stays under the limit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), plans, async (scheduler, commands) => {
        // Prepare
        const { account_id } = await stack.office.accounts.create(`Racer ${(serial += 1)}`);
        const run = serial;
        const scope = (key: string) => `race-${run}-${key}`;
        const input = (key: string) => keyInput(account_id, key);
        const interleaver = new Interleaver(scheduler, stack.dynamoEndpoint);
        const office = createBackOffice(interleaver.client, stack.tables.access);

        // Act
        const { steps: plan, outcomes } = await runPlan<World, Answer>(commands, { interleaver, office, accountId: account_id, scope });
        interleaver.destroy();

        // Assess
        const context = `steps: ${interleaver.steps.join(' → ')}; answers: ${outcomes.map((o) => (o.status === 'fulfilled' ? (o.value ? `${o.value.key}:${o.value.creation.outcome}` : 'fault') : String(o.reason))).join(', ')}`;
        const answered = outcomes.flatMap((o) => (o.status === 'fulfilled' && o.value ? [o.value] : []));
        const asked = new Set(plan.flatMap((s) => (s.tag === undefined ? [] : [s.tag])));
        // After the run, each idempotency key asked for is sent once more (no fault): the key it names is the one every
        // earlier answer named, and the account then holds exactly one key per idempotency key.
        const finals = new Map<string, string>();
        for (const key of asked) {
          const creation = await stack.office.keys.createIdempotent(input(key), scope(key));
          expect(creation.outcome, context).not.toBe('conflict');
          if (creation.outcome !== 'conflict') finals.set(key, creation.key.key_id);
        }
        for (const a of answered) {
          expect(a.creation.outcome, context).not.toBe('conflict');
          if (a.creation.outcome !== 'conflict') expect(a.creation.key.key_id, context).toBe(finals.get(a.key));
        }
        const { keys } = await stack.office.keys.list(account_id);
        expect(keys.length, context).toBe(asked.size);
        expect(keys.length, context).toBeLessThanOrEqual(KEY_LIMIT_PER_ACCOUNT);
      }),
      { ...raceParameters(6), examples: [[fc.schedulerFor(FIFO), [ScheduledStep.fault<World, Answer>('fail-after'), createK1, createK1]]] },
    );
  });
});
