/**
 * The entitlement summary at query time: counted, unlimited, permanent,
 * queued, expired and refunded grants, and the boundary instants (a grant
 * counts from its start, inclusive, until its expiry, exclusive).
 */
import { describe, expect, it } from 'vitest';
import { summarizeEntitlements, summarizeGame, type Grant } from '../../../lambdas/entitlements/entitlement-summary';

const NOW = new Date('2026-11-22T12:00:00.000Z');
let n = 0;
const grant = (overrides: Partial<Grant>): Grant => ({
  grant_id: `g${(n += 1)}`,
  game: 'minecraft',
  units: 10,
  unlimited: false,
  starts_at: '2026-11-01T00:00:00.000Z',
  expires_at: '2026-12-01T00:00:00.000Z',
  used_units: 0,
  ...overrides,
});

describe('summarizeEntitlements', () => {
  it('always answers two entries, minecraft then fps, with zeros and nulls when nothing is held', () => {
    expect(summarizeEntitlements({ type: 'partner', id: 'org_1' }, [], NOW)).toEqual({
      owner_type: 'partner',
      owner_id: 'org_1',
      games: [
        { game: 'minecraft', remaining_units: 0, unlimited: false, total_units: 0, used_units: 0, expires_at: null, next_starts_at: null },
        { game: 'fps', remaining_units: 0, unlimited: false, total_units: 0, used_units: 0, expires_at: null, next_starts_at: null },
      ],
    });
  });

  it('sums counted grants: total, used (refunds already taken off) and remaining, with the earliest expiry', () => {
    const grants = [grant({ units: 10, used_units: 3 }), grant({ units: 5, used_units: 5, expires_at: '2026-11-25T00:00:00.000Z' })];
    expect(summarizeGame('minecraft', grants, NOW)).toEqual({
      game: 'minecraft',
      remaining_units: 7,
      unlimited: false,
      total_units: 15,
      used_units: 8,
      expires_at: '2026-11-25T00:00:00.000Z',
      next_starts_at: null,
    });
  });

  it('marks an unlimited grant without adding units, and still reports counted ones', () => {
    const summary = summarizeGame('fps', [grant({ game: 'fps', unlimited: true, units: undefined, used_units: 4 }), grant({ game: 'fps', units: 2 })], NOW);
    expect(summary).toMatchObject({ unlimited: true, total_units: 2, remaining_units: 2, used_units: 4 });
  });

  it('answers expires_at null when a current grant is permanent', () => {
    expect(summarizeGame('minecraft', [grant({}), grant({ expires_at: null })], NOW).expires_at).toBeNull();
  });

  it('never adds a queued grant to the balance; it sets next_starts_at to the nearest start', () => {
    const summary = summarizeGame(
      'minecraft',
      [grant({ starts_at: '2027-01-01T00:00:00.000Z', units: 100 }), grant({ starts_at: '2026-12-15T00:00:00.000Z', units: 50 })],
      NOW,
    );
    expect(summary).toMatchObject({ total_units: 0, remaining_units: 0, expires_at: null, next_starts_at: '2026-12-15T00:00:00.000Z' });
  });

  it('ignores expired grants entirely', () => {
    expect(summarizeGame('minecraft', [grant({ expires_at: '2026-11-20T00:00:00.000Z', units: 30, used_units: 1 })], NOW)).toMatchObject({
      total_units: 0,
      used_units: 0,
      expires_at: null,
    });
  });

  it('counts a grant from its start instant and no longer at its expiry instant', () => {
    const g = grant({ starts_at: NOW.toISOString(), expires_at: '2026-11-22T13:00:00.000Z' });
    expect(summarizeGame('minecraft', [g], NOW).total_units).toBe(10);
    expect(summarizeGame('minecraft', [g], new Date(NOW.getTime() - 1)).total_units).toBe(0);
    expect(summarizeGame('minecraft', [g], new Date('2026-11-22T12:59:59.999Z')).total_units).toBe(10);
    expect(summarizeGame('minecraft', [g], new Date('2026-11-22T13:00:00.000Z')).total_units).toBe(0);
  });

  it('never answers negative remaining units, even when use exceeds a grant', () => {
    expect(summarizeGame('minecraft', [grant({ units: 2, used_units: 3 })], NOW).remaining_units).toBe(0);
  });

  it('keeps the games apart', () => {
    const summary = summarizeEntitlements({ type: 'account', id: 'acc_1' }, [grant({ game: 'fps', units: 4 })], NOW);
    expect(summary.games.map((g) => [g.game, g.total_units])).toEqual([
      ['minecraft', 0],
      ['fps', 4],
    ]);
  });
});
