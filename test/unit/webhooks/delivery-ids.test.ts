/**
 * A delivery is one event to one callback: its id, and every name built from it, differ between two
 * callbacks of one event (the retry state machine's execution names collided when ids followed the
 * event alone, and the second callback's retries were dropped as "already started"). Ids of the first
 * release, still in flight on a stage deployed before, are accepted and get a per-callback identity.
 */
import { describe, expect, it } from 'vitest';
import { WEBHOOK_CONTRACTS } from '../../../lambdas/webhooks/webhook-contracts';
import { newEventId } from '../../../lambdas/outbox/outbox';
import { retryExecutionName } from '../../../lambdas/webhooks/delivery-worker';
import { DELIVERY_ID_PATTERN, deliveryIdentity, deliveryIdOf, newWebhookId, webhookIdOfDelivery } from '../../../lambdas/webhooks/webhook-items';

const EVENT = newEventId(new Date('2026-11-26T10:00:00Z'));
const [A, B] = [newWebhookId(), newWebhookId()];

describe('delivery ids', () => {
  it('differ between two callbacks of one event, and name the callback', () => {
    expect(deliveryIdOf(EVENT, A)).not.toBe(deliveryIdOf(EVENT, B));
    expect(webhookIdOfDelivery(deliveryIdOf(EVENT, A))).toBe(A);
    expect(deliveryIdOf(EVENT, A)).toMatch(DELIVERY_ID_PATTERN);
    expect(deliveryIdOf(EVENT, A).startsWith(`dlv_${EVENT.slice(4)}_`)).toBe(true);
  });

  it('sort by the event’s time within a callback', () => {
    const earlier = deliveryIdOf(newEventId(new Date('2026-11-26T09:59:59Z')), A);
    expect([deliveryIdOf(EVENT, A), earlier].sort()).toEqual([earlier, deliveryIdOf(EVENT, A)]);
  });

  it('accept the first release’s ids, which name no callback, and give them a per-callback identity', () => {
    const old = `dlv_${EVENT.slice(4)}`;
    expect(old).toMatch(DELIVERY_ID_PATTERN);
    expect(webhookIdOfDelivery(old)).toBeUndefined();
    expect(deliveryIdentity(A, old)).toBe(deliveryIdOf(EVENT, A));
    expect(deliveryIdentity(A, old)).not.toBe(deliveryIdentity(B, old));
    expect(deliveryIdentity(A, deliveryIdOf(EVENT, A))).toBe(deliveryIdOf(EVENT, A));
  });

  it('give each callback’s retry of one attempt its own execution name, within Step Functions’ 80 characters', () => {
    for (const id of [deliveryIdOf(EVENT, A), `dlv_${EVENT.slice(4)}`]) {
      const names = [A, B].map((webhook) => retryExecutionName(webhook, webhookIdOfDelivery(id) ? deliveryIdOf(EVENT, webhook) : id, 12, 8));
      expect(new Set(names).size).toBe(2);
      for (const name of names) {
        expect(name.length).toBeLessThanOrEqual(80);
        expect(name).toMatch(/^[0-9A-Za-z_-]+$/);
      }
    }
    expect(retryExecutionName(A, deliveryIdOf(EVENT, A), 0, 5)).not.toBe(retryExecutionName(A, deliveryIdOf(EVENT, A), 1, 5));
  });

  it('are what the resend route accepts (the contract’s pattern is DELIVERY_ID_PATTERN)', () => {
    const parameters = WEBHOOK_CONTRACTS['webhook-resend'].pathParameters;
    for (const id of [deliveryIdOf(EVENT, A), `dlv_${EVENT.slice(4)}`]) expect(parameters.safeParse({ webhook_id: A, delivery_id: id }).success).toBe(true);
    for (const id of ['dlv_x', `${deliveryIdOf(EVENT, A)}0`, `dlv_${EVENT.slice(4)}_${A}`]) expect(parameters.safeParse({ webhook_id: A, delivery_id: id }).success).toBe(false);
  });
});
