/**
 * Account passwords: stored only as a salted, memory-hard scrypt hash
 * (Node's own `crypto.scrypt`: no native module for Lambda's bundle), in a
 * self-describing string so the cost can rise later without invalidating
 * stored hashes:
 *
 *   scrypt$1$<log2 N>$<r>$<p>$<salt, base64url>$<hash, base64url>
 *
 * Cost: N = 2^17, r = 8, p = 1 (128 MiB, OWASP's minimum for scrypt), a
 * 16-byte random salt, a 32-byte hash; about 0.3–0.5 s of one core, which
 * only sign-in and password changes pay. Verification compares in constant
 * time. `verifyAgainstDecoy` spends the same work for an unknown e-mail, so
 * a sign-in's timing does not tell which e-mails exist.
 *
 * The cost is the code's, not a stage option: every deployed stage and the local stack hash at
 * PRODUCTION_PASSWORD_COST. The test suite alone switches to TEST_PASSWORD_COST (1 MiB, about a
 * millisecond) from its setup file (test/support/test-password-cost.ts), through
 * usePasswordCostForTests, which refuses to run outside Vitest. Hashes say their own cost, so a
 * hash made at one cost verifies at that cost.
 *
 * How many hashes run at once in this process is decided here too, for every caller (sign-in, re-checked changes, the
 * admin CLI): each one takes a slot of the process's gate (password-gate.ts) and waits for one at most as long as leaves
 * its request time to hash before its deadline; past that it is refused with 503 PASSWORD_CHECK_BUSY and Retry-After,
 * before anything of its operation was written (every operation checks the password first; docs/web-settings.md).
 *
 * Rules (decided here; the spec leaves them open): 10–128 characters
 * (code points), not only whitespace. Nothing else is imposed: length is
 * what matters, and the sign-in limits stop guessing.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { ApiError } from '../shared/errors';
import { currentDeadline } from '../shared/storage/operation-deadline';
import { PasswordCheckBusy, PasswordGate, passwordCheckCapacity } from './password-gate';

export const PASSWORD_MIN_CHARACTERS = 10;
export const PASSWORD_MAX_CHARACTERS = 128;

export interface PasswordCost {
  readonly logN: number;
  readonly r: number;
  readonly p: number;
}
/** What every deployed stage and the local stack use: N = 2^17, r = 8, p = 1 (128 MiB). */
export const PRODUCTION_PASSWORD_COST: PasswordCost = Object.freeze({ logN: 17, r: 8, p: 1 });
/**
 * Seconds one password hash at PRODUCTION_PASSWORD_COST takes on one full vCPU (a sign-in's verification, or the decoy's
 * for an unknown address: the same work): what the sign-in function's reservation is checked against
 * (lib/config/stage-config.ts, signInPeakConcurrency; Lambda gives one vCPU at 1,769 MB). Measured as the wall time of
 * `verifyPassword` of a stored hash, one at a time in one Node.js 22 process with nothing else running: 0.47–0.57 s on
 * an AMD EPYC core (the bench machine, 2026-11), 0.5–0.8 s over the cores the security review measured; declared at
 * the top of that range so that a slower core (Lambda's arm64 among them) still fits. `npm run bench` measures it
 * again (its password-hash section: seconds per hash on its machine, this figure, their ratio); a ratio above 1 on a
 * quiet machine means this figure, and the reservations checked against it, must rise. It is also the least time a
 * hash is taken to hold a slot of the process's gate (holdMs below).
 */
export const PASSWORD_HASH_SECONDS_PER_VCPU = 0.8;
/** The test suite's (N = 2^10: 1 MiB): the lowest a stored hash may say (parse below). Never in a deployed function. */
export const TEST_PASSWORD_COST: PasswordCost = Object.freeze({ logN: 10, r: 8, p: 1 });
let COST: PasswordCost = PRODUCTION_PASSWORD_COST;

/** The cost new hashes and the decoy use in this process. */
export const passwordCostInUse = (): PasswordCost => COST;

/** Tests only: hash at TEST_PASSWORD_COST. Refused outside Vitest, so no deployed function or local stack can select it. */
export function usePasswordCostForTests(): void {
  if (process.env.VITEST !== 'true') throw new Error('usePasswordCostForTests is for the test suite only');
  COST = TEST_PASSWORD_COST;
}
const SALT_BYTES = 16;
const HASH_BYTES = 32;

let GATE = new PasswordGate(passwordCheckCapacity());

/** The gate every hash of this process passes (its figures for the bench; a test may hold a slot of it). */
export const passwordGate = (): PasswordGate => GATE;

/**
 * Tests only, in process (never an environment variable a deployed function reads): a gate of `capacity` slots instead
 * of the one this process's memory, threads and cores give, so a test's refusals do not wait for a slow enough machine.
 * Returns what puts the usual gate back. Refused outside Vitest, as usePasswordCostForTests.
 */
export function usePasswordCheckCapacity(capacity: number): () => void {
  if (process.env.VITEST !== 'true') throw new Error('usePasswordCheckCapacity is for the test suite only');
  GATE = new PasswordGate(capacity);
  return () => {
    GATE = new PasswordGate(passwordCheckCapacity());
  };
}

/** A hash's work at `cost` in production hashes (1 at PRODUCTION_PASSWORD_COST, 1/128 at the test cost). */
function workOf(cost: PasswordCost): number {
  return (2 ** cost.logN * cost.r * cost.p) / (2 ** PRODUCTION_PASSWORD_COST.logN * PRODUCTION_PASSWORD_COST.r * PRODUCTION_PASSWORD_COST.p);
}

/** How many of this process's latest hash times the hold estimate looks at. */
const RECENT_HASHES = 8;
/**
 * This process's latest hash times, per production hash (ms), newest last: on a loaded machine (cores shared with other
 * work) or at a small CPU share, above the declared figure, and uneven from one hash to the next.
 */
const recentHashMs: number[] = [];

/**
 * About how long one hash at `cost` holds a slot (ms), in proportion to the cost's work: the longest of the declared
 * full-vCPU figure and the latest hashes here, so that a hash let in near its request's deadline still ends before it.
 */
function holdMs(cost: PasswordCost): number {
  return Math.max(PASSWORD_HASH_SECONDS_PER_VCPU * 1000, ...recentHashMs) * workOf(cost);
}

/**
 * The latest a hash may start after waiting for a slot: its request's operation deadline (the function's, less the
 * pipeline's reserve for answering: storage/retry-budget.ts) less the hash itself. Outside a request (the admin CLI,
 * the seed) there is no deadline: its turn, however long.
 */
function latestStart(deadline: number | undefined, cost: PasswordCost): number {
  return deadline === undefined ? Number.POSITIVE_INFINITY : deadline - holdMs(cost);
}

function scrypt(password: string, salt: Buffer, cost: PasswordCost): Promise<Buffer> {
  const N = 2 ** cost.logN;
  // Memory is 128 · N · r bytes; allow twice that.
  const options: ScryptOptions = { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r };
  const deadline = currentDeadline();
  const hash = () => {
    const started = performance.now();
    return new Promise<Buffer>((resolve, reject) =>
      scryptCallback(password.normalize('NFC'), salt, HASH_BYTES, options, (error, key) => {
        recentHashMs.push((performance.now() - started) / workOf(cost));
        if (recentHashMs.length > RECENT_HASHES) recentHashMs.shift();
        return error ? reject(error) : resolve(key);
      }),
    );
  };
  return GATE.run(hash, { latestStart: () => latestStart(deadline, cost), holdMs: () => holdMs(cost) }).catch((error: unknown) => {
    if (error instanceof PasswordCheckBusy) throw new ApiError('PASSWORD_CHECK_BUSY', undefined, { 'Retry-After': String(error.retryAfterSeconds) });
    throw error;
  });
}

/** Whether `password` meets the rules (see the module header). */
export function isAcceptablePassword(password: unknown): password is string {
  if (typeof password !== 'string') return false;
  const length = [...password].length;
  return length >= PASSWORD_MIN_CHARACTERS && length <= PASSWORD_MAX_CHARACTERS && password.trim().length > 0;
}

export async function hashPassword(password: string, cost: PasswordCost = COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await scrypt(password, salt, cost);
  return ['scrypt', '1', cost.logN, cost.r, cost.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

interface ParsedHash {
  readonly cost: PasswordCost;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

function parse(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 7 || parts[0] !== 'scrypt' || parts[1] !== '1') return undefined;
  const [logN, r, p] = parts.slice(2, 5).map(Number);
  // Bounds, so a corrupted or hostile stored value cannot make verification allocate without limit.
  if (![logN, r, p].every(Number.isInteger) || logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 4) return undefined;
  const salt = Buffer.from(parts[5], 'base64url');
  const hash = Buffer.from(parts[6], 'base64url');
  if (salt.length < 16 || hash.length !== HASH_BYTES) return undefined;
  return { cost: { logN, r, p }, salt, hash };
}

/** Whether `password` is the one `stored` was made from. A malformed stored value matches nothing. */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const parsed = stored === undefined ? undefined : parse(stored);
  if (!parsed) {
    await verifyAgainstDecoy(password);
    return false;
  }
  const candidate = await scrypt(password, parsed.salt, parsed.cost);
  return timingSafeEqual(candidate, parsed.hash);
}

const DECOY_SALT = randomBytes(SALT_BYTES);

/** The work of one verification, for a sign-in whose account does not exist (or has no password). Always false. */
export async function verifyAgainstDecoy(password: string): Promise<false> {
  await scrypt(password, DECOY_SALT, COST);
  return false;
}
