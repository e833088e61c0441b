/**
 * The operator's back office for identity, by concept: accounts,
 * organizations, memberships and API keys. The admin CLI, the local stack's
 * seed and the web settings function (lambdas/settings) call it; the partner API's request path never does.
 *
 * Every lifecycle trigger of the spec's "API key lifecycle" table raises a
 * generation or replaces a grant in one conditional write, so a key revoked
 * by it can never come back (docs/identity.md).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Accounts } from './accounts';
import { sharedPlatform } from '../shared/platform';
import { sealerOf, type Sealer } from '../shared/sealing';
import { Audit } from './audit';
import { TwoFactorSeeds } from './two-factor-seeds';
import { ApiKeys } from './api-keys';
import { IdentityStore, type Clock } from './identity-store';
import { Memberships } from './memberships';
import { Organizations } from './organizations';
import { EntitlementsOffice } from './entitlements';
import { InvitationsOffice } from './invitations';
import { RecordsOffice } from './records';
import { Sessions } from './sessions';
import { SignIn } from './sign-in';
import { WebhooksOffice } from './webhooks';

export interface BackOffice {
  readonly accounts: Accounts;
  /** Signing in (e-mail, password, two-factor) and the account's two-factor settings. */
  readonly signIn: SignIn;
  /** Web-settings sessions (idle and absolute expiry, ended by a password change). */
  readonly sessions: Sessions;
  readonly organizations: Organizations;
  readonly memberships: Memberships;
  readonly keys: ApiKeys;
  /** The account's audit trail (30 days): settings changes, sign-ins, the operator's changes. */
  readonly audit: Audit;
  /** Webhook callbacks and their deliveries (the operator's view). */
  readonly webhooks: WebhooksOffice;
  /** Present when the `domain` table is given. */
  readonly records?: RecordsOffice;
  readonly entitlements?: EntitlementsOffice;
  readonly invitations?: InvitationsOffice;
}

/** The back office over the `access` table (identity) and, when given, the `domain` table (records, events). */
/**
 * The back office over a client and the `access` table (and `domain` for the business offices). `sealer`: where
 * two-factor seeds are sealed (the function's platform; by default the process's: the local stack's, or KMS).
 */
export function createBackOffice(client: DynamoDBDocumentClient, table: string, clock?: Clock, domainTable?: string, sealer: () => Sealer = () => sealerOf(sharedPlatform())): BackOffice {
  const store = new IdentityStore(client, table, clock);
  const organizationIsActive = async (partnerId: string) => (await store.getOrg(partnerId))?.status === 'active';
  const accounts = new Accounts(store);
  const audit = new Audit(store);
  return {
    accounts,
    signIn: new SignIn(store, accounts, audit, new TwoFactorSeeds(sealer)),
    sessions: new Sessions(store),
    organizations: new Organizations(store),
    memberships: new Memberships(store),
    keys: new ApiKeys(store),
    audit,
    webhooks: new WebhooksOffice(client, table, clock, domainTable),
    ...(domainTable ? {
          records: new RecordsOffice(client, domainTable, clock, organizationIsActive),
          entitlements: new EntitlementsOffice(client, domainTable, clock),
          invitations: new InvitationsOffice(client, domainTable, clock),
        } : {}),
  };
}

export { BackOfficeError, type BackOfficeCode } from './errors';
export { AUDIT_RETENTION_DAYS, type AuditAction, type AuditEntry, type AuditSource } from './audit';
export { KEY_LIMIT_PER_ACCOUNT, KEY_VALIDITY_DAYS, type CreateKeyInput, type CreatedKey, type ListedKey } from './api-keys';
