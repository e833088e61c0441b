/**
 * Interleavings of concurrent operations over DynamoDB Local, chosen by fast-check's scheduler (`fc.scheduler()`), so
 * that a race is explored and a failing order is shrunk and replayed from its seed instead of sampled by the machine's
 * timing.
 *
 * Each operation runs in its own context; every DynamoDB call it makes through `client` first parks at a gate. When
 * every live operation is parked at one gate or more (or done) — whatever uncontrolled work (a password hash, a seal) it did between two
 * calls — the parked gates are handed to the scheduler in a fixed order (operation, then call), and the scheduler
 * releases exactly one. So one call runs at a time, each call is one step of the interleaving, and the same seed makes
 * the same order.
 *
 * Faults are steps too: `fault(kind)` is a pseudo-operation whose one gate, when the scheduler releases it, arms the
 * fault for the next write call made, wherever the scheduler put it:
 * - `lose-answer`: the write is applied and its first answer lost below the SDK's retry (the SDK sends it again);
 * - `fail-after`: the write is applied and the operation sees an error (every try's answer lost, or the function's
 *   deadline right after the write);
 * - `fail`: the write fails before it is made.
 *
 * A model's plan is a list of `ScheduledStep`s generated and shrunk by `fc.commands` (operations and faults); `runPlan`
 * starts them all at once and drives them, and the model's property checks what must hold afterwards.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { lostAnswerError } from '../../local/fault-injection';
import { localDocumentClient } from '../../local/local-stack';
import { dynamoOperationOf } from '../../lambdas/shared/storage/dynamo-client';

export type ScheduledFault = 'lose-answer' | 'fail-after' | 'fail';

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem']);

export class InjectedStorageFault extends Error {
  constructor(readonly kind: ScheduledFault) {
    super(`injected ${kind}`);
    this.name = 'InjectedStorageFault';
  }
}

interface Gate {
  readonly operation: number;
  readonly label: string;
  readonly open: () => void;
  scheduled: boolean;
}

export class Interleaver {
  readonly client: DynamoDBDocumentClient;
  /** The steps in the order the scheduler released them (for a failing run's message). */
  readonly steps: string[] = [];
  private readonly context = new AsyncLocalStorage<number>();
  private readonly gates: Gate[] = [];
  private readonly armed: ScheduledFault[] = [];
  private readonly labels = new Map<number, string>();
  private live = 0;
  private operations = 0;
  private changed: () => void = () => undefined;

  constructor(
    private readonly scheduler: fc.Scheduler,
    endpoint: string,
  ) {
    this.client = localDocumentClient(endpoint);
    const lose = new WeakSet<object>();
    this.client.middlewareStack.add(
      (next, context) => async (args) => {
        const call = dynamoOperationOf(context.commandName);
        const operation = this.context.getStore();
        if (operation === undefined) return next(args);
        await this.gate(operation, call);
        const fault = WRITES.has(call) ? this.armed.shift() : undefined;
        if (fault === 'fail') throw new InjectedStorageFault(fault);
        if (fault === 'lose-answer') lose.add(context);
        const result = await next(args);
        if (fault === 'fail-after') throw new InjectedStorageFault(fault);
        return result;
      },
      { step: 'initialize', name: 'interleaverGate' },
    );
    this.client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (lose.delete(context)) throw lostAnswerError();
        return result;
      },
      { step: 'deserialize', name: 'interleaverLostAnswer' },
    );
  }

  /** Start an operation; its DynamoDB calls through `client` are steps of the interleaving. */
  start<T>(label: string, run: () => Promise<T>): Promise<T> {
    const id = (this.operations += 1);
    this.labels.set(id, label);
    this.live += 1;
    return this.context.run(id, () => run()).finally(() => {
      this.live -= 1;
      this.changed();
    }) as Promise<T>;
  }

  /** A fault, placed among the steps by the scheduler: it hits the next write made after it is released. */
  fault(kind: ScheduledFault): Promise<void> {
    return this.start(`fault ${kind}`, async () => {
      await this.gate(this.context.getStore()!, 'armed');
      this.armed.push(kind);
    });
  }

  /** Release steps one at a time, as the scheduler chooses, until every operation has ended. */
  async drive<T>(operations: Promise<T>[]): Promise<PromiseSettledResult<T>[]> {
    const settled = Promise.allSettled(operations);
    while (this.live > 0) {
      await this.quiet();
      if (this.live === 0) break;
      // Every live operation is parked: hand the new gates over in a fixed order, then let the scheduler pick one.
      const fresh = this.gates.filter((g) => !g.scheduled).sort((a, b) => a.operation - b.operation || a.label.localeCompare(b.label));
      for (const gate of fresh) {
        gate.scheduled = true;
        const step = `#${gate.operation} ${this.labels.get(gate.operation)}: ${gate.label}`;
        void this.scheduler.schedule(Promise.resolve(), step).then(() => {
          this.gates.splice(this.gates.indexOf(gate), 1);
          this.steps.push(step);
          gate.open();
        });
      }
      await this.scheduler.waitNext(1);
      // The released gate's own continuation (it leaves `gates`) runs before the next count of parked operations.
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.armed.splice(0);
    return settled;
  }

  private gate(operation: number, label: string): Promise<void> {
    return new Promise((open) => {
      this.gates.push({ operation, label, open, scheduled: false });
      this.changed();
    });
  }

  /** Until every live operation waits at a gate (its uncontrolled work between two calls done), or none is live. */
  private quiet(): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        // An operation may wait at several gates at once (calls it makes in parallel): count operations, not gates.
        if (this.live === 0 || new Set(this.gates.map((g) => g.operation)).size === this.live) {
          this.changed = () => undefined;
          resolve();
        }
      };
      this.changed = check;
      check();
    });
  }

  destroy(): void {
    this.client.destroy();
  }
}

/** The runs and seed of the model-based race tests: few in `npm test`, many in `npm run test:races` (scripts/races.ts). */
export function raceParameters(defaultRuns: number): { numRuns: number; seed?: number; path?: string } {
  const seed = process.env.RACES_SEED;
  return {
    numRuns: Number(process.env.RACES_RUNS ?? defaultRuns),
    ...(seed ? { seed: Number(seed) } : {}),
    ...(process.env.RACES_PATH ? { path: process.env.RACES_PATH } : {}),
  };
}

/**
 * One step of a race model, as a fast-check command: `fc.commands` generates and shrinks the list, and the model's
 * property starts every step of it at once under the interleaver (`start`), where the scheduler orders their calls.
 * An operation runs `act` on the run's world; a fault is a step placed by the scheduler (`Interleaver.fault`).
 * `tag` names what the step is about (a browser, an idempotency key) for the model's checks.
 */
export class ScheduledStep<W extends { readonly interleaver: Interleaver }, R = unknown> implements fc.AsyncCommand<object, W> {
  private constructor(
    private readonly label: string,
    readonly fault: ScheduledFault | undefined,
    readonly tag: string | undefined,
    private readonly act: ((world: W) => Promise<R>) | undefined,
  ) {}

  static operation<W extends { readonly interleaver: Interleaver }, R>(label: string, act: (world: W) => Promise<R>, tag?: string): ScheduledStep<W, R> {
    return new ScheduledStep<W, R>(label, undefined, tag, act);
  }

  static fault<W extends { readonly interleaver: Interleaver }, R = never>(kind: ScheduledFault): ScheduledStep<W, R> {
    return new ScheduledStep<W, R>(`fault ${kind}`, kind, undefined, undefined);
  }

  check(): true {
    return true;
  }

  /** Started beside the run's other steps: the operation under the interleaver, or the fault among the steps. */
  start(world: W): Promise<R | undefined> {
    const act = this.act;
    return act ? world.interleaver.start(this.label, () => act(world)) : world.interleaver.fault(this.fault!).then(() => undefined);
  }

  /** fast-check's entry (through its wrapper, which marks the step for a counterexample's report): starts the step and hands its outcome to the model. */
  run(model: object, world: W): Promise<void> {
    const started = this.start(world);
    (model as Partial<PlanModel<R>>).started?.(started);
    return started.then(
      () => undefined,
      () => undefined,
    );
  }

  toString(): string {
    return this.label;
  }
}

/** The three faults a model's plan may place among its operations. */
export function faultSteps<W extends { readonly interleaver: Interleaver }, R = never>(): fc.Arbitrary<ScheduledStep<W, R>> {
  return fc.constantFrom<ScheduledFault>('lose-answer', 'fail-after', 'fail').map((kind) => ScheduledStep.fault<W, R>(kind));
}

interface PlanModel<R> {
  started(outcome: Promise<R | undefined>): void;
}

/**
 * Start every step of a plan `fc.commands` generated at once (each through fast-check's wrapper, so a counterexample
 * lists it), drive them under the run's interleaver, and answer each step with its outcome, in plan order.
 */
export async function runPlan<W extends { readonly interleaver: Interleaver }, R>(
  commands: Iterable<fc.AsyncCommand<object, W>>,
  world: W,
): Promise<{ steps: ScheduledStep<W, R>[]; outcomes: PromiseSettledResult<R | undefined>[] }> {
  const steps: ScheduledStep<W, R>[] = [];
  const started: Promise<R | undefined>[] = [];
  const model: PlanModel<R> = { started: (outcome) => started.push(outcome) };
  for (const command of commands) {
    steps.push(((command as { cmd?: unknown }).cmd ?? command) as ScheduledStep<W, R>);
    void command.run(model, world);
  }
  return { steps, outcomes: await world.interleaver.drive(started) };
}
