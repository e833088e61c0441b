/**
 * How long the service's DynamoDB client keeps trying one call: the retry budget (docs/faults.md "Retry budget").
 *
 * Every call gets the SDK's standard rule (the tries, the backoff, the retry quota). One answer gets more:
 * `TransactionInProgressException`, DynamoDB's answer to a TransactWriteItems whose ClientRequestToken belongs to a
 * transaction still in progress (the SDK's retry of its own try whose answer was lost), or that touches an item another
 * transaction is changing. AWS's guidance for it is to keep retrying the same request (the same token: the SDK
 * serializes one per `send()`, and its retries resend that request) until at least one retry is processed 5 s after the
 * first attempt, with a request timeout of 1 s or more and exponential backoff: "Recommended Settings" of
 * TransactionInProgressException, https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
 * (errors; ClientRequestToken: idempotent for 10 minutes, and the same token with other parameters is
 * IdempotentParameterMismatchException). The SDK's 3 tries give up after about 3 s; this strategy keeps the same
 * transaction going past the 5 s mark, but only inside an operation (`withinDeadline`: the pipeline's operation step)
 * and never so late that a try could outlive the operation's deadline. Outside an operation (the admission, with its
 * own 3 s deadline; the jobs) the standard rule alone applies.
 *
 * Why a wrapper around the SDK's `StandardRetryStrategy` (@smithy/core/retry) rather than a strategy of our own: the
 * standard rule stays the SDK's, its numbers kept (and updated) by AWS, none restated here; only the in-progress
 * rule is ours, since it needs the time of the call's first try and the operation's deadline, which the SDK's
 * strategies do not see. Every answer the rule does not take goes to the wrapped strategy, with the SDK's own token
 * carried along unchanged: the quota a retry took is what its success gives back. It is the SDK's strategy for
 * `maxAttempts` as anyone constructs it (the DynamoDB client's built-in default also shortens the base delay, a number
 * it does not export; beside 1 s tries the difference is noise). The in-progress rule takes nothing from the quota: it
 * is bounded by time, and it answers one request's own transaction, not an outage.
 *
 * Waiting: the in-progress rule hands its wait to the SDK through the token (`getRetryDelay`), which the SDK's retry
 * middleware waits out itself, racing the call's abort signal (the pipeline's deadlines abort their calls); the wrapped
 * strategy waits inside `refreshRetryTokenForRetry`, which the middleware races with the same signal.
 */
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { StandardRetryStrategy } from '@smithy/core/retry';
import { currentDeadline } from './operation-deadline';

type RetryStrategyV2 = Extract<NonNullable<DynamoDBClientConfig['retryStrategy']>, { acquireInitialRetryToken: unknown }>;
type StandardToken = Awaited<ReturnType<StandardRetryStrategy['acquireInitialRetryToken']>>;
type RetryErrorInfo = Parameters<StandardRetryStrategy['refreshRetryTokenForRetry']>[1];

/** AWS's mark: keep a transaction in progress going until a try starts this long after its first. */
export const IN_PROGRESS_WINDOW_MS = 5_000;
/** The in-progress rule's backoff: 500 ms, doubling, at most 2 s, half of it random (so it always advances). */
const IN_PROGRESS_BASE_MS = 500;
const IN_PROGRESS_CAP_MS = 2_000;

/** One call's tries so far: the SDK's token, as the SDK's strategy last returned it, and the in-progress rule's timing. */
class BudgetToken implements StandardToken {
  constructor(
    readonly standard: StandardToken,
    readonly firstAttemptAt: number,
    /** When the try made under this token started, at the earliest (the SDK waits at least the token's delay first). */
    readonly attemptAt: number,
    /** Retries made under the in-progress rule. */
    readonly inProgressRetries: number,
    /** The in-progress rule's wait before the next try; undefined when the SDK's strategy granted it. */
    private readonly inProgressDelay: number | undefined,
  ) {}

  get $retryLog() {
    return this.inProgressDelay === undefined ? this.standard.$retryLog : { acquisitionDelay: 0 };
  }

  getRetryCount(): number {
    return this.standard.getRetryCount() + this.inProgressRetries;
  }

  getRetryDelay(): number {
    return this.inProgressDelay ?? this.standard.getRetryDelay();
  }

  getRetryCost(): number | undefined {
    return this.standard.getRetryCost();
  }
}

export interface RetryBudgetOptions {
  /** Tries under the standard rule, the first included (the SDK's `StandardRetryStrategy`). */
  readonly maxAttempts: number;
  /** The longest one try can take (the client's request timeout): a retry starts only if it can finish by the deadline. */
  readonly tryTimeoutMs: number;
}

const isRetryable = (errorType: RetryErrorInfo['errorType']) => errorType === 'THROTTLING' || errorType === 'TRANSIENT';

/** The document client's retry strategy: the SDK's standard rule, and AWS's rule for a transaction in progress inside an operation. */
export class DynamoRetryStrategy implements RetryStrategyV2 {
  readonly mode: string;
  private readonly standard: StandardRetryStrategy;

  constructor(private readonly options: RetryBudgetOptions) {
    this.standard = new StandardRetryStrategy(options.maxAttempts);
    this.mode = this.standard.mode;
  }

  async acquireInitialRetryToken(retryTokenScope: string): Promise<StandardToken> {
    const standard = await this.standard.acquireInitialRetryToken(retryTokenScope);
    const now = Date.now();
    return new BudgetToken(standard, now, now, 0, undefined);
  }

  async refreshRetryTokenForRetry(renewed: StandardToken, errorInfo: RetryErrorInfo): Promise<StandardToken> {
    const token = renewed as BudgetToken;
    const inProgress = this.inProgressDelay(token, errorInfo);
    if (inProgress === 'stop') throw new Error('No retry token available');
    if (inProgress !== undefined) return new BudgetToken(token.standard, token.firstAttemptAt, Date.now() + inProgress, token.inProgressRetries + 1, inProgress);
    const standard = await this.standard.refreshRetryTokenForRetry(token.standard, errorInfo);
    return new BudgetToken(standard, token.firstAttemptAt, Date.now() + standard.getRetryDelay(), token.inProgressRetries, undefined);
  }

  recordSuccess(token: StandardToken): void {
    this.standard.recordSuccess((token as BudgetToken).standard);
  }

  /** The SDK's retry quota left (StandardRetryStrategy's). */
  getCapacity(): number {
    return this.standard.getCapacity();
  }

  /**
   * The wait before the next try under AWS's rule for a transaction in progress, 'stop' when the rule says no more, or
   * undefined when the rule does not apply (no operation deadline, or neither this answer nor an earlier one of the
   * call was TransactionInProgressException): once a transaction has met one, any retryable answer (a try timing out)
   * keeps it going to the mark, since its outcome is what the call is waiting for.
   */
  private inProgressDelay(token: BudgetToken, errorInfo: RetryErrorInfo): number | 'stop' | undefined {
    const deadline = currentDeadline();
    const inProgress = errorInfo.error?.name === 'TransactionInProgressException';
    if (deadline === undefined || !(inProgress || (token.inProgressRetries > 0 && isRetryable(errorInfo.errorType)))) return undefined;
    // A try that started at or after the mark has answered: AWS's guidance is met (it started no earlier than attemptAt).
    if (token.attemptAt - token.firstAttemptAt >= IN_PROGRESS_WINDOW_MS) return 'stop';
    const step = Math.min(IN_PROGRESS_CAP_MS, IN_PROGRESS_BASE_MS * 2 ** token.inProgressRetries);
    const backoff = Math.floor(step / 2 + (Math.random() * step) / 2);
    // The next try must be able to finish (its whole request timeout) by the deadline: later is never useful.
    const latest = deadline - this.options.tryTimeoutMs - Date.now();
    return latest < 0 ? 'stop' : Math.min(backoff, latest);
  }
}
