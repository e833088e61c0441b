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
 * Rules (decided here; the spec leaves them open): 10–128 characters
 * (code points), not only whitespace. Nothing else is imposed: length is
 * what matters, and the sign-in limits stop guessing.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

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
 * quiet machine means this figure, and the reservations checked against it, must rise.
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

function scrypt(password: string, salt: Buffer, cost: PasswordCost): Promise<Buffer> {
  const N = 2 ** cost.logN;
  // Memory is 128 · N · r bytes; allow twice that.
  const options: ScryptOptions = { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r };
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFC'), salt, HASH_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
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
