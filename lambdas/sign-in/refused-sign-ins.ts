/**
 * Refused sign-in attempts for an address, shown to its owner at the next sign-in (docs/web-settings.md, "Signing in").
 *
 * Every refused attempt — a wrong password or an unknown address alike, a wrong two-factor code, an attempt a sign-in
 * limit refused — adds one to `refused` and sets `refused_at` on the address's limit item (`SIGNIN#EMAIL#<digest>` /
 * `LIMITS`, settings-admission.ts). That item exists for every address anyone typed, known or not, and the write is
 * the same either way, so neither the answer nor its cost tells which addresses have an account. The write also keeps
 * the item REFUSED_KEPT_DAYS (`ttl`; its counters alone need two days).
 *
 * A successful sign-in takes them (`take`): one conditional update, beside the session's Put, that moves the count
 * to `cleared` / `cleared_at` and removes it. With nothing refused its condition fails and nothing changes (one write
 * unit either way).
 *
 * Neither write decides an answer: a refusal is answered as it is, and a sign-in goes on, whatever they do (a failure
 * is logged; refusals not taken are shown at the next sign-in). Lost answers (docs/faults.md): both are stamped
 * (writeOnce). A refusal's retry meets its own stamp and adds nothing; the take's retry fails its condition (the
 * count is gone), finds its own stamp, and reads the count it moved from `cleared`.
 */
import { randomBytes } from 'node:crypto';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AUDIT_RETENTION_DAYS, type AuditEntryName } from '../back-office/audit';
import { ApiError } from '../shared/errors';
import { logger } from '../shared/observability/logger';
import { perPlatform, type Clock } from '../shared/platform';
import { requireTable } from '../shared/storage/table-names';
import { newWriteStamp, writeOnce, WRITE_STAMP } from '../shared/storage/write-once';
import { signInEmailKey } from '../settings/settings-admission';

/** As long as the audit trail keeps an entry: an owner who signs in within a month is told. */
export const REFUSED_KEPT_DAYS = AUDIT_RETENTION_DAYS;

/** What a sign-in answers (`refused_sign_ins`) and audits: refusals since the address's last sign-in. */
export interface RefusedSignIns {
  readonly count: number;
  /** The last one's time (ISO). */
  readonly last_at: string;
}

const REFUSED = { '#refused': 'refused', '#refused_at': 'refused_at' };
const CLEARED = { '#cleared': 'cleared', '#cleared_at': 'cleared_at' };

/**
 * The names of a sign-in's audit entries: `sign_in.succeeded` and, after refusals, `sign_in.refused_attempts`, at one
 * time, their ids ordering the refusals just before the sign-in (the trail lists the sign-in first, then what was
 * refused before it), never by chance.
 */
export function signInEntryNames(at: Date): { readonly signedIn: AuditEntryName; readonly refused: AuditEntryName } {
  const pair = randomBytes(12).toString('base64url');
  return { signedIn: { at: at.toISOString(), id: `${pair}-s` }, refused: { at: at.toISOString(), id: `${pair}-r` } };
}

/**
 * Whether an attempt's error is a refusal worth telling the owner: a wrong password (or unknown address), a sign-in
 * limit's 429, a wrong two-factor code — not a missing code (the form's first step, after the right password), nor
 * what refuses the owner's own right credentials (a deactivated account), nor a store that did not answer.
 */
export function isRefusedAttempt(error: unknown, twoFactorCode: string | undefined): boolean {
  if (!(error instanceof ApiError)) return false;
  if (error.code === 'INVALID_TWO_FACTOR') return twoFactorCode !== undefined && twoFactorCode !== '';
  return error.code === 'INVALID_PASSWORD' || error.code === 'RATE_LIMITED';
}

export class RefusedSignInStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: Clock,
  ) {}

  /** Run a sign-in attempt; a refusal (isRefusedAttempt) is recorded for `email` (normalized) before it is answered. */
  async recordingRefusal<T>(email: string, twoFactorCode: string | undefined, attempt: () => Promise<T>): Promise<T> {
    try {
      return await attempt();
    } catch (error) {
      if (isRefusedAttempt(error, twoFactorCode)) await this.record(email);
      throw error;
    }
  }

  /** One more refused attempt for the address (never throws: the refusal is answered whatever this write does). */
  async record(email: string): Promise<void> {
    const now = this.clock();
    const stamp = newWriteStamp();
    try {
      await writeOnce(
        this.client,
        new UpdateCommand({
          TableName: this.table,
          Key: signInEmailKey(email),
          UpdateExpression: 'ADD #refused :one SET #refused_at = :at, #ttl = :ttl',
          // Fails only on this write's own earlier try (its stamp), which writeOnce takes for applied: counted once.
          ConditionExpression: 'attribute_not_exists(#stamp) OR #stamp <> :stamp',
          ExpressionAttributeNames: { ...REFUSED, '#ttl': 'ttl', '#stamp': WRITE_STAMP },
          ExpressionAttributeValues: { ':one': 1, ':at': now.toISOString(), ':ttl': Math.floor(now.getTime() / 1000) + REFUSED_KEPT_DAYS * 86_400, ':stamp': stamp },
        }),
        stamp,
      );
    } catch (error) {
      logger.error('refused sign-in not recorded', { error });
    }
  }

  /**
   * The refusals since the address's last sign-in, cleared (undefined: none, or the write failed, logged: they stay
   * for the next sign-in). One conditional update.
   */
  async take(email: string): Promise<RefusedSignIns | undefined> {
    try {
      const outcome = await writeOnce(
        this.client,
        new UpdateCommand({
          TableName: this.table,
          Key: signInEmailKey(email),
          // Moved, not only removed: the retry of a try whose answer was lost reads the count from `cleared`.
          UpdateExpression: 'SET #cleared = #refused, #cleared_at = #refused_at REMOVE #refused, #refused_at',
          ConditionExpression: 'attribute_exists(#refused)',
          ExpressionAttributeNames: { ...REFUSED, ...CLEARED },
          ReturnValues: 'UPDATED_OLD',
        }),
      );
      if (!outcome.applied) return undefined;
      const old = outcome.attributes ?? {};
      const [count, lastAt] = outcome.replayed ? [old.cleared, old.cleared_at] : [old.refused, old.refused_at];
      return typeof count === 'number' && count > 0 && typeof lastAt === 'string' ? { count, last_at: lastAt } : undefined;
    } catch (error) {
      logger.error('refused sign-ins not read', { error });
      return undefined;
    }
  }
}

/** One store per platform (per container): its client, the `access` table, the platform's clock. */
export const refusedSignInsOf = perPlatform((platform) => new RefusedSignInStore(platform.documentClient, requireTable(platform.tables, 'access'), platform.clock));
