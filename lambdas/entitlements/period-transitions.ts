/**
 * Period events: when an organization's grant starts (`starts_at` reached) or
 * ends (`expires_at` reached), `entitlement.updated` is written once, with
 * `created_at` = that instant, by a scheduled job, without any API call.
 *
 * How the job finds what is due without a Scan: an organization's grant item
 * carries a sparse "next transition" marker on the domain table's `gsi1`
 *
 * | attribute | value |
 * |---|---|
 * | `gsi1pk` | `ENTDUE#<UTC hour of the instant>` (e.g. `ENTDUE#2026-11-22T12`) |
 * | `gsi1sk` | `<instant ISO>#<grant_id>` |
 * | `due` | `start` or `end` |
 *
 * written with the grant (EntitlementStore.grant: only a transition still
 * ahead at grant time; a grant that starts at once had its event at grant
 * time). The job Queries the hour buckets of the catch-up window up to now
 * and, per due grant, runs ONE transaction: the grant's update, conditioned
 * on the marker it read (then moved to the next transition, or removed), and
 * the event Put(s). A second or concurrent run finds the condition false and
 * writes nothing: one event per transition.
 */
import { QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eventItem } from '../outbox/outbox';
import { isConditionFailure, isWriteConflict } from '../shared/storage/conditions';
import type { GameGroup } from '../records/games';

/** The domain table's generic index, which holds the transition markers (and nothing else on that table). */
export const DUE_INDEX = 'gsi1';
/** How far back the job looks by default: a job down for longer misses older transitions. */
export const DEFAULT_CATCH_UP_HOURS = 48;

export type TransitionKind = 'start' | 'end';

export interface Transition {
  readonly kind: TransitionKind;
  /** The instant, as a normalized ISO string (what sorts in `gsi1sk`). */
  readonly at: string;
}

interface Period {
  readonly starts_at: string;
  readonly expires_at: string | null;
}

const iso = (time: string) => new Date(Date.parse(time)).toISOString();

/** A grant's transitions in order: its start, then its end unless permanent; none when it can never be current. */
export function transitionsOf(period: Period): Transition[] {
  const start: Transition = { kind: 'start', at: iso(period.starts_at) };
  if (period.expires_at === null) return [start];
  const end: Transition = { kind: 'end', at: iso(period.expires_at) };
  return Date.parse(end.at) > Date.parse(start.at) ? [start, end] : [];
}

/** The first transition strictly after `after`; null when none is left. */
export function nextTransition(period: Period, after: Date): Transition | null {
  return transitionsOf(period).find((t) => Date.parse(t.at) > after.getTime()) ?? null;
}

export const dueBucket = (at: string) => `ENTDUE#${at.slice(0, 13)}`;

/** The marker attributes of `transition` on grant `grantId`. */
export function markerAttributes(grantId: string, transition: Transition) {
  return { gsi1pk: dueBucket(transition.at), gsi1sk: `${transition.at}#${grantId}`, due: transition.kind };
}

/**
 * The marker a new grant of an organization gets at grant time `now`: its
 * first transition still ahead (a start at or before `now` already had its
 * event with the grant). Nothing for accounts (they get no events) or when no
 * transition is ahead.
 */
export function grantMarker(ownerType: 'partner' | 'account', grantId: string, period: Period, now: Date) {
  if (ownerType !== 'partner') return {};
  const next = nextTransition(period, now);
  return next ? markerAttributes(grantId, next) : {};
}

/** The hour buckets from `catchUpHours` before `now` up to now's hour, oldest first. */
export function dueBuckets(now: Date, catchUpHours: number): string[] {
  const hour = 3_600_000;
  const last = Math.floor(now.getTime() / hour);
  const buckets: string[] = [];
  for (let h = last - catchUpHours; h <= last; h += 1) buckets.push(dueBucket(new Date(h * hour).toISOString()));
  return buckets;
}

/** A grant item as the index gives it (projection ALL), marker included. */
export interface MarkedGrant extends Period {
  readonly pk: string;
  readonly sk: string;
  readonly grant_id: string;
  readonly game: GameGroup;
  readonly gsi1sk: string;
  readonly due: TransitionKind;
}

/**
 * What a run at `now` does with a marked grant: the events of the marked
 * transition and of any later one already reached (a job that was down emits
 * them together), and the marker to leave, or null to remove it.
 */
export function planTransitions(grant: MarkedGrant, now: Date): { emit: Transition[]; next: Transition | null } {
  const all = transitionsOf(grant);
  const from = all.findIndex((t) => t.kind === grant.due);
  const pending = from < 0 ? [] : all.slice(from);
  const emit = pending.filter((t) => Date.parse(t.at) <= now.getTime());
  return { emit, next: pending.find((t) => Date.parse(t.at) > now.getTime()) ?? null };
}

/** Grant partitions are `ENT#<owner_type>#<owner_id>` (entitlement-store.ts ownerPartition): markers are only on organizations'. */
const organizationOf = (pk: string) => /^ENT#partner#(.+)$/.exec(pk)?.[1];

export interface PeriodJobOptions {
  readonly client: DynamoDBDocumentClient;
  /** The domain table. */
  readonly table: string;
  readonly clock?: () => Date;
  readonly catchUpHours?: number;
  /** Grants processed at once. */
  readonly concurrency?: number;
  /** Asked before each grant: true leaves the rest to the next run (e.g. the Lambda is about to time out). */
  readonly shouldStop?: () => boolean;
}

export interface PeriodJobResult {
  readonly now: string;
  readonly buckets: number;
  /** Marked grants the Query found due. */
  readonly due: number;
  /** Grants whose transitions this run wrote. */
  readonly transitioned: number;
  /** Events written (one per transition). */
  readonly events: number;
  /** Due grants another run had already transitioned (the marker condition failed): nothing written. */
  readonly already: number;
  /** Left for the next run: write conflicts that persisted, or the run was told to stop. */
  readonly deferred: number;
  readonly failed: number;
  readonly errors: readonly string[];
}

const CONFLICT_ATTEMPTS = 5;

/** One run of the job: every transition due at `clock()` within the catch-up window, each written exactly once. */
export async function runPeriodTransitions(options: PeriodJobOptions): Promise<PeriodJobResult> {
  const { client, table } = options;
  const now = (options.clock ?? (() => new Date()))();
  const buckets = dueBuckets(now, options.catchUpHours ?? DEFAULT_CATCH_UP_HOURS);
  const due: MarkedGrant[] = [];
  for (const bucket of buckets) due.push(...(await queryDue(client, table, bucket, now)));

  const counts = { transitioned: 0, events: 0, already: 0, deferred: 0, failed: 0 };
  const errors: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < due.length) {
      const grant = due[next];
      next += 1;
      if (options.shouldStop?.()) {
        counts.deferred += 1;
        continue;
      }
      try {
        const outcome = await transition(client, table, grant, now);
        if (typeof outcome === 'number') {
          counts.transitioned += 1;
          counts.events += outcome;
        } else counts[outcome] += 1;
      } catch (error) {
        counts.failed += 1;
        errors.push(`${grant.grant_id}: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, worker));
  return { now: now.toISOString(), buckets: buckets.length, due: due.length, ...counts, errors };
}

/** The bucket's markers due at `now` (one paged Query on the index; eventually consistent, the write's condition decides). */
async function queryDue(client: DynamoDBDocumentClient, table: string, bucket: string, now: Date): Promise<MarkedGrant[]> {
  const found: MarkedGrant[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: table,
        IndexName: DUE_INDEX,
        KeyConditionExpression: 'gsi1pk = :bucket AND gsi1sk <= :upto',
        // `<instant>#<grant_id>` of every instant up to now, `now` itself included ('~' sorts after any grant id).
        ExpressionAttributeValues: { ':bucket': bucket, ':upto': `${now.toISOString()}#~` },
        ExclusiveStartKey: startKey,
      }),
    );
    found.push(...((page.Items ?? []) as MarkedGrant[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return found;
}

/**
 * One grant's due transitions and their events, in one transaction conditioned on the marker read.
 * Answers the number of events written, or why nothing was.
 */
async function transition(client: DynamoDBDocumentClient, table: string, grant: MarkedGrant, now: Date): Promise<number | 'already' | 'deferred'> {
  const partnerId = organizationOf(grant.pk);
  const { emit, next } = planTransitions(grant, now);
  const marker = next ? markerAttributes(grant.grant_id, next) : undefined;
  const moveMarker = marker
    ? { UpdateExpression: 'SET gsi1pk = :pk, gsi1sk = :sk, #due = :kind', values: { ':pk': marker.gsi1pk, ':sk': marker.gsi1sk, ':kind': marker.due } }
    : { UpdateExpression: 'REMOVE gsi1pk, gsi1sk, #due', values: {} };
  const events =
    partnerId === undefined
      ? [] // Not an organization's grant (never marked so): the marker is only cleared.
      : emit.map((t) => eventItem(partnerId, { type: 'entitlement.updated', data: { game: grant.game } }, new Date(t.at)).item);
  const command = new TransactWriteCommand({
    TransactItems: [
      {
        Update: {
          TableName: table,
          Key: { pk: grant.pk, sk: grant.sk },
          ConditionExpression: 'gsi1sk = :read AND #due = :readKind',
          UpdateExpression: moveMarker.UpdateExpression,
          ExpressionAttributeNames: { '#due': 'due' },
          ExpressionAttributeValues: { ':read': grant.gsi1sk, ':readKind': grant.due, ...moveMarker.values },
        },
      },
      ...events.map((item) => ({ Put: { TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } })),
    ],
  });
  for (let attempt = 1; ; attempt += 1) {
    try {
      await client.send(command);
      return events.length;
    } catch (error) {
      if (isConditionFailure(error)) return 'already';
      if (!isWriteConflict(error)) throw error;
      if (attempt >= CONFLICT_ATTEMPTS) return 'deferred';
      // Another writer holds the grant (a use, or a concurrent run): retry; if that run won, the condition now fails.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
    }
  }
}
