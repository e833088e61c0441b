/**
 * Optional TOTP two-factor (RFC 6238 through `otplib`: SHA-1, 6 digits,
 * 30-second steps, what every authenticator app uses), with a 160-bit
 * Base32 secret. A code is accepted one step either side of now (clock drift
 * and typing time) and only once: the caller keeps the last accepted step and
 * passes it back (`afterStep`), so a code seen over someone's shoulder cannot
 * be replayed within its window.
 *
 * `otplib` (and its hashing libraries) loads on the first two-factor call, not at a cold start: only the sign-in
 * and two-factor routes use it (lib/config/bundling.ts).
 */
import { loadOnce } from '../shared/load-once';

const otp = loadOnce(() => import('otplib'));

export const TWO_FACTOR_ISSUER = 'Partner API';
const CODE_PATTERN = /^[0-9]{6}$/;
const STEP_SECONDS = 30;

/** Whether `code` can be a code at all (six digits): what acceptedStep checks first, for callers that must decide before opening a seed. */
export const isWellFormedCode = (code: unknown): code is string => typeof code === 'string' && CODE_PATTERN.test(code);

export async function newTwoFactorSecret(): Promise<string> {
  return (await otp()).generateSecret({ length: 20 });
}

/** The `otpauth://totp/…` URI an authenticator app scans (shown once, at enrolment). */
export async function twoFactorUri(label: string, secret: string): Promise<string> {
  return (await otp()).generateURI({ issuer: TWO_FACTOR_ISSUER, label, secret });
}

/** The time step a code is valid for, if `code` is the secret's code near `now` and later than `afterStep`. */
export async function acceptedStep(secret: string, code: unknown, now: Date, afterStep?: number): Promise<number | undefined> {
  if (!isWellFormedCode(code)) return undefined;
  const epoch = Math.floor(now.getTime() / 1000);
  const { verify } = await otp();
  const result = await verify({
    secret,
    token: code,
    epoch,
    epochTolerance: 30,
    ...(afterStep !== undefined ? { afterTimeStep: afterStep } : {}),
  }).catch(() => undefined);
  // The step the code belongs to: now's step plus the offset it matched at.
  return result?.valid ? Math.floor(epoch / STEP_SECONDS) + result.delta : undefined;
}

/**
 * Whether `code` is the secret's code of time step `step`, however long ago: a retried confirmation recognising the
 * code that turned two-factor on (sign-in.ts). It accepts nothing: only acceptedStep lets a code in.
 */
export async function isCodeOfStep(secret: string, code: unknown, step: number): Promise<boolean> {
  return isWellFormedCode(code) && (await (await otp()).generate({ secret, epoch: step * STEP_SECONDS })) === code;
}

/** When time step `step` began. */
export const stepStart = (step: number): Date => new Date(step * STEP_SECONDS * 1000);

/** The code of `secret` at `now` (what an authenticator app shows; the tests use it). */
export async function codeAt(secret: string, now: Date): Promise<string> {
  return (await otp()).generate({ secret, epoch: Math.floor(now.getTime() / 1000) });
}
