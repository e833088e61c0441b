/**
 * Signing in to web settings, and the account's two-factor: the domain the
 * settings API (sessions) and the admin CLI share.
 *
 * - `verify`: e-mail, password and, when two-factor is on, a code. A wrong
 *   password and an unknown e-mail fail alike (INVALID_PASSWORD), after the
 *   same scrypt work (passwords.ts `verifyAgainstDecoy`), so neither the
 *   answer nor its timing tells which e-mails exist. A missing or wrong code
 *   is INVALID_TWO_FACTOR (only once the password was right).
 * - A code is accepted once: the step it belongs to is written with a
 *   condition that it is later than the last accepted one, so of two
 *   concurrent sign-ins with one code exactly one passes. The write is
 *   stamped (writeOnce): when its answer is lost and the SDK sends it again,
 *   the retry meets its own step and knows it, instead of refusing the code
 *   that was just accepted (and auditing a failure that was none).
 * - Enrolment needs the password, stores a pending secret and shows it (and
 *   its `otpauth://` URI) once; the password and the first valid code confirm
 *   it, which also ends every other session of the account (its session
 *   generation rises in the same transaction: a stolen session cannot stay
 *   signed in past the owner turning two-factor on). The confirming code's
 *   step is kept, so the caller's retry of a confirmation that was applied
 *   while it saw an error answers "on" (docs/web-settings.md). Disabling needs the
 *   password and a current code. So a session alone, stolen or left open,
 *   cannot enrol an attacker's authenticator and lock the owner out.
 */
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AccountItem } from '../shared/identity/access-items';
import { verifyAgainstDecoy, verifyPassword } from './passwords';
import { signInKey, type SignInItem } from './sign-in-items';
import { acceptedStep, isCodeOfStep, isWellFormedCode, newTwoFactorSecret, stepStart, twoFactorUri } from './two-factor';
import { isConditionFailure, isWriteConflict } from '../shared/storage/conditions';
import { writeOnce } from '../shared/storage/write-once';
import { endingSessions } from './sessions';
import { CHANGE_RETRY_WINDOW_MS } from './change-retry';
import type { Accounts } from './accounts';
import { auditPut, OPERATOR, type Audit, type AuditAction, type AuditSource } from './audit';
import { BackOfficeError } from './errors';
import type { TwoFactorSeeds } from './two-factor-seeds';
import type { IdentityStore } from './identity-store';

export interface SignInAttempt {
  readonly email: string;
  readonly password: string;
  readonly twoFactorCode?: string;
  /** Where the attempt comes from: a wrong code after the right password is audited with it. */
  readonly source?: AuditSource;
  /** Told the account the address belongs to, whatever the outcome (the call log names it). */
  readonly onAccount?: (accountId: string) => void;
}

const WRONG_CREDENTIALS = () => new BackOfficeError('INVALID_PASSWORD', 'The e-mail address or the password is wrong.', true);
const WRONG_CODE = () => new BackOfficeError('INVALID_TWO_FACTOR', 'The two-factor code is missing or wrong.', true);

/**
 * Told once a change's password (and code) re-check passed, before the change is made: the settings API counts the
 * change on the account's quotas there (lambdas/settings/re-check.ts), so a wrong password never spends them.
 */
export type Accepted = () => Promise<void>;
const NOTHING: Accepted = async () => undefined;

export class SignIn {
  constructor(
    private readonly store: IdentityStore,
    private readonly accounts: Accounts,
    private readonly audit: Audit,
    private readonly seeds: TwoFactorSeeds,
  ) {}

  /** The account signing in, or INVALID_PASSWORD / INVALID_TWO_FACTOR / ACCOUNT_INACTIVE. */
  async verify(attempt: SignInAttempt): Promise<AccountItem> {
    return (await this.authenticate(attempt)).account;
  }

  /** As verify, with the sign-in item read on the way (the settings API shows its e-mail and two-factor state). */
  async authenticate(attempt: SignInAttempt): Promise<{ account: AccountItem; signIn: SignInItem }> {
    const found = await this.accounts.findByEmail(attempt.email);
    if (found) attempt.onAccount?.(found.account.account_id);
    if (!found?.signIn.password_hash) {
      await verifyAgainstDecoy(attempt.password);
      throw WRONG_CREDENTIALS();
    }
    if (!(await verifyPassword(attempt.password, found.signIn.password_hash))) throw WRONG_CREDENTIALS();
    if (found.signIn.two_factor_secret) {
      try {
        await this.useCode(found.signIn, found.signIn.two_factor_secret, attempt.twoFactorCode);
      } catch (error) {
        // A missing code is the form's first step; a wrong (or replayed) one after the right password is worth a trace.
        if (error instanceof BackOfficeError && attempt.twoFactorCode !== undefined && attempt.twoFactorCode !== '') {
          await this.audit.record(found.account.account_id, 'sign_in.two_factor_failed', attempt.source ?? OPERATOR);
        }
        throw error;
      }
    }
    if (found.account.status !== 'active') throw new BackOfficeError('ACCOUNT_INACTIVE', 'The account is deactivated.');
    return { account: found.account, signIn: found.signIn };
  }

  /**
   * A new secret for the account, pending until confirmed: its value and `otpauth://` URI, shown this
   * once. Needs the password; refused while two-factor is on (disable it first: that needs the password and a code).
   */
  async enrolTwoFactor(accountId: string, password: string, source: AuditSource = OPERATOR, accepted: Accepted = NOTHING): Promise<{ secret: string; otpauth_uri: string }> {
    const signIn = await this.read(accountId);
    await this.checkPassword(signIn, password);
    if (signIn.two_factor_secret) throw new BackOfficeError('TWO_FACTOR_ENABLED', 'Two-factor is already on; disable it first.');
    await accepted();
    const secret = await newTwoFactorSecret();
    // Stored sealed (two-factor-seeds.ts); the clear secret is in this answer only.
    const sealed = await this.seeds.seal(accountId, secret);
    await this.change(accountId, 'SET two_factor_pending = :secret', 'attribute_exists(pk) AND attribute_not_exists(two_factor_secret)', { ':secret': sealed }, 'two_factor.enrolled', source);
    return { secret, otpauth_uri: await twoFactorUri(signIn.email, secret) };
  }

  /**
   * The password and the first valid code of the pending secret turn two-factor on with it, and end every
   * session of the account (the caller opens a new one for the browser that confirmed). `replayed`: this is the
   * caller's retry of a confirmation already made with this very code (within CHANGE_RETRY_WINDOW_MS), which
   * changed nothing now and ends no session.
   */
  async confirmTwoFactor(accountId: string, password: string, code: string, source: AuditSource = OPERATOR): Promise<{ two_factor: 'on'; replayed: boolean }> {
    const signIn = await this.read(accountId);
    await this.checkPassword(signIn, password);
    if (!signIn.two_factor_pending) {
      // The change may have been made while its caller saw an error (every answer lost, or the function ended after it).
      if (await this.confirmedWith(signIn, code)) return { two_factor: 'on', replayed: true };
      throw new BackOfficeError('INVALID_TWO_FACTOR', signIn.two_factor_secret ? 'Two-factor is already on.' : 'Enrol first: there is no secret to confirm.');
    }
    const step = await acceptedStep(await this.seeds.open(accountId, signIn.two_factor_pending), code, this.store.clock());
    if (step === undefined) throw WRONG_CODE();
    await this.change(
      accountId,
      'SET two_factor_secret = two_factor_pending, two_factor_step = :step, two_factor_confirmed_step = :step REMOVE two_factor_pending',
      'two_factor_pending = :pending',
      { ':step': step, ':pending': signIn.two_factor_pending },
      'two_factor.enabled',
      source,
      true,
    );
    return { two_factor: 'on', replayed: false };
  }

  /**
   * Whether two-factor was turned on with `code` (the code of the step that confirmed it), within the retry window.
   * Only the password, already checked, lets the caller ask; a match accepts nothing and opens no session.
   */
  private async confirmedWith(signIn: SignInItem, code: string): Promise<boolean> {
    const step = signIn.two_factor_confirmed_step;
    if (!signIn.two_factor_secret || step === undefined || !isWellFormedCode(code)) return false;
    if (this.store.clock().getTime() - stepStart(step).getTime() > CHANGE_RETRY_WINDOW_MS) return false;
    return isCodeOfStep(await this.seeds.open(signIn.account_id, signIn.two_factor_secret), code, step);
  }

  /** Two-factor off, with the password and a current code. */
  async disableTwoFactor(accountId: string, password: string, code: string, source: AuditSource = OPERATOR, accepted: Accepted = NOTHING): Promise<{ two_factor: 'off' }> {
    const signIn = await this.read(accountId);
    await this.checkPassword(signIn, password);
    if (!signIn.two_factor_secret) return { two_factor: 'off' };
    // The code is spent by the change it authorizes, in its transaction (its step later than the last accepted one):
    // a change that failed leaves the code unspent for the page's retry, and one that was applied is found off.
    const step = await this.acceptedCodeStep(signIn, signIn.two_factor_secret, code);
    await accepted();
    try {
      await this.change(
        accountId,
        'REMOVE two_factor_secret, two_factor_pending, two_factor_step, two_factor_confirmed_step',
        'two_factor_secret = :secret AND (attribute_not_exists(two_factor_step) OR two_factor_step < :step)',
        { ':secret': signIn.two_factor_secret, ':step': step },
        'two_factor.disabled',
        source,
      );
    } catch (error) {
      if (!(error instanceof BackOfficeError && error.code === 'CONFLICT')) throw error;
      const now = await this.read(accountId);
      if (!now.two_factor_secret) return { two_factor: 'off' };
      // The same code accepted meanwhile (another sign-in or change): used once.
      if (now.two_factor_secret === signIn.two_factor_secret && (now.two_factor_step ?? -1) >= step) throw WRONG_CODE();
      throw error;
    }
    return { two_factor: 'off' };
  }

  /**
   * The operator's recovery for an owner who lost the authenticator (admin CLI `account
   * reset-two-factor`): two-factor off, pending enrolment dropped, audited `two_factor.reset`. The
   * account's password and keys stay; its sessions end (one may be on the lost device): the owner
   * signs in with the password alone and enrols again. Verify who is asking before you run it
   * (docs/operations.md).
   */
  async resetTwoFactor(accountId: string): Promise<{ account_id: string; two_factor: 'off' }> {
    await this.read(accountId);
    await this.change(accountId, 'REMOVE two_factor_secret, two_factor_pending, two_factor_step, two_factor_confirmed_step', 'attribute_exists(pk)', {}, 'two_factor.reset', OPERATOR, true);
    return { account_id: accountId, two_factor: 'off' };
  }

  /**
   * Confirm the signed-in account again before a sensitive change (creating a webhook callback): its
   * password and, when two-factor is on, a code not used before. `read`: the account's sign-in item when already read
   * (the settings API reads it beside its admission); a code's use is conditioned on the item as it is then.
   */
  async confirm(accountId: string, password: string, code: string | undefined, read?: SignInItem): Promise<void> {
    const signIn = read?.account_id === accountId ? read : await this.read(accountId);
    await this.checkPassword(signIn, password);
    if (signIn.two_factor_secret) await this.useCode(signIn, signIn.two_factor_secret, code);
  }

  private async checkPassword(signIn: SignInItem, password: string): Promise<void> {
    if (!(await verifyPassword(password, signIn.password_hash))) throw new BackOfficeError('INVALID_PASSWORD', 'The password is wrong.', true);
  }

  /**
   * Accept `code` once: its step is recorded under the condition that it is later than the last accepted one (and
   * the seed still the one read: `secret` is the stored, sealed value, opened here only to check the code). Stamped
   * (writeOnce): the SDK's retry of a try whose answer was lost fails that condition on its own step, and is known
   * as this write by its stamp; a concurrent sign-in with the same code wrote another stamp, and stays refused.
   */
  private async useCode(signIn: SignInItem, secret: string, code: string | undefined): Promise<void> {
    const step = await this.acceptedCodeStep(signIn, secret, code);
    const outcome = await writeOnce(
      this.store.client,
      new UpdateCommand({
        TableName: this.store.table,
        Key: signInKey(signIn.account_id),
        UpdateExpression: 'SET two_factor_step = :step',
        ConditionExpression: 'two_factor_secret = :secret AND (attribute_not_exists(two_factor_step) OR two_factor_step < :step)',
        ExpressionAttributeValues: { ':step': step, ':secret': secret },
      }),
    );
    if (!outcome.applied) throw WRONG_CODE();
  }

  /** The step `code` belongs to, if it is the seed's code near now and later than the last accepted one; else INVALID_TWO_FACTOR. */
  private async acceptedCodeStep(signIn: SignInItem, secret: string, code: string | undefined): Promise<number> {
    // A code that cannot be one is refused before the seed is opened (no KMS call for it).
    if (!isWellFormedCode(code)) throw WRONG_CODE();
    const step = await acceptedStep(await this.seeds.open(signIn.account_id, secret), code, this.store.clock(), signIn.two_factor_step);
    if (step === undefined) throw WRONG_CODE();
    return step;
  }

  /** The account's sign-in item (e-mail address, password hash, two-factor state), if it signs in. */
  async get(accountId: string): Promise<SignInItem | undefined> {
    return (await this.store.getItem(signInKey(accountId))) as SignInItem | undefined;
  }

  private async read(accountId: string): Promise<SignInItem> {
    const item = await this.store.getItem(signInKey(accountId));
    if (!item) throw new BackOfficeError('ACCOUNT_NOT_FOUND', `No account ${accountId} that signs in`);
    return item as unknown as SignInItem;
  }

  /** One conditional change of the sign-in item and its audit entry (and, with `endSessions`, the account's session generation raised), in one transaction. */
  private async change(accountId: string, expression: string, condition: string, values: Record<string, unknown>, action: AuditAction, source: AuditSource, endSessions = false): Promise<void> {
    // A lost race with another transaction on the item (TransactionConflict) is tried again; a failed condition is not.
    return this.store.retryOnConflict(() => this.changeOnce(accountId, expression, condition, values, action, source, endSessions));
  }

  private async changeOnce(accountId: string, expression: string, condition: string, values: Record<string, unknown>, action: AuditAction, source: AuditSource, endSessions: boolean): Promise<void> {
    try {
      await this.store.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.store.table,
                Key: signInKey(accountId),
                UpdateExpression: expression,
                ConditionExpression: condition,
                ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
              },
            },
            auditPut(this.store, accountId, action, source),
            ...(endSessions ? [endingSessions(this.store, accountId)] : []),
          ],
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error) || isWriteConflict(error)) throw error;
      await this.read(accountId);
      throw new BackOfficeError('CONFLICT', 'The two-factor settings changed meanwhile; try again');
    }
  }
}
