/**
 * The back office's one error type. Codes are the operator's vocabulary
 * (the admin CLI prints them) and, for key creation, the spec's web-settings
 * codes (`INVALID_SCOPES`, `INVALID_EXPIRY`, `KEY_LIMIT`).
 */
import { RequestIdReused } from '../shared/storage/repeatable-requests';

export type BackOfficeCode =
  | 'INVALID_ARGUMENT'
  | 'ACCOUNT_NOT_FOUND'
  | 'ACCOUNT_INACTIVE'
  | 'ORG_NOT_FOUND'
  | 'PARTNER_INACTIVE'
  | 'PARTNER_MANAGER_REQUIRED'
  | 'MEMBER_NOT_FOUND'
  /** An organization's members are bounded (organization-entries.ts MEMBERS_PER_ORGANIZATION). */
  | 'MEMBER_LIMIT'
  | 'KEY_NOT_FOUND'
  | 'WEBHOOK_NOT_FOUND'
  | 'DELIVERY_NOT_FOUND'
  | 'DELIVERY_NOT_OPEN'
  | 'DELIVERY_MOVED'
  | 'EVENT_NOT_FOUND'
  | 'RECORD_NOT_FOUND'
  | 'ALREADY_ARCHIVED'
  | 'INVITATION_NOT_FOUND'
  | 'NOT_JOINED'
  | 'INSUFFICIENT_UNITS'
  | 'USE_NOT_FOUND'
  | 'INVALID_SCOPES'
  | 'INVALID_EXPIRY'
  | 'KEY_LIMIT'
  | 'EMAIL_TAKEN'
  | 'INVALID_PASSWORD'
  | 'INVALID_TWO_FACTOR'
  | 'TWO_FACTOR_ENABLED'
  | 'CONFLICT'
  /** An admin request id given again with other arguments (lambdas/shared/storage/repeatable-requests.ts). */
  | 'REQUEST_ID_REUSED';

export class BackOfficeError extends Error {
  constructor(
    readonly code: BackOfficeCode,
    message: string,
    /**
     * A wrong password or two-factor code: what the settings API audits and counts as a failed re-check
     * (lambdas/settings/re-check.ts). Not a refusal that merely shares the code ("two-factor is already on").
     */
    readonly wrongSecret = false,
  ) {
    super(message);
    this.name = 'BackOfficeError';
  }
}

/** A store's refusal of a reused request id as the back office's error; any other error as it is. */
export function officeError(error: unknown): unknown {
  return error instanceof RequestIdReused ? new BackOfficeError('REQUEST_ID_REUSED', error.message) : error;
}
