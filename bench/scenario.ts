/**
 * What a benchmark scenario is: a name, an untimed setup, a run that returns
 * rows, and a teardown. Scenarios are listed in scenarios/index.ts; adding
 * one is a new file there. Rows name the baseline they are compared with, and
 * the runner computes every ratio against the baseline measured in the same
 * run, never against a fixed threshold.
 */
import type { DemoData } from '../local/seed';
import type { LocalStack } from '../local/local-stack';
import type { AccessLogCapture, DynamoFigures } from './access-log';
import type { LatencySummary } from './stats';

export interface LoadPlan {
  /** Concurrent clients each latency scenario is measured at. */
  readonly concurrencies: readonly number[];
  readonly warmupRequests: number;
  readonly measuredRequests: number;
  /** Requests of a key the container has not seen (each one timed alone). */
  readonly coldRequests: number;
  /** Fresh `node` processes per bundle for the import time. */
  readonly importRuns: number;
}

export interface BenchContext {
  readonly projectRoot: string;
  readonly stack: LocalStack;
  readonly demo: DemoData;
  readonly accessLog: AccessLogCapture;
  readonly plan: LoadPlan;
  /** Progress for the person watching (stderr, so stdout stays the report). */
  progress(message: string): void;
}

/** A row's baseline: the row of that scenario and variant at the same concurrency. */
export interface BaselineRef {
  readonly scenario: string;
  readonly variant: string;
}

/** Per-request DynamoDB work, averaged over the measured requests' access-log lines. */
export interface DynamoPerRequest extends DynamoFigures {
  /** Measured requests whose access-log line carried the figures. */
  readonly logged: number;
  readonly round_trips_min: number;
  readonly round_trips_max: number;
}

export interface LatencyRow extends LatencySummary {
  readonly kind: 'latency';
  readonly scenario: string;
  /** What was measured, for the table, e.g. `GET /me`. */
  readonly label: string;
  readonly variant: string;
  readonly concurrency: number;
  readonly dynamo?: DynamoPerRequest;
  readonly baseline?: BaselineRef;
}

export interface ImportTime {
  readonly median_ms: number;
  readonly runs_ms: readonly number[];
}

export interface BundleRow {
  readonly kind: 'bundle';
  readonly scenario: string;
  /** Endpoint group, or `bare` for the baseline handler. */
  readonly name: string;
  readonly entry: string;
  readonly bytes: number;
  readonly kib: number;
  readonly source_map_kib: number;
  /** `require()` of the bundle in a fresh node with NODE_OPTIONS=--enable-source-maps, as the construct deploys it. */
  readonly import_deployed: ImportTime;
  /** The same without source-map support, to show what the source map costs at cold start. */
  readonly import_plain: ImportTime;
  /** Name of the bundle row this one is compared with. */
  readonly baseline?: string;
}

export type Row = LatencyRow | BundleRow;

export interface Scenario<State> {
  readonly name: string;
  readonly description: string;
  /** Prepare what the runs need (clients, items, bundles); not timed. */
  setup?(context: BenchContext): Promise<State>;
  run(context: BenchContext, state: State): Promise<Row[]>;
  teardown?(context: BenchContext, state: State): Promise<void>;
}

/** A scenario with its state type erased, as the registry holds it. */
export interface RegisteredScenario {
  readonly name: string;
  readonly description: string;
  execute(context: BenchContext): Promise<Row[]>;
}

export function defineScenario<State = void>(scenario: Scenario<State>): RegisteredScenario {
  return {
    name: scenario.name,
    description: scenario.description,
    execute: async (context) => {
      const state = (await scenario.setup?.(context)) as State;
      try {
        return await scenario.run(context, state);
      } finally {
        await scenario.teardown?.(context, state);
      }
    },
  };
}
