/**
 * The reconciler of claims left `claiming` (the ticket store failed or
 * timed out after the claim won): run every minute by a scheduled job in
 * AWS and on an interval in the local stack. A claim in progress has a
 * marker (`CLAIMING#<hour>`, written with the claim, deleted in the joining
 * transaction); the run reads the markers of the catch-up window, and for
 * each claim older than `minAgeMs` (the player's own request may still be
 * finishing it) runs `finishClaim`: the ticket is confirmed or created
 * (never a second one: its id derives from the invitation) and the
 * invitation joins with its event, once (the joining transaction is
 * conditioned on `claiming`). A marker whose invitation is no longer
 * claiming is removed.
 *
 * A run also reports what it saw still claiming (ClaimingBacklog and
 * ClaimingOldestAgeSeconds, from the invitations its markers name): a claim
 * that stays there is a ticket store that stays down, or a bug.
 */
import { DeleteCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TicketServiceUnavailable, type TicketBridge } from '../tickets/ticket-bridge';
import { finishClaim } from './claim';
import { claimBucket, claimMarkerKey, type InvitationStore } from './invitation-store';

export interface ReconcileOptions {
  readonly client: DynamoDBDocumentClient;
  readonly table: string;
  readonly invitations: InvitationStore;
  readonly tickets: TicketBridge;
  readonly clock?: () => Date;
  readonly catchUpHours?: number;
  /** Claims younger than this are left to the player's own request. */
  readonly minAgeMs?: number;
}

export interface ReconcileResult {
  /** Markers read. */
  readonly found: number;
  readonly joined: number;
  /** The ticket store is still unavailable: the next run tries again. */
  readonly deferred: number;
  readonly cleared: number;
  /** Invitations found still claiming (finished by this run or not, young ones included). */
  readonly claiming: number;
  /** Age of the oldest of them when the run started, in whole seconds; 0 when none. */
  readonly oldestClaimingAgeSeconds: number;
}

export async function reconcileClaims(options: ReconcileOptions): Promise<ReconcileResult> {
  const now = (options.clock ?? (() => new Date()))();
  const minAgeMs = options.minAgeMs ?? 60_000;
  const hours = options.catchUpHours ?? 48;
  const result = { found: 0, joined: 0, deferred: 0, cleared: 0, claiming: 0, oldestClaimingAgeSeconds: 0 };
  for (let h = hours; h >= 0; h -= 1) {
    const bucket = claimBucket(new Date(now.getTime() - h * 3_600_000));
    const { Items = [] } = await options.client.send(new QueryCommand({ TableName: options.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': bucket }, ConsistentRead: true }));
    for (const marker of Items) {
      result.found += 1;
      const item = await options.invitations.find(String(marker.invitation_id));
      if (!item || item.state !== 'claiming') {
        await options.client.send(new DeleteCommand({ TableName: options.table, Key: claimMarkerKey(bucket, String(marker.invitation_id)) }));
        result.cleared += 1;
        continue;
      }
      const ageMs = now.getTime() - Date.parse(item.claim_started_at ?? now.toISOString());
      result.claiming += 1;
      result.oldestClaimingAgeSeconds = Math.max(result.oldestClaimingAgeSeconds, Math.floor(Math.max(0, ageMs) / 1000));
      if (ageMs < minAgeMs) continue;
      try {
        await finishClaim({ invitations: options.invitations, tickets: options.tickets }, item, now);
        result.joined += 1;
      } catch (error) {
        if (!(error instanceof TicketServiceUnavailable)) throw error;
        result.deferred += 1;
      }
    }
  }
  return result;
}
