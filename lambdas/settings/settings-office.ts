/**
 * The adapters every web-settings function shares over the back office (lambdas/back-office): one back office per
 * container, the session lookup the pipeline uses, the back office's errors as the settings API's codes, the audit
 * source of a settings call, and the session view (the sign-in answer and `GET session`). Used by the settings
 * operations, the sign-in function (lambdas/sign-in) and the webhooks function's session lookup.
 */
import { createBackOffice, BackOfficeError, type BackOffice, type BackOfficeCode } from '../back-office/back-office';
import type { SignInItem } from '../back-office/sign-in-items';
import { ApiError, type ErrorCode } from '../shared/errors';
import type { AccountItem } from '../shared/identity/access-items';
import { perPlatform } from '../shared/platform';
import { sealerOf } from '../shared/sealing';
import { requireTable } from '../shared/storage/table-names';
import type { SettingsOperationInput as OperationInput, SettingsSession } from './settings-pipeline';

/** One back office per platform (per container): its client, the `access` table, the platform's clock. */
export const officeOf = perPlatform((platform): BackOffice => createBackOffice(platform.documentClient, requireTable(platform.tables, 'access'), platform.clock, undefined, () => sealerOf(platform)));


/** The back office's codes as the settings API answers them (the spec's web-settings codes where there is one). */
const CODES: Partial<Record<BackOfficeCode, ErrorCode>> = {
  INVALID_PASSWORD: 'INVALID_PASSWORD',
  INVALID_TWO_FACTOR: 'INVALID_TWO_FACTOR',
  INVALID_SCOPES: 'INVALID_SCOPES',
  INVALID_EXPIRY: 'INVALID_EXPIRY',
  KEY_LIMIT: 'KEY_LIMIT',
  KEY_NOT_FOUND: 'KEY_NOT_FOUND',
  TWO_FACTOR_ENABLED: 'TWO_FACTOR_ENABLED',
  ACCOUNT_INACTIVE: 'ACCOUNT_INACTIVE',
  PARTNER_INACTIVE: 'PARTNER_INACTIVE',
  PARTNER_MANAGER_REQUIRED: 'PARTNER_MANAGER_REQUIRED',
  // Whether an organization exists is not the caller's business: they manage it or they do not.
  ORG_NOT_FOUND: 'PARTNER_MANAGER_REQUIRED',
  INVALID_ARGUMENT: 'INVALID_FIELD',
  CONFLICT: 'SETTINGS_CONFLICT',
  // The signed-in account vanished: as if signed out.
  ACCOUNT_NOT_FOUND: 'SESSION_REQUIRED',
};

/** Run a domain call, answering its BackOfficeError with the settings API's code (anything else stays a 500). */
export async function domain<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof BackOfficeError) {
      const code = CODES[error.code];
      if (code === 'PARTNER_MANAGER_REQUIRED') throw new ApiError(code, 'Organization keys need an active manager of the organization.');
      if (code) throw new ApiError(code, code === 'SESSION_REQUIRED' || code === 'SETTINGS_CONFLICT' ? undefined : error.message);
    }
    throw error;
  }
}

export const sessionOf = (input: OperationInput): SettingsSession => input.session as SettingsSession;
export const sourceOf = (input: OperationInput) => ({ via: 'settings' as const, sourceIp: input.sourceIp });

/** Who is signed in: the account's name, e-mail address and two-factor state (two reads in parallel, unless given). */
export async function sessionView(office: BackOffice, accountId: string, sessionExpiresAt: string, read?: { account: AccountItem; signIn: SignInItem }) {
  const [account, signIn] = read ? [read.account, read.signIn] : await Promise.all([office.accounts.get(accountId), office.signIn.get(accountId)]);
  if (!account || !signIn) throw new ApiError('SESSION_REQUIRED');
  return {
    account_id: accountId,
    name: account.name,
    email: signIn.email,
    two_factor: signIn.two_factor_secret ? ('on' as const) : signIn.two_factor_pending ? ('pending' as const) : ('off' as const),
    session_expires_at: sessionExpiresAt,
  };
}
