/**
 * Each operation's floor: the fewest sequential DynamoDB round trips (and, where the write is the point, billed write
 * units) it can cost with the service's guarantees, and the endpoint-costs run's figures beside them (docs/performance.md,
 * "Every operation at its floor").
 *
 * An authenticated read: the admission's writes with the route's reads beside them (one round trip), then the
 * concurrency leases' release on invitation and ticket routes (one more). A change adds its own write; a key creation
 * its password's accepted change (the account's change quotas) before the key's transaction; the claim, one
 * transaction of four items after the player admission's two counters (2 + 4 × 2 = 10 billed write units).
 */
import { billedUnits } from './cost/model';
import type { EndpointCostRow } from './scenario';
import { round } from './stats';

export interface Floor {
  readonly round_trips: number;
  /** Billed write units (AWS: 2 per transaction item, 1 per refused conditional write), where the issue states one. */
  readonly billed_wru?: number;
}

export const FLOORS: Readonly<Record<string, Floor>> = {
  health: { round_trips: 0 },
  me: { round_trips: 1 },
  entitlements: { round_trips: 2 },
  'record-lookup': { round_trips: 2 },
  'org-records': { round_trips: 2 },
  'org-record': { round_trips: 2 },
  'org-entitlements': { round_trips: 2 },
  invitations: { round_trips: 2 },
  'invitation-create': { round_trips: 3 },
  invitation: { round_trips: 2 },
  'invitation-link': { round_trips: 2 },
  'invitation-revoke': { round_trips: 3 },
  tickets: { round_trips: 2 },
  ticket: { round_trips: 2 },
  'player-page': { round_trips: 0 },
  'player-view': { round_trips: 1 },
  'player-claim': { round_trips: 3, billed_wru: 10 },
  'player-message': { round_trips: 3 },
  'settings-organizations': { round_trips: 2 },
  'settings-keys': { round_trips: 2 },
  'settings-audit': { round_trips: 2 },
  'settings-key-create': { round_trips: 4 },
};

export interface FloorResult {
  readonly route: string;
  readonly label: string;
  readonly round_trips: number;
  readonly billed_wru: number;
  readonly floor?: Floor;
  /** undefined: no floor stated for the route. */
  readonly met?: boolean;
}

/**
 * Each measured operation against its floor, on a warm container: the round trips of the calls after the route's first
 * (EndpointCostRow.warm_round_trips; the first pays authentication's read, the cold half of the admission's target). A
 * mean above the floor by less than 0.05 is a rare retry, and counts as met.
 */
export function floorResults(rows: readonly EndpointCostRow[]): FloorResult[] {
  return rows.map((row) => {
    const floor = FLOORS[row.route];
    const billed = round(billedUnits(row.dynamo).write, 2);
    const roundTrips = row.warm_round_trips ?? row.dynamo.round_trips;
    const met = floor && roundTrips <= floor.round_trips + 0.05 && (floor.billed_wru === undefined || billed <= floor.billed_wru + 0.05);
    return { route: row.route, label: row.label, round_trips: roundTrips, billed_wru: billed, ...(floor ? { floor, met } : {}) };
  });
}

/** The table `npm run bench` prints: each operation's round trips and billed write units beside its floor. */
export function floorTable(results: readonly FloorResult[]): string {
  const headers = ['operation', 'round trips', 'floor', 'billed WRU', 'floor WRU', 'met'];
  const rows = results.map((r) => [r.label, String(r.round_trips), r.floor ? String(r.floor.round_trips) : '–', String(r.billed_wru), r.floor?.billed_wru === undefined ? '–' : String(r.floor.billed_wru), r.met === undefined ? '–' : r.met ? 'yes' : 'NO']);
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
