/**
 * Browser code of the settings page: the words it shows for the API's values, each table typed
 * against the value's type in the contracts (a value added there must be named here).
 */
import type { Session } from './page-state';
import type { ResponseOf } from './settings-api';

export const TWO_FACTOR: Readonly<Record<Session['two_factor'], string>> = { off: 'Off', pending: 'Pending confirmation', on: 'On' };

export const KEY_STATUS: Readonly<Record<ResponseOf<'settings-keys'>['keys'][number]['status'], string>> = {
  active: 'Active',
  expired: 'Expired',
  revoked: 'Revoked',
};

/** Why a key (or a callback, webhooks/labels.ts) is no longer usable. */
export const REASONS: Readonly<Record<string, string>> = {
  revoked_by_creator: 'revoked by you',
  account_credentials_reset: 'password changed or reset',
  account_deactivated: 'account deactivated',
  organization_missing: 'organization removed',
  organization_archived: 'organization archived',
  creator_not_manager: 'you no longer manage the organization',
};
