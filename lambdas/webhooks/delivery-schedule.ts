/**
 * When a webhook delivery is attempted (docs/webhooks.md): the first attempt
 * as soon as the event is fanned out, then up to seven retries, each at least
 * the spec's wait after the previous failure: 1 min, 5 min, 15 min, 1 h,
 * 3 h, 6 h, 12 h. Eight failed attempts make the delivery finally failed.
 *
 * SQS carries every attempt. A wait SQS can hold itself (its message delay
 * stops at 15 minutes) is a delayed message; a longer one is an execution of
 * the retry state machine: a Wait state, then the message into the queue. So
 * a delivery that succeeds at once, or after the short waits, costs no Step
 * Functions transition, and one long wait costs two (the Wait and the send).
 *
 * The state machine's definition is built here, once: the stack deploys it
 * (lib/constructs/webhook-delivery.ts) and the local stack runs this very
 * definition with aws-local-stepfunctions (local/webhook-pipeline.ts).
 */

/** Attempts of one delivery (one cycle; a manual resend starts a new cycle). */
export const MAX_ATTEMPTS = 8;

/** The wait after failed attempt n (index n - 1), seconds. */
export const RETRY_WAITS_SECONDS: readonly number[] = [60, 300, 900, 3600, 10_800, 21_600, 43_200];

/** SQS DelaySeconds stops here. */
export const SQS_MAX_DELAY_SECONDS = 900;

/** One attempt of a delivery, as the queue carries it. `generation` rises with every manual resend: older messages are stale. */
export interface DeliveryMessage {
  readonly v: 1;
  readonly partner_id: string;
  readonly webhook_id: string;
  /** The callback's creator: the worker reads its account with the callback, in one request. */
  readonly account_id?: string;
  readonly delivery_id: string;
  /** The attempt this message asks for (1..MAX_ATTEMPTS). */
  readonly attempt: number;
  readonly generation: number;
}

/** The retry state machine's input. */
export interface RetryExecutionInput {
  readonly wait_seconds: number;
  readonly message: DeliveryMessage;
}

/**
 * How to carry the next attempt after failed attempt `failed` (1-based): a delayed message, or the
 * state machine. The carrier follows the real wait (what SQS could hold in AWS); `scale` (the local
 * stack's `--webhook-wait-scale`, 1 in AWS) only shortens the time waited, so a scaled local run
 * takes the same path through the queue and the state machine as a deployed one.
 */
export function nextAttemptRoute(failed: number, scale = 1): { via: 'queue'; delaySeconds: number } | { via: 'state-machine'; waitSeconds: number } | undefined {
  if (failed < 1 || failed >= MAX_ATTEMPTS) return undefined;
  const wait = RETRY_WAITS_SECONDS[failed - 1];
  const scaled = scale === 1 ? wait : Math.max(0, wait * scale);
  return wait <= SQS_MAX_DELAY_SECONDS ? { via: 'queue', delaySeconds: scaled } : { via: 'state-machine', waitSeconds: scaled };
}

/** Names of the definition's states (the local runner overrides `QueueAttempt` and scales `WaitBeforeAttempt`). */
export const RETRY_STATES = { wait: 'WaitBeforeAttempt', queue: 'QueueAttempt', failed: 'AttemptNotQueued' } as const;

/** Step Functions' optimized SQS integration. */
export const SQS_SEND_MESSAGE_RESOURCE = 'arn:aws:states:::sqs:sendMessage';

/**
 * The retry state machine (Amazon States Language): wait `wait_seconds`, then put `message` on the
 * delivery queue, retrying the send with backoff; a send that keeps failing fails the execution
 * (an alarm watches failed executions; the sweeper, delivery-sweeper.ts, queues the attempt once it
 * is overdue past its grace).
 */
export function retryStateMachineDefinition(queueUrl: string) {
  return {
    Comment: 'partner-api webhooks: hold a delivery retry longer than SQS can delay a message, then queue the attempt',
    StartAt: RETRY_STATES.wait,
    States: {
      [RETRY_STATES.wait]: { Type: 'Wait', SecondsPath: '$.wait_seconds', Next: RETRY_STATES.queue },
      [RETRY_STATES.queue]: {
        Type: 'Task',
        Resource: SQS_SEND_MESSAGE_RESOURCE,
        Parameters: { QueueUrl: queueUrl, 'MessageBody.$': '$.message' },
        Retry: [{ ErrorEquals: ['States.ALL'], IntervalSeconds: 5, MaxAttempts: 4, BackoffRate: 2 }],
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: RETRY_STATES.failed }],
        End: true,
      },
      [RETRY_STATES.failed]: { Type: 'Fail', Error: 'AttemptNotQueued', Cause: 'The delivery queue refused the attempt after retries.' },
    },
  };
}
