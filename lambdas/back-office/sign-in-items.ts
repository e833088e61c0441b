/**
 * Account e-mail addresses: one account per address. Compared as normalized
 * here (trimmed, NFC, lower case: a mailbox's local part is case-sensitive
 * in theory, never in practice, and two accounts differing by case would
 * confuse their owners). At most 254 characters, one `@`, a dot in the
 * domain, no whitespace or control characters.
 */
export const EMAIL_MAX_CHARACTERS = 254;

const EMAIL_PATTERN = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;

/** The normalized address, or undefined when `text` is not an acceptable address. */
export function normalizeEmail(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const email = text.trim().normalize('NFC').toLowerCase();
  return [...email].length <= EMAIL_MAX_CHARACTERS && EMAIL_PATTERN.test(email) ? email : undefined;
}

/** The item that reserves an address for one account (`access` table). */
export const emailKey = (email: string) => ({ pk: `EMAIL#${email}`, sk: 'EMAIL' });

/**
 * An account's sign-in credentials, apart from the account item the admission reads and writes on
 * every request (which stays small, and never carries a password hash into a request's memory).
 */
export const signInKey = (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: 'SIGNIN' });

export interface SignInItem {
  readonly account_id: string;
  /** Normalized; reserved by the `EMAIL#` item. */
  readonly email: string;
  /** scrypt hash (passwords.ts); absent: the account cannot sign in until a password is set. */
  readonly password_hash?: string;
  readonly password_changed_at?: string;
  /** The hash the account's own last change replaced: its caller's retry is recognised by it (accounts.ts changePassword). */
  readonly previous_password_hash?: string;
  /** The confirmed TOTP secret (two-factor.ts): two-factor is on while it is present. */
  readonly two_factor_secret?: string;
  /** A secret shown at enrolment, waiting for its first code (it replaces nothing until confirmed). */
  readonly two_factor_pending?: string;
  /** The last time step a code was accepted for: a code is accepted once. */
  readonly two_factor_step?: number;
  /** The step of the code that turned two-factor on: a retry of that confirmation is recognised by it (sign-in.ts). */
  readonly two_factor_confirmed_step?: number;
}
