/**
 * DynamoDB adapter of admission: one conditional UpdateItem per principal
 * item (key, account, organization) that at once re-checks what can revoke
 * the key, counts the request in every fixed window that covers it, and takes
 * a concurrency lease. The three run in parallel: one round trip, one write
 * unit each (items stay under 1 KB).
 *
 * Counters are map attributes `{w: window id, n: count}`. DynamoDB has no
 * conditional SET, so each counter is planned as an increment (same window,
 * `n < limit`) or a reset (older window); a wrong guess fails the condition
 * and the old image (ReturnValuesOnConditionCheckFailure) tells the caller
 * exactly what to do instead.
 *
 * Every call is bounded: the client's own timeouts (storage/dynamo-client.ts)
 * and the caller's deadline (an AbortSignal). The SDK retries a timed-out
 * write, which may already have been applied: each admission write stamps the
 * item with its admission id (`adm`) and is conditioned on the stamp not being
 * its own, so a retry of an applied write fails its condition and the old
 * image (stamp = own id) says it was applied: the request is counted once.
 * Compensations are stamped the same way (`undo`). If another request wrote
 * the item between the two attempts the stamp is gone and the retry counts
 * again: a timed-out request may then use one more unit of a window, never
 * admit a request beyond the limit (docs/limits.md).
 *
 * This is the idiom of writeOnce (storage/write-once.ts: a stamp written with
 * the change, the old image on a failed condition, "my stamp" = applied), and
 * it stays here rather than going through writeOnce, which would change what
 * the write does:
 * - writeOnce relies on the write's own condition failing on its own effect.
 *   An admission's does not: `n < limit` still holds after its increment, so
 *   the retry of an applied try would count twice. The write must refuse its
 *   own stamp in its condition (`adm <> :id`), a clause writeOnce does not add.
 * - the stamp's name is three bytes (`adm`, `undo`), not `write_stamp`: the
 *   items stay under 1 KB, one write unit each, on every request; and a
 *   compensation has a stamp of its own, so an admission and its undo on one
 *   item never take each other's try for their own.
 * - the write carries the caller's deadline (an AbortSignal) and asks for the
 *   counts it made (UPDATED_NEW), and a TransactionConflict is a result here,
 *   not an error; writeOnce's send takes none of these.
 * What they share is one comparison (`old[stamp] === id`), written out below.
 */
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ApiError } from '../errors';
import { conditionOldImage, isConditionFailure } from '../storage/conditions';
import { UNAVAILABLE_HEADERS } from './rate-limit-headers';

export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

/** What must still hold of the item for the key to be usable. */
export type Guard =
  /** Nothing to re-check (the player site's IP and join-link items: counters only, created on first use). */
  | { readonly kind: 'none' }
  | { readonly kind: 'key' }
  /** `sessionGen` for a web-settings session (absent on the account item means 0); a key does not follow it. */
  | { readonly kind: 'account'; readonly credGen: number; readonly sessionGen?: number }
  | { readonly kind: 'organization'; readonly keyGen: number; readonly accountId: string; readonly grant: string }
  /** A webhook callback's item (the delivery pipeline's slots and starts): it must still be active. */
  | { readonly kind: 'webhook' };

export interface CounterPlan {
  readonly attribute: string;
  readonly windowId: number;
  readonly limit: number;
  readonly mode: 'increment' | 'reset';
}

export interface LeasePlan {
  readonly leaseId: string;
  readonly expiresAtMs: number;
  readonly limit: number;
  /** Expired leases to drop in the same write (each must still exist: the capacity check counts them). */
  readonly expired: readonly string[];
  /** `create` when the item has no lease map yet. */
  readonly mode: 'add' | 'create';
}

/**
 * A rolling limit's entry (limits-table.ts RollingLimit): an entry per admission in the map `attribute`,
 * living until `expiresAtMs`, never released; admitted while fewer than `limit` entries live. Planned
 * and conditioned like a lease (the expired entries dropped in the same write).
 */
export interface RollingPlan {
  readonly attribute: string;
  readonly entryId: string;
  readonly expiresAtMs: number;
  readonly limit: number;
  readonly expired: readonly string[];
  readonly mode: 'add' | 'create';
}

export interface ItemPlan {
  /** The admission this write belongs to: stamps the item so an SDK retry of an applied write is recognized. */
  readonly admissionId: string;
  readonly key: ItemKey;
  readonly guard: Guard;
  readonly counters: readonly CounterPlan[];
  readonly lease?: LeasePlan;
  readonly rolling?: RollingPlan;
  /**
   * Epoch seconds for the table's `ttl` attribute, on items that exist only for their counters
   * (the player site's IP and link items): set after every window they hold has ended, so TTL's
   * late removal never loses a live count (code reads windows, never relies on the removal).
   */
  readonly ttl?: number;
}

export type ItemOutcome =
  /** `counts`: each counter after this request (for the response headers). */
  | { readonly ok: true; readonly counts: Readonly<Record<string, number>> }
  | { readonly ok: false; readonly old: Readonly<Record<string, unknown>> | undefined }
  /**
   * The item was inside another writer's transaction at that instant (TransactionConflictException,
   * which the SDK does not retry): nothing was written; the same plan may be applied again. The
   * account item is both an admission holder and part of the back office's key transactions.
   */
  | { readonly ok: false; readonly conflict: true };

/**
 * The quota store did not answer (throttling, timeout, deadline, error):
 * admission fails closed, 503 RATE_LIMIT_UNAVAILABLE with Retry-After.
 */
export class QuotaStoreUnavailable extends ApiError {
  constructor(cause: unknown) {
    super('RATE_LIMIT_UNAVAILABLE', undefined, { ...UNAVAILABLE_HEADERS }, { cause });
    this.name = 'QuotaStoreUnavailable';
  }
}


/** Attribute stamped with the id of the last admission / compensation applied to an item. */
export const ADMISSION_STAMP = 'adm';
export const COMPENSATION_STAMP = 'undo';

class Expression {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private n = 0;

  name(actual: string): string {
    const placeholder = `#n${this.n++}`;
    this.names[placeholder] = actual;
    return placeholder;
  }

  value(actual: unknown): string {
    const placeholder = `:v${this.n++}`;
    this.values[placeholder] = actual;
    return placeholder;
  }
}

export function buildAdmissionUpdate(table: string, plan: ItemPlan) {
  const x = new Expression();
  const conditions: string[] = [];
  const sets: string[] = [];
  const removes: string[] = [];

  switch (plan.guard.kind) {
    case 'none':
      break;
    case 'key':
      conditions.push('attribute_exists(pk) AND attribute_not_exists(revoked_at)');
      break;
    case 'account':
      conditions.push(`${x.name('status')} = ${x.value('active')} AND cred_gen = ${x.value(plan.guard.credGen)}`);
      if (plan.guard.sessionGen !== undefined) {
        const gen = x.name('session_gen');
        conditions.push(plan.guard.sessionGen === 0 ? `(attribute_not_exists(${gen}) OR ${gen} = ${x.value(0)})` : `${gen} = ${x.value(plan.guard.sessionGen)}`);
      }
      break;
    case 'webhook':
      conditions.push(`${x.name('status')} = ${x.value('active')}`);
      break;
    case 'organization':
      conditions.push(
        `${x.name('status')} = ${x.value('active')} AND key_gen = ${x.value(plan.guard.keyGen)} AND managers.${x.name(plan.guard.accountId)} = ${x.value(plan.guard.grant)}`,
      );
      break;
  }

  for (const counter of plan.counters) {
    const attr = x.name(counter.attribute);
    const window = x.value(counter.windowId);
    if (counter.mode === 'increment') {
      conditions.push(`${attr}.w = ${window} AND ${attr}.n < ${x.value(counter.limit)}`);
      sets.push(`${attr}.n = ${attr}.n + ${x.value(1)}`);
    } else {
      conditions.push(`(attribute_not_exists(${attr}) OR ${attr}.w < ${window})`);
      sets.push(`${attr} = ${x.value({ w: counter.windowId, n: 1 })}`);
    }
  }

  if (plan.ttl !== undefined) sets.push(`${x.name('ttl')} = ${x.value(plan.ttl)}`);

  // A retry of this very write, already applied, must not apply twice (see the module header).
  const stamp = x.name(ADMISSION_STAMP);
  const id = x.value(plan.admissionId);
  conditions.push(`(attribute_not_exists(${stamp}) OR ${stamp} <> ${id})`);
  sets.push(`${stamp} = ${id}`);

  const entryMap = (attribute: string, entry: { id: string; expiresAtMs: number; limit: number; expired: readonly string[]; mode: 'add' | 'create' }) => {
    const map = x.name(attribute);
    if (entry.mode === 'create') {
      conditions.push(`attribute_not_exists(${map})`);
      sets.push(`${map} = ${x.value({ [entry.id]: entry.expiresAtMs })}`);
    } else {
      // Live entries = size - expired ones being dropped (each asserted to exist) < limit.
      conditions.push(`size(${map}) < ${x.value(entry.limit + entry.expired.length)}`);
      for (const name of entry.expired) {
        const path = `${map}.${x.name(name)}`;
        conditions.push(`attribute_exists(${path})`);
        removes.push(path);
      }
      sets.push(`${map}.${x.name(entry.id)} = ${x.value(entry.expiresAtMs)}`);
    }
  };
  if (plan.lease) entryMap('leases', { ...plan.lease, id: plan.lease.leaseId });
  if (plan.rolling) entryMap(plan.rolling.attribute, { ...plan.rolling, id: plan.rolling.entryId });

  return {
    TableName: table,
    Key: plan.key,
    UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].join(' ').trim(),
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: x.names,
    ExpressionAttributeValues: x.values,
    ReturnValues: 'UPDATED_NEW' as const,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

function countsOf(plan: ItemPlan, image: Record<string, unknown> | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const counter of plan.counters) {
    const value = (image?.[counter.attribute] as { n?: number } | undefined)?.n;
    counts[counter.attribute] = typeof value === 'number' ? value : 1;
  }
  return counts;
}

export class AdmissionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Read an item consistently (the key item, on a container's first request with that key). */
  async read(key: ItemKey, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
    try {
      const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }), { abortSignal: signal });
      return Item;
    } catch (error) {
      throw new QuotaStoreUnavailable(error);
    }
  }

  async apply(plan: ItemPlan, signal?: AbortSignal): Promise<ItemOutcome> {
    try {
      const { Attributes } = await this.client.send(new UpdateCommand(buildAdmissionUpdate(this.table, plan)), { abortSignal: signal });
      return { ok: true, counts: countsOf(plan, Attributes) };
    } catch (error) {
      if ((error as { name?: string } | undefined)?.name === 'TransactionConflictException') return { ok: false, conflict: true };
      if (!isConditionFailure(error)) throw new QuotaStoreUnavailable(error);
      const old = conditionOldImage(error);
      // Our own earlier attempt (timed out, retried by the SDK) was applied: admitted, once.
      if (old?.[ADMISSION_STAMP] === plan.admissionId) return { ok: true, counts: countsOf(plan, old) };
      return { ok: false, old };
    }
  }

  /**
   * Undo an admitted item's counts, lease and rolling entry for a request another item
   * rejected. A counter whose window has ended meanwhile is left alone.
   */
  async compensate(plan: ItemPlan, leaseTaken: boolean, signal?: AbortSignal): Promise<void> {
    let counters = plan.counters;
    for (let attempt = 0; attempt < 3 && (counters.length > 0 || leaseTaken || plan.rolling); attempt += 1) {
      const x = new Expression();
      const stamp = x.name(COMPENSATION_STAMP);
      const id = x.value(plan.admissionId);
      const conditions: string[] = [`(attribute_not_exists(${stamp}) OR ${stamp} <> ${id})`];
      const sets: string[] = [`${stamp} = ${id}`];
      for (const counter of counters) {
        const attr = x.name(counter.attribute);
        conditions.push(`${attr}.w = ${x.value(counter.windowId)} AND ${attr}.n > ${x.value(0)}`);
        sets.push(`${attr}.n = ${attr}.n - ${x.value(1)}`);
      }
      const removals = [
        ...(leaseTaken && plan.lease ? [`${x.name('leases')}.${x.name(plan.lease.leaseId)}`] : []),
        ...(plan.rolling ? [`${x.name(plan.rolling.attribute)}.${x.name(plan.rolling.entryId)}`] : []),
      ];
      const remove = removals.length > 0 ? `REMOVE ${removals.join(', ')}` : '';
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: plan.key,
            UpdateExpression: [`SET ${sets.join(', ')}`, remove].join(' ').trim(),
            ConditionExpression: conditions.join(' AND '),
            ExpressionAttributeNames: x.names,
            ExpressionAttributeValues: x.values,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
          { abortSignal: signal },
        );
        return;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const old = conditionOldImage(error) ?? {};
        // A retry of our own compensation, already applied.
        if (old[COMPENSATION_STAMP] === plan.admissionId) return;
        counters = counters.filter((c) => {
          const current = old[c.attribute] as { w?: number; n?: number } | undefined;
          return current?.w === c.windowId && (current.n ?? 0) > 0;
        });
      }
    }
  }

  /** Free a concurrency lease when the request ends. */
  async release(key: ItemKey, leaseId: string, signal?: AbortSignal): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key,
        UpdateExpression: 'REMOVE #leases.#lease',
        ExpressionAttributeNames: { '#leases': 'leases', '#lease': leaseId },
      }),
      { abortSignal: signal },
    );
  }

  /** True for exactly one caller per key and minute: the rejection it is about to log is the minute's sample. */
  async claimRateLogSlot(key: ItemKey, minute: number, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: 'SET rate_logged_minute = :minute',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(rate_logged_minute) OR rate_logged_minute < :minute)',
          ExpressionAttributeValues: { ':minute': minute },
        }),
        { abortSignal: signal },
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
