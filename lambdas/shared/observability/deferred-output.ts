/**
 * Output whose writer loads on first use: the service's log lines and metric documents, whose writer (Powertools,
 * powertools.ts) is not in a cold start's modules. A write before the writer is loaded waits, in order, with the request
 * scope and the time of its call; once loaded, the waiting writes run in the order they were made, each in its own scope
 * with its own time, and every later write runs at once, in the same tick as its call. Nothing is lost or reordered;
 * `written()` resolves when everything asked so far is written (the invocation's last step awaits it, invocation.ts).
 */
import { loadOnce } from '../load-once';
import { currentRequestScope, runWithScope, type RequestScope } from './request-scope';

/** One write: given the writer, and for a write that waited, the time it was asked (its line's or document's time). */
export type Write<T> = (writer: T, askedAt?: Date) => void;

export interface DeferredOutput<T> {
  /** Write now if the writer is loaded, else when it is (starting its load). */
  write(write: Write<T>): void;
  /** Start loading the writer (an invocation's start: it loads while the request's first round trip is in flight). */
  start(): void;
  /** Resolves once the writer is loaded and every write asked so far is written. */
  written(): Promise<void>;
}

interface Waiting<T> {
  readonly write: Write<T>;
  readonly scope: RequestScope | undefined;
  readonly askedAt: Date;
}

export function deferredOutput<T>(load: () => Promise<T>): DeferredOutput<T> {
  let writer: T | undefined;
  const waiting: Waiting<T>[] = [];
  const loading = loadOnce(async () => {
    const loaded = await load();
    // Synchronously from here: no write can slip in between the waiting ones. One that throws stops none of the others.
    const failures: unknown[] = [];
    for (let next = waiting.shift(); next !== undefined; next = waiting.shift()) {
      const { write, scope, askedAt } = next;
      try {
        runWithScope(scope, () => write(loaded, askedAt));
      } catch (error) {
        failures.push(error);
      }
    }
    writer = loaded;
    if (failures.length > 0) throw failures[0];
  });
  const start = () => {
    loading().catch(() => undefined);
  };
  return {
    write: (write) => {
      if (writer) return write(writer);
      waiting.push({ write, scope: currentRequestScope(), askedAt: new Date() });
      start();
    },
    start,
    written: async () => {
      if (!writer || waiting.length > 0) await loading();
    },
  };
}
