/**
 * TOTP seeds at rest: sealed like webhook secrets (lambdas/shared/sealing.ts: KMS under the stage's
 * secrets key, AES-GCM locally) with an encryption context naming the purpose and the account, so a
 * seed opens only as that account's seed and only for a role the key policy lets use `two-factor`
 * (the settings function). A seed is opened only to check a code; the clear value is shown once, at
 * enrolment, and never stored.
 *
 * Seeds stored in clear before sealing (Base32, as otplib makes them) are still accepted: a sealed
 * value is `kms:…` or `local:…`, which Base32 never is. They are sealed when the owner next enrols.
 */
import type { EncryptionContext, Sealer } from '../shared/sealing';

export const TWO_FACTOR_PURPOSE = 'two-factor';
/** A seed as otplib makes it (the clear values of accounts enrolled before seeds were sealed). */
const CLEAR_SEED = /^[A-Z2-7]{16,128}$/;

export class TwoFactorSeeds {
  constructor(private readonly sealer: () => Sealer) {}

  seal(accountId: string, seed: string): Promise<string> {
    return this.sealer().seal(seed, contextOf(accountId));
  }

  /** The seed in clear, to check a code with. */
  async open(accountId: string, stored: string): Promise<string> {
    return CLEAR_SEED.test(stored) ? stored : this.sealer().open(stored, contextOf(accountId));
  }
}

const contextOf = (accountId: string): EncryptionContext => ({ purpose: TWO_FACTOR_PURPOSE, account_id: accountId });
