/**
 * How DynamoDB says "your condition did not hold", in one place. Every
 * conditional write (admission counters, claims, idempotency records,
 * identity read-modify-writes) decides retry-or-refuse with these.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';

interface CancellationReason {
  readonly Code?: string;
}

const reasonsOf = (error: unknown): readonly CancellationReason[] =>
  ((error as { CancellationReasons?: CancellationReason[] })?.CancellationReasons ?? []);

const nameOf = (error: unknown) => (error as { name?: string } | undefined)?.name;

/**
 * A single-item condition failed (ConditionalCheckFailedException), or a
 * transaction was cancelled because one of its conditions failed. Checked by
 * name, not class: the document client and the low-level client may come
 * from different copies of the SDK.
 */
/**
 * The item as it was when a write's condition failed (a write sent with ReturnValuesOnConditionCheckFailure:
 * ALL_OLD), unmarshalled: the document client leaves the exception's old image as DynamoDB attribute values.
 */
export function conditionOldImage(error: unknown): Record<string, unknown> | undefined {
  const item = (error as { Item?: Parameters<typeof unmarshall>[0] } | undefined)?.Item;
  return item ? unmarshall(item) : undefined;
}

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
 * with fresh reads, at most `maxAttempts` times; then `exhausted()` is thrown.
 * Any other error is thrown at once.
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>, maxAttempts: number, exhausted: () => Error): Promise<T> {
  for (let n = 0; n < maxAttempts; n += 1) {
    if (n > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 10 * 2 ** Math.min(n, 5))));
    try {
      return await attempt();
    } catch (error) {
      if (!isConditionFailure(error) && !isWriteConflict(error)) throw error;
    }
  }
  throw exhausted();
}
