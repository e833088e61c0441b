/**
 * Every fault the delivery pipeline can meet, injected at each of its call sites on the local
 * pipeline (DynamoDB Local, the local queue, the synthesized retry state machine run by
 * aws-local-stepfunctions): a call that fails, a call that takes effect but whose answer is lost, an
 * invocation that dies before or after a call, a message the queue delivers twice, a message that
 * arrives after its delivery was resent, Step Functions refusing a start then accepting it.
 *
 * Each case is one new callback and one business event, with one fault armed
 * (local/fault-injection.ts); it passes when the delivery ends as it would have without the fault,
 * every request the receiver got carries the same event id and the very same bytes (the stored
 * event), and the receiver got exactly the number of requests docs/webhooks.md ("Faults") states for
 * that fault. Cases run one after another: a rule counts the calls of a part of the pipeline,
 * whoever makes them.
 *
 * Timing is local and scaled: retry waits x 0.0001, the queue's visibility timeout 3 s, the attempt
 * lease 2.5 s and the sweeper's grace 8 s (the deployed 182 s, 45 s and 5 min keep the same order);
 * each case also says whether the sweeper had to step in (only when nothing else can: an execution
 * that failed for good).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryMessage } from '../../lambdas/webhooks/delivery-schedule';
import { FaultPlan, type FaultRule } from '../../local/fault-injection';
import { startTestStack, type TestStack } from '../support/test-stack';
import { businessRequests, openDeliveries, raisedWebhookHandlers, webhookWorld, type Receiver } from '../support/webhook-world';

const faults = new FaultPlan();
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({
    handlers: raisedWebhookHandlers(),
    webhooks: {
      allowLocalWebhooks: true,
      waitScale: 0.0001,
      timeoutMs: 1500,
      visibilityTimeoutSeconds: 3,
      attemptLeaseMs: 2500,
      // Longer than a lease and a backoff, as deployed (5 min against 45 s + 10 s): what the worker recovers by itself is
      // not the sweeper's doing, and each case says whether it needed the sweeper.
      sweepGraceMs: 8000,
      faults,
      resolve: async () => ['127.0.0.1'],
    },
  });
});
afterAll(() => stack?.stop());

const world = webhookWorld(() => stack);

type Input = Readonly<Record<string, unknown>>;
/** The worker's writes, told apart by what they write. */
const WRITES = {
  /** Taking a slot and a start of the callback (the admission on the callback's item). */
  admission: (i: Input) => String((i.Key as { sk?: string })?.sk).startsWith('WEBHOOK#') && i.UpdateExpression !== 'REMOVE #leases.#lease',
  /** Giving the slot back. */
  release: (i: Input) => i.UpdateExpression === 'REMOVE #leases.#lease',
  /** Claiming the attempt (deliveries.ts claim). */
  claim: (i: Input) => String(i.UpdateExpression).includes('attempt_deadline = :deadline'),
  /** Writing the attempt's outcome (deliveries.ts record). */
  outcome: (i: Input) => i.ConditionExpression === '#status = :attempting AND attempts = :attempt AND generation = :generation',
  /** Creating the delivery record (the fan-out). */
  delivery: (i: Input) => String((i.Item as { pk?: string })?.pk).startsWith('DELIVERIES#'),
};

interface FaultCase {
  readonly name: string;
  readonly rules: readonly FaultRule[];
  /** Business events the receiver fails (500) before it accepts: 0, or 4 to take the long retry through the state machine. */
  readonly failFirst?: 0 | 1 | 4;
  /** Requests the receiver gets for the event, all told (its failures included). */
  readonly requests: number;
  /** Retry executions that fail (default 0). */
  readonly executionsFailed?: number;
  /** Attempts the sweeper had to queue again (default 0: the pipeline recovered by itself). */
  readonly swept?: number;
}

/** One callback and one event through the pipeline with `rules` armed: the delivery, the receiver, the event as stored. */
async function deliverWith(rules: readonly FaultRule[], failFirst = 0) {
  await stack.webhooks!.idle();
  const m = await world.manager();
  const r = await world.receiver((n) => (n <= failFirst ? 500 : 200));
  const { id } = await world.activeCallback(m, r);
  faults.reset();
  const before = stack.webhooks!.stats();
  const armed = rules.map((rule) => faults.arm(rule));
  const eventId = await world.businessEvent(m.partner_id);
  const delivery = await world.deliveryOf(id, eventId, (d) => d.status === 'delivered' || d.status === 'failed', 60_000);
  // Whatever the fault left behind (a message back after its visibility timeout, a sweep) has run its course.
  await stack.webhooks!.idle();
  for (const [i, handle] of armed.entries()) expect(handle.fired(), `rule ${i + 1} fired`).toBe(true);
  const stored = (await stack.office.records!.events(m.partner_id)).events.find((e: { id: string }) => e.id === eventId);
  const executionsFailed = stack.webhooks!.stats().executionsFailed - before.executionsFailed;
  const swept = faults.trace().filter((c) => c.component === 'sweeper' && c.call === 'SendMessage').length;
  return { m, r, id, eventId, delivery: (await world.watched(id)).find((d) => d.event_id === eventId)!, settled: delivery, stored, executionsFailed, swept };
}

/** Every request `r` got for `eventId` carries that id and exactly the stored event's bytes. */
function expectSameEvent(r: Receiver, eventId: string, stored: unknown) {
  const requests = businessRequests(r);
  for (const request of requests) {
    expect(request.headers['x-service-event-id']).toBe(eventId);
    expect(JSON.parse(request.rawBody.toString('utf8'))).toEqual(stored);
  }
  expect(new Set(requests.map((q) => q.rawBody.toString('hex'))).size).toBe(1);
  return requests.length;
}

const rule = (component: FaultRule['component'], call: string, effect: FaultRule['effect'], more: Partial<FaultRule> = {}): FaultRule => ({ component, call, effect, ...more });

const CASES: readonly FaultCase[] = [
  // The fan-out: the stream gives the record again; the delivery is made once, its first attempt queued (twice at worst).
  { name: 'fan-out: the Query of callbacks fails', rules: [rule('fan-out', 'Query', 'fail')], requests: 1 },
  { name: 'fan-out: the delivery Put fails', rules: [rule('fan-out', 'PutItem', 'fail', { matches: WRITES.delivery })], requests: 1 },
  { name: 'fan-out: the delivery Put is made but its answer lost', rules: [rule('fan-out', 'PutItem', 'fail-after', { matches: WRITES.delivery })], requests: 1 },
  { name: 'fan-out: SendMessage fails', rules: [rule('fan-out', 'SendMessage', 'fail')], requests: 1 },
  { name: 'fan-out: SendMessage is made but its answer lost (the first attempt queued twice)', rules: [rule('fan-out', 'SendMessage', 'fail-after')], requests: 1 },
  { name: 'fan-out: the fan-out dies after the Put, before SendMessage', rules: [rule('fan-out', 'SendMessage', 'crash')], requests: 1 },
  { name: 'SQS delivers the first attempt twice', rules: [rule('fan-out', 'SendMessage', 'duplicate')], requests: 1 },
  // The worker, first attempt.
  { name: 'worker: the BatchGetItem of delivery, callback and standing fails', rules: [rule('worker', 'BatchGetItem', 'fail')], requests: 1 },
  { name: 'worker: the admission write fails', rules: [rule('worker', 'UpdateItem', 'fail', { matches: WRITES.admission })], requests: 1 },
  { name: 'worker: the admission write is made but its answer lost (a slot held until its lease ends)', rules: [rule('worker', 'UpdateItem', 'fail-after', { matches: WRITES.admission })], requests: 1 },
  { name: 'worker: the claim fails', rules: [rule('worker', 'UpdateItem', 'fail', { matches: WRITES.claim })], requests: 1 },
  { name: 'worker: the claim is made but its answer lost (taken over after the lease)', rules: [rule('worker', 'UpdateItem', 'fail-after', { matches: WRITES.claim })], requests: 1 },
  { name: 'worker: KMS Decrypt fails', rules: [rule('worker', 'Decrypt', 'fail')], requests: 1 },
  { name: 'worker: the HTTPS send throws before a byte leaves', rules: [rule('worker', 'https', 'fail')], requests: 1 },
  { name: 'worker: the worker dies after the receiver answered 2xx, before the outcome is written', rules: [rule('worker', 'https', 'crash-after')], requests: 2 },
  { name: 'worker: the outcome write fails after a 2xx', rules: [rule('worker', 'UpdateItem', 'fail', { matches: WRITES.outcome })], requests: 2 },
  { name: 'worker: the outcome write is made but its answer lost', rules: [rule('worker', 'UpdateItem', 'fail-after', { matches: WRITES.outcome })], requests: 1 },
  { name: 'worker: giving the slot back fails', rules: [rule('worker', 'UpdateItem', 'fail', { matches: WRITES.release })], requests: 1 },
  { name: 'worker: the worker dies giving the slot back', rules: [rule('worker', 'UpdateItem', 'crash', { matches: WRITES.release })], requests: 1 },
  { name: 'the queue: DeleteMessage of the handled message fails (it comes back)', rules: [rule('worker', 'DeleteMessage', 'fail')], requests: 1 },
  {
    name: 'worker: after a failure, ChangeMessageVisibility fails too (the message comes back after the visibility timeout)',
    rules: [rule('worker', 'UpdateItem', 'fail', { matches: WRITES.outcome }), rule('worker', 'ChangeMessageVisibility', 'fail')],
    requests: 2,
  },
  // The worker, a failed attempt and what queues the next one.
  { name: 'worker: SendMessage of the next attempt fails', rules: [rule('worker', 'SendMessage', 'fail')], failFirst: 1, requests: 2 },
  { name: 'worker: the worker dies before queuing the next attempt', rules: [rule('worker', 'SendMessage', 'crash')], failFirst: 1, requests: 2 },
  { name: 'worker: StartExecution fails, then succeeds', rules: [rule('worker', 'StartExecution', 'fail')], failFirst: 4, requests: 5 },
  { name: 'worker: StartExecution starts the execution but its answer is lost (the retry finds it started)', rules: [rule('worker', 'StartExecution', 'fail-after')], failFirst: 4, requests: 5 },
  // The retry state machine's SendMessage: its retrier, then (all five tries failing) a failed execution the sweeper makes up for.
  { name: 'state machine: SendMessage fails once (the retrier sends again)', rules: [rule('state-machine', 'SendMessage', 'fail')], failFirst: 4, requests: 5 },
  {
    name: 'state machine: SendMessage fails every try (the execution fails; the sweeper queues the attempt)',
    rules: [1, 2, 3, 4, 5].map((nth) => rule('state-machine', 'SendMessage', 'fail', { nth })),
    failFirst: 4,
    requests: 5,
    executionsFailed: 1,
    swept: 1,
  },
];

describe('faults at every call site of the delivery pipeline', () => {
  it.each(CASES)('$name', async ({ rules, failFirst, requests, executionsFailed, swept }) => {
    const result = await deliverWith(rules, failFirst ?? 0);

    expect(result.delivery).toMatchObject({ status: 'delivered', attempts: (failFirst ?? 0) + 1, last_http_status: 200 });
    expect(expectSameEvent(result.r, result.eventId, result.stored)).toBe(requests);
    expect(result.executionsFailed).toBe(executionsFailed ?? 0);
    expect(result.swept).toBe(swept ?? 0);
  }, 90_000);

  it('a message the worker failed on is set to come back after the attempt’s lease and a backoff (ChangeMessageVisibility), not the visibility timeout', async () => {
    await deliverWith([rule('worker', 'Decrypt', 'fail')]);
    const worker = faults.trace().filter((c) => c.component === 'worker');
    const failedAt = worker.findIndex((c) => c.call === 'Decrypt');
    // The failing invocation's own calls after the failure: it gives the slot back and sets the message's return.
    const after = worker.slice(failedAt + 1).filter((c) => c.invocation === worker[failedAt].invocation).map((c) => c.call);
    expect(after).toEqual(['UpdateItem', 'ChangeMessageVisibility']);
  }, 90_000);

  it('a message of an earlier cycle, arriving after the delivery was resent, makes no attempt', async () => {
    // A delivery that failed for good (8 attempts), then resent by its creator: a new cycle (generation 1).
    const { m, r, id, eventId, delivery, stored } = await deliverWith([], 8);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 8 });
    const resent = await m.browser.post(`/settings/api/webhooks/${id}/deliveries/${delivery.delivery_id}/resend`);
    expect(resent.status).toBe(200);
    await world.deliveryOf(id, eventId, (d) => d.status === 'delivered');
    await stack.webhooks!.idle();
    expect(businessRequests(r)).toHaveLength(9);

    // Then messages of the first cycle arrive (a late retry, a duplicate of the first attempt).
    const late = (attempt: number): DeliveryMessage => ({ v: 1, partner_id: m.partner_id, webhook_id: id, account_id: m.account_id, delivery_id: delivery.delivery_id, attempt, generation: 0 });
    await stack.webhooks!.queue.send(late(1), 0);
    await stack.webhooks!.queue.send(late(5), 0);
    await stack.webhooks!.idle();

    expect(expectSameEvent(r, eventId, stored)).toBe(9);
    expect((await world.watched(id)).find((d) => d.event_id === eventId)).toMatchObject({ status: 'delivered', attempts: 1, resends: 1 });
  }, 90_000);

  it('leaves no delivery open: every delivery of every case ended', async () => {
    await stack.webhooks!.idle();
    expect(await openDeliveries(stack)).toEqual([]);
  });
});
