/**
 * The benchmark's rate-limiter-flexible peer is wired as bench/README.md says:
 * one RateLimiterDynamo per quota of the limits table (key, account,
 * organization × minute, day) with the table's numbers, each counting on its
 * own principal's item, in one union that refunds nothing when one refuses.
 */
import { RateLimiterDynamo } from 'rate-limiter-flexible';
import type { DynamoDB } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { peerKey, RateLimiterFlexiblePeer } from '../../../bench/quota-peer';
import { LIMITS, quotaLimits } from '../../../lambdas/shared/limits/limits-table';

interface Stored {
  points: number;
  expire: number;
}

/**
 * The two UpdateItems RateLimiterDynamo sends, on a map: the window restart (fails while the item's
 * window is live) and the increment. Records every write's item key in order.
 */
function fakeStore(preset: Record<string, Stored> = {}) {
  const items = new Map(Object.entries(preset));
  const writes: string[] = [];
  const client = {
    async updateItem(params: { Key: { key: { S: string } }; ConditionExpression: string; ExpressionAttributeValues: Record<string, { N: string }> }) {
      const key = params.Key.key.S;
      writes.push(key);
      const now = Number(params.ExpressionAttributeValues[':where_expire'].N);
      const points = Number(params.ExpressionAttributeValues[':new_points'].N);
      const item = items.get(key);
      if (params.ConditionExpression.includes('attribute_not_exists(points)')) {
        if (item && item.expire > now) throw Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
        items.set(key, { points, expire: Number(params.ExpressionAttributeValues[':new_expire'].N) });
      } else {
        if (!item) throw new Error(`increment of a missing item ${key}`);
        item.points += points;
      }
      const stored = items.get(key) as Stored;
      return { Attributes: { key: { S: key }, points: { N: String(stored.points) }, expire: { N: String(stored.expire) } } };
    },
  };
  return { client: client as unknown as DynamoDB, items, writes };
}

const ORG_KEY = { key_id: 'k1', account_id: 'a1', partner_id: 'p1' };
const limitOf = (policy: string) => quotaLimits(LIMITS).find((l) => l.policy === policy)!.limit;

describe('RateLimiterFlexiblePeer', () => {
  it('holds one RateLimiterDynamo per key, account and organization quota, with the limits table numbers', () => {
    // Act
    const peer = new RateLimiterFlexiblePeer({ client: fakeStore().client, table: 'peer-table', limits: LIMITS });

    // Assess
    const expected = quotaLimits(LIMITS).filter((l) => ['key', 'account', 'organization'].includes(l.holder) && l.covers === 'all');
    expect(expected.map((l) => l.policy)).toEqual(['key-minute', 'key-day', 'account-minute', 'account-day', 'organization-minute', 'organization-day']);
    expect(peer.limiters.map((l) => ({ policy: l.policy, holder: l.holder, points: l.limiter.points, duration: l.limiter.duration, keyPrefix: l.limiter.keyPrefix }))).toEqual(
      expected.map((l) => ({ policy: l.policy, holder: l.holder, points: l.limit, duration: l.windowSeconds, keyPrefix: l.policy })),
    );
    for (const { limiter } of peer.limiters) {
      expect(limiter).toBeInstanceOf(RateLimiterDynamo);
      expect((limiter as unknown as { tableName: string }).tableName).toBe('peer-table');
    }
  });

  it("counts an organization key's request on each quota's item of its own principal, a personal key's on key and account only", async () => {
    // Prepare
    const store = fakeStore();
    const peer = new RateLimiterFlexiblePeer({ client: store.client, table: 'peer-table', limits: LIMITS });

    // Act
    const organization = await peer.admit(ORG_KEY);
    const personal = await peer.admit({ key_id: 'k2', account_id: 'a2', partner_id: null });

    // Assess
    expect(organization).toEqual({ admitted: true });
    expect(personal).toEqual({ admitted: true });
    expect([...store.writes].sort()).toEqual(
      [
        'key-minute:k1',
        'key-day:k1',
        'account-minute:a1',
        'account-day:a1',
        'organization-minute:p1',
        'organization-day:p1',
        'key-minute:k2',
        'key-day:k2',
        'account-minute:a2',
        'account-day:a2',
      ].sort(),
    );
  });

  it('refuses a request over the organization minute quota and leaves its points on every other quota', async () => {
    // Prepare: the organization's minute window is full and live.
    const full = limitOf('organization-minute');
    const store = fakeStore({ 'organization-minute:p1': { points: full, expire: Date.now() / 1000 + 30 } });
    const peer = new RateLimiterFlexiblePeer({ client: store.client, table: 'peer-table', limits: LIMITS });

    // Act
    const decision = await peer.admit(ORG_KEY);

    // Assess
    expect(decision).toEqual({ admitted: false, policies: ['organization-minute'], errors: [] });
    expect(store.items.get('organization-minute:p1')?.points).toBe(full + 1);
    for (const item of ['key-minute:k1', 'key-day:k1', 'account-minute:a1', 'account-day:a1', 'organization-day:p1']) {
      expect(store.items.get(item)?.points, item).toBe(1);
    }
    // Restart attempt + increment on the full item, one write on each other item: nothing sent back.
    expect(store.writes).toHaveLength(7);
  });

  it("names every principal's id in the union's key", () => {
    // Act and assess
    expect(JSON.parse(peerKey(ORG_KEY))).toEqual({ key: 'k1', account: 'a1', organization: 'p1' });
    expect(JSON.parse(peerKey({ ...ORG_KEY, partner_id: null }))).toEqual({ key: 'k1', account: 'a1' });
  });
});
