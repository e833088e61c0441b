/**
 * The retry state machine's definition (lambdas/webhooks/delivery-schedule.ts), the one the stack
 * deploys, run with aws-local-stepfunctions: every branch — the wait then the send, a send that
 * fails and is retried with the definition's backoff, a send that keeps failing and ends in the
 * `AttemptNotQueued` Fail state — and the transitions each costs.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { RETRY_STATES, retryStateMachineDefinition, SQS_SEND_MESSAGE_RESOURCE, type RetryExecutionInput } from '../../../lambdas/webhooks/delivery-schedule';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/partner-api-test-webhook-deliveries';
const definition = () => retryStateMachineDefinition(QUEUE_URL) as StateMachineDefinition;
const input: RetryExecutionInput = {
  wait_seconds: 3600,
  message: { v: 1, partner_id: 'org_1', webhook_id: 'whk_1', delivery_id: 'dlv_1', attempt: 5, generation: 2 },
};
type Json = Parameters<StateMachine['run']>[0];
type Event = { type: string; state?: { name: string; input?: unknown }; Error?: string };

/** Runs the definition once; `events` resolves with the execution's event log when it ends. */
function run(options: Parameters<StateMachine['run']>[1], executionInput: unknown = input) {
  const execution = new StateMachine(definition()).run(executionInput as Json, options);
  const events = (async () => {
    const all: Event[] = [];
    for await (const event of execution.eventLogs) all.push(event as Event);
    return all;
  })();
  return { result: execution.result, events };
}

const entered = (events: Event[]) => events.filter((event) => event.type === 'StateEntered').map((event) => event.state?.name);

afterEach(() => {
  vi.useRealTimers();
});

describe('retry state machine definition', () => {
  it('passes the ASL validation (paths, ARNs, reachability) that the local runner applies on construction', () => {
    // Prepare
    const broken = { ...definition(), States: { ...definition().States, [RETRY_STATES.wait]: { Type: 'Wait', SecondsPath: '$.wait_seconds', Next: 'Nowhere' } } };

    // Act / Assess
    expect(() => new StateMachine(definition())).not.toThrow();
    expect(definition().States[RETRY_STATES.queue]).toMatchObject({ Type: 'Task', Resource: SQS_SEND_MESSAGE_RESOURCE });
    // The validation is real: a transition to a missing state is refused.
    expect(() => new StateMachine(broken as StateMachineDefinition)).toThrow(/invalid/i);
  });

  it('waits, then sends the message as the MessageBody to the queue: two states entered', async () => {
    // Prepare
    const sent: unknown[] = [];
    const sendMessage = async (parameters: unknown) => {
      sent.push(parameters);
      return { MessageId: 'm-1' };
    };

    // Act
    const { result, events } = run({
      overrides: { taskResourceLocalHandlers: { [RETRY_STATES.queue]: sendMessage as never }, waitTimeOverrides: { [RETRY_STATES.wait]: 0 } },
    });

    // Assess
    expect(await result).toEqual({ MessageId: 'm-1' });
    // The Task's effective input is its Parameters: the queue's URL and the message itself (SQS gets it as JSON).
    expect(sent).toEqual([{ QueueUrl: QUEUE_URL, MessageBody: input.message }]);
    const log = await events;
    expect(entered(log)).toEqual([RETRY_STATES.wait, RETRY_STATES.queue]);
    expect(log.find((event) => event.type === 'StateEntered' && event.state?.name === RETRY_STATES.wait)?.state?.input).toEqual(input);
    expect(log.at(-1)?.type).toBe('ExecutionSucceeded');
  });

  it('waits exactly the input’s wait_seconds (SecondsPath), read from the input', async () => {
    // Prepare
    vi.useFakeTimers();
    const sendMessage = vi.fn(async () => ({ MessageId: 'm-2' }));

    // Act
    const { result } = run({ overrides: { taskResourceLocalHandlers: { [RETRY_STATES.queue]: sendMessage } } }, { ...input, wait_seconds: 90 });
    await vi.advanceTimersByTimeAsync(89_999);
    const sentBeforeTheWaitEnded = sendMessage.mock.calls.length;
    await vi.advanceTimersByTimeAsync(1);

    // Assess
    expect(sentBeforeTheWaitEnded).toBe(0);
    expect(await result).toEqual({ MessageId: 'm-2' });
    expect(sendMessage).toHaveBeenCalledTimes(1);
  });

  it('takes whole seconds only in SecondsPath, as Step Functions does: a fractional wait fails the execution', async () => {
    // Prepare
    const sendMessage = vi.fn(async () => ({ MessageId: 'never' }));

    // Act
    const { result, events } = run({ overrides: { taskResourceLocalHandlers: { [RETRY_STATES.queue]: sendMessage } } }, { ...input, wait_seconds: 1.5 });

    // Assess
    await expect(result).rejects.toThrow();
    expect(sendMessage).not.toHaveBeenCalled();
    expect((await events).at(-1)?.type).toBe('ExecutionFailed');
  });

  it('retries a failed send after 5 s, then 10 s (IntervalSeconds 5, BackoffRate 2), and succeeds', async () => {
    // Prepare
    vi.useFakeTimers();
    let calls = 0;
    const sendMessage = vi.fn(async () => {
      calls += 1;
      if (calls <= 2) throw new Error('AWS.SimpleQueueService.ServiceUnavailable');
      return { MessageId: 'm-3' };
    });

    // Act
    const { result, events } = run({
      overrides: { taskResourceLocalHandlers: { [RETRY_STATES.queue]: sendMessage }, waitTimeOverrides: { [RETRY_STATES.wait]: 0 } },
    });
    await vi.advanceTimersByTimeAsync(4_999);
    const afterFirstPause = calls;
    await vi.advanceTimersByTimeAsync(1);
    const afterFirstRetry = calls;
    await vi.advanceTimersByTimeAsync(9_999);
    const beforeSecondRetry = calls;
    await vi.advanceTimersByTimeAsync(1);

    // Assess
    expect([afterFirstPause, afterFirstRetry, beforeSecondRetry]).toEqual([1, 2, 2]);
    expect(await result).toEqual({ MessageId: 'm-3' });
    expect(sendMessage).toHaveBeenCalledTimes(3);
    const log = await events;
    expect(log.filter((event) => event.type === 'StateRetried')).toHaveLength(2);
    expect(entered(log)).toEqual([RETRY_STATES.wait, RETRY_STATES.queue]);
  });

  it('retries quickly with retryIntervalOverrides and recovers after transient failures', async () => {
    // Prepare
    let calls = 0;
    const sendMessage = async () => {
      calls += 1;
      if (calls === 1) throw new Error('throttled');
      return { MessageId: 'm-4' };
    };

    // Act
    const { result, events } = run({
      overrides: {
        taskResourceLocalHandlers: { [RETRY_STATES.queue]: sendMessage },
        waitTimeOverrides: { [RETRY_STATES.wait]: 0 },
        retryIntervalOverrides: { [RETRY_STATES.queue]: 0 },
      },
    });

    // Assess
    expect(await result).toEqual({ MessageId: 'm-4' });
    expect(calls).toBe(2);
    expect((await events).filter((event) => event.type === 'StateRetried')).toHaveLength(1);
  });

  it('fails the execution with AttemptNotQueued when the send keeps failing: 1 try and 4 retries, then the Catch', async () => {
    // Prepare
    const sendMessage = vi.fn(async () => {
      throw new Error('AWS.SimpleQueueService.NonExistentQueue');
    });

    // Act
    const { result, events } = run({
      overrides: {
        taskResourceLocalHandlers: { [RETRY_STATES.queue]: sendMessage },
        waitTimeOverrides: { [RETRY_STATES.wait]: 0 },
        retryIntervalOverrides: { [RETRY_STATES.queue]: 0 },
      },
    });

    // Assess
    const failure = await result.then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure?.cause as Error).name).toBe(RETRY_STATES.failed);
    expect(failure?.message).toContain('The delivery queue refused the attempt after retries.');
    expect(sendMessage).toHaveBeenCalledTimes(5);
    const log = await events;
    expect(entered(log)).toEqual([RETRY_STATES.wait, RETRY_STATES.queue, RETRY_STATES.failed]);
    expect(log.filter((event) => event.type === 'StateRetried')).toHaveLength(4);
    expect(log.filter((event) => event.type === 'StateCaught')).toHaveLength(1);
    // The Catch keeps the input and adds the error under $.error (ResultPath), so the Fail state sees the message too.
    expect(log.find((event) => event.state?.name === RETRY_STATES.failed)?.state?.input).toEqual({
      ...input,
      error: { Error: 'Error', Cause: 'AWS.SimpleQueueService.NonExistentQueue' },
    });
    expect(log.at(-1)).toMatchObject({ type: 'ExecutionFailed', Error: RETRY_STATES.failed });
  });
});
