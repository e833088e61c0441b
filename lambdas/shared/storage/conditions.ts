/**
 * How DynamoDB says "your condition did not hold", in one place. Every
 * conditional write (admission counters, claims, idempotency records,
 * identity read-modify-writes) decides retry-or-refuse with these; the one
 * error path (errors.ts) answers a refusal no operation explained with them.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';

interface CancellationReason {
  readonly Code?: string;
}

const reasonsOf = (error: unknown): readonly CancellationReason[] =>
  ((error as { CancellationReasons?: CancellationReason[] })?.CancellationReasons ?? []);

const nameOf = (error: unknown) => (error as { name?: string } | undefined)?.name;

/**
 * The item as it was when a write's condition failed (a write sent with ReturnValuesOnConditionCheckFailure:
 * ALL_OLD), unmarshalled: the document client leaves the exception's old image as DynamoDB attribute values.
 */
export function conditionOldImage(error: unknown): Record<string, unknown> | undefined {
  const item = (error as { Item?: Parameters<typeof unmarshall>[0] } | undefined)?.Item;
  return item ? unmarshall(item) : undefined;
}

/**
 * A single-item condition failed (ConditionalCheckFailedException), or a
 * transaction was cancelled because one of its conditions failed. Checked by
 * name, not class: the document client and the low-level client may come
 * from different copies of the SDK.
 */
export function isConditionFailure(error: unknown): boolean {
  if (nameOf(error) === 'ConditionalCheckFailedException') return true;
  return nameOf(error) === 'TransactionCanceledException' && reasonsOf(error).some((r) => r.Code === 'ConditionalCheckFailed');
}

/** A transaction lost a race with another write to one of its items (TransactionConflict): retrying is safe. */
export function isWriteConflict(error: unknown): boolean {
  return nameOf(error) === 'TransactionCanceledException' && reasonsOf(error).some((r) => r.Code === 'TransactionConflict');
}

/**
 * Run a read-modify-write until it returns: a lost race (a failed condition
 * or a transaction conflict) backs off with jitter and runs `attempt` again,
 * with fresh reads, at most `maxAttempts` times; then `exhausted()` is thrown,
 * with the last lost race as its cause when it has none (so that the one error
 * path answers an unexplained exhaustion as the retryable 503 WRITE_CONFLICT,
 * never a 500). Any other error is thrown at once.
 *
 * Why running `attempt` again cannot apply a write twice when an answer is lost:
 * - A transaction is sent with one ClientRequestToken for all of the SDK's tries.
 *   If its first try was applied and its answer lost, the retry is answered as
 *   applied (DynamoDB, and DynamoDB Local, keep the token 10 minutes), never as
 *   a cancellation, so `attempt` returns. If the first try is still running, the
 *   retry meets TransactionInProgressException, which is deliberately NOT a lost
 *   race here: running `attempt` again would send a new transaction (a new
 *   token) beside one that may yet apply. It goes to the SDK's retry budget
 *   (retry-budget.ts) and, exhausted, to the caller (a retryable 503).
 * - When every try's answer is lost, the SDK throws a TimeoutError, which is not
 *   a lost race either: thrown at once, never retried here.
 * - A single-item conditional write inside `attempt` is the one hazard: its SDK
 *   retry after a lost answer is judged against its own applied effect and fails
 *   its condition, which would look like a lost race, and `attempt` would then
 *   apply its change again on top of its own. Such a write must go through
 *   writeOnce (write-once.ts: its stamp recognises its own effect) or write
 *   values that hold however often they are written (`if_not_exists`). Likewise
 *   a single-item TransactionConflictException (the item was in another
 *   transaction) is not taken for a lost race: the try before it may have been
 *   applied, and nothing on the item would show it.
 * - A caller's own retry (after `fail-after` or the function's deadline, with
 *   the write applied) is a new request: `attempt` then reads the applied state
 *   and decides on it, so an operation whose second run would change something
 *   again (another id, another event) needs an idempotency key, a submission id
 *   or a request id of its own (docs/faults.md).
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>, maxAttempts: number, exhausted: () => Error): Promise<T> {
  let lost: unknown;
  for (let n = 0; n < maxAttempts; n += 1) {
    if (n > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 10 * 2 ** Math.min(n, 5))));
    try {
      return await attempt();
    } catch (error) {
      if (!isConditionFailure(error) && !isWriteConflict(error)) throw error;
      lost = error;
    }
  }
  const error = exhausted();
  if (error.cause === undefined) error.cause = lost;
  throw error;
}

/**
 * Cancellation reasons a retry cannot change: the transaction itself is invalid (two actions on one item, an item
 * over 400 KB, a wrong type) or an item collection is full. Such a cancellation is a defect, not a lost race.
 */
const PERMANENT_REASONS: ReadonlySet<string> = new Set(['ValidationError', 'ItemCollectionSizeLimitExceeded']);

/** How a DynamoDB refusal that no operation explained can be answered: what it was, without anything of the items. */
export interface StrayRefusal {
  /** The exception's name (ConditionalCheckFailedException, TransactionCanceledException, TransactionInProgressException, TransactionConflictException). */
  readonly error: string;
  /** A cancelled transaction's reason per item, in order (`None` for the items that were fine). */
  readonly reasons?: readonly string[];
}

/** The DynamoDB refusal in `error` or its causes (a store may wrap it), and what it says. */
function refusalIn(error: unknown): { readonly exception: unknown; readonly refusal: StrayRefusal } | undefined {
  let cause = error;
  for (let depth = 0; cause !== undefined && cause !== null && depth < 5; depth += 1) {
    const name = nameOf(cause);
    if (name === 'ConditionalCheckFailedException' || name === 'TransactionInProgressException' || name === 'TransactionConflictException') {
      return { exception: cause, refusal: { error: name } };
    }
    if (name === 'TransactionCanceledException') {
      const reasons = reasonsOf(cause).map((reason) => reason.Code ?? 'None');
      return reasons.some((code) => PERMANENT_REASONS.has(code)) ? undefined : { exception: cause, refusal: { error: name, reasons } };
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A write DynamoDB refused for a reason a later try can overcome, found in `error` or its causes: a failed condition,
 * a transaction cancelled by failed conditions, conflicts or throttling, a transaction still in progress after the
 * retry budget, a single write that met another transaction. Undefined for anything else, including an
 * IdempotentParameterMismatchException (a token reused with other parameters: a defect of the code that chose the
 * token, which a retry within 10 minutes meets again) and a cancellation with a permanent reason.
 */
export function strayRefusalOf(error: unknown): StrayRefusal | undefined {
  return refusalIn(error)?.refusal;
}

/**
 * Where in the code a refusal came from: the stack frames of `lambdas/` outside this folder (the store method and the
 * operation that awaited the write: the SDK's exception carries its caller's async frames), at most three.
 */
export function refusalSiteOf(error: unknown): string[] {
  const stack = String((refusalIn(error)?.exception as { stack?: unknown } | undefined)?.stack ?? '');
  return stack
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at ') && line.includes('lambdas/') && !line.includes('lambdas/shared/storage/'))
    .slice(0, 3);
}
