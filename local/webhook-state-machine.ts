/**
 * The local counterpart of the retry state machine (Step Functions): the very definition the
 * stack deploys (retryStateMachineDefinition in lambdas/webhooks/delivery-schedule.ts), run by
 * aws-local-stepfunctions. Only two things are local: the `QueueAttempt` Task sends to the local
 * delivery queue instead of calling SQS, and the `WaitBeforeAttempt` state waits exactly
 * `wait_seconds` seconds (already scaled by the webhook code; the library's own SecondsPath only
 * takes whole seconds).
 *
 * Like StartExecution, a name starts at most one execution: a second start with a name already
 * used (running or finished) does nothing. Executions live in this process: stopping the local
 * stack aborts the waiting ones.
 */
import type { StateMachine, StateMachineDefinition } from 'aws-local-stepfunctions';
import { RETRY_STATES, retryStateMachineDefinition, type DeliveryMessage, type RetryExecutionInput } from '../lambdas/webhooks/delivery-schedule';
import type { DeliveryQueue, RetryScheduler } from '../lambdas/webhooks/webhook-runtime';
import { logger } from '../lambdas/shared/observability/logger';
import { LOCAL_QUEUE_URL } from './webhook-queue';

/**
 * The retry state machine as the local runner takes it, validated on construction. Loaded on the first schedule:
 * the runner and its validator cost most of a second, which a local stack that never retries long does not pay.
 */
async function loadRetryStateMachine(queueUrl: string): Promise<StateMachine> {
  const { StateMachine } = await import('aws-local-stepfunctions');
  return new StateMachine(retryStateMachineDefinition(queueUrl) as StateMachineDefinition);
}

/** The waits of the definition's `QueueAttempt` retrier, in order (IntervalSeconds, times BackoffRate after each retry). */
export function queueRetryIntervalsSeconds(queueUrl: string): number[] {
  const [retrier] = retryStateMachineDefinition(queueUrl).States[RETRY_STATES.queue].Retry;
  return Array.from({ length: retrier.MaxAttempts }, (_, i) => retrier.IntervalSeconds * retrier.BackoffRate ** i);
}

/** The effective input of the `QueueAttempt` Task: its `Parameters` applied to the state's input. */
export interface SendMessageParameters {
  readonly QueueUrl: string;
  readonly MessageBody: DeliveryMessage;
}

/**
 * Step Functions' execution names: 1 to 80 characters, none of whitespace, brackets, wildcards,
 * `"#%\^|~`$&,;:/` or control characters (StartExecution refuses others with InvalidName).
 */
// eslint-disable-next-line no-control-regex
const INVALID_NAME = /[\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]/;

export interface SchedulerStats {
  readonly executionsStarted: number;
  readonly executionsFailed: number;
  /** State transitions as Step Functions bills them: every state entered, and every retry of a state. */
  readonly transitions: number;
}

export class LocalRetryScheduler implements RetryScheduler {
  private machine: Promise<StateMachine> | undefined;
  /** Schedules accepted whose execution has not started yet (the runner is loading). */
  private starting = 0;
  private readonly names = new Set<string>();
  private readonly running = new Map<string, { abort: () => void; done: Promise<void>; deliveryId?: string }>();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly transitionsByExecution = new Map<string, number>();
  private counts = { executionsStarted: 0, executionsFailed: 0, transitions: 0 };
  private stopped = false;
  private readonly queueUrl: string;
  /** The `QueueAttempt` retrier's waits, ms, when scaled (undefined: as the definition says). */
  private readonly retryIntervalsMs: number[] | undefined;

  constructor(
    private readonly queue: DeliveryQueue,
    options: {
      readonly queueUrl?: string;
      /** The local stack's wait scale: the send's retry intervals shrink with the retry waits (default 1: as deployed). */
      readonly waitScale?: number;
    } = {},
  ) {
    this.queueUrl = options.queueUrl ?? LOCAL_QUEUE_URL;
    const scale = options.waitScale ?? 1;
    this.retryIntervalsMs = scale === 1 ? undefined : queueRetryIntervalsSeconds(this.queueUrl).map((seconds) => seconds * scale * 1000);
  }

  async schedule(name: string, input: RetryExecutionInput): Promise<void> {
    if (name.length < 1 || name.length > 80 || INVALID_NAME.test(name)) throw new Error(`InvalidName: Invalid Name: '${name}'`);
    if (this.stopped) throw new Error('The local retry state machine is stopped');
    // Same name: the adapter treats ExecutionAlreadyExists as done, so the local runner simply does nothing.
    if (this.names.has(name)) return;
    this.names.add(name);
    this.starting++;
    try {
      this.machine ??= loadRetryStateMachine(this.queueUrl);
      const machine = await this.machine;
      if (!this.stopped) this.start(machine, name, input);
    } finally {
      this.starting--;
      this.notifyIfIdle();
    }
  }

  stats(): SchedulerStats {
    return { ...this.counts };
  }

  /** Transitions of one execution so far (undefined for a name never started). */
  transitionsOf(name: string): number | undefined {
    return this.transitionsByExecution.get(name);
  }

  /** The deliveries whose next attempt a running execution holds. */
  heldDeliveryIds(): Set<string> {
    return new Set([...this.running.values()].flatMap((execution) => (execution.deliveryId ? [execution.deliveryId] : [])));
  }

  /** Executions running (most of them in their Wait). */
  runningCount(): number {
    return this.running.size;
  }

  isIdle(): boolean {
    return this.running.size === 0 && this.starting === 0;
  }

  /** Resolves once no execution is running (at once if none is, or when stopped). */
  drained(): Promise<void> {
    if (this.isIdle() || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Aborts the running executions (their waits end with the process, as nothing keeps them) and waits for them to settle. */
  async stop(): Promise<void> {
    this.stopped = true;
    const running = [...this.running.values()];
    running.forEach((execution) => execution.abort());
    await Promise.allSettled(running.map((execution) => execution.done));
    this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }

  private start(machine: StateMachine, name: string, input: RetryExecutionInput): void {
    const waitSeconds = input.wait_seconds;
    const execution = machine.run(input as unknown as Parameters<StateMachine['run']>[0], {
      noThrowOnAbort: true,
      context: { Execution: { Name: name, Id: `arn:aws:states:local:000000000000:execution:webhook-retry:${name}` } },
      overrides: {
        taskResourceLocalHandlers: {
          [RETRY_STATES.queue]: async (parameters) => {
            const { QueueUrl, MessageBody } = parameters as unknown as SendMessageParameters;
            if (QueueUrl !== this.queueUrl) throw new Error(`QueueDoesNotExist: ${QueueUrl}`);
            await this.queue.send(MessageBody, 0);
            return { MessageId: `${name}-attempt-${MessageBody.attempt}` };
          },
        },
        ...(this.retryIntervalsMs ? { retryIntervalOverrides: { [RETRY_STATES.queue]: this.retryIntervalsMs } } : {}),
        // A bad wait_seconds is left to the definition's SecondsPath, which fails the execution as Step Functions would.
        ...(typeof waitSeconds === 'number' && Number.isFinite(waitSeconds) && waitSeconds >= 0
          ? { waitTimeOverrides: { [RETRY_STATES.wait]: waitSeconds * 1000 } }
          : {}),
      },
    });
    this.counts.executionsStarted++;
    this.transitionsByExecution.set(name, 0);
    const counting = this.countTransitions(name, execution.eventLogs);
    const done = execution.result.then(
      () => undefined,
      (error: unknown) => {
        this.counts.executionsFailed++;
        logger.error('local retry state machine: execution failed', {
          execution: name,
          delivery_id: input.message?.delivery_id,
          attempt: input.message?.attempt,
          error: (error as { cause?: unknown }).cause ?? error,
        });
      },
    );
    const settled = Promise.all([done, counting]).then(() => {
      this.running.delete(name);
      this.notifyIfIdle();
    });
    this.running.set(name, { abort: execution.abort, done: settled, deliveryId: input.message?.delivery_id });
  }

  private notifyIfIdle(): void {
    if (this.isIdle()) this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }

  private async countTransitions(name: string, events: AsyncGenerator<{ type: string }>): Promise<void> {
    for await (const event of events) {
      if (event.type === 'StateEntered' || event.type === 'StateRetried') {
        this.counts.transitions++;
        this.transitionsByExecution.set(name, (this.transitionsByExecution.get(name) ?? 0) + 1);
      }
    }
  }
}
