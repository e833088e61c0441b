/**
 * A delivery's claim and outcome writes when DynamoDB applied a write but its answer was lost and the SDK sent it
 * again (a timeout on a busy table): the retry's condition fails on the write's own effect. Taken as "someone else
 * holds the attempt", the worker dropped the message and left the delivery `attempting` until the sweeper (the
 * bench saw 13–27 of 1,000 deliveries stuck this way on a loaded DynamoDB Local). Each write now stamps the claim's
 * id and reads the old image on a failed condition (lambdas/webhooks/deliveries.ts).
 *
 * The fault is injected below the SDK's retry: the request reaches DynamoDB Local, then a TimeoutError replaces its
 * answer, and the SDK retries the same request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Deliveries } from '../../lambdas/webhooks/deliveries';
import { newWebhookId } from '../../lambdas/webhooks/webhook-items';
import { localDocumentClient } from '../../local/local-stack';
import { recordEventOf } from '../support/outbox-event';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ webhooks: false });
});
afterAll(() => stack?.stop());

/** A document client whose next `count` writes matching `matches` are applied, then answered with a TimeoutError (the SDK retries them). */
function answerLostClient(matches: (input: Record<string, unknown>) => boolean) {
  const client = localDocumentClient(stack.dynamoEndpoint);
  let armed = 0;
  let lost = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (armed > 0 && context.commandName === 'UpdateItemCommand' && matches(args.input as Record<string, unknown>)) {
        armed -= 1;
        lost += 1;
        throw Object.assign(new Error('answer lost after the write was applied (injected)'), { name: 'TimeoutError', $metadata: {} });
      }
      return result;
    },
    // Below the retry middleware (finalizeRequest): runs once per try.
    { step: 'deserialize', name: 'loseAnswerAfterWrite' },
  );
  return { client, arm: (count = 1) => void (armed = count), lost: () => lost };
}

const eventOf = (partnerId: string, at: Date) => recordEventOf(partnerId, at, 'rec_claim_retry');

async function newDelivery(deliveries: Deliveries) {
  const webhookId = newWebhookId();
  const { item } = await deliveries.createForEvent(webhookId, eventOf(`org_${webhookId.slice(3, 15)}`, new Date()));
  return item;
}

const isClaim = (input: Record<string, unknown>) => String(input.UpdateExpression).includes('claim_id = :claim');
const isOutcome = (input: Record<string, unknown>) => input.ConditionExpression === '#status = :attempting AND attempts = :attempt AND generation = :generation';

describe('a delivery write applied whose answer was lost, retried by the SDK', () => {
  it('the claim is still the worker’s: its retry recognizes its own first try, and another claim is refused', async () => {
    // Prepare
    const faulty = answerLostClient(isClaim);
    const deliveries = new Deliveries(faulty.client, stack.tables.access);
    const item = await newDelivery(deliveries);
    faulty.arm();

    // Act
    const claimed = await deliveries.claim(item.webhook_id, item.delivery_id, 1, 0, 'claim-first');
    const stolen = await new Deliveries(stack.client, stack.tables.access).claim(item.webhook_id, item.delivery_id, 1, 0, 'claim-other');

    // Assess
    expect(faulty.lost()).toBe(1);
    expect(claimed).toBe(true);
    expect(stolen).toBe(false);
    const stored = await deliveries.get(item.webhook_id, item.delivery_id);
    expect(stored).toMatchObject({ status: 'attempting', attempts: 1, claim_id: 'claim-first' });
    faulty.client.destroy();
  });

  it('the outcome is recorded once and reported as recorded (a retrying delivery then queues its next attempt)', async () => {
    // Prepare
    const faulty = answerLostClient(isOutcome);
    const deliveries = new Deliveries(faulty.client, stack.tables.access);
    const item = await newDelivery(deliveries);
    expect(await deliveries.claim(item.webhook_id, item.delivery_id, 1, 0, 'claim-outcome')).toBe(true);
    faulty.arm();

    // Act
    const status = await deliveries.record(item.webhook_id, item.delivery_id, 1, 0, { delivered: false, reason: 'HTTP_5xx', httpStatus: 503 }, new Date(Date.now() + 60_000), 'claim-outcome');

    // Assess
    expect(faulty.lost()).toBe(1);
    expect(status).toBe('retrying');
    expect(await deliveries.get(item.webhook_id, item.delivery_id)).toMatchObject({ status: 'retrying', attempts: 1, last_http_status: 503 });
    faulty.client.destroy();
  });

  it('an outcome write of a worker whose claim was taken over is still refused', async () => {
    // Prepare: the attempt claimed by another worker (claim-b) after claim-a's lease.
    const deliveries = new Deliveries(stack.client, stack.tables.access);
    const item = await newDelivery(deliveries);
    let now = Date.now();
    const late = new Deliveries(stack.client, stack.tables.access, () => new Date(now));
    expect(await late.claim(item.webhook_id, item.delivery_id, 1, 0, 'claim-a')).toBe(true);
    now += 10 * 60_000;
    expect(await late.claim(item.webhook_id, item.delivery_id, 1, 0, 'claim-b')).toBe(true);
    expect(await late.record(item.webhook_id, item.delivery_id, 1, 0, { delivered: true, httpStatus: 200 }, undefined, 'claim-b')).toBe('delivered');

    // Act: claim-a's outcome arrives after claim-b recorded its own.
    const status = await late.record(item.webhook_id, item.delivery_id, 1, 0, { delivered: true, httpStatus: 200 }, undefined, 'claim-a');

    // Assess
    expect(status).toBeUndefined();
  });
});
