/**
 * How many password hashes (scrypt: passwords.ts) run at once in one process, and how long one waits for its turn.
 *
 * Node runs `crypto.scrypt` on libuv's threadpool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which queues
 * what it cannot start without telling anyone: under a crowd of re-checked changes each request waited there, unseen,
 * until its function timed out (502 at the front, nothing to retry by). The gate makes that queue the service's own: a
 * counting semaphore of `capacity` slots whose waiters are first come, first served, each starting no later than the
 * time it is given (passwords.ts: what leaves the request time to hash and answer before its deadline, asked again when
 * a slot comes free, since the hashes' times move with the machine's load). A waiter whose time runs out is refused
 * (PasswordCheckBusy) and leaves the queue; a slot is given back whatever the hash did (an error too).
 *
 * The capacity (passwordCheckCapacity), per process:
 * - by memory: a hash at the production cost takes PASSWORD_HASH_MEMORY_MB, and the process needs
 *   FUNCTION_BASE_MEMORY_MB beside its hashes; Lambda says the function's memory in AWS_LAMBDA_FUNCTION_MEMORY_SIZE
 *   (a reserved variable, https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html). Elsewhere (the
 *   local stack, the admin CLI, a test) there is no such bound: a developer's machine has gigabytes;
 * - by threads: one fewer than the threadpool's, so the pool's other work (the SDK's DNS lookups, file reads, zlib,
 *   other crypto) never waits behind hashes;
 * - by cores: more hashes at once than cores only share the cores, so each takes longer and all finish later.
 * At least 1. A Lambda execution serves one request at a time and a request's hashes run one after another, so there
 * the gate never queues; it bounds the local stack, one process for every function, and anything that serves
 * requests concurrently.
 */
import { availableParallelism } from 'node:os';

/** Memory one hash at the production cost allocates: 128 · N · r bytes, N = 2^17, r = 8 (passwords.ts). */
export const PASSWORD_HASH_MEMORY_MB = (128 * 2 ** 17 * 8) / 2 ** 20;
/**
 * What a function's process holds beside its hashes: Node.js 22, the function's bundle and its SDK clients (about
 * 60–100 MB resident; docs/infrastructure.md, "Password hashes and memory"), rounded up.
 */
export const FUNCTION_BASE_MEMORY_MB = 128;
/** libuv's threadpool when UV_THREADPOOL_SIZE does not set it. */
const DEFAULT_THREADPOOL_SIZE = 4;

/** Hashes that fit in `memoryMb` beside the process itself (0 when not even one does). */
export const hashesInMemory = (memoryMb: number): number => Math.max(0, Math.floor((memoryMb - FUNCTION_BASE_MEMORY_MB) / PASSWORD_HASH_MEMORY_MB));

export interface CapacityInputs {
  /** The environment: AWS_LAMBDA_FUNCTION_MEMORY_SIZE, UV_THREADPOOL_SIZE. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** os.availableParallelism(). */
  readonly cores?: number;
}

/** How many hashes this process runs at once (see the module header). */
export function passwordCheckCapacity({ env = process.env, cores = availableParallelism() }: CapacityInputs = {}): number {
  const memoryMb = Number(env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE);
  const byMemory = Number.isInteger(memoryMb) && memoryMb > 0 ? hashesInMemory(memoryMb) : Number.POSITIVE_INFINITY;
  const threads = Number(env.UV_THREADPOOL_SIZE);
  const byThreads = (Number.isInteger(threads) && threads > 0 ? threads : DEFAULT_THREADPOOL_SIZE) - 1;
  return Math.max(1, Math.min(byMemory, byThreads, cores));
}

/** The refusal of a hash that found no slot in the time it had; `retryAfterSeconds`: when the slots should be free. */
export class PasswordCheckBusy extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('Too many password checks are running at once');
    this.name = 'PasswordCheckBusy';
  }
}

export interface TurnLimits {
  /**
   * The latest time (epoch ms) this hash may start in a slot it waited for; Infinity: its turn, however long. Asked when
   * it starts waiting and again when a slot comes free. A slot free when it comes is taken whatever this says.
   */
  latestStart(): number;
  /** About how long one hash holds its slot (ms): what a refusal's Retry-After is counted in. */
  holdMs(): number;
}

interface Waiter {
  readonly limits: TurnLimits;
  readonly admit: () => void;
  readonly refuse: () => void;
}

/** What the gate is doing, for the bench and tests. */
export interface GateFigures {
  readonly capacity: number;
  readonly running: number;
  readonly waiting: number;
  /** Hashes given a slot, and refused, since the gate was made. */
  readonly admitted: number;
  readonly refused: number;
}

export class PasswordGate {
  private running = 0;
  private readonly queue: Waiter[] = [];
  private admitted = 0;
  private refused = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`A password gate needs at least one slot, not ${capacity}`);
  }

  /** `work` in a slot: at once when one is free and nobody waits, else after those before it, or PasswordCheckBusy. */
  async run<T>(work: () => Promise<T>, limits: TurnLimits): Promise<T> {
    await this.enter(limits);
    try {
      return await work();
    } finally {
      this.leave();
    }
  }

  figures(): GateFigures {
    return { capacity: this.capacity, running: this.running, waiting: this.queue.length, admitted: this.admitted, refused: this.refused };
  }

  private enter(limits: TurnLimits): Promise<void> {
    if (this.running < this.capacity && this.queue.length === 0) {
      this.take();
      return Promise.resolve();
    }
    const waitMs = limits.latestStart() - Date.now();
    if (!(waitMs > 0)) return Promise.reject(this.refusal(this.queue.length, limits.holdMs()));
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        limits,
        admit: () => {
          clearTimeout(timer);
          this.take();
          resolve();
        },
        // Out of the queue already: refused with those that were before it.
        refuse: () => {
          clearTimeout(timer);
          reject(this.refusal(0, limits.holdMs()));
        },
      };
      if (Number.isFinite(waitMs)) {
        timer = setTimeout(() => {
          const ahead = this.queue.indexOf(waiter);
          this.queue.splice(ahead, 1);
          reject(this.refusal(ahead, limits.holdMs()));
        }, waitMs);
      }
      this.queue.push(waiter);
    });
  }

  private take(): void {
    this.running += 1;
    this.admitted += 1;
  }

  /** The slot to the first waiter that may still start now; those whose latest start passed meanwhile are refused. */
  private leave(): void {
    this.running -= 1;
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      if (Date.now() <= next.limits.latestStart()) return next.admit();
      next.refuse();
    }
  }

  /**
   * Refused with `ahead` waiters before it: it would have started once they and the running hashes were through, about
   * (ahead / capacity + 1) holds from now. At least a second (Retry-After counts whole seconds).
   */
  private refusal(ahead: number, holdMs: number): PasswordCheckBusy {
    this.refused += 1;
    const waitMs = (Math.floor(ahead / this.capacity) + 1) * holdMs;
    return new PasswordCheckBusy(Math.max(1, Math.ceil(waitMs / 1000)));
  }
}
