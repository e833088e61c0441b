/**
 * How `npm start`'s process ends: with one orderly stop of the local stack,
 * whatever ends it —
 * - Ctrl-C (SIGINT), SIGTERM, SIGHUP (the terminal closed): exit 0;
 * - an uncaught exception or unhandled rejection, a failed start or seed: exit 1;
 * - the process that launched this one, or the command its terminal job
 *   started (`npm start`, with `sh` between it and this process),
 *   going away: killed with SIGKILL, it runs no code and tells nobody: exit 1.
 *
 * Its output may go before it does (a terminal or harness that closed its end
 * of the pipes): every write then fails with EPIPE. Unhandled, each failure is
 * an uncaught exception whose report is another failing write — an endless
 * loop on the next-tick queue that starves the timers, so the stop and its
 * deadline never come. The output streams get an error handler that marks
 * them gone and writes nothing; the process's own reports go through `say`,
 * which says nothing to a gone output.
 *
 * The stop is bounded: past the deadline the process exits anyway. That is
 * safe because DynamoDB Local's watchdog (dynamo-local-watchdog.mjs) stops
 * Java when this process is gone, however it goes; the in-process workers end
 * with the process.
 */
import { execFileSync } from 'node:child_process';

export interface StackLifetime {
  /** What to stop when the process ends (the local stack, once it has started); last registered, first stopped. */
  stopWith(stop: () => Promise<void>): void;
  /** End the process: run the stops once (bounded), then exit with `code`. Later calls join the first. */
  end(code: number, reason?: string): Promise<never>;
}

export interface StackLifetimeOptions {
  /** The longest the orderly stop may take before the process exits anyway. */
  readonly deadlineMs?: number;
  /** How often to check that the launching process is still there. */
  readonly launcherPollMs?: number;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** A second signal this long after the first forces the exit (npm relays the terminal's Ctrl-C to its script: one press can arrive twice). */
const FORCE_AFTER_MS = 1_000;

/** Whether stdout or stderr has failed (its reader gone): nothing more is written to it. */
let outputGone = false;

/** Is this an output stream failing (EPIPE and the like on stdout or stderr), not a failure of the stack? */
function isOutputFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END' || code === 'ECONNRESET';
}

/** A report of the process on stderr, unless its reader is gone. */
function say(...parts: unknown[]): void {
  if (outputGone) return;
  try {
    console.error(...parts);
  } catch {
    outputGone = true;
  }
}

export function guardStackLifetime(options: StackLifetimeOptions = {}): StackLifetime {
  const deadlineMs = options.deadlineMs ?? 30_000;
  for (const stream of [process.stdout, process.stderr]) {
    // Never written to from here: a write would fail the same way.
    stream.on('error', () => {
      outputGone = true;
    });
  }
  const stops: Array<() => Promise<void>> = [];
  let ending: Promise<never> | undefined;
  let firstSignalAt: number | undefined;

  const end = (code: number, reason?: string): Promise<never> => {
    ending ??= (async () => {
      if (reason) say(`\n${reason}: stopping the local stack`);
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, deadlineMs));
      const stopped = (async () => {
        for (const stop of [...stops].reverse()) await stop().catch((error: unknown) => say('local stack: stop failed:', error));
      })();
      await Promise.race([stopped, deadline.then(() => say(`local stack: not stopped within ${deadlineMs / 1000} s, exiting anyway`))]);
      process.exit(code);
    })();
    return ending;
  };

  for (const signal of SIGNALS) {
    process.on(signal, () => {
      const now = Date.now();
      if (firstSignalAt === undefined) {
        firstSignalAt = now;
        void end(0, signal);
      } else if (now - firstSignalAt >= FORCE_AFTER_MS) {
        say(`${signal} again: exiting now`);
        process.exit(1);
      }
    });
  }
  process.on('uncaughtException', (error) => {
    // An output that failed is no crash of the stack: it keeps serving until it is told to stop.
    if (isOutputFailure(error)) {
      outputGone = true;
      return;
    }
    say('local stack: uncaught exception:', error);
    void end(1, 'Crashed');
  });
  process.on('unhandledRejection', (reason) => {
    say('local stack: unhandled rejection:', reason);
    void end(1, 'Crashed');
  });

  // The launcher is gone when this process is reparented (not watched when it is init itself, pid 1); the job's first
  // process (npm) when it no longer exists. Polled: neither sends word when killed with SIGKILL.
  // A launcher often dies of the very signal this process got with it (SIGHUP or Ctrl-C to the whole job). The timers
  // run before the event loop reads pending signals, so the verdict waits for the check phase (setImmediate), after that
  // read: a signal that came with the launcher's end is reported as itself, not as the launcher gone.
  const launcher = process.ppid;
  const job = jobLeader();
  if (launcher !== 1 || job !== undefined) {
    const watch = setInterval(() => {
      const gone =
        launcher !== 1 && process.ppid !== launcher
          ? `The process that started it (pid ${launcher}) is gone`
          : job !== undefined && !isAlive(job)
            ? `The command that started its job (pid ${job}) is gone`
            : undefined;
      if (gone) setImmediate(() => void end(1, gone));
    }, options.launcherPollMs ?? 1_000);
    watch.unref();
  }

  return {
    stopWith: (stop) => void stops.push(stop),
    end,
  };
}

/**
 * The first process of this process's terminal job: the leader of its process group, as a shell with job
 * control makes `npm start` (npm and sh above this process share its group). Undefined when this
 * process leads its own group, when the leader is already gone (a subshell that started it in the
 * background and exited: nothing to follow), or where `ps` cannot say.
 */
function jobLeader(): number | undefined {
  try {
    const group = Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(process.pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return Number.isInteger(group) && group > 1 && group !== process.pid && isAlive(group) ? group : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // There, but not ours to signal.
  }
}
