/**
 * Fault injection for the local stack (tests only): make the Nth call of a given kind, made by a given
 * part of the service (an API function's invocation, or a part of the webhook pipeline), fail — or kill
 * the invocation making it — and watch the service recover. Never reachable in a deployed function: a
 * plan exists only when a test hands one to the local stack (LocalStackOptions.faults, or
 * LocalStackOptions.webhooks.faults), which then wraps what it gives the shared platform (the DynamoDB
 * document client, the queue, the state machine, the sealer, the sender) and, for `api`, each invocation
 * of the API's functions behind the local front.
 *
 * Each invocation of a pipeline part (a fan-out batch, a worker batch, a sweeper run, a state
 * machine task) runs in its own context (AsyncLocalStorage), so a rule counts only that part's calls
 * and a crash ends only that invocation. Calls outside any invocation (the API's handlers, the
 * back office) are never counted or failed.
 *
 * Effects:
 * - `fail`: the call is not made; it throws (a throttle, a refused connection).
 * - `fail-after`: the call is made and takes effect, but its answer is lost; it throws (a timeout
 *   after DynamoDB committed the write or SQS accepted the message): every try of the SDK lost, the
 *   caller sees the error.
 * - `lose-answer` (DynamoDB calls only): the call takes effect, then its answer is replaced by a
 *   TimeoutError below the SDK's retry, so the SDK sends the same request again (one lost try of the
 *   SDK's three, as a busy table gives them).
 * - `crash`: the invocation dies before the call: the call and every later call of that invocation
 *   fail, so nothing more of it reaches the world (its `finally` blocks included), and the
 *   invocation fails as a whole (the queue keeps its whole batch; the stream retries its batch).
 * - `crash-after`: the same, right after the call answered (a worker dying after the receiver's 2xx,
 *   before the outcome is written; an API function reaching its deadline right after a write: the
 *   front answers 502 as API Gateway does).
 * - `duplicate`: the call is made twice (SQS delivering a message twice: SendMessage only).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoOperationOf } from '../lambdas/shared/storage/dynamo-client';
import type { DeliveryQueue, MessageVisibility, RetryScheduler, SecretSealer, WebhookRuntime } from '../lambdas/webhooks/webhook-runtime';

/** The parts of the pipeline whose calls can be failed. */
export type PipelineComponent = 'fan-out' | 'worker' | 'state-machine' | 'sweeper' | 'api';

/**
 * A kind of call: a DynamoDB operation (`Query`, `PutItem`, `BatchGetItem`, `UpdateItem`,
 * `TransactWriteItems`, ...), `SendMessage` (the delivery queue), `ChangeMessageVisibility` (the
 * worker setting when a message it failed on comes back), `DeleteMessage` (the queue's mapping
 * acknowledging a handled message), `StartExecution` (the retry state machine), `Decrypt`
 * (opening a signing secret) or `https` (the attempt's request to the receiver).
 */
export type FaultCall = string;

export type FaultEffect = 'fail' | 'fail-after' | 'lose-answer' | 'crash' | 'crash-after' | 'duplicate';

/** The error a lost answer gives the SDK: a request timeout, which its retry strategy sends again. */
export function lostAnswerError(): Error {
  return Object.assign(new Error('answer lost after the write was applied (injected)'), { name: 'TimeoutError', $metadata: {} });
}

export interface FaultRule {
  readonly component: PipelineComponent;
  readonly call: FaultCall;
  /** Only calls whose input this accepts (a DynamoDB call's command input: its key, its update expression). */
  readonly matches?: (input: Readonly<Record<string, unknown>>) => boolean;
  /** Which matching call of that kind by that component, counted from when the rule is armed (1-based; default 1). */
  readonly nth?: number;
  readonly effect: FaultEffect;
}

/** One call the pipeline made while a plan watched. */
export interface CallRecord {
  readonly component: PipelineComponent;
  readonly call: FaultCall;
  /** Which invocation made it (increasing). */
  readonly invocation: number;
}

/** What the injected fault throws. */
export class InjectedFault extends Error {
  constructor(
    readonly rule: FaultRule,
    readonly made: boolean,
  ) {
    super(`Injected fault: ${rule.component} ${rule.call} #${rule.nth ?? 1} (${rule.effect})`);
    this.name = 'InjectedFault';
  }
}

/** What every call of a crashed invocation throws. */
export class SimulatedCrash extends Error {
  constructor(readonly component: PipelineComponent) {
    super(`Simulated crash of a ${component} invocation`);
    this.name = 'SimulatedCrash';
  }
}

interface Invocation {
  readonly component: PipelineComponent;
  readonly id: number;
  crashed: boolean;
}

interface ArmedRule {
  readonly rule: FaultRule;
  seen: number;
  fired: boolean;
}

export class FaultPlan {
  private readonly context = new AsyncLocalStorage<Invocation>();
  private readonly rules: ArmedRule[] = [];
  private readonly calls: CallRecord[] = [];
  private invocations = 0;

  /** Arm a rule; `fired()` says whether its fault happened yet. */
  arm(rule: FaultRule): { fired(): boolean } {
    if (rule.effect === 'duplicate' && rule.call !== 'SendMessage') throw new RangeError('Only SendMessage can be duplicated');
    if (rule.effect === 'lose-answer' && /^[A-Z]/.test(rule.call) === false) throw new RangeError('Only a DynamoDB call can lose an answer below the SDK');
    const armed: ArmedRule = { rule, seen: 0, fired: false };
    this.rules.push(armed);
    return { fired: () => armed.fired };
  }

  /** Disarm every rule (fired or not) and forget the calls seen. */
  reset(): void {
    this.rules.splice(0);
    this.calls.splice(0);
  }

  /** The calls made since the last reset, in order. */
  trace(): readonly CallRecord[] {
    return [...this.calls];
  }

  /**
   * Run one invocation of a pipeline part in its own context. A crashed invocation fails as a
   * whole, whatever it returned (its platform would have reported nothing).
   */
  async invocation<T>(component: PipelineComponent, run: () => Promise<T>): Promise<T> {
    const invocation: Invocation = { component, id: ++this.invocations, crashed: false };
    const result = await this.context.run(invocation, run).catch((error: unknown) => {
      if (invocation.crashed) throw new SimulatedCrash(component);
      throw error;
    });
    if (invocation.crashed) throw new SimulatedCrash(component);
    return result;
  }

  /** A consumer (the queue's or the stream's) whose every call is an invocation of `component`. */
  consumer<E, R>(component: PipelineComponent, consume: (event: E) => Promise<R>): (event: E) => Promise<R> {
    return (event) => this.invocation(component, () => consume(event));
  }

  /**
   * One call of kind `call`, through the armed rules. Made by the current invocation, or (with
   * `component`) by a call of its own outside any (the queue's mapping deleting a message).
   */
  async around<T>(call: FaultCall, make: () => Promise<T>, component?: PipelineComponent, input: Readonly<Record<string, unknown>> = {}, loseAnswer?: () => void): Promise<T> {
    if (component) return this.invocation(component, () => this.around(call, make, undefined, input, loseAnswer));
    const invocation = this.context.getStore();
    if (!invocation) return make();
    if (invocation.crashed) throw new SimulatedCrash(invocation.component);
    this.calls.push({ component: invocation.component, call, invocation: invocation.id });
    // Every armed rule this call matches counts it; the first whose turn it is fires.
    let armed: ArmedRule | undefined;
    for (const r of this.rules) {
      if (r.fired || r.rule.component !== invocation.component || r.rule.call !== call || !(r.rule.matches?.(input) ?? true)) continue;
      r.seen += 1;
      if (!armed && r.seen === (r.rule.nth ?? 1)) armed = r;
    }
    if (!armed) return make();
    armed.fired = true;
    switch (armed.rule.effect) {
      case 'fail':
        throw new InjectedFault(armed.rule, false);
      case 'crash':
        invocation.crashed = true;
        throw new SimulatedCrash(invocation.component);
      case 'fail-after':
        await make();
        throw new InjectedFault(armed.rule, true);
      case 'lose-answer':
        if (!loseAnswer) throw new RangeError(`${call} cannot lose an answer below the SDK`);
        loseAnswer();
        return make();
      case 'crash-after':
        await make();
        invocation.crashed = true;
        throw new SimulatedCrash(invocation.component);
      case 'duplicate':
        await make();
        return make();
    }
  }

  /**
   * Every DynamoDB call of the client goes through the plan (named by its API operation). A `lose-answer` rule marks
   * the call; below the SDK's retry (its `deserialize` step runs once per try) the marked call's first try is made and
   * its answer replaced by a TimeoutError, so the SDK sends the request again.
   */
  instrument(client: DynamoDBDocumentClient): DynamoDBDocumentClient {
    const marked = new WeakSet<object>();
    client.middlewareStack.add(
      (next, context) => (args) =>
        this.around(dynamoOperationOf(context.commandName), () => next(args), undefined, args.input as Record<string, unknown>, () => marked.add(context)),
      { step: 'initialize', name: 'localFaultInjection' },
    );
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (marked.delete(context)) throw lostAnswerError();
        return result;
      },
      { step: 'deserialize', name: 'localFaultInjectionLostAnswer' },
    );
    return client;
  }

  /** An API function's handler whose every invocation is an `api` invocation of the plan (the local front calls it). */
  apiHandler<E, C, R>(handler: (event: E, context: C) => Promise<R>): (event: E, context: C) => Promise<R> {
    return (event, context) => this.invocation('api', () => handler(event, context));
  }

  /** The queue's SendMessage through the plan (`component`: sends of a part that is not an invocation of its own, the state machine's task). */
  queue(queue: DeliveryQueue, component?: PipelineComponent): DeliveryQueue {
    return { send: (message, delaySeconds) => this.around('SendMessage', () => queue.send(message, delaySeconds), component) };
  }

  visibility(visibility: MessageVisibility): MessageVisibility {
    return { change: (receiptHandle, seconds) => this.around('ChangeMessageVisibility', () => visibility.change(receiptHandle, seconds)) };
  }

  scheduler(scheduler: RetryScheduler): RetryScheduler {
    return { schedule: (name, input) => this.around('StartExecution', () => scheduler.schedule(name, input)) };
  }

  sealer(sealer: SecretSealer): SecretSealer {
    return { seal: (secret, context) => sealer.seal(secret, context), open: (sealed, context) => this.around('Decrypt', () => sealer.open(sealed, context)) };
  }

  sender(send: WebhookRuntime['send']): WebhookRuntime['send'] {
    return (request) => this.around('https', () => send(request));
  }
}
